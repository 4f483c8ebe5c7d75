/**
 * Searching an account's clients in the registry (pure): which clients match a search
 * (./client-search-query.ts), in which order, and one page of them after a keyset cursor.
 *
 * - `q` matches a client whose name holds it (any case), or whose clientId or one of whose key
 *   fingerprints starts with it (exactly as written, at least {@link MIN_ID_PREFIX_CHARS}
 *   characters, so `c` does not match every `c_...` id).
 * - The order is total: the sort value, then the clientId. A client never used sorts as the
 *   oldest use (first ascending, last descending).
 * - The cursor names the last client of the page by its sort value and clientId, and the search
 *   it belongs to (a hash of the account, `q`, `status`, `role`, `sort` and `order`), so a page
 *   starts right after it whatever was added or removed meanwhile, and a cursor given with another
 *   search is refused.
 */
import { createHash } from 'node:crypto';
import { fail } from '../core/errors';
import type { ClientRecord } from '../domain/client-record';
import type { ClientSearch, SortField } from './client-search-query';

/** The most clients of one account the registry searches, filters or sorts at once. @default 5_000 */
export const MAX_SEARCHED_CLIENTS = 5_000;

/** Shortest `q` matched against the start of clientIds and fingerprints. @default 4 */
export const MIN_ID_PREFIX_CHARS = 4;

/** Longest search cursor accepted, in characters. */
const MAX_CURSOR_CHARS = 2_048;

/** Whether `record` matches the search's `q`, `status` and `role`. */
export function matchesSearch(record: ClientRecord, search: ClientSearch): boolean {
  if (search.status !== undefined && record.status !== search.status) return false;
  if (search.role !== undefined && !record.roles.includes(search.role)) return false;
  const q = search.q;
  if (q === undefined) return true;
  if (record.name.toLowerCase().includes(q.toLowerCase())) return true;
  if (q.length < MIN_ID_PREFIX_CHARS) return false;
  return record.clientId.startsWith(q) || record.keys.some((key) => key.fingerprint.startsWith(q));
}

/** What a page is read from: the matching clients, and each one's last use when known. */
export interface SearchInput {
  readonly matches: readonly ClientRecord[];
  /** The client's latest key use (ISO-8601), or undefined; needed when sorting by `lastUsedAt`. */
  readonly lastUsedAt: (record: ClientRecord) => string | undefined;
}

export interface SearchPage {
  readonly items: readonly ClientRecord[];
  readonly nextCursor?: string;
}

/**
 * One page of the matches in the search's order, starting after `cursor`.
 * @param scope what else the cursor is bound to besides the search (the account)
 * @throws SignetError `invalid_request` when the cursor was issued for another search
 */
export function searchPage(input: SearchInput, search: ClientSearch, scope: string, cursor: string | undefined, limit: number): SearchPage {
  const binding = searchBinding(search, scope);
  const after = checkSearchCursor(search, scope, cursor);
  const keyed = input.matches.map((record) => ({ record, key: [sortValue(record, search.sort, input.lastUsedAt), record.clientId] as const }));
  const direction = search.order === 'asc' ? 1 : -1;
  const compare = (a: readonly [string, string], b: readonly [string, string]): number => direction * (cmp(a[0], b[0]) || cmp(a[1], b[1]));
  keyed.sort((a, b) => compare(a.key, b.key));
  const start = after === undefined ? 0 : firstAfter(keyed.map((k) => k.key), after, compare);
  const page = keyed.slice(start, start + limit);
  const last = page[page.length - 1];
  const more = start + limit < keyed.length && last !== undefined;
  return { items: page.map((k) => k.record), ...(more ? { nextCursor: encodeSearchCursor(binding, last.key) } : {}) };
}

/**
 * Where the page after `cursor` starts (the last client's sort value and clientId), or undefined
 * without a cursor: checked before anything is read.
 * @throws SignetError `invalid_request` when the cursor was issued for another search
 */
export function checkSearchCursor(search: ClientSearch, scope: string, cursor: string | undefined): readonly [string, string] | undefined {
  return cursor === undefined || cursor === '' ? undefined : decodeSearchCursor(cursor, searchBinding(search, scope));
}

/** The value a client is sorted by (then its clientId). */
function sortValue(record: ClientRecord, field: SortField, lastUsedAt: SearchInput['lastUsedAt']): string {
  if (field === 'name') return record.name.toLowerCase();
  if (field === 'createdAt') return record.createdAt;
  return lastUsedAt(record) ?? '';
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Index of the first key strictly after `after` in the order `compare` gives (keys sorted by it). */
function firstAfter(keys: ReadonlyArray<readonly [string, string]>, after: readonly [string, string], compare: (a: readonly [string, string], b: readonly [string, string]) => number): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compare(keys[mid], after) <= 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** A short hash of everything the order and the matches depend on. */
function searchBinding(search: ClientSearch, scope: string): string {
  const parts = [scope, search.q ?? null, search.status ?? null, search.role ?? null, search.sort, search.order];
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 16);
}

function encodeSearchCursor(binding: string, key: readonly [string, string]): string {
  return Buffer.from(JSON.stringify({ search: binding, after: key }), 'utf8').toString('base64url');
}

function decodeSearchCursor(cursor: string, binding: string): readonly [string, string] {
  let parsed: unknown;
  if (cursor.length <= MAX_CURSOR_CHARS && /^[A-Za-z0-9_-]+$/.test(cursor)) {
    try {
      parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    } catch {
      parsed = undefined;
    }
  }
  const { search, after } = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { search?: unknown; after?: unknown };
  if (typeof search !== 'string' || !Array.isArray(after) || after.length !== 2 || !after.every((v) => typeof v === 'string')) {
    fail('invalid_request', 'The cursor is not one this search returned. Pass the nextCursor of the previous page unchanged, or omit it to start again.');
  }
  if (search !== binding) {
    fail(
      'invalid_request',
      'The cursor belongs to a different search: q, status, role, sort, order and account must stay as they were for the page that returned it. Send the same query with the cursor, or omit the cursor to start the new search.',
    );
  }
  return [after[0] as string, after[1] as string];
}
