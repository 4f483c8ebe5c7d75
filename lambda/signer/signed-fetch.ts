/**
 * `fetch` with a signature, and the automatic rollover: when the answer is a refusal that a newer
 * key could fix, the signer's key is read again once and, if it changed, the request is signed
 * and sent once more. A rotation therefore never needs a deploy or a restart of the signer.
 *
 * Which refusals (401 or 403) trigger the refresh (the reason is read from, in order: the
 * `x-signet-error` header, an `error="…"` parameter of `WWW-Authenticate`, the `error` field of a
 * JSON body):
 * - `signature_mismatch`, `key_expired`, `unknown_client` ({@link KEY_REFRESH_ERRORS}): the key or
 *   clientId the signer holds is no longer the registered one;
 * - a refusal whose reason is unknown ({@link UNKNOWN_REASON_ERRORS}, or none recognisable): what
 *   a deployed API answers. An HTTP API refuses every failed signature with 403
 *   `{"message":"Forbidden"}` (it cannot customise authorizer refusals) and a REST API with 401
 *   `{"error":"unauthorized",…}` (API Gateway passes no reason on a 401); a newer key may help.
 * Any other reason (`expired`, `clock_skew`, `digest_required`, `role_forbidden`, ...) is a
 * signing, clock or permission problem a new key cannot fix: the refusal is returned as is.
 *
 * A redirect is not followed (`redirect: 'manual'`, unless the caller asks for `'error'`): the
 * 3xx answer is returned. The signature covers the URL signed, so it would verify nowhere else,
 * and following would hand the signature and the body to the redirect's target, which could send
 * them again to the URL signed within the signature's window.
 *
 * Never more than one retry: the key is refreshed at most once per call, and the request is sent
 * again only if the refreshed key differs from the one that signed the refused request. If the
 * refresh itself fails, the original refusal is returned. A refusal of unknown reason costs one
 * key read (one Secrets Manager `GetSecretValue` for a secret-held key) and no resend while the
 * key is unchanged.
 */
import { SIGNET_ERROR_HEADER } from '../core/defaults';
import { Signer } from './signer';

/** Refusal reasons a newer key (or clientId) can fix. */
export const KEY_REFRESH_ERRORS: ReadonlySet<string> = new Set(['signature_mismatch', 'key_expired', 'unknown_client']);

/**
 * Reason codes that say only "not authenticated": REST gateway responses answer every
 * authentication failure with `unauthorized` (`REST_UNAUTHORIZED_ERROR`), since API Gateway gives
 * them no reason to show. Treated like a refusal without a reason: a newer key may help.
 */
export const UNKNOWN_REASON_ERRORS: ReadonlySet<string> = new Set(['unauthorized']);

/** The statuses an authorizer refuses with: 401 (REST, local gateway), 403 (HTTP API, and IP or role refusals). */
const REFUSAL_STATUSES: ReadonlySet<number> = new Set([401, 403]);

/** Headers the signature supplies; the caller's values for these are replaced. */
const SIGNATURE_HEADERS = ['signature-input', 'signature', 'date', 'content-digest'] as const;

/** A reason code as Signet writes them. */
const REASON = /^[a-z][a-z0-9_]{0,63}$/;

/** The largest refusal body read for its reason, in bytes. */
const MAX_REASON_BODY_BYTES = 16_384;

/** `RequestInit` whose body is bytes or text: the digest must be computed over exactly what is sent. */
export interface SignedFetchInit extends Omit<RequestInit, 'body'> {
  readonly body?: string | Uint8Array | null;
}

/**
 * Signs and sends a request with the global `fetch`.
 *
 * The URL is signed as `fetch` sends it (WHATWG-normalised, fragment dropped), and the method
 * is sent upper-cased, as it is signed.
 *
 * @example
 * const signer = createSigner({ secretId: 'signet/partner-key' });
 * const res = await signedFetch(signer, 'https://api.example.com/api/echo?x=1', {
 *   method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(order),
 * });
 * @throws TypeError when the body is not a string or bytes (streams, FormData, Blob: serialise first)
 */
export async function signedFetch(signer: Signer, url: string | URL, init: SignedFetchInit = {}): Promise<Response> {
  const target = new URL(url);
  target.hash = '';
  const href = target.href;
  const method = (init.method ?? 'GET').toUpperCase();
  const body = init.body ?? undefined;
  if (body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array)) {
    throw new TypeError('signedFetch needs the body as a string or bytes (Uint8Array/Buffer) to compute its Content-Digest; serialise it first.');
  }

  const send = async (): Promise<{ response: Response; fingerprint: string }> => {
    const signed = await signer.signDetailed({ method, url: href, body });
    const headers = new Headers(init.headers);
    for (const name of SIGNATURE_HEADERS) headers.delete(name);
    for (const [name, value] of Object.entries(signed.headers)) headers.set(name, value);
    // Node's fetch sends any Uint8Array; the DOM typing only admits ArrayBuffer-backed views.
    const redirect = init.redirect === 'error' ? 'error' : 'manual';
    const response = await fetch(href, { ...init, method, headers, body: body as string | Uint8Array<ArrayBuffer> | undefined, redirect });
    return { response, fingerprint: signed.fingerprint };
  };

  const first = await send();
  if (!REFUSAL_STATUSES.has(first.response.status)) return first.response;
  if (!(await newerKeyMayHelp(first.response))) return first.response;
  try {
    await signer.refresh();
    if ((await signer.keyFingerprint()) === first.fingerprint) return first.response;
  } catch {
    return first.response;
  }
  await first.response.body?.cancel();
  return (await send()).response;
}

/** True when the refusal names a key problem, or names no reason a new key certainly cannot fix. */
async function newerKeyMayHelp(refusal: Response): Promise<boolean> {
  const reason = await signatureFailureReason(refusal);
  return reason === undefined || UNKNOWN_REASON_ERRORS.has(reason) || KEY_REFRESH_ERRORS.has(reason);
}

/**
 * The reason code of a refusal, if the response states one: `x-signet-error`, then
 * `WWW-Authenticate: ... error="<code>"`, then a JSON body's `error`. The response's own body is
 * left unread (a clone is read).
 */
export async function signatureFailureReason(response: Response): Promise<string | undefined> {
  const header = response.headers.get(SIGNET_ERROR_HEADER)?.trim();
  if (header && REASON.test(header)) return header;
  const challenge = /\berror="?([a-z][a-z0-9_]{0,63})"?/.exec(response.headers.get('www-authenticate') ?? '');
  if (challenge) return challenge[1];
  const type = response.headers.get('content-type') ?? '';
  const length = Number(response.headers.get('content-length') ?? '0');
  if (!/\bjson\b/i.test(type) || length > MAX_REASON_BODY_BYTES) return undefined;
  try {
    const text = await response.clone().text();
    if (text.length > MAX_REASON_BODY_BYTES) return undefined;
    const parsed = JSON.parse(text) as unknown;
    const error = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>).error : undefined;
    return typeof error === 'string' && REASON.test(error) ? error : undefined;
  } catch {
    return undefined;
  }
}
