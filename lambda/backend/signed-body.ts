/**
 * The body half of the scheme, for backends behind Signet.
 *
 * API Gateway never gives the authorizer the body, so the authorizer only makes sure a request
 * with a body covered `content-digest`, and passes the signed Content-Digest value on in its
 * context (`contentDigest`). The backend must then check that the body it received hashes to
 * that value. This module does that check, as a plain wrapper and as Middy middleware:
 * the body is base64-decoded when `isBase64Encoded`, hashed with each of SHA-256 and SHA-512 the
 * digest lists (RFC 9530; all listed must match, other algorithms are ignored) and compared in
 * constant time (lambda/core/content-digest.ts); a mismatch answers 400 `digest_mismatch`.
 *
 * @example
 * export const handler = withSignedBody(async (event) => ({ statusCode: 200, body: 'ok' }));
 * // or, with Middy:
 * export const handler = middy(baseHandler).use(signedBody());
 * // signedBody() goes before any body parser: it checks the string API Gateway delivered.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, APIGatewayProxyResult, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { CONTEXT_KEYS } from '../adapters/authorizer-context';
import { checkContentDigest } from '../core/content-digest';
import { SignetError, isSignetError } from '../core/errors';

/**
 * The check itself, for a backend that is not a Lambda proxy handler (behind an HTTP integration,
 * say): the Content-Digest the authorizer passed on, and the body's raw bytes.
 * @throws SignetError `digest_required`, `malformed_digest` or `digest_mismatch`
 */
export { checkContentDigest };

/** Either proxy event shape. */
export type ProxyEvent = APIGatewayProxyEventV2 | APIGatewayProxyEvent;
/** A proxy result both formats accept. */
export type ProxyResult = APIGatewayProxyStructuredResultV2 & APIGatewayProxyResult;

/** The context key under which the authorizer passes the signed Content-Digest (one name, in the adapters). */
export const CONTENT_DIGEST_CONTEXT_KEY = CONTEXT_KEYS.contentDigest;

/** The authorizer context of a proxy event (HTTP API: `authorizer.lambda`; REST: `authorizer`). */
export function authorizerContext(event: ProxyEvent): Record<string, unknown> {
  const authorizer = (event.requestContext as { authorizer?: Record<string, unknown> | null }).authorizer ?? {};
  const lambda = (authorizer as { lambda?: Record<string, unknown> | null }).lambda;
  return lambda ?? authorizer;
}

/**
 * A backend wired with a body parser before the check: `event.body` is no longer the string API
 * Gateway delivered, so what was signed cannot be checked. The server's mistake, not the
 * client's: it is thrown (a 500), never answered as a refusal. Code `body_already_parsed`.
 */
export class BodyAlreadyParsedError extends TypeError {
  readonly code = 'body_already_parsed';
}

/**
 * An event without Signet's authorizer context (no `clientId` and `keyFingerprint`): the route has no Signet
 * authorizer, or the function was invoked some other way (a Function URL, a load balancer, a test
 * invoke). Nothing vouches for the request, not even one without a body, so the handler must not
 * run. The deployment's mistake, not the client's: it is thrown (a 500), never answered as a
 * refusal. Code `no_signet_context`.
 */
export class NoSignetContextError extends TypeError {
  readonly code = 'no_signet_context';
}

/**
 * The body bytes as the client sent them.
 * @throws BodyAlreadyParsedError when a body parser ran first and replaced `event.body` with what
 *   it read (an object, an array), which is not what the client signed
 */
export function receivedBody(event: ProxyEvent): Buffer {
  const body: unknown = event.body;
  if (body === null || body === undefined) return Buffer.alloc(0);
  if (typeof body !== 'string') {
    throw new BodyAlreadyParsedError(`event.body is ${Array.isArray(body) ? 'an array' : `a${typeof body === 'object' ? 'n object' : ` ${typeof body}`}`}, not the string API Gateway delivers: run the signed-body check before any body parser.`);
  }
  return event.isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
}

/**
 * Checks the received body against the signed Content-Digest.
 * @throws SignetError `digest_required`, `malformed_digest` or `digest_mismatch`; NoSignetContextError
 *   when no Signet authorizer vouched for the event; BodyAlreadyParsedError (see {@link receivedBody})
 */
export function checkSignedBody(event: ProxyEvent): void {
  const context = authorizerContext(event);
  // What Signet's authorizer puts in every allow: the client and the key that verified.
  const vouched = [context[CONTEXT_KEYS.clientId], context[CONTEXT_KEYS.keyFingerprint]].every((value) => typeof value === 'string' && value !== '');
  if (!vouched) {
    throw new NoSignetContextError(
      'The event carries no Signet authorizer context (no clientId and keyFingerprint): the route has no Signet authorizer, or the function was invoked some other way (a Function URL, a load balancer, a test invoke). Attach the Signet authorizer to the route that invokes this function.',
    );
  }
  const signed = context[CONTENT_DIGEST_CONTEXT_KEY];
  checkContentDigest(typeof signed === 'string' && signed !== '' ? signed : undefined, receivedBody(event));
}

/** The 400 response for a body that does not match its signature. */
export function signedBodyErrorResponse(error: SignetError, event: ProxyEvent): ProxyResult {
  return {
    statusCode: 400,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ error: error.code, message: error.message, requestId: event.requestContext.requestId }),
  };
}

/** What {@link withSignedBody} may also do. */
export interface SignedBodyOptions<E extends ProxyEvent> {
  /** Called with the refusal before the 400 is answered (to log it, say). @default - nothing */
  readonly onRefused?: (error: SignetError, event: E) => void;
}

/**
 * Wraps a proxy handler so it only runs when the body matches the signed digest; a refusal
 * answers 400. A NoSignetContextError (no Signet authorizer on the route) or BodyAlreadyParsedError
 * (a parser ran before it) is thrown on, as a 500. Every argument the runtime passes reaches the
 * handler. The refusal is a returned result: a handler that streams its response
 * (`streamifyResponse`) checks the body itself with `checkSignedBody` and writes the refusal.
 */
export function withSignedBody<E extends ProxyEvent, R>(
  handler: (event: E, context: unknown, ...rest: unknown[]) => Promise<R>,
  options: SignedBodyOptions<E> = {},
): (event: E, context?: unknown, ...rest: unknown[]) => Promise<R | ProxyResult> {
  return async (event, context, ...rest) => {
    try {
      checkSignedBody(event);
    } catch (error) {
      if (!isSignetError(error)) throw error;
      options.onRefused?.(error, event);
      return signedBodyErrorResponse(error, event);
    }
    return handler(event, context, ...rest);
  };
}

/** Middy middleware doing the same check in `before`; a mismatch ends the request with 400. */
export function signedBody(): { before: (request: { event: ProxyEvent }) => Promise<ProxyResult | undefined> } {
  return {
    before: async (request) => {
      try {
        checkSignedBody(request.event);
        return undefined;
      } catch (error) {
        if (isSignetError(error)) return signedBodyErrorResponse(error, request.event);
        throw error;
      }
    },
  };
}
