/**
 * `fetch` with a signature, and the automatic rollover: when the answer is a refusal that a newer
 * key could fix, the signer's key is read again and, if it changed, the request is signed and sent
 * once more (when that is safe: see {@link signedFetch}). A rotation therefore never needs a deploy
 * or a restart of the signer.
 *
 * Which refusals (401 or 403) lead to a key read (the reason is read from, in order: the
 * `x-signet-error` header, an `error="…"` parameter of `WWW-Authenticate`, the `error` field of a
 * JSON body of at most 16 KiB that arrives within 2 s):
 * - `signature_mismatch`, `key_expired`, `unknown_client` ({@link KEY_REFRESH_ERRORS}): the key or
 *   clientId the signer holds is no longer the registered one. Named in `x-signet-error`, the
 *   header of Signet's own refusals (the local gateway's), the request stopped at the gateway and
 *   never reached the backend. Named only in a challenge or a JSON body, it may be the backend's
 *   own answer after acting on the request (a deployed API never names these codes: see below), so
 *   it is treated as a refusal without a reason;
 * - a refusal whose reason is unknown ({@link UNKNOWN_REASON_ERRORS}, or none recognisable): what
 *   a deployed API answers. An HTTP API refuses every failed signature with 403
 *   `{"message":"Forbidden"}` (it cannot customise authorizer refusals) and a REST API with 401
 *   `{"error":"unauthorized",…}` (API Gateway passes no reason on a 401); a newer key may help. The
 *   backend may answer the same way after acting on the request, so such a refusal is resent only
 *   for a method that may be repeated.
 * Any other reason (`expired`, `clock_skew`, `digest_required`, `role_forbidden`, ...) is a
 * signing, clock or permission problem a new key cannot fix: the refusal is returned as is.
 *
 * A redirect is not followed (`redirect: 'manual'`, unless the caller asks for `'error'`): the
 * 3xx answer is returned. The signature covers the URL signed, so it would verify nowhere else,
 * and following would hand the signature and the body to the redirect's target, which could send
 * them again to the URL signed within the signature's window.
 *
 * Key reads are bounded by the signer: one at most per `KEY_REFRESH_INTERVAL_MS` (30 s) for a
 * signer from `createSigner`; a refusal within that interval reads nothing. If the read fails, the
 * original refusal is returned.
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

/** The largest refusal body read for its reason, in bytes; a longer one states no reason. */
const MAX_REASON_BODY_BYTES = 16_384;

/** How long a refusal's body is waited for to read its reason, in ms; one still arriving then states no reason. */
const REASON_READ_TIMEOUT_MS = 2_000;

/** Methods a resend cannot repeat the effect of (RFC 9110 idempotent methods, TRACE aside). */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** `RequestInit` whose body is bytes or text: the digest must be computed over exactly what is sent. */
export interface SignedFetchInit extends Omit<RequestInit, 'body'> {
  readonly body?: string | Uint8Array | null;
  /**
   * Also resend a POST, PATCH or other non-idempotent request after a refusal that names no
   * reason (a deployed HTTP API's 403 `{"message":"Forbidden"}`, a REST API's 401 `unauthorized`),
   * or names a key reason anywhere but in Signet's `x-signet-error` header.
   * Set it only when the backend never answers 401 or 403 itself after acting on a request:
   * such an answer looks the same, and the request would then take effect twice.
   * @default false
   */
  readonly resendNonIdempotentOnBareRefusal?: boolean;
}

