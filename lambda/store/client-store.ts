/**
 * The client registry on DynamoDB (table layout: ./table-schema.ts).
 *
 * Rules the database enforces, never a read-then-write:
 * - A public key belongs to at most one client: its ownership item is written with
 *   `attribute_not_exists(pk)` in the same transaction as the client record.
 * - Edits use optimistic concurrency: the record is written only if its `version` is still the
 *   one the change was planned from; a stale version gets `version_conflict` (409), nothing lost.
 * - Every change writes its audit entry in the same transaction, naming the client's account
 *   and the acting client (and its account).
 * - A client belongs to one account for life; changes may carry a guard (e.g. "the caller's
 *   account") that is checked on the record the change is planned from.
 * - At least one active client holds `registry:admin`: a change that takes the last one away
 *   (disable, role removed) is refused with `last_admin`, by a condition on the admin roster item
 *   written in the same transaction, so two operators disabling each other at once cannot both
 *   succeed.
 *
 * The rules themselves are pure functions beside the registry's other domain rules (key rollover:
 * ../registry/key-rollover.ts; operators: ../registry/operator-rules.ts); this store holds them in
 * its transactions. Accounts live in ./account-store.ts, the failure log in ./failure-log.ts, and
 * what the authorizer reads in ./client-reader.ts, which this store extends.
 *
 * Every SDK failure is translated here (./store-errors.ts): callers see only `SignetError`s.
 *
 * @example
 * const store = new DynamoClientStore({ tableName: config.tableName, client: documentClient });
 * const { record, created } = await store.createClient({ name, networkWhitelist, roles, key }, actorId);
 */
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { SignetError } from '../core/errors';
import { isFingerprint } from '../core/keys';
import { addKeyTo, removeKeyFrom, setKeyNotAfterOn } from '../registry/key-rollover';
import { canAdminister, describeLoss, isActiveAdmin, lastAdmin, operatorChange } from '../registry/operator-rules';
import type { RegistryStore } from '../registry/registry-store';
import { DynamoAccountStore } from './account-store';
import { DEFAULT_ACCOUNT_ID, isAccountId } from './account-id';
import { DynamoAdminRoster } from './admin-roster';
import { isClientId, newClientId } from './client-id';
import { DynamoClientReader } from './client-reader';
import type { ClientRecord, ClientStatus, StoredPublicKey } from './client-record';
import { deleteKeyItem, putKeyItem, unchangedRecordItem, updateRecordItem } from './client-transaction';
import { decodeCursor, encodeCursor } from './cursor';
import { DEFAULT_PAGE_SIZE, type DynamoClientStoreOptions, MAX_PAGE_SIZE, pageSize } from './dynamo-table';
import type { DynamoFailureLog } from './failure-log';
import { type Mutable, actorFields, auditItem, canonicalInstant, clientItem, keyItem, keyKey, sameList, storedKey, toAuditEntry, toKeyOwner, toRecord } from './item-codec';
import { cancellationReasons, isTransactionConflict, storageError } from './store-errors';
import { RETRY, busy, withWriteRetries } from './write-retries';
import type {
  Actor,
  AuditEntry,
  ChangeOptions,
  AuditFieldChange,
  AuditedField,
  ClientChanges,
  CreateClientResult,
  KeyOwner,
  NewClient,
  NewKey,
  Page,
} from './store-types';
import { ITEM, LIST_INDEX_NAME, LIST_INDEX_PARTITION_KEY, LIST_INDEX_SORT_KEY, PARTITION_KEY, SORT_KEY } from './table-schema';

/** What a change does to the record, its key items and the audit trail. */
interface Plan {
  readonly record: Partial<Pick<ClientRecord, 'name' | 'status' | 'networkWhitelist' | 'roles' | 'keys'>>;
  /** New key ownership items: must not exist yet. */
  readonly keyPuts?: readonly StoredPublicKey[];
  /** Key ownership items rewritten (not-after changed): must belong to this client. */
  readonly keyRewrites?: readonly StoredPublicKey[];
  /** Fingerprints whose ownership items go. */
  readonly keyDeletes?: readonly string[];
  readonly audit: Omit<AuditEntry, 'clientId' | 'accountId' | 'at' | 'actor' | 'actorAccountId' | 'version'>;
}

/**
 * The DynamoDB client registry: the registry's reads and writes. What the authorizer needs (one
 * GetItem per client, the failure log's writes) is {@link DynamoClientReader}, which this extends.
 */
