/**
 * Signing a request with WebCrypto: the client portal's signer, in the browser, where the admin's
 * key is a non-extractable CryptoKey. The same headers and base as ./sign.ts (both come from
 * ./sign-plan.ts), signed with RSASSA-PKCS1-v1_5 / SHA-256, which is deterministic: for the same
 * key and inputs both signers produce the same bytes (test/core/sign-webcrypto.test.ts).
 */
import type { DateField } from './defaults';
import { fail } from './errors';
import { type SignatureHeaders, formatContentDigest, hasBody, planSignature, signatureHeaders } from './sign-plan';

/** The WebCrypto algorithm of `rsa-v1_5-sha256`. */
export const RSASSA_PKCS1_SHA256 = Object.freeze({ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' });

export interface WebCryptoSignInput {
  /** HTTP method; upper-cased before signing, and the request must be sent with that method. */
  readonly method: string;
  /** The full URL exactly as it will be fetched, query included. */
  readonly url: string;
  /** The body, if any; an empty body is treated as none. */
  readonly body?: Uint8Array | string;
  /** The clientId, which goes into `keyid`. */
  readonly keyId: string;
  /** An RSASSA-PKCS1-v1_5 / SHA-256 private key (it may be non-extractable). */
  readonly privateKey: CryptoKey;
  /** Signing time, unix seconds (also the date field's value). */
  readonly created: number;
  /** No date component at all (the verifier refuses it unless allowed). @default false */
  readonly legacy?: boolean;
  /** The date field; a browser must use `x-date` (fetch cannot send Date). @default 'date' */
  readonly dateField?: DateField;
  /** WebCrypto. @default globalThis.crypto.subtle */
  readonly subtle?: SubtleCrypto;
}

export interface WebCryptoSignResult {
  readonly headers: SignatureHeaders;
  /** The signature base that was signed (for tests; never show or log it). */
  readonly base: string;
}

/** The Content-Digest field of `body` (RFC 9530 sha-256), with WebCrypto. */
export async function computeContentDigestWebCrypto(body: Uint8Array | string, subtle: SubtleCrypto = globalThis.crypto.subtle): Promise<string> {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : new Uint8Array(body);
  return formatContentDigest(new Uint8Array(await subtle.digest('SHA-256', bytes)));
}

/** Signs a request and returns the headers to send with it. */
export async function signRequestWebCrypto(input: WebCryptoSignInput): Promise<WebCryptoSignResult> {
  const subtle = input.subtle ?? globalThis.crypto.subtle;
  const key = input.privateKey;
  const algorithm = key?.algorithm as RsaHashedKeyAlgorithm | undefined;
  if (key?.type !== 'private' || algorithm?.name !== RSASSA_PKCS1_SHA256.name || algorithm.hash?.name !== RSASSA_PKCS1_SHA256.hash) {
    fail('invalid_private_key', 'Signing needs an RSA private key imported for RSASSA-PKCS1-v1_5 with SHA-256.');
  }
  const contentDigest = hasBody(input.body) ? await computeContentDigestWebCrypto(input.body, subtle) : undefined;
  const plan = planSignature({ ...input, contentDigest });
  const signature = new Uint8Array(await subtle.sign(RSASSA_PKCS1_SHA256, key, new TextEncoder().encode(plan.base)));
  return { headers: signatureHeaders(plan, signature), base: plan.base };
}
