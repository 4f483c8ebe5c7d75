/**
 * The registry's view of an API Gateway proxy event, whichever door it came through: HTTP API
 * payload 2.0 (primary) or REST v1. Only what the registry needs: method, the route path, query,
 * headers, body bytes, the acting client from the authorizer context, and the request id.
 *
 * The route path is the path inside the API, exactly as the authorizer judged the caller's roles
 * on it (lambda/adapters/api-path.ts): the stage (`/prod/registry/...`) or a custom domain's base
 * path (`/v1/registry/...`) removed by the same function, never searched for further down the path.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { apiPathOfEvent, isHttpApiEventLike } from '../adapters/api-path';
import { CONTEXT_KEYS } from '../adapters/authorizer-context';
import { callerIpOf } from '../adapters/source-ip';
import type { TargetUriOptions } from '../adapters/target-uri';
import { authorizerContext, receivedBody } from '../backend/signed-body';
import { type CoverageProfile, isCoverageProfile } from '../core/profile-names';

/** Either proxy event shape. */
export type RegistryEvent = APIGatewayProxyEventV2 | APIGatewayProxyEvent;

export interface RegistryRequest {
  readonly method: string;
  /** The path as received (decoded), stage or base path included. */
  readonly path: string;
  /**
   * The path inside the API (decoded, no stage, no base path), e.g. `/registry/clients`: the path
   * the authorizer checked the caller's roles on, and the only one the registry routes on.
   */
  readonly apiPath: string;
  /** Query parameters, decoded; a repeated name keeps its last value. */
  readonly query: Readonly<Record<string, string>>;
  /** Header names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** The acting clientId from the authorizer context, if any. */
  readonly actor?: string;
  /** The acting client's roles from the authorizer context (empty when none were passed). */
  readonly actorRoles: readonly string[];
  /** The acting client's account from the authorizer context, if any. */
  readonly actorAccountId?: string;
  /**
   * Whether the authorizer found this exact request signed (its method and its path with the
   * query covered): false for a `web-bot-auth` signature of the authority alone, which proves
   * who sent it and nothing of what it asked for, and when the context does not say.
   */
  readonly actorRequestBound: boolean;
  /** The address the request came from (API Gateway's sourceIp, canonical), when known. */
  readonly sourceIp?: string;
  /** The coverage profile the authorizer admitted the request under, when it says. */
  readonly actorProfile?: CoverageProfile;
  readonly requestId: string;
}

/**
 * Reads a proxy event. `fallbackRequestId` is the Lambda invocation's id; `pathOptions` must be the
 * authorizer's (the same `publicBaseUrl`), so both find the same path inside the API.
 * @throws SignetError `role_forbidden` when the path has a `.` or `..` segment (as the authorizer does)
 */
export function readRegistryEvent(event: RegistryEvent, fallbackRequestId = '', pathOptions: TargetUriOptions = {}): RegistryRequest {
  const v2 = isHttpApiEvent(event);
  const method = (v2 ? event.requestContext?.http?.method : event.httpMethod) ?? '';
  // REST: requestContext.path is the path the client called (stage or base path included).
  const path = v2 ? (event.rawPath ?? event.requestContext?.http?.path ?? '') : (event.requestContext?.path || event.path || '');
  const context = authorizerContext(event);
  const actor = context[CONTEXT_KEYS.clientId];
  const roles = context[CONTEXT_KEYS.roles];
  const accountId = context[CONTEXT_KEYS.accountId];
  const requestBound = context[CONTEXT_KEYS.requestBound];
  const profile = context[CONTEXT_KEYS.profile];
  const decodedPath = safeDecode(path);
  const sourceIp = callerIpOf(v2 ? event.requestContext?.http?.sourceIp : event.requestContext?.identity?.sourceIp);
  return {
    method: method.toUpperCase(),
    path: decodedPath,
    apiPath: apiPathOfEvent(event, pathOptions),
    query: v2 ? parseRawQuery(event.rawQueryString ?? '') : restQuery(event),
    headers: lowerCaseHeaders(event.headers),
    body: receivedBody(event),
    ...(typeof actor === 'string' && actor !== '' ? { actor } : {}),
    actorRoles: typeof roles === 'string' ? roles.split(',').filter((r) => r !== '') : [],
    ...(typeof accountId === 'string' && accountId !== '' ? { actorAccountId: accountId } : {}),
    actorRequestBound: requestBound === 'true',
    ...(sourceIp !== undefined ? { sourceIp } : {}),
    ...(isCoverageProfile(profile) ? { actorProfile: profile } : {}),
    requestId: event.requestContext?.requestId || fallbackRequestId,
  };
}

export function isHttpApiEvent(event: RegistryEvent): event is APIGatewayProxyEventV2 {
  return isHttpApiEventLike(event);
}

/**
 * HTTP API's `rawQueryString` exactly as sent. A `+` stays a `+` (it is not form encoding:
 * keys and cursors are base64), `%xx` escapes are decoded.
 */
function parseRawQuery(raw: string): Record<string, string> {
  const query: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = safeDecode(eq === -1 ? part : part.slice(0, eq));
    query[name] = safeDecode(eq === -1 ? '' : part.slice(eq + 1));
  }
  return query;
}

/** REST gives only decoded maps; the last value of a repeated name wins, as in HTTP API's map. */
function restQuery(event: APIGatewayProxyEvent): Record<string, string> {
  const query: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if (Array.isArray(values) && values.length > 0) query[name] = String(values[values.length - 1]);
  }
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) {
    if (!(name in query) && typeof value === 'string') query[name] = value;
  }
  return query;
}

function lowerCaseHeaders(headers: Record<string, string | undefined> | null | undefined): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (typeof value === 'string') out[name.toLowerCase()] = value;
  }
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