export class DynamoClientStore extends DynamoClientReader implements RegistryStore {
  /** The accounts, on the same table (./account-store.ts); the registry reaches them through this store. */
  private readonly accounts: DynamoAccountStore;
  /** The admin roster, on the same table (./admin-roster.ts). */
  private readonly roster: DynamoAdminRoster;

  constructor(options: DynamoClientStoreOptions) {
    super(options);
    this.accounts = new DynamoAccountStore(options);
    this.roster = new DynamoAdminRoster(options, { getClient: (id, o) => this.getClient(id, o), listedOperators: () => this.listedOperators() });
  }

  /** Every client the account lists show as an active operator (the list index may lag). */
  private async listedOperators(): Promise<string[]> {
    const listed: string[] = [];
    for (let accounts: string | undefined, first = true; first || accounts !== undefined; first = false) {
      const page = await this.listAccounts(accounts, MAX_PAGE_SIZE);
      for (const account of page.items) {
        for (let clients: string | undefined, firstClients = true; firstClients || clients !== undefined; firstClients = false) {
          const found = await this.listClients(clients, MAX_PAGE_SIZE, account.accountId);
          for (const record of found.items) if (isActiveAdmin(record)) listed.push(record.clientId);
          clients = found.nextCursor;
        }
      }
      accounts = page.nextCursor;
    }
    return listed;
  }

  getAccount(...args: Parameters<DynamoAccountStore['getAccount']>): ReturnType<DynamoAccountStore['getAccount']> {
    return this.accounts.getAccount(...args);
  }

  listAccounts(...args: Parameters<DynamoAccountStore['listAccounts']>): ReturnType<DynamoAccountStore['listAccounts']> {
    return this.accounts.listAccounts(...args);
  }

  createAccount(...args: Parameters<DynamoAccountStore['createAccount']>): ReturnType<DynamoAccountStore['createAccount']> {
    return this.accounts.createAccount(...args);
  }

  updateAccount(...args: Parameters<DynamoAccountStore['updateAccount']>): ReturnType<DynamoAccountStore['updateAccount']> {
    return this.accounts.updateAccount(...args);
  }

  listAccountAudit(...args: Parameters<DynamoAccountStore['listAccountAudit']>): ReturnType<DynamoAccountStore['listAccountAudit']> {
    return this.accounts.listAccountAudit(...args);
  }

  // ---------------------------------------------------------------- reads

  /**
   * One account's clients in creation order, one page at a time: exactly one Query on the list
   * index per page, never a Scan, whatever other accounts hold. A cursor only continues the
   * listing (and the account) it came from.
   * @param accountId @default DEFAULT_ACCOUNT_ID
   */
  async listClients(cursor?: string, limit: number = DEFAULT_PAGE_SIZE, accountId: string = DEFAULT_ACCOUNT_ID): Promise<Page<ClientRecord>> {
    if (!isAccountId(accountId)) return { items: [] };
    const partition = ITEM.accountClientsPartition(accountId);
    const start = decodeCursor(cursor, [PARTITION_KEY, SORT_KEY, LIST_INDEX_PARTITION_KEY, LIST_INDEX_SORT_KEY], {
      [LIST_INDEX_PARTITION_KEY]: partition,
      [SORT_KEY]: ITEM.clientSk,
    });
    const out = await this.query('list the clients', {
      IndexName: LIST_INDEX_NAME,
      KeyConditionExpression: '#lpk = :partition',
      ExpressionAttributeNames: { '#lpk': LIST_INDEX_PARTITION_KEY },
      ExpressionAttributeValues: { ':partition': partition },
      Limit: pageSize(limit),
      ExclusiveStartKey: start,
    });
    // The index does not project accountId: the partition says which account the items are in.
    return { items: out.items.map((item) => toRecord(item, accountId)), nextCursor: encodeCursor(out.lastKey) };
  }

  /** Who holds the key with this fingerprint, or undefined. One GetItem. */
  async findByFingerprint(fingerprint: string, options: { consistentRead?: boolean } = {}): Promise<KeyOwner | undefined> {
    if (!isFingerprint(fingerprint)) return undefined;
    try {
      const out = await this.doc.send(
        new GetCommand({ TableName: this.tableName, Key: keyKey(fingerprint), ConsistentRead: options.consistentRead ?? false }),
      );
      return out.Item ? toKeyOwner(out.Item) : undefined;
    } catch (error) {
      throw storageError(error, 'look up the key');
    }
  }