/**
 * Signs and sends a request with the global `fetch`; after a refusal, sends it at most once more.
 *
 * The request is sent again, once, only when all of these hold:
 * 1. the answer is 401 or 403 and either names a reason a newer key can fix ({@link KEY_REFRESH_ERRORS})
 *    in `x-signet-error` (Signet refused it: the request never reached the backend), or names such a
 *    reason elsewhere or no reason ({@link UNKNOWN_REASON_ERRORS}, or none) and the method is GET,
 *    HEAD, OPTIONS, PUT or DELETE, or `resendNonIdempotentOnBareRefusal` is set;
 * 2. `signer.refresh()` succeeds, and the signer's key is then another than the one that signed the
 *    refused request. A signer from `createSigner` reads its key at most once per
 *    `KEY_REFRESH_INTERVAL_MS` (30 s): within that interval the refusal is returned as is, unless an
 *    earlier read already brought a newer key.
 * A POST (or other non-idempotent request) refused without a reason is not resent, but the key is
 * still refreshed, so that the caller's own retry is signed with the newer key.
 * Otherwise the refusal is returned as is, its body unread.
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
export async function signedFetch(signer: Signer, url: string | URL, signedInit: SignedFetchInit = {}): Promise<Response> {
  const { resendNonIdempotentOnBareRefusal = false, ...init } = signedInit;
  const target = new URL(url);
  if (target.username !== '' || target.password !== '') {
    throw new TypeError('signedFetch refuses a URL with credentials (user:password@): they would not be signed, and fetch does not send them.');
  }
  // As fetch sends it: no fragment, and no `?` before an empty query (`href` would keep that one).
  const href = `${target.origin}${target.pathname}${target.search}`;
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
  const reason = await signatureFailureReason(first.response);
  const keyRefused = reason !== undefined && KEY_REFRESH_ERRORS.has(reason);
  const bare = reason === undefined || UNKNOWN_REASON_ERRORS.has(reason);
  if (!keyRefused && !bare) return first.response;
  // Only Signet's own refusal header says the request stopped at the gateway: the same code in a
  // body or a challenge may be the backend's answer after it acted on the request.
  const stoppedAtGateway = keyRefused && first.response.headers.get(SIGNET_ERROR_HEADER)?.trim() === reason;
  try {
    await signer.refresh();
    if ((await signer.keyFingerprint()) === first.fingerprint) return first.response;
  } catch {
    return first.response;
  }
  if (!stoppedAtGateway && !IDEMPOTENT_METHODS.has(method) && !resendNonIdempotentOnBareRefusal) return first.response;
  await first.response.body?.cancel();
  return (await send()).response;
}

/**
 * The reason code of a refusal, if the response states one: `x-signet-error`, then
 * `WWW-Authenticate: ... error="<code>"`, then a JSON body's `error`. The response's own body is
 * left unread (a clone is read, and cancelled after at most 16 KiB + 1 byte or 2 s).
 */
export async function signatureFailureReason(response: Response): Promise<string | undefined> {
  const header = response.headers.get(SIGNET_ERROR_HEADER)?.trim();
  if (header && REASON.test(header)) return header;
  const challenge = /\berror="?([a-z][a-z0-9_]{0,63})"?/.exec(response.headers.get('www-authenticate') ?? '');
  if (challenge) return challenge[1];
  const type = response.headers.get('content-type') ?? '';
  const length = Number(response.headers.get('content-length') ?? '0');
  if (!/\bjson\b/i.test(type) || length > MAX_REASON_BODY_BYTES) return undefined;
  const text = await readLimited(response.clone());
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    const error = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>).error : undefined;
    return typeof error === 'string' && REASON.test(error) ? error : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The body as text, or undefined when it is longer than {@link MAX_REASON_BODY_BYTES}, still
 * arriving after {@link REASON_READ_TIMEOUT_MS}, or unreadable (the request's signal aborted it, say).
 * Reads no more than the limit and one chunk, and always cancels the stream after.
 */
async function readLimited(response: Response): Promise<string | undefined> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    reader.cancel().catch(() => undefined);
  }, REASON_READ_TIMEOUT_MS);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
      if (size > MAX_REASON_BODY_BYTES) return undefined;
    }
    return timedOut ? undefined : Buffer.concat(chunks).toString('utf8');
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => undefined);
  }
}
