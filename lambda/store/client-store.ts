/**
 * The client registry on DynamoDB (table layout: ./table-schema.ts).
 *
 * The rules the database enforces (a key belongs to one client, optimistic versions, an audit
 * entry in every change's transaction, a client's account for life, always an operator left) are
 * the writes' (./client-writes.ts), planned by pure functions on the domain's rules
 * (../domain/key-rollover.ts, ../domain/operator-rules.ts).
 *
 * This store is a facade holding small stores, each with one job, wired by composition:
 * the records (./client-records.ts, one GetItem), the listings (./client-queries.ts), the writes
 * (./client-writes.ts), the accounts (./account-store.ts), the admin roster (./admin-roster.ts),
 * the failure log (./failure-log.ts), the keys' last use (./key-use.ts) and the search budgets
 * (./search-budget-store.ts). What the authorizer reads is the smaller facade ./client-reader.ts.
 *
 * Every SDK failure is translated in the part that met it (./store-errors.ts): callers see only
 * `SignetError`s.
 *
 * @example
 * const store = new DynamoClientStore({ tableName: config.tableName, client: documentClient, keySourceKeepDays: config.keySourceKeepDays });
 * const { record, created } = await store.createClient({ name, networkWhitelist, roles, key }, actorId);
 */
import type { ClientRecord, StoredPublicKey } from '../domain/client-record';
import type { KeySourceStatus } from '../domain/key-source-store';
import type { RegistryStore } from '../domain/registry-store';
import type {
  AccountChanges,
  AccountRecord,
  AccountTrailEntry,
  Actor,
  AuditEntry,
  AuthFailure,
  AuthFailureDetail,
  ChangeOptions,
  ClientChanges,
  CreateClientResult,
  KeyOwner,
  NewAccount,
  NewClient,
  NewKey,
  Page,
  UnauthenticatedFailureWindow,
} from '../domain/store-types';
import { DynamoAccountStore } from './account-store';
import { DynamoAdminRoster } from './admin-roster';
import { DynamoClientQueries } from './client-queries';
import { DynamoClientRecords } from './client-records';
import { DynamoClientWrites } from './client-writes';
import { createDocumentClient } from './dynamodb-client';
import type { DynamoClientStoreOptions } from './dynamo-table';
import { DynamoFailureLog } from './failure-log';
import { DynamoKeyUse } from './key-use';
import { DynamoSearchBudget } from './search-budget-store';

export { clientNotFound } from './client-writes';

/** The DynamoDB client registry: the registry's reads and writes, each answered by one small store. */
export class DynamoClientStore implements RegistryStore {
  private readonly records: DynamoClientRecords;
  private readonly queries: DynamoClientQueries;
  private readonly writes: DynamoClientWrites;
  private readonly accounts: DynamoAccountStore;
  private readonly failureLog: DynamoFailureLog;
  private readonly keyUse: DynamoKeyUse;
  private readonly searchBudget: DynamoSearchBudget;

  constructor(given: DynamoClientStoreOptions) {
    // One SDK client for all the parts.
    const options = { ...given, client: given.client ?? createDocumentClient() };
    this.records = new DynamoClientRecords(options);
    this.queries = new DynamoClientQueries(options);
    this.accounts = new DynamoAccountStore(options);
    this.failureLog = new DynamoFailureLog(options);
    this.keyUse = new DynamoKeyUse(options);
    this.searchBudget = new DynamoSearchBudget(options);
    // The roster reads records and the account and client lists to build itself.
    const roster = new DynamoAdminRoster(options, {
      getClient: (clientId, read) => this.records.getClient(clientId, read),
      listAccounts: (cursor, limit) => this.accounts.listAccounts(cursor, limit),
      listClients: (cursor, limit, accountId) => this.queries.listClients(cursor, limit, accountId),
    });
    this.writes = new DynamoClientWrites(options, { records: this.records, queries: this.queries, roster });
  }

  // ---------------------------------------------------------------- clients: reads

  getClient(clientId: string, options?: { consistentRead?: boolean }): Promise<ClientRecord | undefined> {
    return this.records.getClient(clientId, options);
  }

  /** The client whose key has this JWK thumbprint, with the key's fingerprint (./client-records.ts). */
  getClientByThumbprint(thumbprint: string, options?: { consistentRead?: boolean }): Promise<{ record: ClientRecord; fingerprint: string } | undefined> {
    return this.records.getClientByThumbprint(thumbprint, options);
  }

  listClients(cursor?: string, limit?: number, accountId?: string): Promise<Page<ClientRecord>> {
    return this.queries.listClients(cursor, limit, accountId);
  }

  accountClients(accountId: string, ceiling: number): Promise<{ records: ClientRecord[]; complete: boolean }> {
    return this.queries.accountClients(accountId, ceiling);
  }

  findByFingerprint(fingerprint: string, options?: { consistentRead?: boolean }): Promise<KeyOwner | undefined> {
    return this.queries.findByFingerprint(fingerprint, options);
  }

  getKeySourceStatus(clientId: string): Promise<KeySourceStatus | undefined> {
    return this.queries.getKeySourceStatus(clientId);
  }

  listKeysOlderThan(days: number, cursor?: string, limit?: number): Promise<Page<KeyOwner>> {
    return this.queries.listKeysOlderThan(days, cursor, limit);
  }

