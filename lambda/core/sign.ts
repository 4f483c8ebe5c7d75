/**
 * Signing a request the way every Signet signer does (see docs/scheme.md), with
 * node:crypto: the Lambda functions, the CLI and the signer library. The headers and the base
 * come from ./sign-plan.ts, which the browser's signer (./sign-webcrypto.ts) shares.
 * With the key's algorithm (./algorithms.ts): RSASSA-PKCS1-v1_5 SHA-256 by default for RSA.
 */
import type { KeyObject } from 'node:crypto';
import { type SignatureAlgorithm, algorithmForKey, createSignature } from './algorithms';
import { computeContentDigest } from './content-digest';
import type { DateField } from './defaults';
import { type SignatureHeaders, hasBody, planSignature, signatureHeaders } from './sign-plan';

export type { SignatureHeaders } from './sign-plan';

export interface SignRequestInput {
  /** HTTP method; upper-cased before signing, and the request must be sent with that method. */
  readonly method: string;
  /** The full URL exactly as it will be called, query included. */
  readonly url: string;
  /** The request body, if any; an empty body is treated as none. */
  readonly body?: Uint8Array | string;
  /** The clientId, which goes into `keyid`. */
  readonly keyId: string;
  readonly privateKey: KeyObject;
  /**
   * The algorithm the key is registered for; it must fit the key.
   * @default the key type's own (RSA: rsa-v1_5-sha256; Ed25519, P-256, P-384: their one algorithm)
   */
  readonly algorithm?: SignatureAlgorithm;
  /** Signing time, unix seconds. Also used for the Date header. */
  readonly created: number;
  /** Legacy form: no `date` component and no Date header. @default false */
  readonly legacy?: boolean;
  /**
   * The field that carries the date: `x-date` for a signer that cannot send Date (a browser's
   * fetch drops it). Same value, same checks (see DATE_FIELDS). @default 'date'
   */
  readonly dateField?: DateField;
}

export interface SignResult {
  readonly headers: SignatureHeaders;
  /** The signature base that was signed (for `signet explain` and tests; never log it). */
  readonly base: string;
}

/** Signs a request and returns the headers to send with it. */
export function signRequest(input: SignRequestInput): SignResult {
  const algorithm = algorithmForKey(input.privateKey, input.algorithm);
  const plan = planSignature({ ...input, algorithm, contentDigest: hasBody(input.body) ? computeContentDigest(input.body) : undefined });
  const signature = createSignature(algorithm, Buffer.from(plan.base, 'utf8'), input.privateKey);
  return { headers: signatureHeaders(plan, signature), base: plan.base };
}
