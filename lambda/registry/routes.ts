/**
 * The registry's routes, matched on the whole path inside the API: the very path the authorizer
 * checked the caller's roles on (lambda/adapters/api-path.ts). Nothing is searched for inside a
 * longer path and no trailing slash is forgiven: a path that is not exactly a route is 404, so
 * a role pattern can never admit one route and reach another.
 */
import { SignetError } from '../core/errors';
import { type PathParameter, type RouteName, ROUTES, pathParameters } from './route-table';

export type { RouteName } from './route-table';

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

/** Each route of the table with the whole-path pattern of its template and its parameters in order. */
const MATCHERS = ROUTES.map((route) => ({
  route,
  parameters: pathParameters(route.path),
  pattern: new RegExp(`^${route.path.replace(/\{\w+\}/g, '([^/]+)')}$`),
}));

/** Every route as `METHOD /template` (the OpenAPI document lists exactly these). */
export const REGISTRY_ROUTES: readonly string[] = Object.freeze(ROUTES.map((r) => `${r.method} ${r.path}`));

/**
 * The route for `method` on exactly `apiPath` (the path inside the API, as the authorizer judged it).
 * @throws SignetError `not_found` naming the methods the path supports, or that no route exists
 */
export function matchRoute(method: string, apiPath: string): MatchedRoute {
  const onPath = MATCHERS.map((m) => ({ ...m, match: m.pattern.exec(apiPath) })).filter((r) => r.match !== null);
  const hit = onPath.find((r) => r.route.method === method);
  if (hit !== undefined) {
    const groups = hit.match as RegExpExecArray;
    const parameters: Partial<Record<PathParameter, string>> = {};
    hit.parameters.forEach((name, i) => {
      parameters[name] = groups[i + 1];
    });
    return { name: hit.route.name, template: `${hit.route.method} ${hit.route.path}`, routePath: apiPath, ...parameters };
  }
  if (onPath.length > 0) {
    throw new SignetError('not_found', `${method} is not supported on this registry path; it supports ${onPath.map((r) => r.route.method).join(', ')}.`);
  }
  throw new SignetError(
    'not_found',
    'No registry route has this path. The routes are under /registry/clients, /registry/accounts, /registry/keys/expiring and /registry/roles, called at the API\'s base URL with no trailing slash (see docs/openapi/registry.json).',
  );
}
