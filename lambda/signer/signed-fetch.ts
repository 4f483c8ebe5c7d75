/**
 * `fetch` with a signature, and the automatic rollover: when the answer is a 401 that a newer key
 * could fix, the signer's key is read again once and, if it changed, the request is signed and
 * sent once more. A rotation therefore never needs a deploy or a restart of the signer.
 *
 * Which 401s trigger the refresh (the reason is read from, in order: the `x-signet-error`
 * header, an `error="…"` parameter of `WWW-Authenticate`, the `error` field of a JSON body):
 * - `signature_mismatch`, `key_expired`, `unknown_client` ({@link KEY_REFRESH_ERRORS}): the key or
 *   clientId the signer holds is no longer the registered one;
 * - a 401 with no recognisable reason: HTTP APIs cannot customise their 401 body, so the reason
 *   is unknown and a newer key may help.
 * Any other reason (`expired`, `clock_skew`, `digest_required`, ...) is a signing or clock
 * problem a new key cannot fix: the 401 is returned as is.
 *
 * Never more than one retry: the key is refreshed at most once per call, and the request is sent
 * again only if the refreshed key differs from the one that signed the refused request. If the
 * refresh itself fails, the original 401 is returned.
 */
import { SIGNET_ERROR_HEADER } from '../core/defaults';
import { Signer } from './signer';

/** 401 reasons a newer key (or clientId) can fix. */
export const KEY_REFRESH_ERRORS: ReadonlySet<string> = new Set(['signature_mismatch', 'key_expired', 'unknown_client']);

/** Headers the signature supplies; the caller's values for these are replaced. */
const SIGNATURE_HEADERS = ['signature-input', 'signature', 'date', 'content-digest'] as const;

/** A reason code as Signet writes them. */
const REASON = /^[a-z][a-z0-9_]{0,63}$/;

/** The largest 401 body read for its reason, in bytes. */
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
    const response = await fetch(href, { ...init, method, headers, body: body as string | Uint8Array<ArrayBuffer> | undefined });
    return { response, fingerprint: signed.fingerprint };
  };

  const first = await send();
  if (first.response.status !== 401) return first.response;
  const reason = await signatureFailureReason(first.response);
  if (reason !== undefined && !KEY_REFRESH_ERRORS.has(reason)) return first.response;
  try {
    await signer.refresh();
    if ((await signer.keyFingerprint()) === first.fingerprint) return first.response;
  } catch {
    return first.response;
  }
  await first.response.body?.cancel();
  return (await send()).response;
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
