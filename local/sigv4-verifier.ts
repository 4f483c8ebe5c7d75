/**
 * Verifies AWS Signature Version 4 on an incoming HTTP request, the way an AWS service does,
 * for the local Secrets Manager stand-in (./secrets-manager-standin.ts): only callers holding
 * the stand-in's credentials may read the secrets it keeps.
 *
 * Implemented from the SigV4 specification ("Create a signed AWS API request", AWS IAM User
 * Guide): the canonical request (method, URI-encoded path, sorted query, the signed headers
 * lower-cased with their values trimmed and inner whitespace collapsed, the signed header list,
 * the hex SHA-256 of the body), the string to sign (`AWS4-HMAC-SHA256`, X-Amz-Date, credential
 * scope, hash of the canonical request), and the HMAC-SHA256 chain
 * `"AWS4" + secret -> date -> region -> service -> "aws4_request"`. The body's hash is always
 * computed here, never taken from the request.
 *
 * Refusals carry the exception names and messages AWS services answer with:
 * - no `Authorization` header: `MissingAuthenticationTokenException`;
 * - a malformed one, no `X-Amz-Date`, or an `x-amz-*` header (`X-Amz-Target` among them) left
 *   out of SignedHeaders: `IncompleteSignatureException`;
 * - an unknown access key (or a session token, which the stand-in never issues):
 *   `UnrecognizedClientException`;
 * - a wrong scope (region, service), a date more than 15 minutes off, a body that does not match
 *   `X-Amz-Content-Sha256`, or a signature that does not match: `InvalidSignatureException`.
 * Presigned URLs (query-string authentication) are not accepted. Nothing here logs.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** A key pair a caller signs with. */
export interface SigV4Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/** What the verifier needs from the request. */
export interface SignedRequest {
  readonly method: string;
  /** The request target as received: path and optional `?query`. */
  readonly url: string;
  /** Header names and values in arrival order (Node's `IncomingMessage.rawHeaders`). */
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
}

export interface SigV4Expectations {
  /** The credentials the verifier accepts (one key pair). */
  readonly credentials: SigV4Credentials;
  readonly region: string;
  /** The signing name of the service, e.g. `secretsmanager`. */
  readonly service: string;
  /** The current time, in ms since the epoch. @default Date.now() */
  readonly nowMs?: number;
}

/** Why a request was refused: an AWS exception name, its HTTP status, and the message. */
export interface SigV4Refusal {
  readonly type:
    | 'MissingAuthenticationTokenException'
    | 'IncompleteSignatureException'
    | 'UnrecognizedClientException'
    | 'InvalidSignatureException';
  readonly status: 400 | 403;
  readonly message: string;
}

/** How far X-Amz-Date may be from the verifier's clock, as AWS allows. */
export const SIGV4_MAX_SKEW_MS = 15 * 60_000;

const ALGORITHM = 'AWS4-HMAC-SHA256';
const AUTHORIZATION = /^AWS4-HMAC-SHA256 +Credential=([^,\s]+), *SignedHeaders=([^,\s]+), *Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{8})T\d{6}Z$/;
const SIGNATURE_MISMATCH =
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';

