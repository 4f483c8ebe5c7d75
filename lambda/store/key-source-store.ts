/**
 * The key-source refresher's storage on DynamoDB (the port: ../domain/key-source-store.ts; table
 * layout: ./table-schema.ts). The due list is one Query on the list index (partition
 * `KEY_SOURCES`, sorted by next fetch); a changed key set is a normal client change, written by
 * the client store's transaction (version + 1, audit entry, ownership and thumbprint items); an
 * unchanged one or a failure is bookkeeping: the status item (and `keysFetchedAt`), on the
 * condition that the record is still at the version the fetch was planned from.
 */
import { BatchGetCommand, DeleteCommand, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { ClientRecord, StoredPublicKey } from '../domain/client-record';
import type { KeySourceStatus, KeySourceStore } from '../domain/key-source-store';
import type { Actor, Page } from '../domain/store-types';
import { DynamoClientStore } from './client-store';
import { decodeCursor, encodeCursor } from './cursor';
import { DEFAULT_PAGE_SIZE, type DynamoClientStoreOptions, DynamoTable, pageSize } from './dynamo-table';
import { clientKey, keyKey, keySourceItem, keySourceKey, toKeySourceStatus } from './item-codec';
import { cancellationReasons, storageError } from './store-errors';
import { ITEM, LIST_INDEX_NAME, LIST_INDEX_PARTITION_KEY, LIST_INDEX_SORT_KEY, PARTITION_KEY, SORT_KEY } from './table-schema';

/** Keys a BatchGetItem may ask for at once. */
const BATCH_GET_KEYS = 100;

export class DynamoKeySourceStore extends DynamoTable implements KeySourceStore {
  private readonly clients: DynamoClientStore;

  constructor(options: DynamoClientStoreOptions, clients?: DynamoClientStore) {
    super(options);
    this.clients = clients ?? new DynamoClientStore({ ...options, client: this.doc });
  }

  async dueSources(nowIso: string, cursor?: string, limit: number = DEFAULT_PAGE_SIZE): Promise<Page<string>> {
    const start = decodeCursor(cursor, [PARTITION_KEY, SORT_KEY, LIST_INDEX_PARTITION_KEY, LIST_INDEX_SORT_KEY], {
      [LIST_INDEX_PARTITION_KEY]: ITEM.keySourcesPartition,
      [SORT_KEY]: ITEM.keySourceSk,
    });
    const out = await this.query('list the key sources due', {
      IndexName: LIST_INDEX_NAME,
      // `<next fetch>#<clientId>`: everything due at `nowIso` sorts before `<nowIso>$` ('$' follows '#').
      KeyConditionExpression: '#lpk = :partition AND #lsk < :due',
      ExpressionAttributeNames: { '#lpk': LIST_INDEX_PARTITION_KEY, '#lsk': LIST_INDEX_SORT_KEY },
      ExpressionAttributeValues: { ':partition': ITEM.keySourcesPartition, ':due': `${nowIso}$` },
      Limit: pageSize(limit),
      ExclusiveStartKey: start,
    });
    return { items: out.items.map((item) => String(item.clientId)), nextCursor: encodeCursor(out.lastKey) };
  }

  getClient(clientId: string): Promise<ClientRecord | undefined> {
    return this.clients.getClient(clientId, { consistentRead: true });
  }

  async getStatus(clientId: string): Promise<KeySourceStatus | undefined> {
    try {
      const out = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keySourceKey(clientId), ConsistentRead: true }));
      return out.Item === undefined ? undefined : toKeySourceStatus(out.Item);
    } catch (error) {
      throw storageError(error, 'read the key source status');
    }
  }

  async keyOwners(fingerprints: readonly string[]): Promise<ReadonlyMap<string, string>> {
    const owners = new Map<string, string>();
    const unique = [...new Set(fingerprints)];
    for (let i = 0; i < unique.length; i += BATCH_GET_KEYS) {
      let keys: Record<string, unknown>[] | undefined = unique.slice(i, i + BATCH_GET_KEYS).map(keyKey);
      // Unprocessed keys are asked for again (the batch is small: at most a key set's 20 keys).
      for (let attempt = 0; keys !== undefined && keys.length > 0 && attempt < 5; attempt++) {
        try {
          const out = await this.doc.send(
            new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true, ProjectionExpression: 'fingerprint, clientId' } } }),
          );
          for (const item of out.Responses?.[this.tableName] ?? []) owners.set(String(item.fingerprint), String(item.clientId));
          keys = out.UnprocessedKeys?.[this.tableName]?.Keys as Record<string, unknown>[] | undefined;
        } catch (error) {
          throw storageError(error, 'read who holds the published keys');
        }
      }
    }
    return owners;
  }

  replacePublishedKeys(current: ClientRecord, keys: readonly StoredPublicKey[], fetchedAt: string, status: KeySourceStatus, actor: Actor): Promise<ClientRecord> {
    return this.clients.refreshPublishedKeys(current.clientId, current.version, keys, fetchedAt, status, actor);
  }

  touchKeysFetched(current: ClientRecord, fetchedAt: string, status: KeySourceStatus): Promise<boolean> {
    return this.writeIfUnchanged(current, status, 'record the key source fetch', {
      Update: {
        TableName: this.tableName,
        Key: clientKey(current.clientId),
        UpdateExpression: 'SET #fetched = :fetched',
        ConditionExpression: '#version = :version AND attribute_exists(#source)',
        ExpressionAttributeNames: { '#fetched': 'keysFetchedAt', '#version': 'version', '#source': 'keySource' },
        ExpressionAttributeValues: { ':fetched': fetchedAt, ':version': current.version },
      },
    });
  }

  putStatus(current: ClientRecord, status: KeySourceStatus): Promise<boolean> {
    return this.writeIfUnchanged(current, status, 'record the key source status', {
      ConditionCheck: {
        TableName: this.tableName,
        Key: clientKey(current.clientId),
        ConditionExpression: '#version = :version AND attribute_exists(#source)',
        ExpressionAttributeNames: { '#version': 'version', '#source': 'keySource' },
        ExpressionAttributeValues: { ':version': current.version },
      },
    });
  }

  async deleteStatus(clientId: string): Promise<void> {
    try {
      await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: keySourceKey(clientId) }));
    } catch (error) {
      throw storageError(error, 'delete the key source status');
    }
  }

  /** The status item with `onRecord` (a condition on the client record) in one transaction; false when the condition failed. */
  private async writeIfUnchanged(current: ClientRecord, status: KeySourceStatus, action: string, onRecord: object): Promise<boolean> {
    try {
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [onRecord as never, { Put: { TableName: this.tableName, Item: keySourceItem({ ...status, clientId: current.clientId }) } }],
        }),
      );
      return true;
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (reasons?.[0]?.Code === 'ConditionalCheckFailed') return false;
      throw storageError(error, action);
    }
  }
}
