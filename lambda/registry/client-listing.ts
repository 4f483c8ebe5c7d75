/**
 * `GET /registry/clients`, in its three forms, always inside one account the caller may see
 * (`?account=`; operators default to the default account, account admins only ever see their own):
 *
 * - **find** (`publicKey` or `fingerprint`): the holder of one key, as a list of zero or one;
 * - **plain** (no search parameter): the account's clients in creation order, one Query on the
 *   list index per page plus one BatchGetItem for the page's keys' last use (more only past 50 keys);
 * - **search** (`q`, `status`, `role`, `sort`, `order`; ./client-search-query.ts): the account's
 *   clients read whole (at most MAX_SEARCHED_CLIENTS, else 400 `too_many_clients`), matched and
 *   ordered by the registry (./client-search.ts), paged with a keyset cursor, with `total`. Each
 *   caller's searches draw on its search budget (./search-budget.ts): checked before the read
 *   (429 `search_budget_exceeded` once spent), charged with what the page read.
 *
 * Every client listed carries its `lastUsedAt` and its keys' (./views.ts).
 */
import { SignetError, fail } from '../core/errors';
import type { ClientRecord } from '../domain/client-record';
import { DEFAULT_PAGE_SIZE } from '../store/dynamo-table';
import { type CallerScope, canSeeClient, targetAccount } from './caller-scope';
import { type ClientSearch, SEARCH_PARAMETERS, parseClientSearch } from './client-search-query';
import { MAX_SEARCHED_CLIENTS, checkSearchCursor, matchesSearch, searchPage } from './client-search';
import type { RegistryStore } from '../domain/registry-store';
import { DEFAULT_SEARCH_BUDGET, type SearchBudget, budgetWindow, checkSearchBudget } from './search-budget';
import { parseAccountId, parseFingerprint, parseLimit, parseQueryPublicKey } from './validation';
import type { ClientListView } from './view-types';
import { clientView, latest } from './views';

export interface ClientListingDeps {
  readonly store: RegistryStore;
  readonly nowMs: number;
  /** The keep bound of published keys, in seconds: whether each listed key is `active`. */
  readonly keepS: number;
  /** Answers 404 `not_found` for an account that does not exist. */
  readonly requireAccount: (accountId: string) => Promise<unknown>;
  /** The most clients of one account a search reads. @default MAX_SEARCHED_CLIENTS */
  readonly maxSearchedClients?: number;
  /** What one caller's searches may read per window. @default DEFAULT_SEARCH_BUDGET */
  readonly searchBudget?: SearchBudget;
}

/** The answer to `GET /registry/clients` with `query` (its parameters' names already checked against the route table), for `scope`. */
export async function listClients(deps: ClientListingDeps, scope: CallerScope, query: Readonly<Record<string, string>>): Promise<ClientListView> {
  const limit = parseLimit(query.limit);
  const requested = query.account !== undefined ? parseAccountId(query.account, 'account') : undefined;
  const accountId = targetAccount(scope, requested);
  const search = parseClientSearch(query);
  if (query.publicKey !== undefined || query.fingerprint !== undefined) {
    if (search !== undefined) {
      fail('invalid_request', `publicKey and fingerprint find the holder of one key; they cannot be combined with ${SEARCH_PARAMETERS.join(', ')} (q finds a client by the start of a key fingerprint too).`);
    }
    return findHolder(deps, scope, query, requested === undefined ? undefined : accountId);
  }
  // An operator naming an unknown account is told so (once, on the first page).
  if (scope.kind === 'operator' && requested !== undefined && query.cursor === undefined) await deps.requireAccount(accountId);
  if (search === undefined) {
    const page = await deps.store.listClients(query.cursor, limit, accountId);
    return { clients: await views(deps, page.items), ...next(page.nextCursor) };
  }
  return searchClients(deps, scope.caller.clientId, accountId, search, query.cursor, limit ?? DEFAULT_PAGE_SIZE);
}

async function findHolder(deps: ClientListingDeps, scope: CallerScope, query: Readonly<Record<string, string>>, account: string | undefined): Promise<ClientListView> {
  if (query.publicKey !== undefined && query.fingerprint !== undefined) fail('invalid_request', 'Give either publicKey or fingerprint, not both.');
  if (query.cursor !== undefined) fail('invalid_request', 'cursor pages the full list; it cannot be combined with publicKey or fingerprint.');
  const fingerprint = query.fingerprint !== undefined ? parseFingerprint(query.fingerprint) : parseQueryPublicKey(query.publicKey).fingerprint;
  const owner = await deps.store.findByFingerprint(fingerprint, { consistentRead: true });
  const record = owner === undefined ? undefined : await deps.store.getClient(owner.clientId, { consistentRead: true });
  const visible = record !== undefined && canSeeClient(scope, record) && (account === undefined || record.accountId === account);
  return { clients: visible ? await views(deps, [record]) : [] };
}

async function searchClients(deps: ClientListingDeps, callerId: string, accountId: string, search: ClientSearch, cursor: string | undefined, limit: number): Promise<ClientListView> {
  // A cursor of another search, or a spent budget, is refused before anything is read.
  checkSearchCursor(search, accountId, cursor);
  const budget = deps.searchBudget ?? DEFAULT_SEARCH_BUDGET;
  const window = budgetWindow(budget, deps.nowMs);
  checkSearchBudget(budget, await deps.store.searchReadsSpent(callerId, window.startS), deps.nowMs);
  // Charged with what was read (client records, keys whose last use was read); kept one window past its own.
  const charge = (reads: number) => deps.store.addSearchReads(callerId, window.startS, reads, window.endS + budget.windowS);
  const ceiling = deps.maxSearchedClients ?? MAX_SEARCHED_CLIENTS;
  const { records, complete } = await deps.store.accountClients(accountId, ceiling);
  if (!complete) {
    await charge(records.length);
    throw new SignetError(
      'too_many_clients',
      `This account has more than ${ceiling.toLocaleString('en-US')} clients, more than the registry searches, filters or sorts at once. Page through it without ${SEARCH_PARAMETERS.join(', ')} (creation order), find one client with fingerprint=, or search one account at a time with account=.`,
    );
  }
  const matches = records.filter((record) => matchesSearch(record, search));
  // Sorting by last use needs every match's; otherwise only the page's are read.
  const allUse = search.sort === 'lastUsedAt' ? await deps.store.keyLastUse(matches) : undefined;
  const page = searchPage(
    { matches, lastUsedAt: (record) => latest(record.keys.map((key) => allUse?.get(key.fingerprint))) },
    search,
    accountId,
    cursor,
    limit,
  );
  const keysRead = (allUse === undefined ? page.items : matches).reduce((sum, record) => sum + record.keys.length, 0);
  const [clients] = await Promise.all([views(deps, page.items, allUse), charge(records.length + keysRead)]);
  return { clients, ...next(page.nextCursor), total: matches.length };
}

async function views(deps: ClientListingDeps, records: readonly ClientRecord[], known?: ReadonlyMap<string, string>): Promise<ClientListView['clients']> {
  if (records.length === 0) return [];
  const lastUse = known ?? (await deps.store.keyLastUse(records));
  return records.map((record) => clientView(record, deps.nowMs, deps.keepS, lastUse));
}

function next(cursor: string | undefined): { nextCursor?: string } {
  return cursor === undefined ? {} : { nextCursor: cursor };
}
