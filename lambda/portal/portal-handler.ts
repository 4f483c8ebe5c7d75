/**
 * The portal's Lambda entry point, as a factory (tests hand in the repository's portal folder):
 * API Gateway proxy events (HTTP API 2.0 and REST v1) in, the static file out
 * (./static-site.ts). No authorizer guards these routes: the files are public and hold no
 * secret; every registry call the page makes is signed and checked like any other.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, APIGatewayProxyResult } from 'aws-lambda';
import { type PortalAssets, portalPathOf, servePortal } from './static-site';

/** Either proxy event format. */
export type PortalEvent = APIGatewayProxyEventV2 | APIGatewayProxyEvent;

export type PortalHandler = (event: PortalEvent) => Promise<APIGatewayProxyResult>;

/** Builds the handler over files read once (loadPortalAssets). */
export function createPortalHandler(assets: PortalAssets): PortalHandler {
  return async (event) => {
    const v2 = 'rawPath' in event;
    const method = v2 ? event.requestContext.http.method : event.httpMethod;
    const path = v2 ? event.rawPath : event.path;
    const ifNoneMatch = headerValue(event.headers, 'if-none-match');
    const reply = servePortal({ method, path: portalPathOf(path) ?? path, ifNoneMatch }, assets);
    return { statusCode: reply.status, headers: { ...reply.headers }, body: reply.body, isBase64Encoded: false };
  };
}

function headerValue(headers: Readonly<Record<string, string | undefined>> | null | undefined, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers ?? {})) if (key.toLowerCase() === name && typeof value === 'string') return value;
  return undefined;
}
