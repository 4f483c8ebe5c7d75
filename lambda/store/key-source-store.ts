/**
 * The key-source refresher's storage on DynamoDB (the port: ../domain/key-source-store.ts; table
 * layout: ./table-schema.ts). The due list is one Query on the list index (partition
 * `KEY_SOURCES`, sorted by next fetch); a changed key set is a normal client change, written by
 * the client store's transaction (version + 1, audit entry, ownership and thumbprint items); an
 * unchanged one or a failure is bookkeeping: the status item (and `keysFetchedAt`), on the
 * condition that the record is still at the version the fetch was planned from. The failing-sources
 * list is one item (`SOURCE#failing`, `FAILING`) whose map `failing` holds clientId → failingSince.
 */
import { BatchGetCommand, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ClientRecord, StoredPublicKey } from '../domain/client-record';
import { type KeySourceStatus, type KeySourceStore, MAX_LISTED_FAILING_SOURCES } from '../domain/key-source-store';
import type { Actor, Page } from '../domain/store-types';
import { DynamoClientStore } from './client-store';
import { decodeCursor, encodeCursor } from './cursor';
import { DEFAULT_PAGE_SIZE, type DynamoClientStoreOptions, type DynamoTableOptions, DynamoTable, pageSize } from './dynamo-table';
import { clientKey, keyKey, keySourceItem, keySourceKey, toKeySourceStatus } from './item-codec';
import { cancellationReasons, isTransactionConflict, storageError } from './store-errors';
import { ITEM, LIST_INDEX_NAME, LIST_INDEX_PARTITION_KEY, LIST_INDEX_SORT_KEY, PARTITION_KEY, SORT_KEY } from './table-schema';

/** Keys a BatchGetItem may ask for at once. */
const BATCH_GET_KEYS = 100;

/** The failing-sources item's key, and the map attribute that lists them. */
const FAILING_KEY = { [PARTITION_KEY]: ITEM.failingSourcesPk, [SORT_KEY]: ITEM.failingSourcesSk };
const FAILING_MAP = 'failing';

export class DynamoKeySourceStore extends DynamoTable implements KeySourceStore {
  private readonly clients: DynamoClientStore;

