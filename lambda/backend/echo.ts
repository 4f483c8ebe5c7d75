/**
 * The demo backend behind `/api/echo`: echoes the method, path, query, body and the authorizer
 * context, after checking the body against the signed Content-Digest (the body half,
 * ./signed-body.ts). Accepts HTTP API (payload 2.0) and REST (v1) proxy events.
 * `createEcho(dependencies)` builds it; the Lambda entry (lambda/handlers/echo.ts) calls it with
 * Powertools, the local gateway and the tests with their own logger. It has no configuration.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { type ProxyEvent, type ProxyResult, authorizerContext, receivedBody, withSignedBody } from './signed-body';

export interface EchoDependencies {
  /** Where a body refused by its signature is logged (reason and requestId; never the body). */
  readonly logger: Logger;
}

export type EchoHandler = (event: ProxyEvent, context?: unknown) => Promise<ProxyResult>;

/** The echo backend: 200 with what it received, or 400 when the body does not match its signature. */
export function createEcho(dependencies: EchoDependencies): EchoHandler {
  const { logger } = dependencies;
  return withSignedBody(async (event: ProxyEvent) => echoResponse(event), {
    onRefused: (error, event) => {
      logger.info('refused: the body does not match its signature', { reason: error.code, clientId: authorizerContext(event).clientId, requestId: event.requestContext.requestId });
    },
  });
}

function echoResponse(event: ProxyEvent): ProxyResult {
  const context = authorizerContext(event);
  const v2 = 'rawPath' in event;
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      method: v2 ? event.requestContext.http.method : event.httpMethod,
      path: v2 ? event.rawPath : event.path,
      query: v2 ? event.rawQueryString : (event.multiValueQueryStringParameters ?? {}),
      body: receivedBody(event).toString('utf8'),
      authorizer: {
        clientId: context.clientId,
        roles: context.roles,
        keyFingerprint: context.keyFingerprint,
        contentDigest: context.contentDigest,
        signetProfile: context.signetProfile,
        signetRequestBound: context.signetRequestBound,
      },
    }),
  };
}
