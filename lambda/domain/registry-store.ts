/**
 * What the registry needs from its storage, stated by the registry: the port its service is
 * written against. lambda/store/client-store.ts's DynamoClientStore implements it on DynamoDB;
 * nothing here depends on DynamoDB.
 */
import type { ClientRecord } from './client-record';
import type { KeySourceStatus } from './key-source-store';
import type {
  AccountChanges,
  AccountRecord,
  AccountTrailEntry,
  Actor,
  AuditEntry,
  AuthFailure,
  ChangeOptions,
  ClientChanges,
  CreateClientResult,
  KeyOwner,
  NewAccount,
  NewClient,
  NewKey,
  Page,
  UnauthenticatedFailureWindow,
} from './store-types';

export interface RegistryStore {
  // clients
  createClient(input: NewClient, actor: Actor): Promise<CreateClientResult>;
  getClient(clientId: string, options?: { consistentRead?: boolean }): Promise<ClientRecord | undefined>;
  listClients(cursor?: string, limit?: number, accountId?: string): Promise<Page<ClientRecord>>;
  /**
   * Every client of the account in creation order, reading at most `ceiling` + 1 of them:
   * `complete` is false (and `records` cut short) when the account holds more than `ceiling`.
   */
  accountClients(accountId: string, ceiling: number): Promise<{ records: ClientRecord[]; complete: boolean }>;
  /** When each key of `records` last verified a request, by fingerprint; keys never used are absent. */
  keyLastUse(records: readonly Pick<ClientRecord, 'clientId' | 'keys'>[]): Promise<ReadonlyMap<string, string>>;
  findByFingerprint(fingerprint: string, options?: { consistentRead?: boolean }): Promise<KeyOwner | undefined>;
  /** What the last fetches of a key-source client's source found; undefined for a client without one. */
  getKeySourceStatus(clientId: string): Promise<KeySourceStatus | undefined>;
  /** The reads the caller's searches made in the budget window starting at `windowStartS` (0 when none). */
  searchReadsSpent(callerId: string, windowStartS: number): Promise<number>;
  /** Adds `reads` to the caller's search budget window, kept until `expiresAtS`. */
  addSearchReads(callerId: string, windowStartS: number, reads: number, expiresAtS: number): Promise<void>;
  updateClient(clientId: string, expectedVersion: number, changes: ClientChanges, actor: Actor, options?: ChangeOptions): Promise<ClientRecord>;
  addKey(clientId: string, key: NewKey, actor: Actor, expectedVersion?: number, options?: ChangeOptions): Promise<ClientRecord>;
  removeKey(clientId: string, fingerprint: string, actor: Actor, expectedVersion?: number, options?: ChangeOptions): Promise<ClientRecord>;
  disable(clientId: string, actor: Actor, expectedVersion?: number, options?: ChangeOptions): Promise<ClientRecord>;
  enable(clientId: string, actor: Actor, expectedVersion?: number, options?: ChangeOptions): Promise<ClientRecord>;
  listAudit(clientId: string, cursor?: string, limit?: number): Promise<Page<AuditEntry>>;
  listKeysOlderThan(days: number, cursor?: string, limit?: number): Promise<Page<KeyOwner>>;
  // the failure log
  listAuthFailures(clientId: string): Promise<AuthFailure[]>;
  listUnauthenticatedFailures(clientId: string): Promise<UnauthenticatedFailureWindow[]>;
  // accounts
  getAccount(accountId: string, options?: { consistentRead?: boolean }): Promise<AccountRecord | undefined>;
  listAccounts(cursor?: string, limit?: number): Promise<Page<AccountRecord>>;
  createAccount(input: NewAccount, actor: Actor): Promise<AccountRecord>;
  updateAccount(accountId: string, expectedVersion: number, changes: AccountChanges, actor: Actor): Promise<AccountRecord>;
  /** Every change to the account and its clients, newest first. */
  listAccountAudit(accountId: string, cursor?: string, limit?: number): Promise<Page<AccountTrailEntry>>;
}
