/**
 * What a signer sends, before any cryptography: the headers of the default scheme (Content-Digest
 * with a non-empty body, Date or X-Date, Signature-Input) and the signature base to sign. Pure, so
 * that the two signers sign exactly the same bytes: ./sign.ts with node:crypto (Lambda, CLI,
 * signer library) and ./sign-webcrypto.ts with WebCrypto (the portal, in the browser).
 *
 * Covered, in this order: `@method`, `@target-uri`, `content-digest` (only with a body), then
 * `date`, or `x-date` when `dateField` says so (a browser's fetch cannot send Date). Parameters:
 * `created`, `keyid`, `alg` (the signing key's algorithm; `rsa-v1_5-sha256` by default).
 */
import { encodeBase64 } from './base64';
import { DEFAULT_RSA_ALGORITHM, type SignatureAlgorithm, isSignatureAlgorithm } from './algorithm-names';
import { DATE_FIELDS, DIGEST_ALGORITHM, type DateField, SIGNATURE_LABEL } from './defaults';
import { fail } from './errors';
import { formatHttpDate } from './http-date';
import { KEYID_RULE, isKeyid } from './keyid';
import { buildSignatureBase } from './signature-base';
import type { ComponentId } from './types';
import { serializeInnerList } from './structured-fields';

/** What a signature plan needs; the body itself only through its digest. */
export interface SignaturePlanInput {
  /** HTTP method; upper-cased before signing, and the request must be sent with that method. */
  readonly method: string;
  /** The full URL exactly as it will be called, query included. */
  readonly url: string;
  /** The clientId, which goes into `keyid`. */
  readonly keyId: string;
  /** Signing time, unix seconds. Also the date field's value. */
  readonly created: number;
  /** Legacy form: no `date` component and no date field. @default false */
  readonly legacy?: boolean;
  /** The field that carries the date (see DATE_FIELDS). @default 'date' */
  readonly dateField?: DateField;
  /** The body's Content-Digest ({@link formatContentDigest}); give it exactly when the body is not empty. */
  readonly contentDigest?: string;
  /** The signing key's algorithm, sent as `alg`. @default 'rsa-v1_5-sha256' */
  readonly algorithm?: SignatureAlgorithm;
}

/** The headers to add to the request, lower-case names. */
export interface SignatureHeaders {
  readonly 'content-digest'?: string;
  readonly date?: string;
  /** Instead of `date` when `dateField` is `x-date`. */
  readonly 'x-date'?: string;
  readonly 'signature-input': string;
  readonly signature: string;
}

/** A signature about to be made. */
export interface SignaturePlan {
  /** Content-Digest and the date field, as they will be sent. */
  readonly headers: Readonly<Record<string, string>>;
  /** The Signature-Input member value (the `@signature-params` line's value). */
  readonly signatureParams: string;
  /** The signature base to sign, as UTF-8 (never log it). */
  readonly base: string;
}

/** True when `body` is a body that must be digested and covered (an empty one counts as none). */
export function hasBody(body: Uint8Array | string | undefined): body is Uint8Array | string {
  return body !== undefined && (typeof body === 'string' ? body.length > 0 : body.byteLength > 0);
}

/** The Content-Digest field for a body's SHA-256: `sha-256=:<base64>:` (RFC 9530). */
export function formatContentDigest(sha256: Uint8Array): string {
  return `${DIGEST_ALGORITHM}=:${encodeBase64(sha256)}:`;
}

/**
 * The headers and the base of a signature by `input.keyId` at `input.created`.
 * @throws SignetError `invalid_request` for a created time or keyid the scheme cannot carry, or an unknown date field
 */
export function planSignature(input: SignaturePlanInput): SignaturePlan {
  if (!Number.isSafeInteger(input.created) || input.created < 0) {
    fail('invalid_request', `created must be whole unix seconds; got ${String(input.created)}.`);
  }
  if (!isKeyid(input.keyId)) {
    fail('invalid_request', `The clientId (keyid) must be ${KEYID_RULE}.`);
  }
  const dateField = input.dateField ?? 'date';
  if (!DATE_FIELDS.includes(dateField)) {
    fail('invalid_request', `dateField must be one of ${DATE_FIELDS.join(', ')}.`);
  }
  if (input.algorithm !== undefined && !isSignatureAlgorithm(input.algorithm)) {
    fail('invalid_request', `algorithm ${JSON.stringify(String(input.algorithm))} is not a signature algorithm Signet signs with.`);
  }
  const headers: Record<string, string> = {};
  const names = ['@method', '@target-uri'];
  if (input.contentDigest !== undefined) {
    headers['content-digest'] = input.contentDigest;
    names.push('content-digest');
  }
  if (!input.legacy) {
    headers[dateField] = formatHttpDate(input.created);
    names.push(dateField);
  }
  const covered: ComponentId[] = names.map((name) => ({ name, params: new Map(), serialized: `"${name}"` }));
  const signatureParams = serializeInnerList([
    names.map((name) => [name, new Map()]),
    new Map<string, string | number>([
      ['created', input.created],
      ['keyid', input.keyId],
      ['alg', input.algorithm ?? DEFAULT_RSA_ALGORITHM],
    ]),
  ]);
  const base = buildSignatureBase({ method: input.method.toUpperCase(), targetUri: input.url, headers }, covered, signatureParams);
  return { headers, signatureParams, base };
}

/** The plan's headers with Signature-Input and the Signature made over its base. */
export function signatureHeaders(plan: SignaturePlan, signature: Uint8Array): SignatureHeaders {
  return {
    ...plan.headers,
    'signature-input': `${SIGNATURE_LABEL}=${plan.signatureParams}`,
    signature: `${SIGNATURE_LABEL}=:${encodeBase64(signature)}:`,
  };
}
