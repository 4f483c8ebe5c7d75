/**
 * Signing a request the way every Signet signer does (see the README's "The scheme").
 *
 * Covered, in this order: `@method`, `@target-uri`, `content-digest` (only with a non-empty
 * body), `date` (unless legacy; `x-date` instead when `dateField` says so, for browsers).
 * Parameters: `created`, `keyid`, `alg="rsa-v1_5-sha256"`.
 * RSASSA-PKCS1-v1_5 with SHA-256 (RFC 9421 §3.3.2), which is deterministic.
 */
import { KeyObject, constants, sign as rsaSign } from 'node:crypto';
import { computeContentDigest } from './content-digest';
import { DATE_FIELDS, type DateField, SIGNATURE_ALGORITHM, SIGNATURE_LABEL } from './defaults';
import { fail } from './errors';
import { formatHttpDate } from './http-date';
import { KEYID_RULE, isKeyid } from './keyid';
import { buildSignatureBase } from './signature-base';
import { ComponentId } from './signature-params';
import { serializeInnerList } from './structured-fields';

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

/** The headers to add to the request, lower-case names. */
export interface SignatureHeaders {
  readonly 'content-digest'?: string;
  readonly date?: string;
  /** Instead of `date` when `dateField` is `x-date`. */
  readonly 'x-date'?: string;
  readonly 'signature-input': string;
  readonly signature: string;
}

export interface SignResult {
  readonly headers: SignatureHeaders;
  /** The signature base that was signed (for `signet explain` and tests; never log it). */
  readonly base: string;
}

/** Signs a request and returns the headers to send with it. */
export function signRequest(input: SignRequestInput): SignResult {
  if (!Number.isSafeInteger(input.created) || input.created < 0) {
    fail('invalid_request', `created must be whole unix seconds; got ${String(input.created)}.`);
  }
  if (!isKeyid(input.keyId)) {
    fail('invalid_request', `The clientId (keyid) must be ${KEYID_RULE}.`);
  }
  if (input.privateKey.type !== 'private' || input.privateKey.asymmetricKeyType !== 'rsa') {
    fail('invalid_private_key', 'Signing needs an RSA private key.');
  }
  const dateField = input.dateField ?? 'date';
  if (!DATE_FIELDS.includes(dateField)) {
    fail('invalid_request', `dateField must be one of ${DATE_FIELDS.join(', ')}.`);
  }
  const method = input.method.toUpperCase();
  const hasBody = input.body !== undefined && (typeof input.body === 'string' ? input.body.length > 0 : input.body.byteLength > 0);
  const headers: Record<string, string> = {};
  const names = ['@method', '@target-uri'];
  if (hasBody) {
    headers['content-digest'] = computeContentDigest(input.body as Uint8Array | string);
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
      ['alg', SIGNATURE_ALGORITHM],
    ]),
  ]);
  const base = buildSignatureBase({ method, targetUri: input.url, headers }, covered, signatureParams);
  const signature = rsaSign('sha256', Buffer.from(base, 'utf8'), { key: input.privateKey, padding: constants.RSA_PKCS1_PADDING });
  return {
    headers: {
      ...headers,
      'signature-input': `${SIGNATURE_LABEL}=${signatureParams}`,
      signature: `${SIGNATURE_LABEL}=:${signature.toString('base64')}:`,
    },
    base,
  };
}
