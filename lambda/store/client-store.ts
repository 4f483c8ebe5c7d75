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
 * What each change does is planned by pure functions (./client-changes.ts, on the registry's
 * domain rules: ../domain/key-rollover.ts, ../domain/operator-rules.ts); this store writes the
 * plans in its transactions. The registry's listings are ./client-queries.ts and what the
 * authorizer reads is ./client-reader.ts, which this store extends; accounts live in
 * ./account-store.ts, the failure log in ./failure-log.ts, the admin roster in ./admin-roster.ts.
 *
 * Every SDK failure is translated here (./store-errors.ts): callers see only `SignetError`s.
 *
 * @example
 * const store = new DynamoClientStore({ tableName: config.tableName, client: documentClient });
 * const { record, created } = await store.createClient({ name, networkWhitelist, roles, key }, actorId);
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { SignetError } from '../core/errors';
import { canAdminister, describeLoss, isActiveAdmin, lastAdmin, operatorChange } from '../domain/operator-rules';
import type { RegistryStore } from '../domain/registry-store';
import { DynamoAccountStore } from './account-store';
import { DEFAULT_ACCOUNT_ID, isAccountId } from './account-id';
import { DynamoAdminRoster } from './admin-roster';
import { DynamoSearchBudget } from './search-budget-store';
import { type ClientChangePlan, newClient, planAddKey, planKeyNotAfter, planRemoveKey, planStatus, planUpdate } from './client-changes';
import { isClientId, newClientId } from './client-id';
import { DynamoClientQueries } from './client-queries';
import type { ClientRecord, ClientStatus } from '../domain/client-record';
import { deleteKeyItem, deleteKeyUseItem, putKeyItem, rewriteKeyItem, unchangedRecordItem, updateRecordItem } from './client-transaction';
import type { DynamoClientStoreOptions } from './dynamo-table';
import { actorFields, auditItem, canonicalInstant, clientItem, keyItem } from './item-codec';
import { cancellationReasons, isTransactionConflict, storageError } from './store-errors';
import { RETRY, busy, withWriteRetries } from './write-retries';
import type { Actor, AuditEntry, ChangeOptions, ClientChanges, CreateClientResult, NewClient, NewKey } from '../domain/store-types';
import { PARTITION_KEY } from './table-schema';

/**
 * The DynamoDB client registry: the registry's reads and writes. What the authorizer needs (one
 * GetItem per client, the failure log's writes) is {@link DynamoClientReader}, which this extends.
 */
export class DynamoClientStore extends DynamoClientQueries implements RegistryStore {
  /** The accounts, on the same table (./account-store.ts); the registry reaches them through this store. */
  private readonly accounts: DynamoAccountStore;
  /** The admin roster, on the same table (./admin-roster.ts). */
  private readonly roster: DynamoAdminRoster;
  /** The callers' search budgets, on the same table (./search-budget-store.ts). */
  private readonly searchBudget: DynamoSearchBudget;

  constructor(options: DynamoClientStoreOptions) {
    super(options);
    this.accounts = new DynamoAccountStore(options);
    this.roster = new DynamoAdminRoster(options, this);
    this.searchBudget = new DynamoSearchBudget(options);
  }

  searchReadsSpent(...args: Parameters<DynamoSearchBudget['searchReadsSpent']>): ReturnType<DynamoSearchBudget['searchReadsSpent']> {
    return this.searchBudget.searchReadsSpent(...args);
  }

  addSearchReads(...args: Parameters<DynamoSearchBudget['addSearchReads']>): ReturnType<DynamoSearchBudget['addSearchReads']> {
    return this.searchBudget.addSearchReads(...args);
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

  // ---------------------------------------------------------------- writes

  /**
   * Creates a client holding one key. When that key is already registered, nothing is written
   * and the holder's record comes back with `created: false` ("registration skipped").
   */
  async createClient(input: NewClient, actor: Actor): Promise<CreateClientResult> {
    const accountId = input.accountId ?? DEFAULT_ACCOUNT_ID;
    if (!isAccountId(accountId)) throw new SignetError('invalid_request', 'accountId must be an account id such as acct_default, as the registry gave it.');
    return withWriteRetries(async () => {
      const { record, key, audit } = newClient(input, newClientId(), accountId, this.now().toISOString(), actor);
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
    return this.mutate(clientId, expectedVersion, actor, options, 'update the client', (current, at) => planUpdate(current, changes, at));
  }

  /**
   * Adds a key (rollover: both keys verify until the old one is removed or passes its
   * not-after). Keys already past their not-after are dropped in the same change.
   * @throws SignetError `not_found`, `version_conflict`, `key_already_registered`, `invalid_request` (too many keys)
   */
  addKey(clientId: string, key: NewKey, actor: Actor, expectedVersion?: number, options: ChangeOptions = {}): Promise<ClientRecord> {
    return this.mutate(clientId, expectedVersion, actor, options, 'add the key', (current, at, nowMs) => planAddKey(current, key, at, nowMs));
  }

  /**
   * Removes a key. The client's last active key cannot be removed (`last_key`): add the new
   * key first.
   * @throws SignetError `not_found` (client or key), `version_conflict`, `last_key`
   */
  removeKey(clientId: string, fingerprint: string, actor: Actor, expectedVersion?: number, options: ChangeOptions = {}): Promise<ClientRecord> {
    return this.mutate(clientId, expectedVersion, actor, options, 'remove the key', (current, _at, nowMs) => planRemoveKey(current, fingerprint, nowMs));
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
    return this.mutate(clientId, expectedVersion, actor, options, 'set the key expiry', (current, _at, nowMs) => planKeyNotAfter(current, fingerprint, canonical, nowMs));
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
    return this.mutate(clientId, expectedVersion, actor, options, status === 'disabled' ? 'disable the client' : 'enable the client', (current) => planStatus(current, status));
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
    plan: (current: ClientRecord, at: string, nowMs: number) => ClientChangePlan | undefined,
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
        ...(change.keyPuts ?? []).map((k) => ({ fingerprint: k.fingerprint, isNew: true, item: putKeyItem(this.tableName, clientId, k) })),
        ...(change.keyRewrites ?? []).map((k) => ({ fingerprint: k.fingerprint, isNew: false, item: rewriteKeyItem(this.tableName, clientId, k) })),
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
              // Last, so the cancellation reasons above keep their places.
              ...(change.keyDeletes ?? []).map((fp) => deleteKeyUseItem(this.tableName, fp)),
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

