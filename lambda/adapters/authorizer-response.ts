/**
 * What the authorizer answers API Gateway, per API type, and what each answer becomes for the client.
 *
 * HTTP API (Lambda authorizer, payload 2.0, simple responses):
 * - `{ isAuthorized: true, context }` → the request proceeds; the backend sees the context at
 *   `requestContext.authorizer.lambda` (see authorizer-context.ts).
 * - `{ isAuthorized: false }` → always **403** with the fixed body `{"message":"Forbidden"}`.
 *   HTTP API has no gateway responses: neither the status nor the body can be customised, so a
 *   bad signature is a 403 too, and the reason reaches the client only through Signet's
 *   auth-failure log (`GET /registry/clients/{clientId}/auth-failures`). The Deny context is
 *   still set, for access logs (`$context.authorizer.signetError`).
 * - A request missing a configured identity source gets **401** `{"message":"Unauthorized"}`
 *   before the authorizer runs. A thrown error or a malformed response gives **500**.
 *
 * REST API (REQUEST authorizer, IAM policy):
 * - Allow policy for the request's stage and method (`…/{stage}/{METHOD}/*`) → proceeds; `principalId` is the clientId and the context
 *   reaches the backend at `requestContext.authorizer` (with `principalId`, `integrationLatency`).
 *   Context values may only be string, number or boolean (Signet sends strings).
 * - Deny policy → **403** ACCESS_DENIED. Its gateway response can read the Deny context:
 *   `$context.authorizer.signetError` and `$context.authorizer.signetMessage`
 *   ({@link REST_GATEWAY_RESPONSES}). Used for IP and role refusals.
 * - Throwing exactly `new Error('Unauthorized')` → **401** UNAUTHORIZED. No context exists on this
 *   path, so its body can only say that authentication failed; the precise code goes to the log
 *   and the auth-failure list. Used for every authentication failure.
 * - Any other thrown error or a malformed response → **500** AUTHORIZER_FAILURE. Signet throws
 *   {@link AuthorizerFailure} for its own 5xx codes (e.g. the registry is unreachable and nothing
 *   cached may be used): fail closed, and visible in the function's error metric.
 * - A missing identity source → 401 before the authorizer runs.
 */
import type {
  APIGatewayAuthorizerWithContextResult,
  APIGatewaySimpleAuthorizerWithContextResult,
  PolicyDocument,
} from 'aws-lambda';
import { AllowFacts, CONTEXT_KEYS, Refusal, SignetAllowContext, SignetDenyContext, allowContext, denyContext } from './authorizer-context';

/** The one message API Gateway (REST) turns into a 401. */
export const REST_UNAUTHORIZED_MESSAGE = 'Unauthorized';

/** The `error` value of REST 401 bodies, which cannot name the precise reason. */
export const REST_UNAUTHORIZED_ERROR = 'unauthorized';

/** principalId used on a Deny when the caller's keyid is unusable (missing or odd characters). */
export const ANONYMOUS_PRINCIPAL = 'anonymous';

/** A refusal with the status its code maps to (a `SignetError` fits). */
export interface StatusRefusal extends Refusal {
  readonly status: number;
}

/** Thrown for Signet's 5xx codes: API Gateway answers 500, nothing is let through. */
export class AuthorizerFailure extends Error {
  override readonly name = 'AuthorizerFailure';
  constructor(readonly code: string) {
    super(`Signet authorizer failed closed (${code}).`);
  }
}

// --- HTTP API -------------------------------------------------------------------------------

/** HTTP API simple response that lets the request through with Signet's context. */
export function httpApiAllowResponse(facts: AllowFacts): APIGatewaySimpleAuthorizerWithContextResult<SignetAllowContext> {
  return { isAuthorized: true, context: allowContext(facts) };
}

/** HTTP API simple response that refuses the request (the client always gets 403 `Forbidden`). */
export function httpApiDenyResponse(refusal: Refusal): APIGatewaySimpleAuthorizerWithContextResult<SignetDenyContext> {
  return { isAuthorized: false, context: denyContext(refusal) };
}

/**
 * The HTTP API answer for a refusal: a deny response for 4xx codes.
 * @throws AuthorizerFailure for 5xx codes (API Gateway answers 500)
 */
export function httpApiRefusal(refusal: StatusRefusal): APIGatewaySimpleAuthorizerWithContextResult<SignetDenyContext> {
  if (refusal.status >= 500) throw new AuthorizerFailure(refusal.code);
  return httpApiDenyResponse(refusal);
}

// --- REST API -------------------------------------------------------------------------------

/** IAM policy document allowing or denying `execute-api:Invoke` on exactly one method ARN. */
export function policyFor(effect: 'Allow' | 'Deny', methodArn: string): PolicyDocument {
  return {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: methodArn }],
  };
}

/**
 * REST Allow for the request's method on its stage (`…/{stage}/{METHOD}/*`), `principalId` = clientId.
 * The policy covers this one request only: the construct turns results caching off (TTL 0), so
 * API Gateway never applies it to another one. See {@link policyResourceOf}.
 */
export function restAllowPolicy(methodArn: string, facts: AllowFacts): APIGatewayAuthorizerWithContextResult<SignetAllowContext> {
  return { principalId: facts.clientId, policyDocument: policyFor('Allow', policyResourceOf(methodArn)), context: allowContext(facts) };
}

/**
 * REST Deny (403) carrying the code and sentence for the ACCESS_DENIED gateway response.
 * @param principalId - the keyid the caller presented, if any; replaced by `anonymous` when unsafe to echo
 */
