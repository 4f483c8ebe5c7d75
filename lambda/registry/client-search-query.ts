/**
 * The search, filter and sort parameters of `GET /registry/clients`, checked: `q`, `status`,
 * `role`, `sort`, `order`. Pure; ./client-search.ts applies them. An empty value counts as not
 * given (a form's empty field); anything else that is not a known value is a 400
 * `invalid_request` saying what is accepted.
 */
import { fail } from '../core/errors';
import type { ClientStatus } from '../domain/client-record';

/** The query parameters that make a listing a search (paged by the registry, with `total`). */
export const SEARCH_PARAMETERS = ['q', 'status', 'role', 'sort', 'order'] as const;

/** What a search may sort by. */
export const SORT_FIELDS = ['name', 'createdAt', 'lastUsedAt'] as const;
export type SortField = (typeof SORT_FIELDS)[number];

export type SortOrder = 'asc' | 'desc';

/** Longest `q`, in characters. @default 200 */
export const MAX_QUERY_CHARS = 200;

/** Longest `role` filter, in characters. @default 200 */
const MAX_ROLE_CHARS = 200;

const STATUSES: readonly ClientStatus[] = ['active', 'disabled'];

/** A checked search. */
export interface ClientSearch {
  /** Trimmed text: a name substring (any case), or the start of a clientId or key fingerprint. */
  readonly q?: string;
  readonly status?: ClientStatus;
  /** A role the client must hold (exact name). */
  readonly role?: string;
  readonly sort: SortField;
  readonly order: SortOrder;
}

/**
 * The search the query asks for, or undefined when it gives none of {@link SEARCH_PARAMETERS}
 * (then the plain listing in creation order applies).
 *
 * Defaults: without `sort`, creation order oldest first (as the plain listing); with it, `name`
 * ascending, `createdAt` and `lastUsedAt` newest first.
 * @throws SignetError `invalid_request` naming the parameter and what it accepts
 */
export function parseClientSearch(query: Readonly<Record<string, string>>): ClientSearch | undefined {
  const given = (name: (typeof SEARCH_PARAMETERS)[number]): string | undefined => {
    const value = query[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const q = given('q');
  const status = given('status');
  const role = given('role');
  const sort = given('sort');
  const order = given('order');
  if ([q, status, role, sort, order].every((v) => v === undefined)) return undefined;

  if (q !== undefined && (q.length > MAX_QUERY_CHARS || /[\u0000-\u001f\u007f]/.test(q))) {
    fail('invalid_request', `q must be 1 to ${MAX_QUERY_CHARS} characters without control characters: part of a name, or the start of a clientId or key fingerprint.`);
  }
  if (status !== undefined && !STATUSES.includes(status as ClientStatus)) {
    fail('invalid_request', `status must be one of: ${STATUSES.join(', ')}.`);
  }
  if (role !== undefined && role.length > MAX_ROLE_CHARS) fail('invalid_request', `role must be a role name of at most ${MAX_ROLE_CHARS} characters.`);
  if (sort !== undefined && !(SORT_FIELDS as readonly string[]).includes(sort)) {
    fail('invalid_request', `sort must be one of: ${SORT_FIELDS.join(', ')}.`);
  }
  if (order !== undefined && order !== 'asc' && order !== 'desc') fail('invalid_request', 'order must be asc or desc.');

  const field = (sort ?? 'createdAt') as SortField;
  const defaultOrder: SortOrder = sort === undefined || field === 'name' ? 'asc' : 'desc';
  return {
    ...(q !== undefined ? { q } : {}),
    ...(status !== undefined ? { status: status as ClientStatus } : {}),
    ...(role !== undefined ? { role } : {}),
    sort: field,
    order: (order as SortOrder | undefined) ?? defaultOrder,
  };
}
