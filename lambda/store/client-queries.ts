/**
 * The registry's reads beyond one client: an account's clients, a key's holder, old keys, a
 * client's audit trail. Queries on the list index and the base table, never a Scan; a cursor only
 * continues the listing it came from. One of the small stores ./client-store.ts holds.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { SignetError } from '../core/errors';
import { rotationCutoff } from '../core/key-age';
import { isFingerprint } from '../core/keys';
import { DEFAULT_ACCOUNT_ID, isAccountId } from './account-id';
import { isClientId } from './client-id';
import type { ClientRecord } from '../domain/client-record';
import { decodeCursor, encodeCursor } from './cursor';
import { DEFAULT_PAGE_SIZE, DynamoTable, pageSize } from './dynamo-table';
import { keyKey, keySourceKey, toAuditEntry, toKeyOwner, toKeySourceStatus, toRecord } from './item-codec';
import type { KeySourceStatus } from '../domain/key-source-store';
import { storageError } from './store-errors';
import type { AuditEntry, KeyOwner, Page } from '../domain/store-types';
import { ITEM, LIST_INDEX_NAME, LIST_INDEX_PARTITION_KEY, LIST_INDEX_SORT_KEY, PARTITION_KEY, SORT_KEY } from './table-schema';

/** The registry's listings and lookups on DynamoDB. */
export class DynamoClientQueries extends DynamoTable {
  /** A key-source client's status item (what its last fetches found), read consistently; undefined when it has none. */
  async getKeySourceStatus(clientId: string): Promise<KeySourceStatus | undefined> {
    if (!isClientId(clientId)) return undefined;
    try {
      const out = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keySourceKey(clientId), ConsistentRead: true }));
      return out.Item === undefined ? undefined : toKeySourceStatus(out.Item);
    } catch (error) {
      throw storageError(error, 'read the key source status');
    }
  }

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

  /**
   * Every client of the account in creation order, for the registry's search: Queries on the list
   * index (1 MB each, never a Scan) until the account is read or more than `ceiling` clients are;
   * then `complete` is false and `records` holds the first `ceiling`.
   */
  async accountClients(accountId: string, ceiling: number): Promise<{ records: ClientRecord[]; complete: boolean }> {
    if (!isAccountId(accountId)) return { records: [], complete: true };
    const partition = ITEM.accountClientsPartition(accountId);
    const records: ClientRecord[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.query('list the clients', {
        IndexName: LIST_INDEX_NAME,
        KeyConditionExpression: '#lpk = :partition',
        ExpressionAttributeNames: { '#lpk': LIST_INDEX_PARTITION_KEY },
        ExpressionAttributeValues: { ':partition': partition },
        Limit: ceiling + 1 - records.length,
        ExclusiveStartKey: start,
      });
      records.push(...out.items.map((item) => toRecord(item, accountId)));
      start = out.lastKey;
    } while (start !== undefined && records.length <= ceiling);
    return records.length > ceiling ? { records: records.slice(0, ceiling), complete: false } : { records, complete: true };
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
    const cutoff = rotationCutoff(this.now().getTime(), days);
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
}
