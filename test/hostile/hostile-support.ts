/**
 * Support for the hostile-input tests: requests signed by hand (any Signature-Input text, any
 * signing algorithm, any label), and the verdict of the whole request path for an HTTP API event:
 * the deployed authorizer handler and, when it lets a request through, the echo backend with its
 * body check (the body half: the authorizer never sees the body).
 *
 * A verdict is one of:
 *   accepted     the authorizer allowed it and the backend answered 200 (must never happen here);
 *   refused      a Deny with a code, or the backend's 400 with a code;
 *   fail-closed  the handler threw AuthorizerFailure (API Gateway answers 500; nothing let through);
 *   crash        any other exception escaped (must never happen).
 */
import { constants, createHmac, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEventV2, APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { ERROR_CODES } from '../../lambda/core/errors';
import { buildSignatureBase } from '../../lambda/core/signature-base';
import { readSignatureInput } from '../../lambda/core/signature-params';
import type { SignedRequest } from '../../lambda/core/types';
import { createEcho } from '../../lambda/backend/echo';
import { SERVICE_NAMES } from '../../lambda/observability';
import type { AuthorizerModule } from '../authorizer/support';

/** The echo backend as deployed, with its refusal lines kept quiet. */
const echoHandler = createEcho({ logger: new Logger({ serviceName: SERVICE_NAMES.echo, logLevel: 'SILENT' }) });

/** How a hand-made signature is computed over the signature base. */
export type SigningAlgorithm =
  | 'rsa-v1_5-sha256'
  | 'rsa-v1_5-sha512'
  | 'rsa-v1_5-sha1'
  | 'rsa-pss-sha256'
  | 'rsa-pss-sha512'
  | 'hmac-sha256'
  | 'ecdsa'
  | 'ed25519';

/** Signs `base` with `key` the way `algorithm` says (HMAC uses `hmacSecret`). */
export function signBase(base: string, key: KeyObject, algorithm: SigningAlgorithm = 'rsa-v1_5-sha256', hmacSecret = ''): Buffer {
  const data = Buffer.from(base, 'utf8');
  switch (algorithm) {
    case 'rsa-v1_5-sha256':
      return cryptoSign('sha256', data, { key, padding: constants.RSA_PKCS1_PADDING });
    case 'rsa-v1_5-sha512':
      return cryptoSign('sha512', data, { key, padding: constants.RSA_PKCS1_PADDING });
    case 'rsa-v1_5-sha1':
      return cryptoSign('sha1', data, { key, padding: constants.RSA_PKCS1_PADDING });
    case 'rsa-pss-sha256':
      return cryptoSign('sha256', data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
    case 'rsa-pss-sha512':
      return cryptoSign('sha512', data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 });
    case 'hmac-sha256':
      return createHmac('sha256', hmacSecret).update(data).digest();
    case 'ecdsa':
      return cryptoSign('sha256', data, { key, dsaEncoding: 'ieee-p1363' });
    case 'ed25519':
      return cryptoSign(null, data, key);
  }
}

export interface HandSigned {
  /** The request headers to send (lower-case names), Signature-Input and Signature included. */
  readonly headers: Record<string, string>;
}

export interface HandSignOptions {
  readonly method: string;
  readonly url: string;
  /** Headers sent (and available to covered components), before the signature headers. */
  readonly headers: Record<string, string>;
  /** The whole Signature-Input field value, exactly as sent. */
  readonly signatureInput: string;
  /** Which member of Signature-Input the signature is computed for. @default 'sig' */
  readonly label?: string;
  readonly key: KeyObject;
  readonly algorithm?: SigningAlgorithm;
  readonly hmacSecret?: string;
  /** Other Signature members to send after this one, e.g. `other=:AAAA:`. */
  readonly extraSignatureMembers?: string;
}

/**
 * Signs a request by hand: the base is built by the core's own base builder from `label`'s
 * member of the given Signature-Input, then signed with `algorithm`. So a policy violation can
 * carry a signature that is cryptographically valid for what it claims.
 */
export function handSign(options: HandSignOptions): HandSigned {
  const label = options.label ?? 'sig';
  const input = readSignatureInput(options.signatureInput, label);
  const request: SignedRequest = { method: options.method, targetUri: options.url, headers: options.headers };
  let base: string;
  try {
    base = buildSignatureBase(request, input.covered, input.signatureParams);
  } catch {
    // The core cannot build a base for these components (unsupported or absent): no verifier can
    // check a signature over it either, so any well-formed signature will do.
    base = `unbuildable base for ${options.signatureInput}`;
  }
  const signature = signBase(base, options.key, options.algorithm, options.hmacSecret);
  const members = [`${label}=:${signature.toString('base64')}:`, ...(options.extraSignatureMembers ? [options.extraSignatureMembers] : [])];
  return { headers: { ...options.headers, 'signature-input': options.signatureInput, signature: members.join(', ') } };
}

export type Verdict =
  | { readonly kind: 'accepted'; readonly stage: 'backend' }
  | { readonly kind: 'refused'; readonly stage: 'authorizer' | 'backend'; readonly code: string }
  | { readonly kind: 'fail-closed'; readonly code: string }
  | { readonly kind: 'crash'; readonly error: Error };

/** The 2.0 proxy event the backend gets after an Allow: the same request, its body, the context. */
function backendEvent(event: APIGatewayRequestAuthorizerEventV2, body: string | undefined, context: Record<string, unknown>): APIGatewayProxyEventV2 {
  const { type: _type, routeArn: _arn, identitySource: _identity, ...request } = event as APIGatewayRequestAuthorizerEventV2 & Record<string, unknown>;
  return {
    ...(request as unknown as APIGatewayProxyEventV2),
    body,
    isBase64Encoded: false,
    requestContext: { ...event.requestContext, authorizer: { lambda: context } } as unknown as APIGatewayProxyEventV2['requestContext'],
  };
}

/**
 * Runs `event` through the authorizer handler and, on Allow, through the echo backend with the
 * body actually sent (`sentBody`).
 */
export async function verdictOf(authorizer: AuthorizerModule, event: APIGatewayRequestAuthorizerEventV2, sentBody?: string): Promise<Verdict> {
  let decision: Awaited<ReturnType<AuthorizerModule['httpApiHandler']>>;
  try {
    decision = await authorizer.httpApiHandler(event);
  } catch (error) {
    const e = error as Error & { code?: unknown };
    if (e?.name === 'AuthorizerFailure' && typeof e.code === 'string') return { kind: 'fail-closed', code: e.code };
    return { kind: 'crash', error: e };
  }
  if (!decision.isAuthorized) {
    return { kind: 'refused', stage: 'authorizer', code: String((decision.context as { signetError?: unknown } | undefined)?.signetError) };
  }
  try {
    const result = (await echoHandler(backendEvent(event, sentBody, decision.context as Record<string, unknown>), {})) as { statusCode: number; body: string };
    if (result.statusCode === 200) return { kind: 'accepted', stage: 'backend' };
    return { kind: 'refused', stage: 'backend', code: String((JSON.parse(result.body) as { error?: unknown }).error) };
  } catch (error) {
    return { kind: 'crash', error: error as Error };
  }
}

/** True for a stable code from lambda/core/errors.ts. */
export function isKnownCode(code: string): boolean {
  return Object.prototype.hasOwnProperty.call(ERROR_CODES, code);
}

/** `sig=:<b64>:` with one bit of the decoded signature flipped (a different signature, same length). */
export function flipSignatureBit(signatureField: string, byteIndex = 0): string {
  const m = /^sig=:([A-Za-z0-9+/=]+):$/.exec(signatureField);
  if (m === null) throw new Error('not a single sig= byte sequence');
  const bytes = Buffer.from(m[1], 'base64');
  bytes[byteIndex % bytes.length] ^= 0x01;
  return `sig=:${bytes.toString('base64')}:`;
}

/** Counts per reason, printed at the end of a test file. */
export class ReasonTally {
  private readonly counts = new Map<string, number>();
  add(reason: string): void {
    this.counts.set(reason, (this.counts.get(reason) ?? 0) + 1);
  }
  get total(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }
  lines(): string[] {
    return [...this.counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([code, n]) => `${String(n).padStart(5)}  ${code}`);
  }
}
