/**
 * The path a request names inside the API: what the authorizer matches role patterns against,
 * and so the only path the services behind it may route on. One function for both sides, so the
 * path a role was checked on and the path a route is chosen by cannot differ.
 *
 * - HTTP API (payload 2.0): `rawPath` without the base path of `publicBaseUrl` when it starts
 *   with it (a custom domain's API mapping key reached `rawPath`), else without a named stage's
 *   `/{stage}` prefix.
 * - REST (v1): `path` without the stage, or without the custom domain's base path (inferred from
 *   the route API Gateway matched, else taken from `publicBaseUrl`).
 *
 * Both accept authorizer events and proxy (integration) events: they carry the same fields.
 */
import { type HttpApiEventV2Like, apiPathOfHttpApiEvent } from './http-api-event';
import { type RestApiEventLike, apiPathOfRestApiEvent } from './rest-api-event';
import type { TargetUriOptions } from './target-uri';

/** An API Gateway event of either flavour. */
export type ApiGatewayEventLike = HttpApiEventV2Like | RestApiEventLike;

/** True for an HTTP API payload 2.0 event (authorizer or proxy). */
export function isHttpApiEventLike(event: ApiGatewayEventLike): event is HttpApiEventV2Like {
  return (event as { version?: unknown }).version === '2.0' || 'rawPath' in event;
}

/**
 * The decoded path inside the API (no stage, no base path), e.g. `/registry/clients`: the path
 * the authorizer judged the request's roles on.
 * @throws SignetError `role_forbidden` when a segment is `.` or `..`, or (REST API) holds an encoded `/`
 */
export function apiPathOfEvent(event: ApiGatewayEventLike, opts: TargetUriOptions = {}): string {
  return isHttpApiEventLike(event) ? apiPathOfHttpApiEvent(event, opts) : apiPathOfRestApiEvent(event, opts);
}
