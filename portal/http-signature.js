// @ts-check
/**
 * Signing a request in the browser exactly as lambda/core/sign.ts does, through WebCrypto
 * (RSASSA-PKCS1-v1_5 with SHA-256). test/portal/http-signature.test.ts runs this module under
 * Node's WebCrypto and checks that its headers and signature base equal the core's, byte for
 * byte, for the same inputs.
 *
 * Covered, in this order: `@method`, `@target-uri`, `content-digest` (only with a non-empty
 * body), then `date`, or `x-date` when `dateField` says so. A browser must use `x-date`: fetch
 * cannot send Date (a forbidden request header), and the verifier checks a covered X-Date
 * exactly like Date (lambda/core/defaults.ts DATE_FIELDS). Parameters: `created`, `keyid`,
 * `alg="rsa-v1_5-sha256"`.
 */
import { fail } from './errors.js';

/** The only signature label Signet reads. */
export const SIGNATURE_LABEL = 'sig';
/** The only algorithm of the scheme. */
export const SIGNATURE_ALGORITHM = 'rsa-v1_5-sha256';
/** The fields that may carry the signed date; the browser uses the second. */
export const DATE_FIELDS = Object.freeze(['date', 'x-date']);
/** The WebCrypto algorithm of `rsa-v1_5-sha256`. */
export const RSASSA = Object.freeze({ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' });

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * Unix seconds as IMF-fixdate, e.g. `Sat, 21 Nov 2026 22:47:17 GMT` (as lambda/core/http-date.ts).
 * @param {number} unixS
 */
export function formatHttpDate(unixS) {
  const d = new Date(Math.floor(unixS) * 1000);
  /** @param {number} n */
  const pad = (n) => String(n).padStart(2, '0');
  return `${DAYS[d.getUTCDay()]}, ${pad(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} GMT`;
}

/**
 * Bytes as standard Base64.
 * @param {Uint8Array} bytes
 */
export function toBase64(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * The body as bytes (a copy): strings are UTF-8.
 * @param {Uint8Array | string} body
 * @returns {Uint8Array<ArrayBuffer>}
 */
function bodyBytes(body) {
  return typeof body === 'string' ? new TextEncoder().encode(body) : new Uint8Array(body);
}

/**
 * The Content-Digest value of a body: `sha-256=:<base64 SHA-256>:` (RFC 9530).
 * @param {Uint8Array | string} body
 * @param {SubtleCrypto} [subtle]
 */
export async function computeContentDigest(body, subtle = globalThis.crypto.subtle) {
  const digest = new Uint8Array(await subtle.digest('SHA-256', bodyBytes(body)));
  return `sha-256=:${toBase64(digest)}:`;
}

/**
 * An RFC 8941 sf-string: printable ASCII, `"` and `\` escaped.
 * @param {string} value
 */
export function serializeString(value) {
  if (!/^[\x20-\x7e]*$/.test(value)) fail('invalid_request', 'A Structured Field string may hold only printable ASCII.');
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * @typedef {object} SignRequestInput
 * @property {string} method HTTP method; upper-cased, and the request must be sent with it
 * @property {string} url the full URL exactly as it will be fetched, query included
 * @property {Uint8Array | string} [body] the body; an empty body is treated as none
 * @property {string} keyId the clientId, which goes into `keyid`
 * @property {CryptoKey} privateKey an RSASSA-PKCS1-v1_5 / SHA-256 private key
 * @property {number} created signing time, unix seconds (also the date header's value)
 * @property {boolean} [legacy] no date component at all (the verifier refuses it unless allowed)
 * @property {'date' | 'x-date'} [dateField] the date field (default 'date'); the browser sends 'x-date'
 * @property {SubtleCrypto} [subtle] WebCrypto (default globalThis.crypto.subtle)
 */

/**
 * @typedef {object} SignResult
 * @property {Record<string, string>} headers lower-case names: content-digest (with a body),
 *   date or x-date (unless legacy), signature-input, signature
 * @property {string} base the signature base that was signed (for tests; never shown or logged)
 */

/**
 * Signs a request and returns the headers to send with it.
 * @param {SignRequestInput} input
 * @returns {Promise<SignResult>}
 */
export async function signRequest(input) {
  const subtle = input.subtle ?? globalThis.crypto.subtle;
  if (!Number.isSafeInteger(input.created) || input.created < 0) {
    fail('invalid_request', `created must be whole unix seconds; got ${String(input.created)}.`);
  }
  // lambda/core/keyid.ts's rule (this file goes when the portal is built from the core).
  if (typeof input.keyId !== 'string' || !/^[\x21-\x7e]{1,256}$/.test(input.keyId)) {
    fail('invalid_request', 'The clientId (keyid) must be 1-256 printable ASCII characters without spaces.');
  }
  const key = input.privateKey;
  if (!key || key.type !== 'private' || key.algorithm.name !== RSASSA.name || /** @type {RsaHashedKeyAlgorithm} */ (key.algorithm).hash.name !== 'SHA-256') {
    fail('invalid_private_key', 'Signing needs an RSA private key imported for RSASSA-PKCS1-v1_5 with SHA-256.');
  }
  const dateField = input.dateField ?? 'date';
  if (!DATE_FIELDS.includes(dateField)) fail('invalid_request', `dateField must be one of ${DATE_FIELDS.join(', ')}.`);

  const method = input.method.toUpperCase();
  const hasBody = input.body !== undefined && (typeof input.body === 'string' ? input.body.length > 0 : input.body.byteLength > 0);
  /** @type {Record<string, string>} */
  const headers = {};
  /** @type {Array<[string, string]>} covered component and its value, in order */
  const covered = [
    ['@method', method],
    ['@target-uri', input.url],
  ];
  if (hasBody) {
    headers['content-digest'] = await computeContentDigest(/** @type {Uint8Array | string} */ (input.body), subtle);
    covered.push(['content-digest', headers['content-digest']]);
  }
  if (!input.legacy) {
    headers[dateField] = formatHttpDate(input.created);
    covered.push([dateField, headers[dateField]]);
  }
  const signatureParams =
    `(${covered.map(([name]) => serializeString(name)).join(' ')})` +
    `;created=${input.created};keyid=${serializeString(input.keyId)};alg=${serializeString(SIGNATURE_ALGORITHM)}`;
  const base = buildSignatureBase(covered, signatureParams);
  const signature = new Uint8Array(await subtle.sign(RSASSA, key, new TextEncoder().encode(base)));
  return {
    headers: {
      ...headers,
      'signature-input': `${SIGNATURE_LABEL}=${signatureParams}`,
      signature: `${SIGNATURE_LABEL}=:${toBase64(signature)}:`,
    },
    base,
  };
}

/**
 * RFC 9421 §2.5: `"<name>": <value>` per covered component, LF-joined, then `"@signature-params"`.
 * Field values are trimmed of surrounding whitespace, as the verifier does.
 * @param {ReadonlyArray<[string, string]>} covered
 * @param {string} signatureParams
 */
function buildSignatureBase(covered, signatureParams) {
  let base = '';
  for (const [name, raw] of covered) {
    const value = name.startsWith('@') ? raw : raw.trim();
    if (value.includes('\n') || value.includes('\r')) fail('absent_component', `The value of "${name}" contains a line break, which cannot be signed.`);
    base += `"${name}": ${value}\n`;
  }
  return `${base}"@signature-params": ${signatureParams}`;
}
