/**
 * The client registry's writes on DynamoDB (table layout: ./table-schema.ts).
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
 * plans in its transactions. It reads records through ./client-records.ts, a key's holder through
 * ./client-queries.ts and keeps the admin roster (./admin-roster.ts) in step; ./client-store.ts
 * holds it beside the registry's other small stores.
 *
 * Every SDK failure is translated here (./store-errors.ts): callers see only `SignetError`s.
 */
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { SignetError } from '../core/errors';
import { keySourceIdentity } from '../core/key-source-url';
import { type ClientRecord, type ClientStatus, type KeySource, type StoredPublicKey, keepSeconds } from '../domain/client-record';
import type { KeySourceStatus } from '../domain/key-source-store';
import { StoreRefusal } from '../domain/store-refusal';
import { canAdminister, describeLoss, isActiveAdmin, lastAdmin, operatorChange } from '../domain/operator-rules';
import type { Actor, AuditEntry, ChangeOptions, ClientChanges, CreateClientResult, NewClient, NewKey } from '../domain/store-types';
import { DEFAULT_ACCOUNT_ID, isAccountId } from './account-id';
import type { DynamoAdminRoster } from './admin-roster';
import { type ClientChangePlan, newClient, planAddKey, planRefresh, planKeyNotAfter, planWithdrawn, planRemoveKey, planStatus, planUpdate } from './client-changes';
import { isClientId, newClientId } from './client-id';
import type { DynamoClientQueries } from './client-queries';
import type { DynamoClientRecords } from './client-records';
import {
  type TransactItem,
  deleteKeyItem,
  deleteKeySourceItem,
  deleteKeyUseItem,
  deleteThumbprintItem,
  endsSource,
  putKeyItem,
  putKeySourceItem,
  putThumbprintItem,
  rewriteKeyItem,
  sourceOwnerChanges,
  unchangedRecordItem,
  updateRecordItem,
} from './client-transaction';
import { type DynamoClientStoreOptions, DynamoTable } from './dynamo-table';
import { actorFields, auditItem, canonicalInstant, clientItem, keyThumbprint, sourceOwnerKey } from './item-codec';
import { cancellationReasons, isTransactionConflict, storageError, versionConflict } from './store-errors';
import { RETRY, busy, withWriteRetries } from './write-retries';
import { PARTITION_KEY } from './table-schema';

/** The small stores the writes read and keep in step. */
export interface ClientWriteParts {
  /** Each change reads the record it is planned from, consistently. */
  readonly records: DynamoClientRecords;
  /** A key already registered is answered with its holder. */
  readonly queries: DynamoClientQueries;
  /** Operators joining and leaving, in the change's own transaction. */
  readonly roster: DynamoAdminRoster;
}

/** The registry's changes to clients: each one transaction, its audit entry included. */
export class DynamoClientWrites extends DynamoTable {
  /** The keep bound of published keys, in seconds: who counts as an operator that can still sign. */
  private readonly keepS: number;

  constructor(
    options: DynamoClientStoreOptions,
    private readonly parts: ClientWriteParts,
  ) {
    super(options);
    this.keepS = keepSeconds(options.keySourceKeepDays);
  }

