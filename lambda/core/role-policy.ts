/**
 * Roles and operations: a role catalogue maps each role to the routes it may call.
 *
 * A route pattern is `METHOD /path-glob`: METHOD is an HTTP method or `*`; in the path, `*`
 * matches within one segment and `**` matches any number of segments (including none).
 *
 * @example
 * const roles = compileRoleCatalogue({
 *   'registry:admin': ['* /registry/**'],
 *   demo: ['* /api/*'],
 * });
 * roles.allows(['demo'], 'POST', '/api/echo'); // true
 */
import { fail } from './errors';

/** Role name → route patterns (`METHOD /path-glob`). */
export type RoleCatalogue = Readonly<Record<string, readonly string[]>>;

/** A compiled catalogue. */
export interface CompiledRoleCatalogue {
  /** Every role the catalogue defines. */
  readonly roleNames: ReadonlySet<string>;
  /** True when any of `roles` may call `method path` (path without query). */
  allows(roles: readonly string[], method: string, path: string): boolean;
}

const ROLE_NAME = /^[A-Za-z0-9][A-Za-z0-9:._-]{0,63}$/;
const METHOD = /^(\*|[A-Z]+)$/;

interface CompiledRoute {
  readonly method: string;
  readonly path: RegExp;
}

/**
 * Checks and compiles a role catalogue; every problem is reported at once.
 * @throws Error listing each bad role name or pattern (a deployment-time mistake, not a request error)
 */
export function compileRoleCatalogue(catalogue: RoleCatalogue): CompiledRoleCatalogue {
  const problems: string[] = [];
  const compiled = new Map<string, CompiledRoute[]>();
  for (const [role, patterns] of Object.entries(catalogue)) {
    if (!ROLE_NAME.test(role)) problems.push(`role name ${JSON.stringify(role)} must be 1-64 of A-Z a-z 0-9 : . _ -`);
    if (!Array.isArray(patterns)) {
      problems.push(`role ${JSON.stringify(role)} must map to a list of "METHOD /path" patterns`);
      continue;
    }
    const routes: CompiledRoute[] = [];
    for (const pattern of patterns) {
      const route = compileRoute(pattern);
      if (typeof route === 'string') problems.push(`role ${JSON.stringify(role)}: ${route}`);
      else routes.push(route);
    }
    compiled.set(role, routes);
  }
  if (problems.length > 0) throw new Error(`Invalid role catalogue: ${problems.join('; ')}`);
  return {
    roleNames: new Set(compiled.keys()),
    allows(roles, method, path) {
      if (!isNormalPath(path)) return false;
      const upper = method.toUpperCase();
      for (const role of roles) {
        const routes = compiled.get(role);
        if (routes === undefined) continue;
        for (const route of routes) {
          if ((route.method === '*' || route.method === upper) && route.path.test(path)) return true;
        }
      }
      return false;
    },
  };
}

/**
 * Checks a list of role names against the catalogue.
 * @param knownRoles the sentence naming the roles the caller may use, for the refusal
 *   (by default the whole catalogue: "Known roles: …")
 * @returns the roles, de-duplicated, in the order given
 * @throws SignetError `unknown_role` naming the unknown roles and, by `knownRoles`, the known ones
 */
export function validateRoles(roles: unknown, catalogue: Pick<CompiledRoleCatalogue, 'roleNames'>, knownRoles: string = knownRolesSentence(catalogue)): string[] {
  if (!Array.isArray(roles) || roles.some((r) => typeof r !== 'string')) {
    fail('unknown_role', 'roles must be a list of role names.');
  }
  const unknown = (roles as string[]).filter((r) => !catalogue.roleNames.has(r));
  if (unknown.length > 0) {
    fail('unknown_role', `Unknown role(s): ${unknown.map((r) => JSON.stringify(r.slice(0, 64))).join(', ')}. ${knownRoles}`);
  }
  return [...new Set(roles as string[])];
}

/** "Known roles: a, b, c." of the whole catalogue (sorted). */
export function knownRolesSentence(catalogue: Pick<CompiledRoleCatalogue, 'roleNames'>): string {
  return `Known roles: ${[...catalogue.roleNames].sort().join(', ')}.`;
}

/**
 * Dot segments, empty segments and encoded separators could make `/api/../registry` match a
 * role scoped to `/api`; such paths match no role at all.
 */
function isNormalPath(path: string): boolean {
  return path.startsWith('/') && !/(^|\/)\.{1,2}(\/|$)|\/\/|%2e|%2f|%5c|\\/i.test(path);
}

function compileRoute(pattern: unknown): CompiledRoute | string {
  if (typeof pattern !== 'string') return 'each pattern must be a string like "GET /api/*"';
  const match = /^(\S+) (\/\S*)$/.exec(pattern.trim());
  if (!match || !METHOD.test(match[1])) {
    return `pattern ${JSON.stringify(pattern)} must look like "GET /api/*" (METHOD or *, a space, a path starting with /)`;
  }
  // Segment by segment: `**` is zero or more whole segments, `*` stays within one segment.
  let source = '';
  for (const segment of match[2].split('/').slice(1)) {
    if (segment === '**') {
      source += '(?:/.*)?';
    } else {
      const escaped = segment.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*+/g, '[^/]*');
      source += `/${escaped}`;
    }
  }
  return { method: match[1], path: new RegExp(`^${source}$`) };
}
