/**
 * Signing a request the way every Signet signer does (see the README's "The scheme"), with
 * node:crypto: the Lambda functions, the CLI and the signer library. The headers and the base
 * come from ./sign-plan.ts, which the browser's signer (./sign-webcrypto.ts) shares.
 * RSASSA-PKCS1-v1_5 with SHA-256 (RFC 9421 §3.3.2), which is deterministic.
 */
import { KeyObject, constants, sign as rsaSign } from 'node:crypto';
import { computeContentDigest } from './content-digest';
import type { DateField } from './defaults';
import { fail } from './errors';
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
  if (input.privateKey.type !== 'private' || input.privateKey.asymmetricKeyType !== 'rsa') {
    fail('invalid_private_key', 'Signing needs an RSA private key.');
  }
  const plan = planSignature({ ...input, contentDigest: hasBody(input.body) ? computeContentDigest(input.body) : undefined });
  const signature = rsaSign('sha256', Buffer.from(plan.base, 'utf8'), { key: input.privateKey, padding: constants.RSA_PKCS1_PADDING });
  return { headers: signatureHeaders(plan, signature), base: plan.base };
}
