/**
 * The registry's routes, matched on the path suffix that starts at `/registry/`.
 */
import { SignetError } from '../core/errors';

/** Every registry operation. */
export type RouteName =
  | 'createClient'
  | 'listClients'
  | 'getClient'
  | 'updateClient'
  | 'addKey'
  | 'removeKey'
  | 'disableClient'
  | 'enableClient'
  | 'listAuthFailures'
  | 'listAudit'
  | 'listExpiringKeys'
  | 'listRoles';

export interface MatchedRoute {
  readonly name: RouteName;
  /** The route template, for logs (`GET /registry/clients/{clientId}`). */
  readonly template: string;
  /** The suffix of the request path the route matched (from `/registry/`). */
  readonly routePath: string;
  readonly clientId?: string;
  readonly fingerprint?: string;
}

interface RouteSpec {
  readonly name: RouteName;
  readonly method: string;
  readonly template: string;
  readonly pattern: RegExp;
}

const ID = '([^/]+)';

const ROUTES: readonly RouteSpec[] = [
  { name: 'createClient', method: 'POST', template: '/registry/clients', pattern: /^\/registry\/clients$/ },
  { name: 'listClients', method: 'GET', template: '/registry/clients', pattern: /^\/registry\/clients$/ },
  { name: 'getClient', method: 'GET', template: '/registry/clients/{clientId}', pattern: new RegExp(`^/registry/clients/${ID}$`) },
  { name: 'updateClient', method: 'PATCH', template: '/registry/clients/{clientId}', pattern: new RegExp(`^/registry/clients/${ID}$`) },
  { name: 'addKey', method: 'POST', template: '/registry/clients/{clientId}/keys', pattern: new RegExp(`^/registry/clients/${ID}/keys$`) },
  {
    name: 'removeKey',
    method: 'DELETE',
    template: '/registry/clients/{clientId}/keys/{fingerprint}',
    pattern: new RegExp(`^/registry/clients/${ID}/keys/${ID}$`),
  },
  { name: 'disableClient', method: 'POST', template: '/registry/clients/{clientId}/disable', pattern: new RegExp(`^/registry/clients/${ID}/disable$`) },
  { name: 'enableClient', method: 'POST', template: '/registry/clients/{clientId}/enable', pattern: new RegExp(`^/registry/clients/${ID}/enable$`) },
  {
    name: 'listAuthFailures',
    method: 'GET',
    template: '/registry/clients/{clientId}/auth-failures',
    pattern: new RegExp(`^/registry/clients/${ID}/auth-failures$`),
  },
  { name: 'listAudit', method: 'GET', template: '/registry/clients/{clientId}/audit', pattern: new RegExp(`^/registry/clients/${ID}/audit$`) },
  { name: 'listExpiringKeys', method: 'GET', template: '/registry/keys/expiring', pattern: /^\/registry\/keys\/expiring$/ },
  { name: 'listRoles', method: 'GET', template: '/registry/roles', pattern: /^\/registry\/roles$/ },
];

/** Every route as `METHOD /template` (the OpenAPI document lists exactly these). */
export const REGISTRY_ROUTES: readonly string[] = Object.freeze(ROUTES.map((r) => `${r.method} ${r.template}`));

/**
 * The route for `method` on the first candidate path that names one.
 * @throws SignetError `not_found` naming the methods the path supports, or that no route exists
 */
export function matchRoute(method: string, routePaths: readonly string[]): MatchedRoute {
  let allowedOnPath: string[] | undefined;
  for (const raw of routePaths) {
    const path = raw.length > 1 ? raw.replace(/\/$/, '') : raw;
    const onPath = ROUTES.map((spec) => ({ spec, match: spec.pattern.exec(path) })).filter((r) => r.match !== null);
    if (onPath.length === 0) continue;
    const hit = onPath.find((r) => r.spec.method === method);
    if (hit === undefined) {
      allowedOnPath ??= onPath.map((r) => r.spec.method);
      continue;
    }
    const groups = hit.match as RegExpExecArray;
    return {
      name: hit.spec.name,
      template: `${hit.spec.method} ${hit.spec.template}`,
      routePath: raw,
      ...(groups[1] !== undefined ? { clientId: groups[1] } : {}),
      ...(groups[2] !== undefined ? { fingerprint: groups[2] } : {}),
    };
  }
  if (allowedOnPath !== undefined) {
    throw new SignetError('not_found', `${method} is not supported on this registry path; it supports ${allowedOnPath.join(', ')}.`);
  }
  throw new SignetError('not_found', 'No registry route has this path. The routes are under /registry/clients, /registry/keys/expiring and /registry/roles (see docs/openapi/registry.json).');
}
