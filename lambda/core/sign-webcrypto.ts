/**
 * Signing a request with WebCrypto: the client portal's signer, in the browser, where the admin's
 * key is a non-extractable CryptoKey. The same headers and base as ./sign.ts (both come from
 * ./sign-plan.ts), signed with the algorithm the CryptoKey was imported for: RSASSA-PKCS1-v1_5 /
 * SHA-256 (deterministic: for the same key and inputs both signers produce the same bytes,
 * test/core/sign-webcrypto.test.ts), RSA-PSS / SHA-512, ECDSA P-256 / P-384 (WebCrypto's ECDSA
 * signature is already the r‖s form RFC 9421 §3.3.4 wants) or Ed25519.
 */
import type { SignatureAlgorithm } from './algorithm-names';
import type { DateField } from './defaults';
import { fail } from './errors';
import { type SignatureHeaders, formatContentDigest, hasBody, planSignature, signatureHeaders } from './sign-plan';

/** The WebCrypto algorithm of `rsa-v1_5-sha256`. */
export const RSASSA_PKCS1_SHA256 = Object.freeze({ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' });

/** Each RFC 9421 algorithm as WebCrypto imports a key for it, and as it signs with one (RFC 9421 §3.3). */
export const WEBCRYPTO_ALGORITHMS: Readonly<Record<SignatureAlgorithm, { readonly importAs: RsaHashedImportParams | EcKeyImportParams | Algorithm; readonly signWith: AlgorithmIdentifier | RsaPssParams | EcdsaParams }>> = Object.freeze({
  'rsa-v1_5-sha256': { importAs: RSASSA_PKCS1_SHA256, signWith: RSASSA_PKCS1_SHA256 },
  'rsa-pss-sha512': { importAs: { name: 'RSA-PSS', hash: 'SHA-512' }, signWith: { name: 'RSA-PSS', saltLength: 64 } },
  'ecdsa-p256-sha256': { importAs: { name: 'ECDSA', namedCurve: 'P-256' }, signWith: { name: 'ECDSA', hash: 'SHA-256' } },
  'ecdsa-p384-sha384': { importAs: { name: 'ECDSA', namedCurve: 'P-384' }, signWith: { name: 'ECDSA', hash: 'SHA-384' } },
  ed25519: { importAs: { name: 'Ed25519' }, signWith: { name: 'Ed25519' } },
});

/** The RFC 9421 algorithm a WebCrypto private key signs with, or undefined when it is none of them. */
export function algorithmOfCryptoKey(key: CryptoKey): SignatureAlgorithm | undefined {
  const algorithm = key.algorithm as Partial<RsaHashedKeyAlgorithm & EcKeyAlgorithm>;
  switch (algorithm.name) {
    case 'RSASSA-PKCS1-v1_5':
      return algorithm.hash?.name === 'SHA-256' ? 'rsa-v1_5-sha256' : undefined;
    case 'RSA-PSS':
      return algorithm.hash?.name === 'SHA-512' ? 'rsa-pss-sha512' : undefined;
    case 'ECDSA':
      return algorithm.namedCurve === 'P-256' ? 'ecdsa-p256-sha256' : algorithm.namedCurve === 'P-384' ? 'ecdsa-p384-sha384' : undefined;
    case 'Ed25519':
      return 'ed25519';
    default:
      return undefined;
  }
}

export interface WebCryptoSignInput {
  /** HTTP method; upper-cased before signing, and the request must be sent with that method. */
  readonly method: string;
  /** The full URL exactly as it will be fetched, query included. */
  readonly url: string;
  /** The body, if any; an empty body is treated as none. */
  readonly body?: Uint8Array | string;
  /** The clientId, which goes into `keyid`. */
  readonly keyId: string;
  /** A private key imported for one of WEBCRYPTO_ALGORITHMS (it may be non-extractable). */
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
  const algorithm = key?.type === 'private' ? algorithmOfCryptoKey(key) : undefined;
  if (algorithm === undefined) {
    fail('invalid_private_key', 'Signing needs a private key imported for RSASSA-PKCS1-v1_5 / SHA-256, RSA-PSS / SHA-512, ECDSA P-256 or P-384, or Ed25519.');
  }
  const contentDigest = hasBody(input.body) ? await computeContentDigestWebCrypto(input.body, subtle) : undefined;
  const plan = planSignature({ ...input, algorithm, contentDigest });
  const signature = new Uint8Array(await subtle.sign(WEBCRYPTO_ALGORITHMS[algorithm].signWith, key, new TextEncoder().encode(plan.base)));
  return { headers: signatureHeaders(plan, signature), base: plan.base };
}
