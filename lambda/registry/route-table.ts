/**
 * The registry's routes, written once. Per route: its method and path, the query parameters and
 * If-Match header it takes, its request body and answers (schemas of the contract, ./contract/schemas.ts),
 * the statuses it may refuse with, and who may call it. The handler of each route is the
 * {@link RouteHandlers} entry of the same name (RegistryService implements every one; the compiler
 * checks none is missing).
 *
 * Everything else is derived from this table: matching a request to its route (./routes.ts), the
 * checks every route shares (query parameters, operator-only routes; ./registry-service.ts), and
 * docs/openapi/registry.json (./contract/openapi-document.ts, with the prose of ./contract/route-prose.ts).
 */
import * as z from 'zod/mini';
import { DEFAULT_ROTATION_DAYS } from '../core/defaults';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../store/dynamo-table';
import { MAX_QUERY_CHARS, SEARCH_PARAMETERS } from './client-search-query';
import * as contract from './contract/schemas';
import { MAX_AGE_DAYS } from './validation';

/** Longest `role` filter of a search, in characters (./client-search-query.ts checks it). */
const MAX_ROLE_FILTER_CHARS = 200;

/** Path parameters, by the name the path template gives them. */
export const PATH_PARAMETERS = {
  clientId: contract.ClientId,
  fingerprint: contract.Fingerprint,
  accountId: contract.AccountId,
} as const;

export type PathParameter = keyof typeof PATH_PARAMETERS;

/** Every query parameter a route may take, with its schema. */
export const QUERY_PARAMETERS = {
  limit: z._default(z.int().check(z.minimum(1), z.maximum(MAX_PAGE_SIZE)), DEFAULT_PAGE_SIZE),
  cursor: contract.Cursor,
  publicKey: z.string(),
  fingerprint: contract.Fingerprint,
  account: contract.AccountId,
  q: z.string().check(z.maxLength(MAX_QUERY_CHARS)),
  status: z.enum(['active', 'disabled']),
  role: z.string().check(z.maxLength(MAX_ROLE_FILTER_CHARS)),
  sort: z.enum(['name', 'createdAt', 'lastUsedAt']),
  order: z.enum(['asc', 'desc']),
  olderThanDays: z._default(z.int().check(z.minimum(0), z.maximum(MAX_AGE_DAYS)), DEFAULT_ROTATION_DAYS),
} as const;

export type QueryParameter = keyof typeof QUERY_PARAMETERS;

/** The statuses a route may refuse with (each documented by a shared answer of the document). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 429 | 500 | 503;

/**
 * Who may call a route, once the authorizer's role catalogue has let the request through:
 * the API owner's operators (`registry:admin`) only, or operators and account admins (each
 * within its own account: anything outside it answers as not found, ./caller-scope.ts).
 */
export type Callers = { readonly only: 'operators'; readonly to: string } | { readonly only?: undefined };

export interface RouteEntry {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path inside the API, `{name}` for a path parameter (one of {@link PATH_PARAMETERS}). */
  readonly path: string;
  /** The query parameters the route takes; any other is refused (400 `invalid_request`). */
  readonly query: readonly QueryParameter[];
  /** Whether the route takes the version it edits as If-Match. */
  readonly ifMatch: boolean;
  /** The JSON body and whether it may be empty. */
  readonly body?: { readonly schema: z.ZodMiniObject; readonly required: boolean };
  /** The answers, by status. */
  readonly responses: Readonly<Partial<Record<200 | 201, z.ZodMiniType>>>;
  readonly errors: readonly ErrorStatus[];
  readonly callers: Callers;
}

const ANYONE: Callers = {};
const operators = (to: string): Callers => ({ only: 'operators', to });

/** A read: refused by the authorizer, or not found. */
const READ: readonly ErrorStatus[] = [400, 401, 403, 404, 500, 503];
/** A write: also a version conflict or a body too large. */
const WRITE: readonly ErrorStatus[] = [400, 401, 403, 404, 409, 413, 500, 503];
const PAGE: readonly QueryParameter[] = ['limit', 'cursor'];

