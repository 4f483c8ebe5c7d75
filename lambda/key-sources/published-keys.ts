/**
 * From a successful fetch of a client's key source to the keys the client gets, and the status
 * the fetch leaves: shared by registration (lambda/registry/registry-service.ts) and the
 * refresher (./key-source-refresher.ts), so both take and refuse the same keys.
 *
 * A key is used unless the reader refused it, another client already holds it (`key_in_use`:
 * keys are bound to their (source, key) pair, a key fetched for one client never verifies for
 * another), or the directory is signed and the key's signature is missing or wrong, or signed
 * directories are required and it is not signed (`unsigned_directory_key`).
 */
import { createPublicKey } from 'node:crypto';
import { MAX_KEY_SOURCE_MAX_AGE_S, MIN_KEY_SOURCE_MAX_AGE_S } from '../core/defaults';
import { verifyDirectorySignatures } from '../core/directory-signature';
import type { StoredPublicKey } from '../domain/client-record';
import type { KeySourceStatus, RefusedSourceKey } from '../domain/key-source-store';
import { keyThumbprint } from '../store/item-codec';
import type { KeySourceFetch } from './fetch-key-source';

/** A fetch that found keys. */
export type FetchedKeySet = Extract<KeySourceFetch, { ok: true }>;

/** What a fetch gives one client: the keys it uses, and the keys of the set it does not. */
export interface KeySelection {
  readonly keys: readonly StoredPublicKey[];
  readonly refused: readonly RefusedSourceKey[];
}

export interface KeySelectionOptions {
  /** The client the keys are for (keys it already holds are its own, not "in use"). */
  readonly clientId?: string;
  /** ISO-8601 instant of the fetch: a new key's `addedAt`. */
  readonly at: string;
  /** Fingerprints the client already holds: theirs, so nobody else's (their owners are not read). */
  readonly held?: ReadonlySet<string>;
  /** Which client holds each of these keys, by fingerprint. */
  readonly owners: (fingerprints: readonly string[]) => Promise<ReadonlyMap<string, string>>;
  /** Refuse keys a directory does not sign (SIGNET_REQUIRE_SIGNED_DIRECTORIES). */
  readonly requireSignedDirectories: boolean;
  /** The source is a Web Bot Auth key directory (`signatureAgent`): only then are unsigned keys refused under `requireSignedDirectories`. */
  readonly directory: boolean;
  /**
   * The thumbprints of the keys whose signature of the answer verifies, or undefined when the
   * answer is not signed. @default - {@link directorySignedThumbprints}
   */
  readonly signedThumbprints?: (fetched: FetchedKeySet) => ReadonlySet<string> | undefined;
}

/** The keys of a fetch the client may use, each as the record stores it (`published: true`). */
export async function selectPublishedKeys(fetched: FetchedKeySet, options: KeySelectionOptions): Promise<KeySelection> {
  const refused: RefusedSourceKey[] = fetched.refused.map((r) => ({ ...(r.kid !== undefined ? { kid: r.kid } : {}), reason: r.code }));
  const signed = (options.signedThumbprints ?? ((f) => directorySignedThumbprints(f, Math.floor(Date.parse(options.at) / 1000))))(fetched);
  let candidates = fetched.keys;
  if (signed !== undefined || (options.requireSignedDirectories && options.directory)) {
    const valid = new Set(signed ?? []);
    const reason = signed === undefined ? 'unsigned_directory_key' : 'directory_signature_invalid';
    for (const key of candidates) if (!valid.has(key.thumbprint)) refused.push({ ...(key.kid !== undefined ? { kid: key.kid } : {}), thumbprint: key.thumbprint, reason });
    candidates = candidates.filter((key) => valid.has(key.thumbprint));
  }
  const unknown = candidates.filter((k) => options.held?.has(k.fingerprint) !== true).map((k) => k.fingerprint);
  const owners = unknown.length === 0 ? new Map<string, string>() : await options.owners(unknown);
  const keys: StoredPublicKey[] = [];
  for (const key of candidates) {
    const owner = owners.get(key.fingerprint);
    if (owner !== undefined && owner !== options.clientId) {
      refused.push({ ...(key.kid !== undefined ? { kid: key.kid } : {}), thumbprint: key.thumbprint, reason: 'key_in_use' });
      continue;
    }
    keys.push({
      fingerprint: key.fingerprint,
      spkiPem: key.spkiPem,
      algorithm: key.algorithm,
      addedAt: options.at,
      thumbprint: key.thumbprint,
      published: true,
      ...(key.kid !== undefined ? { kid: key.kid } : {}),
      ...(key.notBeforeS !== undefined ? { notBefore: new Date(key.notBeforeS * 1000).toISOString() } : {}),
      ...(key.expiresS !== undefined ? { expires: new Date(key.expiresS * 1000).toISOString() } : {}),
    });
  }
  return { keys, refused };
}

/**
 * The RFC 7638 thumbprints of the keys a client holds (computed for keys stored without one): a
 * fetch for that client does not count them among the RSA keys new to it (FetchKeySourceOptions.heldThumbprints).
 */
export function heldThumbprints(keys: readonly StoredPublicKey[]): ReadonlySet<string> {
  const held = new Set<string>();
  for (const key of keys) {
    const thumbprint = key.thumbprint ?? keyThumbprint(key);
    if (thumbprint !== undefined) held.add(thumbprint);
  }
  return held;
}