  /**
   * Keys added more than `days` days ago, oldest first, whichever client holds them (for
   * partner-held keys that no rotation covers). A range Query on the list index.
   */
  async listKeysOlderThan(days: number, cursor?: string, limit: number = DEFAULT_PAGE_SIZE): Promise<Page<KeyOwner>> {
    if (!Number.isFinite(days) || days < 0) throw new SignetError('invalid_request', 'The age in days must be a number of 0 or more.');
    const cutoff = new Date(this.now().getTime() - days * 86_400_000).toISOString();
    const start = decodeCursor(
      cursor,
      [PARTITION_KEY, SORT_KEY, LIST_INDEX_PARTITION_KEY, LIST_INDEX_SORT_KEY],
      { [LIST_INDEX_PARTITION_KEY]: ITEM.keysPartition, [SORT_KEY]: ITEM.keySk },
      { [PARTITION_KEY]: ITEM.keyPk('') },
    );
    const out = await this.query('list old keys', {
      IndexName: LIST_INDEX_NAME,
      KeyConditionExpression: '#lpk = :partition AND #lsk < :cutoff',
      ExpressionAttributeNames: { '#lpk': LIST_INDEX_PARTITION_KEY, '#lsk': LIST_INDEX_SORT_KEY },
      ExpressionAttributeValues: { ':partition': ITEM.keysPartition, ':cutoff': cutoff },
      Limit: pageSize(limit),
      ExclusiveStartKey: start,
    });
    return { items: out.items.map(toKeyOwner), nextCursor: encodeCursor(out.lastKey) };
  }

  /** The client's audit trail, newest first. */
  async listAudit(clientId: string, cursor?: string, limit: number = DEFAULT_PAGE_SIZE): Promise<Page<AuditEntry>> {
    if (!isClientId(clientId)) return { items: [] };
    const start = decodeCursor(cursor, [PARTITION_KEY, SORT_KEY], { [PARTITION_KEY]: ITEM.clientPk(clientId) }, { [SORT_KEY]: ITEM.auditSkPrefix });
    const out = await this.query('list the audit trail', {
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
      ExpressionAttributeValues: { ':pk': ITEM.clientPk(clientId), ':prefix': ITEM.auditSkPrefix },
      ScanIndexForward: false,
      Limit: pageSize(limit),
      ExclusiveStartKey: start,
    });
    return { items: out.items.map(toAuditEntry), nextCursor: encodeCursor(out.lastKey) };
  }

  /** The client's recent authentication failures, newest first (./failure-log.ts). */
  listAuthFailures(...args: Parameters<DynamoFailureLog['listAuthFailures']>): ReturnType<DynamoFailureLog['listAuthFailures']> {
    return this.failureLog.listAuthFailures(...args);
  }

  /** The client's counts of refusals no key of it signed, per window, newest first (./failure-log.ts). */
  listUnauthenticatedFailures(...args: Parameters<DynamoFailureLog['listUnauthenticatedFailures']>): ReturnType<DynamoFailureLog['listUnauthenticatedFailures']> {
    return this.failureLog.listUnauthenticatedFailures(...args);
  }

  // ---------------------------------------------------------------- writes

