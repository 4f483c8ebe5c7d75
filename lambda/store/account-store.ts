/**
 * Accounts on DynamoDB: get, list (the default account first), create and edit with optimistic
 * concurrency, each change with its audit entry in the same transaction. The default account
 * always exists: until an operator first edits it, it is the built-in {@link defaultAccount}.
 */
import { BatchGetCommand, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { StoreRefusal } from '../domain/store-refusal';
import { DEFAULT_ACCOUNT_ID, isAccountId, newAccountId } from './account-id';
import { decodeCursor, encodeCursor } from './cursor';
import { DEFAULT_PAGE_SIZE, DynamoTable, pageSize } from './dynamo-table';
import { type Item, accountTrailKeys, actorFields, auditVersion, dropUndefined, sameList, stringList, toAuditEntry } from './item-codec';
import { cancellationReasons, isTransactionConflict, storageError, versionConflict } from './store-errors';
import type { AccountAuditEntry, AccountChanges, AccountRecord, AccountTrailEntry, Actor, AuditFieldChange, NewAccount, Page } from '../domain/store-types';
import { ITEM, LIST_INDEX_NAME, LIST_INDEX_PARTITION_KEY, LIST_INDEX_SORT_KEY, PARTITION_KEY, SORT_KEY } from './table-schema';
import { RETRY, busy, withWriteRetries } from './write-retries';

/** Rounds of BatchGetItem for the keys DynamoDB leaves unprocessed before the read gives up. @default 5 */
const MAX_BATCH_ATTEMPTS = 5;

/** Name of the built-in default account. */
export const DEFAULT_ACCOUNT_NAME = 'Default account';
/** `createdAt` of the built-in default account (it predates every change). */
const BUILT_IN_AT = '1970-01-01T00:00:00.000Z';

export class DynamoAccountStore extends DynamoTable {
  /**
   * The account, or undefined when none has this id (ids of the wrong shape are answered without
   * a read). The default account always exists: until an operator first edits it, it is the
   * built-in {@link defaultAccount} (version 0, an empty role ceiling). One GetItem.
   */
  async getAccount(accountId: string, options: { consistentRead?: boolean } = {}): Promise<AccountRecord | undefined> {
    if (!isAccountId(accountId)) return undefined;
    let item: Item | undefined;
    try {
      const out = await this.doc.send(
        new GetCommand({ TableName: this.tableName, Key: accountKey(accountId), ConsistentRead: options.consistentRead ?? false }),
      );
      item = out.Item;
    } catch (error) {
      throw storageError(error, 'read the account');
    }
    if (item !== undefined) return toAccount(item);
    return accountId === DEFAULT_ACCOUNT_ID ? defaultAccount() : undefined;
  }

  /**
   * Accounts in creation order, the default account first, one page at a time (one Query on the
   * list index per page).
   */
  async listAccounts(cursor?: string, limit: number = DEFAULT_PAGE_SIZE): Promise<Page<AccountRecord>> {
    const size = pageSize(limit);
    const start = decodeCursor(
      cursor,
      [PARTITION_KEY, SORT_KEY, LIST_INDEX_PARTITION_KEY, LIST_INDEX_SORT_KEY],
      { [LIST_INDEX_PARTITION_KEY]: ITEM.accountsPartition, [SORT_KEY]: ITEM.accountSk },
      { [PARTITION_KEY]: ITEM.accountPk('') },
    );
    const out = await this.query('list the accounts', {
      IndexName: LIST_INDEX_NAME,
      KeyConditionExpression: '#lpk = :partition',
      ExpressionAttributeNames: { '#lpk': LIST_INDEX_PARTITION_KEY },
      ExpressionAttributeValues: { ':partition': ITEM.accountsPartition },
      Limit: size,
      ExclusiveStartKey: start,
    });
    const items = out.items.map(toAccount);
    let lastKey = out.lastKey;
    // The default account's item sorts first when it exists; until then the first page shows the built-in one.
    if (start === undefined && items[0]?.accountId !== DEFAULT_ACCOUNT_ID) {
      items.unshift(defaultAccount());
      if (items.length > size) {
        items.pop();
        // The page ends at the item before the one put back, or (a page of one) at the default account's place.
        const last = out.items.length >= 2 ? out.items[out.items.length - 2] : accountItem(defaultAccount());
        lastKey = Object.fromEntries([PARTITION_KEY, SORT_KEY, LIST_INDEX_PARTITION_KEY, LIST_INDEX_SORT_KEY].map((k) => [k, last[k]]));
      }
    }
    return { items, nextCursor: encodeCursor(lastKey) };
  }

  /** Creates an account with a fresh id; its audit entry is written in the same transaction. */
  async createAccount(input: NewAccount, actor: Actor): Promise<AccountRecord> {
    return withWriteRetries(async () => {
      const at = this.now().toISOString();
      const record: AccountRecord = { accountId: newAccountId(), name: input.name, roleCeiling: [...input.roleCeiling], version: 1, createdAt: at, updatedAt: at };
      const audit: AccountAuditEntry = {
        accountId: record.accountId,
        at,
        ...actorFields(actor),
        action: 'account.created',
        version: 1,
        changes: { name: { to: record.name }, roleCeiling: { to: record.roleCeiling } },
      };
      try {
        await this.doc.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: this.tableName, Item: accountItem(record), ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': PARTITION_KEY } } },
              { Put: { TableName: this.tableName, Item: accountAuditItem(audit) } },
            ],
          }),
        );
        return record;
      } catch (error) {
        const reasons = cancellationReasons(error);
        // (an id collision, reason 0, is retried with a fresh id)
        if (reasons === undefined || (reasons[0]?.Code !== 'ConditionalCheckFailed' && !isTransactionConflict(reasons))) {
          throw storageError(error, 'create the account');
        }
        return RETRY;
      }
    }, () => busy('create the account'));
  }

  /**
   * Edits an account's name and/or role ceiling if it is still at `expectedVersion` (the built-in
   * default account is at version 0; its first edit writes its item).
   * @throws SignetError `not_found`, `version_conflict`
   */
  async updateAccount(accountId: string, expectedVersion: number, changes: AccountChanges, actor: Actor): Promise<AccountRecord> {
    return withWriteRetries(async () => {
      const current = await this.getAccount(accountId, { consistentRead: true });
      if (current === undefined) throw accountNotFound(accountId);
      if (current.version !== expectedVersion) throw versionConflict('account', expectedVersion, current.version);
      const audited: Partial<Record<'name' | 'roleCeiling', AuditFieldChange>> = {};
      if (changes.name !== undefined && changes.name !== current.name) audited.name = { from: current.name, to: changes.name };
      if (changes.roleCeiling !== undefined && !sameList(changes.roleCeiling, current.roleCeiling)) {
        audited.roleCeiling = { from: current.roleCeiling, to: changes.roleCeiling };
      }
      if (Object.keys(audited).length === 0) return current;
      const at = this.now().toISOString();
      const next: AccountRecord = {
        ...current,
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        ...(changes.roleCeiling !== undefined ? { roleCeiling: [...changes.roleCeiling] } : {}),
        version: current.version + 1,
        ...(current.version === 0 ? { createdAt: at } : {}),
        updatedAt: at,
      };
      const audit: AccountAuditEntry = { accountId, at, ...actorFields(actor), action: 'account.updated', version: next.version, changes: audited };
      const condition: { ConditionExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues?: Item } =
        current.version === 0
          ? { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': PARTITION_KEY } }
          : { ConditionExpression: '#version = :current', ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':current': current.version } };
      try {
        await this.doc.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: this.tableName, Item: accountItem(next), ...condition } },
              { Put: { TableName: this.tableName, Item: accountAuditItem(audit) } },
            ],
          }),
        );
        return next;
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (reasons === undefined) throw storageError(error, 'update the account');
        if (reasons[0]?.Code === 'ConditionalCheckFailed') {
          const latest = await this.getAccount(accountId, { consistentRead: true });
          throw versionConflict('account', expectedVersion, latest?.version);
        }
        if (!isTransactionConflict(reasons)) throw storageError(error, 'update the account');
        return RETRY;
      }
    }, () => versionConflict('account', expectedVersion, undefined));
  }

  /**
   * Every change to the account and to its clients, newest first (who, what, when): one Query on
   * the account's trail partition of the list index, then one BatchGetItem for the page's entries
   * (the index projects only the list attributes). Never a Scan, whatever the account holds.
   */
  async listAccountAudit(accountId: string, cursor?: string, limit: number = DEFAULT_PAGE_SIZE): Promise<Page<AccountTrailEntry>> {
    if (!isAccountId(accountId)) return { items: [] };
    const partition = ITEM.accountAuditPartition(accountId);
    const start = decodeCursor(cursor, [PARTITION_KEY, SORT_KEY, LIST_INDEX_PARTITION_KEY, LIST_INDEX_SORT_KEY], { [LIST_INDEX_PARTITION_KEY]: partition }, { [SORT_KEY]: ITEM.auditSkPrefix });
    const out = await this.query('list the account audit trail', {
      IndexName: LIST_INDEX_NAME,
      KeyConditionExpression: '#lpk = :partition',
      ExpressionAttributeNames: { '#lpk': LIST_INDEX_PARTITION_KEY },
      ExpressionAttributeValues: { ':partition': partition },
      ScanIndexForward: false,
      Limit: pageSize(limit),
      ExclusiveStartKey: start,
    });
    const full = await this.auditItems(out.items.map((item) => ({ [PARTITION_KEY]: item[PARTITION_KEY], [SORT_KEY]: item[SORT_KEY] })));
    const items = out.items.flatMap((item) => {
      const entry = full.get(`${String(item[PARTITION_KEY])} ${String(item[SORT_KEY])}`);
      return entry === undefined ? [] : [toAuditEntry(entry) as AccountTrailEntry];
    });
    return { items, nextCursor: encodeCursor(out.lastKey) };
  }

  /** The audit items with these keys (at most a page: one BatchGetItem, plus retries of what it leaves), by `pk sk`. */
  private async auditItems(keys: readonly Item[]): Promise<Map<string, Item>> {
    const found = new Map<string, Item>();
    let pending: Item[] = [...keys];
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > MAX_BATCH_ATTEMPTS) throw busy('read the account audit trail');
      let out;
      try {
        out = await this.doc.send(new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: pending } } }));
      } catch (error) {
        throw storageError(error, 'read the account audit trail');
      }
      for (const item of out.Responses?.[this.tableName] ?? []) found.set(`${String(item[PARTITION_KEY])} ${String(item[SORT_KEY])}`, item);
      pending = (out.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Item[];
      if (pending.length > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
    return found;
  }
}