/**
 * The keys of a fetch that signed its answer (tag `http-message-signatures-directory`,
 * lambda/core/directory-signature.ts), or undefined when the answer carries no such signature.
 */
export function directorySignedThumbprints(fetched: FetchedKeySet, nowS: number): ReadonlySet<string> | undefined {
  if (fetched.responseSignature === undefined) return undefined;
  const check = verifyDirectorySignatures({
    signature: fetched.responseSignature.signature,
    signatureInput: fetched.responseSignature.signatureInput,
    authority: new URL(fetched.url).host,
    keys: fetched.keys.map((k) => ({ thumbprint: k.thumbprint, key: createPublicKey(k.spkiPem), algorithm: k.algorithm })),
    nowS,
  });
  return check.signed ? check.verified : undefined;
}

/** The most of a failed fetch's sentence a status keeps, in characters (whole code points): it is shown to admins, and parts of it are the source's. */
const MAX_ERROR_MESSAGE_CHARS = 400;

/** A max-age within [1 min, 24 h]. */
export function clampMaxAgeS(seconds: number): number {
  return Math.min(Math.max(Math.round(seconds), MIN_KEY_SOURCE_MAX_AGE_S), MAX_KEY_SOURCE_MAX_AGE_S);
}

/**
 * How long before its next fetch a scheduled run already counts a source as due: a quarter of the
 * refresh interval, at most 30 s. EventBridge's `rate()` is not to the second (a run may start a
 * few seconds before the interval has passed since the last), and without it a source planned one
 * interval ahead would wait for every second run. Below a minute (the shortest max-age and first
 * backoff), so a source this run rescheduled is never due again in the same run.
 */
export function dueSlackMs(refreshIntervalS: number): number {
  return Math.min(30_000, Math.floor((refreshIntervalS * 1000) / 4));
}

/**
 * The status after a successful fetch at `nowMs`: the next one after the source's max-age, or the
 * refresh interval, counted from `plannedFromMs` (a scheduled run passes its start, so a source
 * fetched late in one run is due at the next; a max-age only allows fetching again sooner).
 */
export function successStatus(
  clientId: string,
  fetched: FetchedKeySet,
  refused: readonly RefusedSourceKey[],
  nowMs: number,
  refreshIntervalS: number,
  plannedFromMs: number = nowMs,
): KeySourceStatus {
  const at = new Date(nowMs).toISOString();
  const waitS = clampMaxAgeS(fetched.maxAgeS ?? refreshIntervalS);
  return {
    clientId,
    url: fetched.url,
    lastFetchAt: at,
    nextFetchAt: new Date(Math.min(nowMs, plannedFromMs) + waitS * 1000).toISOString(),
    lastSuccessAt: at,
    consecutiveFailures: 0,
    ...(refused.length > 0 ? { refusedKeys: [...refused] } : {}),
    ...(fetched.maxAgeS !== undefined ? { maxAgeS: fetched.maxAgeS } : {}),
  };
}

/** The first wait after a failure; each failure in a row doubles it, up to the refresh interval. */
export const FIRST_RETRY_S = 60;

/**
 * The status after a failed fetch at `nowMs` (the keys stay as they are): the failure counted,
 * the next fetch after an exponential backoff (1 min doubling, at most the refresh interval)
 * counted from `plannedFromMs` (a scheduled run's start), and no sooner than the source's
 * Retry-After (itself at most 24 h) counted from the fetch, plus the runs' due slack
 * ({@link dueSlackMs}), so that no run picks the source up before its Retry-After has passed.
 */
export function failureStatus(
  clientId: string,
  previous: KeySourceStatus | undefined,
  error: { code: string; message: string; url?: string; status?: number; retryAfterS?: number },
  fallbackUrl: string,
  nowMs: number,
  refreshIntervalS: number,
  plannedFromMs: number = nowMs,
): KeySourceStatus {
  const at = new Date(nowMs).toISOString();
  const failures = (previous?.consecutiveFailures ?? 0) + 1;
  const backoffS = Math.min(FIRST_RETRY_S * 2 ** Math.min(failures - 1, 30), Math.max(refreshIntervalS, FIRST_RETRY_S));
  const backoffUntil = Math.min(nowMs, plannedFromMs) + backoffS * 1000;
  const retryAfterUntil = error.retryAfterS === undefined || error.retryAfterS <= 0 ? 0 : nowMs + Math.min(error.retryAfterS, MAX_KEY_SOURCE_MAX_AGE_S) * 1000 + dueSlackMs(refreshIntervalS);
  return {
    clientId,
    url: error.url ?? previous?.url ?? fallbackUrl,
    lastFetchAt: at,
    nextFetchAt: new Date(Math.max(backoffUntil, retryAfterUntil)).toISOString(),
    ...(previous?.lastSuccessAt !== undefined ? { lastSuccessAt: previous.lastSuccessAt } : {}),
    failingSince: previous?.failingSince ?? at,
    consecutiveFailures: failures,
    lastError: { code: error.code, message: Array.from(error.message).slice(0, MAX_ERROR_MESSAGE_CHARS).join(''), at, ...(error.status !== undefined ? { status: error.status } : {}) },
    ...(previous?.refusedKeys !== undefined ? { refusedKeys: previous.refusedKeys } : {}),
    ...(previous?.maxAgeS !== undefined ? { maxAgeS: previous.maxAgeS } : {}),
  };
}