  /**
   * Creates a client holding one key. When that key is already registered, nothing is written
   * and the holder's record comes back with `created: false` ("registration skipped").
   */
  async createClient(input: NewClient, actor: Actor): Promise<CreateClientResult> {
    const accountId = input.accountId ?? DEFAULT_ACCOUNT_ID;
    if (!isAccountId(accountId)) throw new SignetError('invalid_request', 'accountId must be an account id such as acct_default, as the registry gave it.');
    return withWriteRetries(async () => {
      const { record, keys, audit } = newClient(input, newClientId(), accountId, this.now().toISOString(), actor);
      const operator = isActiveAdmin(record);
      const status = input.published === undefined ? undefined : { ...input.published.status, clientId: record.clientId };
      const owner = sourceOwnerChanges(this.tableName, record.clientId, undefined, record.keySource, false);
      const items = [
        { Put: { TableName: this.tableName, Item: clientItem(record), ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': PARTITION_KEY } } },
        // Key ownership items from index 1 on (the cancellation reasons below rely on it).
        ...keys.map((key) => putKeyItem(this.tableName, record.clientId, key)),
        { Put: { TableName: this.tableName, Item: auditItem(audit) } },
        // A new operator joins the admin roster (created if need be: no read, no extra grant but this item's update).
        ...(operator ? [this.parts.roster.change(record.clientId, 'added')] : []),
        ...thumbprintPuts(this.tableName, record.clientId, keys),
        ...(status !== undefined ? [putKeySourceItem(this.tableName, status)] : []),
        // Last: the source's owner item, whose cancellation reason is read below.
        ...owner.items,
      ];
      const ownerAt = items.length - owner.items.length;
      try {
        await this.doc.send(new TransactWriteCommand({ TransactItems: items }));
        return { record, created: true };
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (reasons === undefined) throw storageError(error, 'create the client');
        if (owner.claim !== undefined && reasons[ownerAt]?.Code === 'ConditionalCheckFailed') throw sourceTaken(owner.claim.identity, reasons[ownerAt]?.Item?.clientId?.S);
        const takenAt = keys.findIndex((_key, i) => reasons[i + 1]?.Code === 'ConditionalCheckFailed');
        if (takenAt >= 0 && input.published !== undefined) throw keyTaken(keys[takenAt].fingerprint, reasons[takenAt + 1]?.Item?.clientId?.S);
        if (takenAt >= 0) {
          // The key is taken: answer with its holder. If it was released meanwhile, try again.
          const key = keys[takenAt];
          const holderId = reasons[takenAt + 1].Item?.clientId?.S ?? (await this.parts.queries.findByFingerprint(key.fingerprint, { consistentRead: true }))?.clientId;
          const holder = holderId === undefined ? undefined : await this.parts.records.getClient(holderId, { consistentRead: true });
          if (holder !== undefined) return { record: holder, created: false };
        } else if (reasons[0]?.Code !== 'ConditionalCheckFailed' && thumbTakenAt(reasons, keys.length + 2 + (operator ? 1 : 0), keys.length) >= 0) {
          // A thumbprint already names another client's key: taken.
          const at = thumbTakenAt(reasons, keys.length + 2 + (operator ? 1 : 0), keys.length);
          throw keyTaken(keys[at].fingerprint, reasons[keys.length + 2 + (operator ? 1 : 0) + at]?.Item?.clientId?.S);
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

  /**
   * Replaces a key-source client's published keys with a fetch's (version + 1, audit entry
   * `key_source.refreshed`), sets `keysFetchedAt` and writes the source status, if the record is
   * still at `expectedVersion`.
   * @throws SignetError `not_found`, `version_conflict`, `key_already_registered`
   */
  refreshPublishedKeys(
    clientId: string,
    expectedVersion: number,
    keys: readonly StoredPublicKey[],
    fetchedAt: string,
    status: KeySourceStatus,
    actor: Actor,
  ): Promise<ClientRecord> {
    return this.mutate(clientId, expectedVersion, actor, {}, 'refresh the published keys', (current) => planRefresh(current, keys, fetchedAt, status));
  }

  /**
   * Ends now (a not-after of the change's instant) a key-source client's keys its source no longer
   * lists (a fetch with no usable key), leaving `keysFetchedAt`, and writes the source status, if
   * the record is still at `expectedVersion`.
   * @throws SignetError `not_found`, `version_conflict`, `last_admin`
   */
  dropWithdrawnKeys(clientId: string, expectedVersion: number, withdrawn: ReadonlySet<string>, status: KeySourceStatus, actor: Actor): Promise<ClientRecord> {
    return this.mutate(clientId, expectedVersion, actor, {}, 'end the withdrawn keys', (current, at) => planWithdrawn(current, withdrawn, status, at));
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

  /** The client a key source's owner item names, if it has one (read consistently). */
  private async sourceOwner(source: KeySource): Promise<string | undefined> {
    try {
      const out = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: sourceOwnerKey(keySourceIdentity(source)), ConsistentRead: true }));
      const owner = out.Item?.clientId;
      return typeof owner === 'string' ? owner : undefined;
    } catch (error) {
      throw storageError(error, 'read the key source owner');
    }
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
    // Thumbprint items of removed keys that turned out to name another client (a key stored before
    // thumbprint items existed, under another DER spelling): not this client's to delete.
    const othersThumbprints = new Set<string>();
    return withWriteRetries(async () => {
      const current = await this.parts.records.getClient(clientId, { consistentRead: true });
      if (current === undefined) throw clientNotFound(clientId);
      options.guard?.(current);
      if (expectedVersion !== undefined && current.version !== expectedVersion) throw versionConflict('client', expectedVersion, current.version);
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
      // Every key put gets its thumbprint index item, every key deleted loses it (after the items whose
      // cancellation reasons are read by position), and the key source status goes with the change.
      const thumbprintDeletes = (change.keyDeletes ?? []).flatMap((fp) => {
        const gone = current.keys.find((k) => k.fingerprint === fp);
        const thumbprint = gone === undefined ? undefined : keyThumbprint(gone);
        return thumbprint === undefined || othersThumbprints.has(thumbprint) ? [] : [thumbprint];
      });
      // The new keys with a thumbprint item, in the order of their items.
      const thumbprintedPuts = (change.keyPuts ?? []).filter((key) => keyThumbprint(key) !== undefined);
      const thumbprintPutItems = thumbprintPuts(this.tableName, clientId, thumbprintedPuts);
      const thumbprints: TransactItem[] = [...thumbprintPutItems, ...thumbprintDeletes.map((thumbprint) => deleteThumbprintItem(this.tableName, clientId, thumbprint))];
      const source: TransactItem[] =
        change.sourceStatus === undefined ? [] : [change.sourceStatus === null ? deleteKeySourceItem(this.tableName, clientId) : putKeySourceItem(this.tableName, { ...change.sourceStatus, clientId })];
      const ownsBefore = endsSource(current.keySource, next.keySource) && (await this.sourceOwner(current.keySource)) === clientId;
      const owner = sourceOwnerChanges(this.tableName, clientId, current.keySource, next.keySource, ownsBefore);
      const operator = operatorChange(current, next);
      if (operator === 'removed') await this.parts.roster.ensureBuilt();
      // An operator that stops being able to sign for long (its last lasting key removed, cut short
      // or replaced by a short-lived one; disabled; its role taken) needs another that can: found
      // now, and held unchanged by the transaction (a condition on its version).
      const nowMs = now.getTime();
      const otherOperator = canAdminister(current, nowMs, this.keepS) && !canAdminister(next, nowMs, this.keepS) ? await this.parts.roster.otherAbleOperator(clientId, nowMs, this.keepS) : undefined;
      if (otherOperator === null) throw lastAdmin(describeLoss(current, next, nowMs, this.keepS));
      // The roster change, when there is one, comes after the record, key and audit items.
      const rosterIndex = operator === undefined ? undefined : keyWrites.length + 2;
      const ownerAt = keyWrites.length + 2 + (operator !== undefined ? 1 : 0) + (otherOperator !== undefined ? 1 : 0) + thumbprints.length + source.length;
      try {
        await this.doc.send(
          new TransactWriteCommand({
            TransactItems: [
              updateRecordItem(this.tableName, next, current),
              ...keyWrites.map((w) => w.item),
              { Put: { TableName: this.tableName, Item: auditItem(audit) } },
              ...(operator !== undefined ? [this.parts.roster.change(clientId, operator)] : []),
              ...(otherOperator !== undefined ? [unchangedRecordItem(this.tableName, otherOperator)] : []),
              // Last, so the cancellation reasons above keep their places.
              ...thumbprints,
              ...source,
              ...owner.items,
              ...keyUseDeletes(change.keyDeletes ?? [], keyWrites.length + thumbprints.length + source.length + owner.items.length + 4).map((fp) => deleteKeyUseItem(this.tableName, fp)),
            ],
          }),
        );
        return next;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (reasons === undefined) throw storageError(error, action);
        if (owner.claim !== undefined && reasons[0]?.Code !== 'ConditionalCheckFailed' && reasons[ownerAt]?.Code === 'ConditionalCheckFailed') {
          throw sourceTaken(owner.claim.identity, reasons[ownerAt]?.Item?.clientId?.S);
        }
        if (rosterIndex !== undefined && operator === 'removed' && reasons[rosterIndex]?.Code === 'ConditionalCheckFailed' && reasons[0]?.Code !== 'ConditionalCheckFailed') {
          throw lastAdmin(describeLoss(current, next, nowMs, this.keepS));
        }
        const taken = keyWrites.find((w, i) => w.isNew && reasons[i + 1]?.Code === 'ConditionalCheckFailed');
        if (taken !== undefined) throw keyTaken(taken.fingerprint, reasons[keyWrites.indexOf(taken) + 1]?.Item?.clientId?.S);
        const thumbStart = keyWrites.length + 2 + (operator !== undefined ? 1 : 0) + (otherOperator !== undefined ? 1 : 0);
        const thumbTaken = thumbTakenAt(reasons, thumbStart, thumbprintedPuts.length);
        if (thumbTaken >= 0 && reasons[0]?.Code !== 'ConditionalCheckFailed') throw keyTaken(thumbprintedPuts[thumbTaken].fingerprint, reasons[thumbStart + thumbTaken]?.Item?.clientId?.S);
        // A removed key's thumbprint item that names another client stays; the key goes without it.
        const deletesStart = thumbStart + thumbprintPutItems.length;
        const notOurs = thumbprintDeletes.filter((_, i) => reasons[deletesStart + i]?.Code === 'ConditionalCheckFailed');
        if (notOurs.length > 0 && reasons[0]?.Code !== 'ConditionalCheckFailed') {
          for (const thumbprint of notOurs) othersThumbprints.add(thumbprint);
          return RETRY;
        }
        if (reasons[0]?.Code === 'ConditionalCheckFailed') {
          const latest = await this.parts.records.getClient(clientId, { consistentRead: true });
          if (latest === undefined) throw clientNotFound(clientId);
          if (expectedVersion !== undefined) throw versionConflict('client', expectedVersion, latest.version);
        } else if (!isTransactionConflict(reasons) && !reasons.some((r) => r.Code === 'ConditionalCheckFailed')) {
          throw storageError(error, action);
        }
        return RETRY;
      }
    }, () => (expectedVersion !== undefined ? versionConflict('client', expectedVersion, undefined) : busy(action)));
  }
}

/** The most items one DynamoDB transaction may hold. */
const MAX_TRANSACTION_ITEMS = 100;

/**
 * The last-use items deleted with their keys, as many as the transaction has room for after
 * `others` items: a published key set replaced whole (20 keys out, 20 in) fills it; a last use
 * left behind only makes the key, if ever registered again, start with its old last use.
 */
function keyUseDeletes(fingerprints: readonly string[], others: number): readonly string[] {
  return fingerprints.slice(0, Math.max(0, MAX_TRANSACTION_ITEMS - others));
}

/** The thumbprint index items of new keys, in their order (a key whose thumbprint cannot be computed has none). */
function thumbprintPuts(tableName: string, clientId: string, keys: readonly StoredPublicKey[]): TransactItem[] {
  return keys.flatMap((key) => {
    const thumbprint = keyThumbprint(key);
    return thumbprint === undefined ? [] : [putThumbprintItem(tableName, clientId, { ...key, thumbprint })];
  });
}

/** The first of `count` thumbprint puts from `start` whose condition failed, or -1. */
function thumbTakenAt(reasons: readonly ({ Code?: string } | undefined)[], start: number, count: number): number {
  for (let i = 0; i < count; i++) if (reasons[start + i]?.Code === 'ConditionalCheckFailed') return i;
  return -1;
}

/** A key source that already serves another client. */
export function sourceTaken(identity: string, holder: string | undefined): SignetError {
  return new SignetError(
    'key_source_in_use',
    `The key source ${identity} already serves ${holder ? `client ${holder}` : 'another client'}. A key source serves one client only, as a key does (its new keys would go to whichever client fetched them first): ` +
      'give that client another source or a registered key first, or use that client.',
  );
}

/** A public key (or its thumbprint) already registered on another client. */
export function keyTaken(fingerprint: string, holder: string | undefined): SignetError {
  return new SignetError(
    'key_already_registered',
    `This public key (fingerprint ${fingerprint}) is already registered${holder ? ` on client ${holder}` : ' on another client'}. A key belongs to one client only: generate a new key pair for this client.`,
  );
}

/**
 * The `not_found` error for a clientId: the same answer whether no client has the id or the
 * caller may not see the one that does (a guard throws this), so the two cannot be told apart.
 */
export function clientNotFound(clientId: string): StoreRefusal {
  const shown = isClientId(clientId) ? clientId : undefined;
  return new StoreRefusal('not_found', `No client has the id ${shown ?? '(malformed id)'}. Check the clientId.`, { about: 'client', clientId: shown });
}