export function restDenyPolicy(
  methodArn: string,
  refusal: Refusal,
  principalId?: string,
): APIGatewayAuthorizerWithContextResult<SignetDenyContext> {
  return { principalId: safePrincipalId(principalId), policyDocument: policyFor('Deny', policyResourceOf(methodArn)), context: denyContext(refusal) };
}

/** The error to throw for a REST 401: exactly `new Error('Unauthorized')`. */
export function restUnauthorizedError(): Error {
  return new Error(REST_UNAUTHORIZED_MESSAGE);
}

/**
 * The REST answer for a refusal, by the status of its code: 401 → throws `Unauthorized`;
 * 5xx → throws {@link AuthorizerFailure}; anything else (403 IP/role) → a Deny policy.
 *
 * @example
 * try { ... return restAllowPolicy(event.methodArn, facts); }
 * catch (e) { if (isSignetError(e)) return restRefusal(event.methodArn, e, keyId); throw e; }
 */
export function restRefusal(
  methodArn: string,
  refusal: StatusRefusal,
  principalId?: string,
): APIGatewayAuthorizerWithContextResult<SignetDenyContext> {
  if (refusal.status === 401) throw restUnauthorizedError();
  if (refusal.status >= 500) throw new AuthorizerFailure(refusal.code);
  return restDenyPolicy(methodArn, refusal, principalId);
}

/** The parts of an `execute-api` method ARN. */
export interface MethodArn {
  readonly partition: string;
  readonly region: string;
  readonly accountId: string;
  readonly apiId: string;
  readonly stage: string;
  readonly method: string;
  /** The resource path without its leading slash (`''` for the root). */
  readonly resource: string;
}

const METHOD_ARN = /^arn:(aws[a-z-]*):execute-api:([a-z0-9-]+):(\d{12}):([A-Za-z0-9]+)\/([^/]+)\/([A-Z]+|\*)\/(.*)$/;

/** Splits `arn:aws:execute-api:{region}:{account}:{apiId}/{stage}/{METHOD}/{resource}`; undefined if it is not one. */
export function parseMethodArn(arn: string): MethodArn | undefined {
  const m = METHOD_ARN.exec(arn);
  if (!m) return undefined;
  return { partition: m[1], region: m[2], accountId: m[3], apiId: m[4], stage: m[5], method: m[6], resource: m[7] };
}

/** The longest `Resource` API Gateway accepts in an authorizer's policy; a longer one answers 500. */
export const MAX_POLICY_RESOURCE_CHARS = 512;

/**
 * The `Resource` of the authorizer's policy: the `methodArn` with its path replaced by `*`
 * (`arn:…:{apiId}/{stage}/{METHOD}/*`). The `methodArn` names the request's path, which the
 * client chooses: named as it is, a long path would make the policy longer than API Gateway
 * accepts ({@link MAX_POLICY_RESOURCE_CHARS}) and turn a verified request into a 500. Without the
 * path the length is bounded by the ids, the stage name (128 at most) and the method; the path
 * was already judged by the role check, and the answer is never cached.
 * @throws Error when the event has no valid `methodArn` (API Gateway always sends one)
 */
export function policyResourceOf(methodArn: string): string {
  const arn = typeof methodArn === 'string' ? parseMethodArn(methodArn) : undefined;
  if (arn === undefined) {
    // Not a request error: API Gateway always sends one. A policy for a junk ARN would be a 500 anyway.
    throw new Error('The authorizer event has no valid methodArn (arn:aws:execute-api:region:account:api/stage/METHOD/path).');
  }
  return `arn:${arn.partition}:execute-api:${arn.region}:${arn.accountId}:${arn.apiId}/${arn.stage}/${arn.method}/*`;
}

const SAFE_PRINCIPAL = /^[A-Za-z0-9._~:@-]{1,128}$/;

function safePrincipalId(principalId: string | undefined): string {
  return principalId !== undefined && SAFE_PRINCIPAL.test(principalId) ? principalId : ANONYMOUS_PRINCIPAL;
}

// --- REST gateway responses -----------------------------------------------------------------

/** A gateway response the REST API should define, with its `application/json` template. */
export interface RestGatewayResponse {
  readonly type: 'UNAUTHORIZED' | 'ACCESS_DENIED' | 'AUTHORIZER_FAILURE';
  readonly statusCode: '401' | '403' | '500';
  readonly template: string;
}

/**
 * The REST gateway responses that give Signet's `{error, message, requestId}` bodies. API Gateway
 * substitutes `$context.*` without JSON escaping; the Deny context is made safe for it.
 */
export const REST_GATEWAY_RESPONSES: readonly RestGatewayResponse[] = [
  {
    type: 'UNAUTHORIZED',
    statusCode: '401',
    template: `{"error":"${REST_UNAUTHORIZED_ERROR}","message":"The request signature could not be verified. Run signet explain on the request, or read GET /registry/clients/{clientId}/auth-failures for the reason.","requestId":"$context.requestId"}`,
  },
  {
    type: 'ACCESS_DENIED',
    statusCode: '403',
    template: `{"error":"$context.authorizer.${CONTEXT_KEYS.error}","message":"$context.authorizer.${CONTEXT_KEYS.message}","requestId":"$context.requestId"}`,
  },
  {
    type: 'AUTHORIZER_FAILURE',
    statusCode: '500',
    template: '{"error":"internal_error","message":"The signature check could not be completed. Retry later; nothing was let through.","requestId":"$context.requestId"}',
  },
];