function accountKey(accountId: string): Item {
  return { [PARTITION_KEY]: ITEM.accountPk(accountId), [SORT_KEY]: ITEM.accountSk };
}

/** The built-in default account: what {@link DynamoAccountStore.getAccount} answers until an operator edits it. */
export function defaultAccount(): AccountRecord {
  return { accountId: DEFAULT_ACCOUNT_ID, name: DEFAULT_ACCOUNT_NAME, roleCeiling: [], version: 0, createdAt: BUILT_IN_AT, updatedAt: BUILT_IN_AT };
}

function accountItem(record: AccountRecord): Item {
  return {
    ...accountKey(record.accountId),
    [LIST_INDEX_PARTITION_KEY]: ITEM.accountsPartition,
    // The default account sorts before every ISO-8601 instant: it always lists first.
    [LIST_INDEX_SORT_KEY]: record.accountId === DEFAULT_ACCOUNT_ID ? `0#${record.accountId}` : `${record.createdAt}#${record.accountId}`,
    type: 'account',
    accountId: record.accountId,
    name: record.name,
    // Stored as `roles`: the list index projects that attribute, so account lists carry the ceiling.
    roles: [...record.roleCeiling],
    version: record.version,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

function toAccount(item: Item): AccountRecord {
  const pk = String(item[PARTITION_KEY]);
  return {
    // The list index does not project accountId; the partition key names it.
    accountId: typeof item.accountId === 'string' ? item.accountId : pk.slice(ITEM.accountPk('').length),
    name: String(item.name),
    roleCeiling: stringList(item.roles),
    version: Number(item.version),
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
  };
}

function accountAuditItem(entry: AccountAuditEntry): Item {
  return {
    [PARTITION_KEY]: ITEM.accountPk(entry.accountId),
    [SORT_KEY]: `${ITEM.auditSkPrefix}${auditVersion(entry.version)}`,
    ...accountTrailKeys(entry.accountId, entry.at, entry.accountId, entry.version),
    type: 'account-audit',
    ...dropUndefined(entry as unknown as Item),
  };
}

/** The `not_found` error for an accountId (the same whether it does not exist or the caller may not see it). */
export function accountNotFound(accountId: string): StoreRefusal {
  const shown = isAccountId(accountId) ? accountId : undefined;
  return new StoreRefusal('not_found', `No account has the id ${shown ?? '(malformed id)'}. Check the accountId.`, { about: 'account', accountId: shown });
}