  listAudit(clientId: string, cursor?: string, limit?: number): Promise<Page<AuditEntry>> {
    return this.queries.listAudit(clientId, cursor, limit);
  }

  /**
   * When each key of `records` last verified a request, by fingerprint (keys never used are
   * absent). BatchGetItem on the last-use items, 50 keys a call (./key-use.ts): one call for a
   * page of clients with up to 50 keys in all, never one call per client.
   */
  keyLastUse(records: readonly Pick<ClientRecord, 'clientId' | 'keys'>[]): Promise<ReadonlyMap<string, string>> {
    return this.keyUse.lastUsedAt(records.flatMap((r) => r.keys.map((k) => ({ clientId: r.clientId, fingerprint: k.fingerprint }))));
  }

  // ---------------------------------------------------------------- clients: writes (./client-writes.ts)

  createClient(input: NewClient, actor: Actor): Promise<CreateClientResult> {
    return this.writes.createClient(input, actor);
  }

  updateClient(clientId: string, expectedVersion: number, changes: ClientChanges, actor: Actor, options?: ChangeOptions): Promise<ClientRecord> {
    return this.writes.updateClient(clientId, expectedVersion, changes, actor, options);
  }

  addKey(clientId: string, key: NewKey, actor: Actor, expectedVersion?: number, options?: ChangeOptions): Promise<ClientRecord> {
    return this.writes.addKey(clientId, key, actor, expectedVersion, options);
  }

  removeKey(clientId: string, fingerprint: string, actor: Actor, expectedVersion?: number, options?: ChangeOptions): Promise<ClientRecord> {
    return this.writes.removeKey(clientId, fingerprint, actor, expectedVersion, options);
  }

  setKeyNotAfter(clientId: string, fingerprint: string, notAfter: string | undefined, actor: Actor, expectedVersion?: number, options?: ChangeOptions): Promise<ClientRecord> {
    return this.writes.setKeyNotAfter(clientId, fingerprint, notAfter, actor, expectedVersion, options);
  }

  refreshPublishedKeys(clientId: string, expectedVersion: number, keys: readonly StoredPublicKey[], fetchedAt: string, status: KeySourceStatus, actor: Actor): Promise<ClientRecord> {
    return this.writes.refreshPublishedKeys(clientId, expectedVersion, keys, fetchedAt, status, actor);
  }

  dropWithdrawnKeys(clientId: string, expectedVersion: number, withdrawn: ReadonlySet<string>, status: KeySourceStatus, actor: Actor): Promise<ClientRecord> {
    return this.writes.dropWithdrawnKeys(clientId, expectedVersion, withdrawn, status, actor);
  }

  disable(clientId: string, actor: Actor, expectedVersion?: number, options?: ChangeOptions): Promise<ClientRecord> {
    return this.writes.disable(clientId, actor, expectedVersion, options);
  }

  enable(clientId: string, actor: Actor, expectedVersion?: number, options?: ChangeOptions): Promise<ClientRecord> {
    return this.writes.enable(clientId, actor, expectedVersion, options);
  }

  // ---------------------------------------------------------------- the failure log (./failure-log.ts)

  recordAuthFailure(clientId: string, reason: string, detail?: string | AuthFailureDetail): Promise<boolean> {
    return this.failureLog.recordAuthFailure(clientId, reason, detail);
  }

  countUnauthenticatedFailures(clientId: string, reason: string, count: number): Promise<boolean> {
    return this.failureLog.countUnauthenticatedFailures(clientId, reason, count);
  }

  listAuthFailures(clientId: string): Promise<AuthFailure[]> {
    return this.failureLog.listAuthFailures(clientId);
  }

  listUnauthenticatedFailures(clientId: string): Promise<UnauthenticatedFailureWindow[]> {
    return this.failureLog.listUnauthenticatedFailures(clientId);
  }

  // ---------------------------------------------------------------- the keys' last use (./key-use.ts)

  recordKeyUse(clientId: string, fingerprint: string): Promise<boolean> {
    return this.keyUse.recordKeyUse(clientId, fingerprint);
  }

  // ---------------------------------------------------------------- search budgets (./search-budget-store.ts)

  searchReadsSpent(callerId: string, windowStartS: number): Promise<number> {
    return this.searchBudget.searchReadsSpent(callerId, windowStartS);
  }

  addSearchReads(callerId: string, windowStartS: number, reads: number, expiresAtS: number): Promise<void> {
    return this.searchBudget.addSearchReads(callerId, windowStartS, reads, expiresAtS);
  }

  // ---------------------------------------------------------------- accounts (./account-store.ts)

  getAccount(accountId: string, options?: { consistentRead?: boolean }): Promise<AccountRecord | undefined> {
    return this.accounts.getAccount(accountId, options);
  }

  listAccounts(cursor?: string, limit?: number): Promise<Page<AccountRecord>> {
    return this.accounts.listAccounts(cursor, limit);
  }

  createAccount(input: NewAccount, actor: Actor): Promise<AccountRecord> {
    return this.accounts.createAccount(input, actor);
  }

  updateAccount(accountId: string, expectedVersion: number, changes: AccountChanges, actor: Actor): Promise<AccountRecord> {
    return this.accounts.updateAccount(accountId, expectedVersion, changes, actor);
  }

  listAccountAudit(accountId: string, cursor?: string, limit?: number): Promise<Page<AccountTrailEntry>> {
    return this.accounts.listAccountAudit(accountId, cursor, limit);
  }
}
