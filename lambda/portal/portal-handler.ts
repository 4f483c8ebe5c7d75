/**
 * The portal's Lambda handler: API Gateway proxy events (HTTP API 2.0 and REST v1) in, the static
 * file out (./static-site.ts). No authorizer guards these routes: the files are public and hold no
 * secret; every registry call the page makes is signed and checked like any other.
 * `createPortal(assets, dependencies)` builds it over files read once; the Lambda entry
 * (lambda/handlers/portal.ts) calls it with the files bundled beside it and Powertools, the tests
 * with the repository's portal folder.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, APIGatewayProxyResult } from 'aws-lambda';
import { type PortalAssets, portalPathOf, servePortal } from './static-site';

/** Either proxy event format. */
export type PortalEvent = APIGatewayProxyEventV2 | APIGatewayProxyEvent;

export type PortalHandler = (event: PortalEvent, context?: unknown) => Promise<APIGatewayProxyResult>;

export interface PortalDependencies {
  /** Where a request for no file (404) or with another method (405) is logged, with its method and path. */
  readonly logger: Logger;
}

/** The longest part of a requested path a log line keeps (the path is the caller's text). */
const LOGGED_PATH_CHARS = 200;

/** Builds the handler over files read once (loadPortalAssets). */
export function createPortal(assets: PortalAssets, dependencies: PortalDependencies): PortalHandler {
  const { logger } = dependencies;
  return async (event) => {
    const v2 = 'rawPath' in event;
    const method = v2 ? event.requestContext.http.method : event.httpMethod;
    const path = v2 ? event.rawPath : event.path;
    const ifNoneMatch = headerValue(event.headers, 'if-none-match');
    const reply = servePortal({ method, path: portalPathOf(path) ?? path, ifNoneMatch }, assets);
    if (reply.status >= 400) logger.info('portal: no file served', { status: reply.status, method, path: path.slice(0, LOGGED_PATH_CHARS) });
    return { statusCode: reply.status, headers: { ...reply.headers }, body: reply.body, isBase64Encoded: false };
  };
}

function headerValue(headers: Readonly<Record<string, string | undefined>> | null | undefined, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers ?? {})) if (key.toLowerCase() === name && typeof value === 'string') return value;
  return undefined;
}
