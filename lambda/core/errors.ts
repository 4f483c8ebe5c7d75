/**
 * The one list of Signet's stable error codes, and the error class that carries them.
 *
 * Codes are public API: clients branch on them, the docs explain each, a test pins the list.
 * Add codes; never rename or remove one. Messages are sentences a human can act on and never
 * contain key material, signature values or signature bases.
 */

/** Every reason Signet can give for refusing something, with the HTTP status it maps to. */
export const ERROR_CODES = {
  // --- Authentication (401): the request's signature could not be accepted.
  missing_signature: 401,
  malformed_signature_input: 401,
  invalid_signature_input: 401,
  malformed_signature: 401,
  signature_label_missing: 401,
  unsupported_algorithm: 401,
  algorithm_mismatch: 401,
  missing_keyid: 401,
  missing_created: 401,
  expired: 401,
  clock_skew: 401,
  missing_date: 401,
  malformed_date: 401,
  missing_component: 401,
  absent_component: 401,
  unsupported_component: 401,
  digest_required: 401,
  malformed_digest: 401,
  unknown_client: 401,
  client_disabled: 401,
  key_expired: 401,
  signature_mismatch: 401,
  replayed_request: 401,
  signature_agent_mismatch: 401,
  // --- Authorization (403): the signature is good but this caller may not do this.
  ip_not_allowed: 403,
  role_forbidden: 403,
  client_above_ceiling: 403,
  request_not_bound: 403,
  // --- Backend body check (400): the body does not match the signed Content-Digest.
  digest_mismatch: 400,
  // --- Registry input (400/404/409/413).
  invalid_request: 400,
  private_key_submitted: 400,
  too_many_key_candidates: 400,
  invalid_public_key: 400,
  invalid_private_key: 400,
  unsupported_key_type: 400,
  key_too_small: 400,
  weak_key: 400,
  invalid_network: 400,
  unknown_role: 400,
  role_not_allowed: 400,
  too_many_clients: 400,
  key_source_refused: 400,
  payload_too_large: 413,
  not_found: 404,
  key_already_registered: 409,
  version_conflict: 409,
  last_key: 409,
  last_admin: 409,
  self_lockout: 409,
  key_source_managed: 409,
  key_source_in_use: 409,
  // --- Rate (429): one caller spent its budget of an expensive operation; retry after Retry-After.
  search_budget_exceeded: 429,
  // --- Service faults (5xx): never a reason to let a request through.
  dependency_unavailable: 503,
  internal_error: 500,
} as const;

export type SignetErrorCode = keyof typeof ERROR_CODES;
export type SignetErrorStatus = (typeof ERROR_CODES)[SignetErrorCode];

/**
 * The error every Signet module throws for an expected refusal.
 *
 * @example
 * try { verifySignature(...) } catch (e) {
 *   if (isSignetError(e) && e.code === 'expired') { ... }
 * }
 */
export class SignetError extends Error {
  override readonly name = 'SignetError';
  readonly status: SignetErrorStatus;

  constructor(
    readonly code: SignetErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.status = ERROR_CODES[code];
  }

  /** The body shape Signet answers with: `{ error, message }` (handlers may add `requestId`). */
  toJSON(): { error: SignetErrorCode; message: string } {
    return { error: this.code, message: this.message };
  }
}

export function isSignetError(value: unknown): value is SignetError {
  return value instanceof SignetError;
}

/** Throws `new SignetError(code, message)`; handy inside expressions. */
export function fail(code: SignetErrorCode, message: string, options?: ErrorOptions): never {
  throw new SignetError(code, message, options);
}