  /**
   * `clients`: the registry's store the key changes go through (its `last_admin` rule included);
   * without one, a store of its own, built from `options` (which then carry the keep bound).
   */
  constructor(options: DynamoClientStoreOptions);
  constructor(options: DynamoTableOptions, clients: DynamoClientStore);
  constructor(options: DynamoTableOptions | DynamoClientStoreOptions, clients?: DynamoClientStore) {
    super(options);
    // The first signature is the only one without `clients`, and its options carry the keep bound.
    this.clients = clients ?? new DynamoClientStore({ ...(options as DynamoClientStoreOptions), client: this.doc });
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

  dropWithdrawnKeys(current: ClientRecord, withdrawn: ReadonlySet<string>, status: KeySourceStatus, actor: Actor): Promise<ClientRecord> {
    return this.clients.dropWithdrawnKeys(current.clientId, current.version, withdrawn, status, actor);
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

  /**
   * Deletes the status only while the client's record still has no key source (or no longer
   * exists), checked in the same transaction: a source set since the refresher read the record
   * wrote the status this would find, and it stays (a failed condition, or a transaction racing
   * the one that sets the source, leaves it alone: a status still orphaned is found again next run).
   */
  async deleteStatus(clientId: string): Promise<void> {
    try {
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: this.tableName,
                Key: clientKey(clientId),
                ConditionExpression: 'attribute_not_exists(#source)',
                ExpressionAttributeNames: { '#source': 'keySource' },
              },
            },
            { Delete: { TableName: this.tableName, Key: keySourceKey(clientId) } },
          ],
        }),
      );
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (reasons?.[0]?.Code === 'ConditionalCheckFailed' || (reasons !== undefined && isTransactionConflict(reasons))) return;
      throw storageError(error, 'delete the key source status');
    }
  }

  async countDueSources(nowIso: string, cursor?: string): Promise<number> {
    let start = cursor === undefined ? undefined : decodeCursor(cursor, [PARTITION_KEY, SORT_KEY, LIST_INDEX_PARTITION_KEY, LIST_INDEX_SORT_KEY], {
      [LIST_INDEX_PARTITION_KEY]: ITEM.keySourcesPartition,
      [SORT_KEY]: ITEM.keySourceSk,
    });
    let count = 0;
    try {
      do {
        const out = await this.doc.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: LIST_INDEX_NAME,
            KeyConditionExpression: '#lpk = :partition AND #lsk < :due',
            ExpressionAttributeNames: { '#lpk': LIST_INDEX_PARTITION_KEY, '#lsk': LIST_INDEX_SORT_KEY },
            ExpressionAttributeValues: { ':partition': ITEM.keySourcesPartition, ':due': `${nowIso}$` },
            Select: 'COUNT',
            ExclusiveStartKey: start,
          }),
        );
        count += out.Count ?? 0;
        start = out.LastEvaluatedKey;
      } while (start !== undefined);
    } catch (error) {
      throw storageError(error, 'count the key sources due');
    }
    return count;
  }

  async getStatuses(clientIds: readonly string[]): Promise<ReadonlyMap<string, KeySourceStatus>> {
    const statuses = new Map<string, KeySourceStatus>();
    const unique = [...new Set(clientIds)];
    for (let i = 0; i < unique.length; i += BATCH_GET_KEYS) {
      let keys: Record<string, unknown>[] | undefined = unique.slice(i, i + BATCH_GET_KEYS).map(keySourceKey);
      for (let attempt = 0; keys !== undefined && keys.length > 0 && attempt < 5; attempt++) {
        try {
          const out = await this.doc.send(new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: keys, ConsistentRead: true } } }));
          for (const item of out.Responses?.[this.tableName] ?? []) statuses.set(String(item.clientId), toKeySourceStatus(item));
          keys = out.UnprocessedKeys?.[this.tableName]?.Keys as Record<string, unknown>[] | undefined;
        } catch (error) {
          throw storageError(error, 'read the key source statuses');
        }
      }
    }
    return statuses;
  }

  async failingSources(): Promise<ReadonlyMap<string, string>> {
    try {
      const out = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: FAILING_KEY, ConsistentRead: true }));
      const listed = (out.Item?.[FAILING_MAP] ?? {}) as Record<string, unknown>;
      return new Map(Object.entries(listed).map(([clientId, since]) => [clientId, String(since)]));
    } catch (error) {
      throw storageError(error, 'read the failing key sources');
    }
  }

  async markFailing(clientId: string, failingSince: string): Promise<void> {
    const names = { '#failing': FAILING_MAP, '#client': clientId };
    // Two attempts: the map may not exist yet (created with this entry), or another run may create it first.
    for (let attempt = 0; attempt < 2; attempt++) {
      if (
        await this.updateUnlessConditionFails('list the failing key source', {
          UpdateExpression: 'SET #failing.#client = :since',
          ConditionExpression: 'attribute_exists(#failing.#client) OR size(#failing) < :max',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':since': failingSince, ':max': MAX_LISTED_FAILING_SOURCES },
        })
      ) {
        return;
      }
      if (
        await this.updateUnlessConditionFails('list the failing key source', {
          UpdateExpression: 'SET #failing = :listed',
          ConditionExpression: 'attribute_not_exists(#failing)',
          ExpressionAttributeNames: { '#failing': FAILING_MAP },
          ExpressionAttributeValues: { ':listed': { [clientId]: failingSince } },
        })
      ) {
        return;
      }
    }
    // The map exists and holds MAX_LISTED_FAILING_SOURCES entries: this one is not listed.
  }

  async clearFailing(clientId: string, since?: string): Promise<void> {
    await this.updateUnlessConditionFails('take the key source off the failing list', {
      UpdateExpression: 'REMOVE #failing.#client',
      ConditionExpression: since === undefined ? 'attribute_exists(#failing.#client)' : '#failing.#client = :since',
      ExpressionAttributeNames: { '#failing': FAILING_MAP, '#client': clientId },
      ...(since !== undefined ? { ExpressionAttributeValues: { ':since': since } } : {}),
    });
  }

  /**
   * An UpdateItem of the failing-sources item; false when its condition failed, or when it names
   * an entry of a map that does not exist yet (DynamoDB may answer that as a ValidationException
   * rather than a failed condition).
   */
  private async updateUnlessConditionFails(action: string, input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName' | 'Key'>): Promise<boolean> {
    try {
      await this.doc.send(new UpdateCommand({ TableName: this.tableName, Key: FAILING_KEY, ...input }));
      return true;
    } catch (error) {
      const { name, message } = error as { name?: string; message?: string };
      if (name === 'ConditionalCheckFailedException') return false;
      if (name === 'ValidationException' && /document path/i.test(message ?? '')) return false;
      throw storageError(error, action);
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
