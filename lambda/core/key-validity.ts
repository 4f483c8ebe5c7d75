/**
 * When a key verifies, in whole unix seconds: the one comparison behind the verifier's refusal of
 * a key outside its window (`key_expired`, ./verify.ts) and the registry's count of operators that
 * can still sign (lambda/domain/operator-rules.ts). Pure: the caller passes the time.
 */

/** The window in which a key verifies, in unix seconds, both ends included; an absent end is open. */
export interface KeyValidity {
  /** The key does not verify before this (a published key's `nbf`). */
  readonly notBeforeS?: number;
  /** The key does not verify after this (a rollover's not-after, a published key's `exp` or keep bound). */
  readonly notAfterS?: number;
}

/** True while a key with `validity` verifies at `nowS` (unix seconds). */
export function isValidAt(validity: KeyValidity, nowS: number): boolean {
  return (validity.notAfterS === undefined || nowS <= validity.notAfterS) && (validity.notBeforeS === undefined || nowS >= validity.notBeforeS);
}