  /**
   * Creates a client holding one key. When that key is already registered, nothing is written
   * and the holder's record comes back with `created: false` ("registration skipped").
   */
  async createClient(input: NewClient, actor: Actor): Promise<CreateClientResult> {
    const accountId = input.accountId ?? DEFAULT_ACCOUNT_ID;
    if (!isAccountId(accountId)) throw new SignetError('invalid_request', 'accountId must be an account id such as acct_default, as the registry gave it.');
    return withWriteRetries(async () => {
      const at = this.now().toISOString();
      const key = storedKey(input.key, at);
      const record: ClientRecord = {
        clientId: newClientId(),
        accountId,
        name: input.name,
        status: 'active',
        networkWhitelist: [...input.networkWhitelist],
        roles: [...input.roles],
        keys: [key],
        version: 1,
        createdAt: at,
        updatedAt: at,
      };
      const audit: AuditEntry = {
        clientId: record.clientId,
        accountId,
        at,
        ...actorFields(actor),
        action: 'client.created',
        version: 1,
        changes: {
          name: { to: record.name },
          status: { to: record.status },
          networkWhitelist: { to: record.networkWhitelist },
          roles: { to: record.roles },
        },
        keysAdded: [key.fingerprint],
      };
      const operator = isActiveAdmin(record);
      try {
        await this.doc.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: this.tableName, Item: clientItem(record), ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': PARTITION_KEY } } },
              {
                Put: {
                  TableName: this.tableName,
                  Item: keyItem(record.clientId, key),
                  ConditionExpression: 'attribute_not_exists(#pk)',
                  ExpressionAttributeNames: { '#pk': PARTITION_KEY },
                  ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
                },
              },
              { Put: { TableName: this.tableName, Item: auditItem(audit) } },
              // A new operator joins the admin roster (created if need be: no read, no extra grant but this item's update).
              ...(operator ? [this.roster.change(record.clientId, 'added')] : []),
            ],
          }),
        );
        return { record, created: true };
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (reasons === undefined) throw storageError(error, 'create the client');
        if (reasons[1]?.Code === 'ConditionalCheckFailed') {
          // The key is taken: answer with its holder. If it was released meanwhile, try again.
          const holderId = reasons[1].Item?.clientId?.S ?? (await this.findByFingerprint(key.fingerprint, { consistentRead: true }))?.clientId;
          const holder = holderId === undefined ? undefined : await this.getClient(holderId, { consistentRead: true });
          if (holder !== undefined) return { record: holder, created: false };
        } else if (reasons[0]?.Code !== 'ConditionalCheckFailed' && !isTransactionConflict(reasons)) {
          // (a clientId collision, reason 0, is retried with a fresh id)
          throw storageError(error, 'create the client');
        }
        return RETRY;
      }
    }, () => busy('create the client'));
  }

  /**
   * Edits name, whitelist, roles and/or replaces the keys with one key, if
   * the record is still at `expectedVersion`.
   * @throws SignetError `not_found`, `version_conflict`, `key_already_registered`
   */
  updateClient(clientId: string, expectedVersion: number, changes: ClientChanges, actor: Actor, options: ChangeOptions = {}): Promise<ClientRecord> {
    return this.mutate(clientId, expectedVersion, actor, options, 'update the client', (current, at) => {
      const record: Mutable<Plan['record']> = {};
      const audited: Partial<Record<AuditedField, AuditFieldChange>> = {};
      if (changes.name !== undefined && changes.name !== current.name) {
        record.name = changes.name;
        audited.name = { from: current.name, to: changes.name };
      }
      for (const field of ['networkWhitelist', 'roles'] as const) {
        const next = changes[field];
        if (next !== undefined && !sameList(next, current[field])) {
          record[field] = [...next];
          audited[field] = { from: current[field], to: next };
        }
      }
      let keyPuts: StoredPublicKey[] = [];
      let keyRewrites: StoredPublicKey[] = [];
      let keyDeletes: string[] = [];
      if (changes.key !== undefined) {
        const kept = current.keys.find((k) => k.fingerprint === changes.key?.fingerprint);
        const replacement = storedKey(changes.key, kept?.addedAt ?? at);
        const unchanged = current.keys.length === 1 && kept !== undefined && kept.notAfter === replacement.notAfter;
        if (!unchanged) {
          record.keys = [replacement];
          keyDeletes = current.keys.filter((k) => k !== kept).map((k) => k.fingerprint);
          if (kept === undefined) keyPuts = [replacement];
          else if (kept.notAfter !== replacement.notAfter) keyRewrites = [replacement];
        }
      }
      if (Object.keys(record).length === 0) return undefined;
      return {
        record,
        keyPuts,
        keyRewrites,
        keyDeletes,
        audit: {
          action: 'client.updated',
          ...(Object.keys(audited).length > 0 ? { changes: audited } : {}),
          ...(keyPuts.length > 0 ? { keysAdded: keyPuts.map((k) => k.fingerprint) } : {}),
          ...(keyDeletes.length > 0 ? { keysRemoved: keyDeletes } : {}),
        },
      };
    });
  }

  /**
   * Adds a key (rollover: both keys verify until the old one is removed or passes its
   * not-after). Keys already past their not-after are dropped in the same change.
   * @throws SignetError `not_found`, `version_conflict`, `key_already_registered`, `invalid_request` (too many keys)
   */
  addKey(clientId: string, key: NewKey, actor: Actor, expectedVersion?: number, options: ChangeOptions = {}): Promise<ClientRecord> {
    return this.mutate(clientId, expectedVersion, actor, options, 'add the key', (current, at, nowMs) => {
      const added = storedKey(key, at);
      const { keys, pruned } = addKeyTo(current.keys, added, nowMs);
      return {
        record: { keys: [...keys] },
        keyPuts: [added],
        keyDeletes: pruned.map((k) => k.fingerprint),
        audit: {
          action: 'key.added',
          keysAdded: [added.fingerprint],
          ...(pruned.length > 0 ? { keysRemoved: pruned.map((k) => k.fingerprint) } : {}),
        },
      };
    });
  }

  /**
   * Removes a key. The client's last active key cannot be removed (`last_key`): add the new
   * key first.
   * @throws SignetError `not_found` (client or key), `version_conflict`, `last_key`
   */
  removeKey(clientId: string, fingerprint: string, actor: Actor, expectedVersion?: number, options: ChangeOptions = {}): Promise<ClientRecord> {
    return this.mutate(clientId, expectedVersion, actor, options, 'remove the key', (current, _at, nowMs) => {
      const remaining = removeKeyFrom(current, fingerprint, nowMs);
      return { record: { keys: remaining }, keyDeletes: [fingerprint], audit: { action: 'key.removed', keysRemoved: [fingerprint] } };
    });
  }

  /**
   * Sets (or clears, with undefined) the instant after which a key stops verifying: the
   * rotation's grace period for the previous key.
   * @throws SignetError `not_found` (client or key), `version_conflict`, `last_key`, `invalid_request` (bad instant)
   */
  async setKeyNotAfter(
    clientId: string,
    fingerprint: string,
    notAfter: string | undefined,
    actor: Actor,
    expectedVersion?: number,
    options: ChangeOptions = {},
  ): Promise<ClientRecord> {
    const canonical = notAfter === undefined ? undefined : canonicalInstant(notAfter, 'notAfter');
    return this.mutate(clientId, expectedVersion, actor, options, 'set the key expiry', (current, _at, nowMs) => {
      const expiry = setKeyNotAfterOn(current, fingerprint, canonical, nowMs);
      if (expiry === undefined) return undefined;
      return {
        record: { keys: [...expiry.keys] },
        keyRewrites: [expiry.after],
        audit: { action: 'key.not_after_set', keyNotAfter: { fingerprint, from: expiry.before.notAfter, to: canonical } },
      };
    });
  }

  /** Disables the client: the authorizer refuses it (`client_disabled`). No change if already disabled. */
  disable(clientId: string, actor: Actor, expectedVersion?: number, options: ChangeOptions = {}): Promise<ClientRecord> {
    return this.setStatus(clientId, 'disabled', actor, expectedVersion, options);
  }

  /** Enables the client again. No change if already active. */
  enable(clientId: string, actor: Actor, expectedVersion?: number, options: ChangeOptions = {}): Promise<ClientRecord> {
    return this.setStatus(clientId, 'active', actor, expectedVersion, options);
  }

  // ---------------------------------------------------------------- the write engine

  private setStatus(clientId: string, status: ClientStatus, actor: Actor, expectedVersion: number | undefined, options: ChangeOptions): Promise<ClientRecord> {
    return this.mutate(clientId, expectedVersion, actor, options, status === 'disabled' ? 'disable the client' : 'enable the client', (current) =>
      current.status === status
        ? undefined
        : {
            record: { status },
            audit: { action: status === 'disabled' ? 'client.disabled' : 'client.enabled', changes: { status: { from: current.status, to: status } } },
          },
    );
  }

  /**
   * Reads the record (consistently), runs the guard, plans the change, and writes record + key
   * items + audit in one transaction conditioned on the version it read. The guard runs before
   * the version is compared, so a caller the guard refuses learns nothing from a stale version.
   * With `expectedVersion`, a record at any other version is a `version_conflict`; without it, a
   * concurrent change makes it re-plan (and re-check the guard).
   * A plan of undefined means "nothing to change": the current record is returned, unwritten.
   */
  private async mutate(
    clientId: string,
    expectedVersion: number | undefined,
    actor: Actor,
    options: ChangeOptions,
    action: string,
    plan: (current: ClientRecord, at: string, nowMs: number) => Plan | undefined,
  ): Promise<ClientRecord> {
    return withWriteRetries(async () => {
      const current = await this.getClient(clientId, { consistentRead: true });
      if (current === undefined) throw clientNotFound(clientId);
      options.guard?.(current);
      if (expectedVersion !== undefined && current.version !== expectedVersion) throw versionConflict(expectedVersion, current.version);
      const now = this.now();
      const at = now.toISOString();
      const change = plan(current, at, now.getTime());
      if (change === undefined) return current;

      const next: ClientRecord = { ...current, ...change.record, version: current.version + 1, updatedAt: at };
      const keyWrites = [
        ...(change.keyPuts ?? []).map((k) => ({ fingerprint: k.fingerprint, isNew: true, item: putKeyItem(this.tableName, clientId, k, true) })),
        ...(change.keyRewrites ?? []).map((k) => ({ fingerprint: k.fingerprint, isNew: false, item: putKeyItem(this.tableName, clientId, k, false) })),
        ...(change.keyDeletes ?? []).map((fp) => ({ fingerprint: fp, isNew: false, item: deleteKeyItem(this.tableName, clientId, fp) })),
      ];
      const audit: AuditEntry = { ...change.audit, clientId, accountId: current.accountId, at, ...actorFields(actor), version: next.version };
      const operator = operatorChange(current, next);
      if (operator === 'removed') await this.roster.ensureBuilt();
      // An operator that stops being able to sign for long (its last lasting key removed, cut short
      // or replaced by a short-lived one; disabled; its role taken) needs another that can: found
      // now, and held unchanged by the transaction (a condition on its version).
      const nowMs = now.getTime();
      const otherOperator = canAdminister(current, nowMs) && !canAdminister(next, nowMs) ? await this.roster.otherAbleOperator(clientId, nowMs) : undefined;
      if (otherOperator === null) throw lastAdmin(describeLoss(current, next, nowMs));
      // The roster change, when there is one, comes after the record, key and audit items.
      const rosterIndex = operator === undefined ? undefined : keyWrites.length + 2;
      try {
        await this.doc.send(
          new TransactWriteCommand({
            TransactItems: [
              updateRecordItem(this.tableName, next, current.version),
              ...keyWrites.map((w) => w.item),
              { Put: { TableName: this.tableName, Item: auditItem(audit) } },
              ...(operator !== undefined ? [this.roster.change(clientId, operator)] : []),
              ...(otherOperator !== undefined ? [unchangedRecordItem(this.tableName, otherOperator)] : []),
            ],
          }),
        );
        return next;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (reasons === undefined) throw storageError(error, action);
        if (rosterIndex !== undefined && operator === 'removed' && reasons[rosterIndex]?.Code === 'ConditionalCheckFailed' && reasons[0]?.Code !== 'ConditionalCheckFailed') {
          throw lastAdmin(describeLoss(current, next, nowMs));
        }
        const taken = keyWrites.find((w, i) => w.isNew && reasons[i + 1]?.Code === 'ConditionalCheckFailed');
        if (taken !== undefined) {
          const holder = reasons[keyWrites.indexOf(taken) + 1]?.Item?.clientId?.S;
          throw new SignetError(
            'key_already_registered',
            `This public key (fingerprint ${taken.fingerprint}) is already registered${holder ? ` on client ${holder}` : ' on another client'}. A key belongs to one client only: generate a new key pair for this client.`,
          );
        }
        if (reasons[0]?.Code === 'ConditionalCheckFailed') {
          const latest = await this.getClient(clientId, { consistentRead: true });
          if (latest === undefined) throw clientNotFound(clientId);
          if (expectedVersion !== undefined) throw versionConflict(expectedVersion, latest.version);
        } else if (!isTransactionConflict(reasons) && !reasons.some((r) => r.Code === 'ConditionalCheckFailed')) {
          throw storageError(error, action);
        }
        return RETRY;
      }
    }, () => (expectedVersion !== undefined ? versionConflict(expectedVersion, undefined) : busy(action)));
  }

}

/**
 * The `not_found` error for a clientId: the same answer whether no client has the id or the
 * caller may not see the one that does (a guard throws this), so the two cannot be told apart.
 */
export function clientNotFound(clientId: string): SignetError {
  return new SignetError('not_found', `No client has the id ${isClientId(clientId) ? clientId : '(malformed id)'}. Check the clientId, or list clients with GET /registry/clients.`);
}

function versionConflict(expected: number, actual: number | undefined): SignetError {
  return new SignetError(
    'version_conflict',
    `The client was changed by someone else: you edited version ${expected}${actual !== undefined ? `, it is now at version ${actual}` : ''}. Read it again, reapply your change, and send the new version.`,
  );
}