/** Every registry route, in the order the document lists them. */
export const ROUTE_TABLE = {
  createClient: {
    method: 'POST',
    path: '/registry/clients',
    query: [],
    ifMatch: false,
    body: { schema: contract.CreateClientRequest, required: true },
    responses: { 200: contract.CreateClientResponse, 201: contract.CreateClientResponse },
    errors: WRITE,
    callers: ANYONE,
  },
  listClients: {
    method: 'GET',
    path: '/registry/clients',
    query: [...PAGE, 'publicKey', 'fingerprint', 'account', ...SEARCH_PARAMETERS],
    ifMatch: false,
    responses: { 200: contract.ClientList },
    errors: [400, 401, 403, 404, 429, 500, 503],
    callers: ANYONE,
  },
  getClient: { method: 'GET', path: '/registry/clients/{clientId}', query: [], ifMatch: false, responses: { 200: contract.Client }, errors: READ, callers: ANYONE },
  updateClient: {
    method: 'PATCH',
    path: '/registry/clients/{clientId}',
    query: [],
    ifMatch: true,
    body: { schema: contract.UpdateClientRequest, required: true },
    responses: { 200: contract.Client },
    errors: WRITE,
    callers: ANYONE,
  },
  addKey: {
    method: 'POST',
    path: '/registry/clients/{clientId}/keys',
    query: [],
    ifMatch: true,
    body: { schema: contract.AddKeyRequest, required: true },
    responses: { 201: contract.Client },
    errors: WRITE,
    callers: ANYONE,
  },
  removeKey: {
    method: 'DELETE',
    path: '/registry/clients/{clientId}/keys/{fingerprint}',
    query: [],
    ifMatch: true,
    body: { schema: contract.VersionRequest, required: false },
    responses: { 200: contract.Client },
    errors: WRITE,
    callers: ANYONE,
  },
  refreshKeys: {
    method: 'POST',
    path: '/registry/clients/{clientId}/keys/refresh',
    query: [],
    ifMatch: false,
    responses: { 200: contract.KeyRefreshResponse },
    errors: WRITE,
    callers: ANYONE,
  },
  disableClient: {
    method: 'POST',
    path: '/registry/clients/{clientId}/disable',
    query: [],
    ifMatch: true,
    body: { schema: contract.VersionRequest, required: false },
    responses: { 200: contract.Client },
    errors: WRITE,
    callers: ANYONE,
  },
  enableClient: {
    method: 'POST',
    path: '/registry/clients/{clientId}/enable',
    query: [],
    ifMatch: true,
    body: { schema: contract.VersionRequest, required: false },
    responses: { 200: contract.Client },
    errors: WRITE,
    callers: ANYONE,
  },
  listAuthFailures: {
    method: 'GET',
    path: '/registry/clients/{clientId}/auth-failures',
    query: [],
    ifMatch: false,
    responses: { 200: contract.AuthFailureList },
    errors: READ,
    callers: ANYONE,
  },
  listAudit: { method: 'GET', path: '/registry/clients/{clientId}/audit', query: PAGE, ifMatch: false, responses: { 200: contract.AuditList }, errors: READ, callers: ANYONE },
  listExpiringKeys: {
    method: 'GET',
    path: '/registry/keys/expiring',
    query: ['olderThanDays', ...PAGE],
    ifMatch: false,
    responses: { 200: contract.ExpiringKeyList },
    errors: [400, 401, 403, 500, 503],
    callers: operators('list the keys due for rotation across all accounts'),
  },
  listRoles: { method: 'GET', path: '/registry/roles', query: [], ifMatch: false, responses: { 200: contract.RoleList }, errors: READ, callers: ANYONE },
  createAccount: {
    method: 'POST',
    path: '/registry/accounts',
    query: [],
    ifMatch: false,
    body: { schema: contract.CreateAccountRequest, required: true },
    responses: { 201: contract.Account },
    errors: [400, 401, 403, 413, 500, 503],
    callers: operators('create accounts'),
  },
  listAccounts: {
    method: 'GET',
    path: '/registry/accounts',
    query: PAGE,
    ifMatch: false,
    responses: { 200: contract.AccountList },
    errors: [400, 401, 403, 500, 503],
    callers: operators('list accounts'),
  },
  getAccount: { method: 'GET', path: '/registry/accounts/{accountId}', query: [], ifMatch: false, responses: { 200: contract.Account }, errors: READ, callers: ANYONE },
  updateAccount: {
    method: 'PATCH',
    path: '/registry/accounts/{accountId}',
    query: [],
    ifMatch: true,
    body: { schema: contract.UpdateAccountRequest, required: true },
    responses: { 200: contract.Account },
    errors: WRITE,
    callers: operators("change an account's name or role ceiling"),
  },
  listAccountAudit: {
    method: 'GET',
    path: '/registry/accounts/{accountId}/audit',
    query: PAGE,
    ifMatch: false,
    responses: { 200: contract.AccountAuditList },
    errors: READ,
    callers: ANYONE,
  },
} as const satisfies Readonly<Record<string, RouteEntry>>;

/** Every registry operation. */
export type RouteName = keyof typeof ROUTE_TABLE;

/** The routes with their names, in the table's order. */
export const ROUTES: ReadonlyArray<RouteEntry & { readonly name: RouteName }> = Object.freeze(
  (Object.entries(ROUTE_TABLE) as Array<[RouteName, RouteEntry]>).map(([name, entry]) => ({ name, ...entry })),
);

/** The path parameters of a path template, in order (`/registry/clients/{clientId}` → `['clientId']`). */
export function pathParameters(path: string): PathParameter[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as PathParameter);
}

/** One route's handler: given the request as the shared checks left it, its answer. */
export type RouteHandler<Call, Response> = (call: Call) => Promise<Response>;

/** A handler for every route of the table. */
export type RouteHandlers<Call, Response> = { readonly [N in RouteName]: RouteHandler<Call, Response> };
