/**
 * The registry's routes, matched on the whole path inside the API: the very path the authorizer
 * checked the caller's roles on (lambda/adapters/api-path.ts). Nothing is searched for inside a
 * longer path and no trailing slash is forgiven: a path that is not exactly a route is 404, so
 * a role pattern can never admit one route and reach another.
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
  | 'listRoles'
  | 'createAccount'
  | 'listAccounts'
  | 'getAccount'
  | 'updateAccount'
  | 'listAccountAudit';

export interface MatchedRoute {
  readonly name: RouteName;
  /** The route template, for logs (`GET /registry/clients/{clientId}`). */
  readonly template: string;
  /** The path inside the API the route matched (the authorizer's path). */
  readonly routePath: string;
  readonly clientId?: string;
  readonly fingerprint?: string;
  readonly accountId?: string;
}

/** A path parameter's name, in the order its group appears in the pattern. */
type PathParameter = 'clientId' | 'fingerprint' | 'accountId';

interface RouteSpec {
  readonly name: RouteName;
  readonly method: string;
  readonly template: string;
  readonly pattern: RegExp;
  /** The pattern's groups, in order. @default ['clientId', 'fingerprint'] */
  readonly parameters?: readonly PathParameter[];
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
  { name: 'createAccount', method: 'POST', template: '/registry/accounts', pattern: /^\/registry\/accounts$/ },
  { name: 'listAccounts', method: 'GET', template: '/registry/accounts', pattern: /^\/registry\/accounts$/ },
  { name: 'getAccount', method: 'GET', template: '/registry/accounts/{accountId}', pattern: new RegExp(`^/registry/accounts/${ID}$`), parameters: ['accountId'] },
  { name: 'updateAccount', method: 'PATCH', template: '/registry/accounts/{accountId}', pattern: new RegExp(`^/registry/accounts/${ID}$`), parameters: ['accountId'] },
  {
    name: 'listAccountAudit',
    method: 'GET',
    template: '/registry/accounts/{accountId}/audit',
    pattern: new RegExp(`^/registry/accounts/${ID}/audit$`),
    parameters: ['accountId'],
  },
];

/** Every route as `METHOD /template` (the OpenAPI document lists exactly these). */
export const REGISTRY_ROUTES: readonly string[] = Object.freeze(ROUTES.map((r) => `${r.method} ${r.template}`));

/**
 * The route for `method` on exactly `apiPath` (the path inside the API, as the authorizer judged it).
 * @throws SignetError `not_found` naming the methods the path supports, or that no route exists
 */
export function matchRoute(method: string, apiPath: string): MatchedRoute {
  const onPath = ROUTES.map((spec) => ({ spec, match: spec.pattern.exec(apiPath) })).filter((r) => r.match !== null);
  const hit = onPath.find((r) => r.spec.method === method);
  if (hit !== undefined) {
    const groups = hit.match as RegExpExecArray;
    const parameters: Partial<Record<PathParameter, string>> = {};
    (hit.spec.parameters ?? ['clientId', 'fingerprint']).forEach((name, i) => {
      if (groups[i + 1] !== undefined) parameters[name] = groups[i + 1];
    });
    return { name: hit.spec.name, template: `${hit.spec.method} ${hit.spec.template}`, routePath: apiPath, ...parameters };
  }
  if (onPath.length > 0) {
    throw new SignetError('not_found', `${method} is not supported on this registry path; it supports ${onPath.map((r) => r.spec.method).join(', ')}.`);
  }
  throw new SignetError(
    'not_found',
    'No registry route has this path. The routes are under /registry/clients, /registry/accounts, /registry/keys/expiring and /registry/roles, called at the API\'s base URL with no trailing slash (see docs/openapi/registry.json).',
  );
}