/** `undefined` when the request is signed with the expected credentials, scope and time; else why not. */
export function verifySigV4(request: SignedRequest, expected: SigV4Expectations): SigV4Refusal | undefined {
  const headers = collectHeaders(request.rawHeaders);
  const authorization = headers.get('authorization');
  if (authorization === undefined) {
    if (/[?&]X-Amz-Signature=/i.test(request.url)) {
      return incomplete('Presigned URLs (query-string authentication) are not accepted here; sign the Authorization header.');
    }
    return { type: 'MissingAuthenticationTokenException', status: 400, message: 'Request is missing Authentication Token' };
  }
  const parsed = AUTHORIZATION.exec(authorization);
  if (parsed === null) {
    return incomplete(
      `Authorization header requires '${ALGORITHM} Credential=<access key>/<date>/<region>/<service>/aws4_request, SignedHeaders=<names>, Signature=<64 hex digits>'.`,
    );
  }
  const [, credential, signedHeaderList, signature] = parsed as unknown as [string, string, string, string];
  const scopeParts = credential.split('/');
  if (scopeParts.length !== 5 || scopeParts[4] !== 'aws4_request') {
    return incomplete("Credential must have the form '<access key>/<YYYYMMDD>/<region>/<service>/aws4_request'.");
  }
  const [accessKeyId, scopeDate, scopeRegion, scopeService] = scopeParts as [string, string, string, string, string];

  const amzDate = headers.get('x-amz-date');
  const dateMatch = amzDate === undefined ? null : AMZ_DATE.exec(amzDate);
  if (amzDate === undefined || dateMatch === null) {
    return incomplete("Authorization header requires an 'X-Amz-Date' header in the form YYYYMMDD'T'HHMMSS'Z'.");
  }
  const signedHeaders = signedHeaderList.split(';');
  const missingSigned = ['host', 'x-amz-date'].filter((name) => !signedHeaders.includes(name));
  if (missingSigned.length > 0) return incomplete(`SignedHeaders must include ${missingSigned.join(' and ')}.`);
  const absent = signedHeaders.filter((name) => !headers.has(name));
  if (absent.length > 0) return incomplete(`SignedHeaders names ${absent.join(', ')}, which the request does not carry.`);
  // X-Amz-Target names the operation: unsigned, a captured GetSecretValue could be replayed as
  // PutSecretValue. As AWS asks of every x-amz-* header a request carries, each must be signed.
  const unsigned = [...headers.keys()].filter((name) => name.startsWith('x-amz-') && !signedHeaders.includes(name)).sort();
  if (unsigned.length > 0) return incomplete(`SignedHeaders must include every x-amz-* header the request carries; ${unsigned.join(', ')} ${unsigned.length === 1 ? 'is' : 'are'} not signed.`);

  if (!sameText(accessKeyId, expected.credentials.accessKeyId) || headers.has('x-amz-security-token')) {
    return { type: 'UnrecognizedClientException', status: 400, message: 'The security token included in the request is invalid.' };
  }
  if (scopeDate !== dateMatch[1]) {
    return invalid(`Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${scopeDate}' != '${dateMatch[1]}'.`);
  }
  if (scopeRegion !== expected.region) {
    return invalid(`Credential should be scoped to a valid region. This endpoint serves '${expected.region}'.`);
  }
  if (scopeService !== expected.service) return invalid(`Credential should be scoped to correct service: '${expected.service}'.`);
  const signedAtMs = Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  const nowMs = expected.nowMs ?? Date.now();
  if (!Number.isFinite(signedAtMs)) return incomplete(`X-Amz-Date ${amzDate} is not a valid date.`);
  if (signedAtMs < nowMs - SIGV4_MAX_SKEW_MS) {
    return invalid(`Signature expired: ${amzDate} is now earlier than ${amzDateOf(nowMs - SIGV4_MAX_SKEW_MS)} (${amzDateOf(nowMs)} - 15 min.)`);
  }
  if (signedAtMs > nowMs + SIGV4_MAX_SKEW_MS) {
    return invalid(`Signature not yet current: ${amzDate} is still later than ${amzDateOf(nowMs + SIGV4_MAX_SKEW_MS)} (${amzDateOf(nowMs)} + 15 min.)`);
  }

  const payloadHash = sha256Hex(request.body);
  const declaredHash = headers.get('x-amz-content-sha256');
  if (declaredHash !== undefined && declaredHash !== payloadHash) {
    return invalid("The provided 'x-amz-content-sha256' header does not match what was computed.");
  }
  const canonicalRequest = [
    request.method.toUpperCase(),
    canonicalPath(request.url),
    canonicalQuery(request.url),
    signedHeaders.map((name) => `${name}:${headers.get(name)}\n`).join(''),
    signedHeaderList,
    payloadHash,
  ].join('\n');
  const scope = `${scopeDate}/${scopeRegion}/${scopeService}/aws4_request`;
  const stringToSign = [ALGORITHM, amzDate, scope, sha256Hex(Buffer.from(canonicalRequest, 'utf8'))].join('\n');
  const expectedSignature = hmac(signingKey(expected.credentials.secretAccessKey, scopeDate, scopeRegion, scopeService), stringToSign).toString('hex');
  return sameText(signature, expectedSignature) ? undefined : invalid(SIGNATURE_MISMATCH);
}

/** The key the SigV4 HMAC chain derives for one day, region and service. */
export function signingKey(secretAccessKey: string, date: string, region: string, service: string): Buffer {
  const kDate = hmac(Buffer.from(`AWS4${secretAccessKey}`, 'utf8'), date);
  return hmac(hmac(hmac(kDate, region), service), 'aws4_request');
}

/**
 * Lower-cased names to canonical values: repeated headers joined with `,` in arrival order,
 * each value trimmed with runs of spaces and tabs folded into one space.
 */
function collectHeaders(rawHeaders: readonly string[]): Map<string, string> {
  const values = new Map<string, string[]>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!.replace(/[ \t]+/g, ' ').trim();
    const list = values.get(name);
    if (list) list.push(value);
    else values.set(name, [value]);
  }
  return new Map([...values].map(([name, list]) => [name, list.join(',')]));
}

/**
 * The path as received, normalized (empty, `.` and `..` segments resolved) and URI-encoded once
 * more: SigV4 encodes the already encoded path again for every service but S3.
 */
function canonicalPath(url: string): string {
  const path = url.split('?', 1)[0] ?? '';
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const trailing = segments.length > 0 && path.endsWith('/') ? '/' : '';
  return `/${segments.map(uriEncode).join('/')}${trailing}`;
}

/** Query parameters decoded, re-encoded with {@link uriEncode}, sorted by name then value. */
function canonicalQuery(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return '';
  const pairs = url
    .slice(at + 1)
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const [name, value] = eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
      return [uriEncode(decode(name)), uriEncode(decode(value))] as const;
    });
  pairs.sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return pairs.map(([name, value]) => `${name}=${value}`).join('&');
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** RFC 3986 encoding: everything but A-Z a-z 0-9 - _ . ~ as %XX of its UTF-8 bytes. */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function sha256Hex(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmac(key: Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** Constant-time comparison of two strings. */
function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

function amzDateOf(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

const incomplete = (message: string): SigV4Refusal => ({ type: 'IncompleteSignatureException', status: 400, message });
const invalid = (message: string): SigV4Refusal => ({ type: 'InvalidSignatureException', status: 400, message });
