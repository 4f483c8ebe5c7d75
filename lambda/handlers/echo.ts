/**
 * The demo backend behind `/api/echo`: echoes the method, path, body and the authorizer
 * context, after checking the body against the signed Content-Digest (the body half).
 * Accepts HTTP API (payload 2.0) and REST (v1) proxy events.
 */
import { ProxyEvent, authorizerContext, receivedBody, withSignedBody } from '../backend/signed-body';

export const handler = withSignedBody(async (event: ProxyEvent) => {
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
});
