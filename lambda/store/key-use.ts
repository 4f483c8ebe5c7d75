/**
 * When each key last verified a request ("last used"), kept on the key's last-use item
 * (`USE#<fingerprint>`, ./table-schema.ts) as `lastUsedAt` and `lastUsedBy` (the clientId the
 * authorizer verified it for): a partition of the authorizer's own, so its grant never covers a
 * key ownership item.
 *
 * - The authorizer writes it with one transaction, no read: a condition check that the key's
 *   ownership item exists and belongs to that client (a removed key, a key of a client that is
 *   gone or of another client gets nothing written), and the update, only forward in time. It
 *   touches neither the client record nor its `version`, nor the ownership item, so a registry
 *   edit never conflicts with it.
 * - Removing a key deletes its last-use item in the same transaction (./client-store.ts), so a
 *   key registered again starts unused; the condition check keeps a late write from bringing it back.
 * - The registry reads it with BatchGetItem, for a client or a whole page of clients. A use
 *   recorded for another client (the key was removed and registered again elsewhere) is not shown.
 * - For one release it also reads the last use earlier releases kept on the ownership item
 *   (`KEY#<fingerprint>`), and shows the later of the two.
 */
import { BatchGetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { isFingerprint } from '../core/keys';
import { isClientId } from './client-id';
import type { KeyUseRecorder } from '../domain/authorizer-ports';
import { DynamoTable } from './dynamo-table';
import { type Item, keyKey, keyUseKey } from './item-codec';
import { cancellationReasons, storageError } from './store-errors';
import { busy } from './write-retries';
import { ITEM, KEY_LAST_USED_AT, KEY_LAST_USED_BY, PARTITION_KEY } from './table-schema';

/** Most keys one BatchGetItem may ask for (DynamoDB's limit). */
export const BATCH_GET_KEYS = 100;

/** Keys read per BatchGetItem: each has its last-use item and (for one release) its ownership item. */
const KEYS_PER_BATCH = BATCH_GET_KEYS / 2;

/** Calls per batch while DynamoDB leaves keys unprocessed, before giving up. @default 5 */
const MAX_BATCH_ATTEMPTS = 5;

/** BatchGetItem calls sent at once for a large set of keys. @default 4 */
const PARALLEL_BATCHES = 4;

/** A key and the client it is expected to belong to. */
export interface KeyOfClient {
  readonly clientId: string;
  readonly fingerprint: string;
}


export class DynamoKeyUse extends DynamoTable implements KeyUseRecorder {
  /**
   * Records that `fingerprint` verified a request of `clientId` now. One transaction, no read.
   * Resolves false (nothing written) when the key is not registered to this client or a later
   * use is already recorded; a recorded use never moves back in time.
   */
  async recordKeyUse(clientId: string, fingerprint: string): Promise<boolean> {
    if (!isClientId(clientId) || !isFingerprint(fingerprint)) return false;
    try {
      await this.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: this.tableName,
                Key: keyKey(fingerprint),
                ConditionExpression: 'attribute_exists(#pk) AND #clientId = :by',
                ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#clientId': 'clientId' },
                ExpressionAttributeValues: { ':by': clientId },
              },
            },
            {
              Update: {
                TableName: this.tableName,
                Key: keyUseKey(fingerprint),
                UpdateExpression: 'SET #at = :at, #by = :by',
                ConditionExpression: 'attribute_not_exists(#at) OR #at < :at',
                ExpressionAttributeNames: { '#at': KEY_LAST_USED_AT, '#by': KEY_LAST_USED_BY },
                ExpressionAttributeValues: { ':at': this.now().toISOString(), ':by': clientId },
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (cancellationReasons(error)?.some((reason) => reason.Code === 'ConditionalCheckFailed')) return false;
      throw storageError(error, "record the key's last use");
    }
  }

  /**
   * The last use of each of `keys`, by fingerprint (ISO-8601), for the keys that have one recorded
   * for the client they are given with. BatchGetItem, {@link KEYS_PER_BATCH}
   * keys a call, the calls of a large set sent a few at a time.
   */
  async lastUsedAt(keys: readonly KeyOfClient[]): Promise<Map<string, string>> {
    const owners = new Map<string, string>();
    for (const { clientId, fingerprint } of keys) if (isFingerprint(fingerprint)) owners.set(fingerprint, clientId);
    const fingerprints = [...owners.keys()];
    const batches: string[][] = [];
    for (let i = 0; i < fingerprints.length; i += KEYS_PER_BATCH) batches.push(fingerprints.slice(i, i + KEYS_PER_BATCH));
    const found = new Map<string, string>();
    for (let i = 0; i < batches.length; i += PARALLEL_BATCHES) {
      const items = (await Promise.all(batches.slice(i, i + PARALLEL_BATCHES).map((batch) => this.getBatch(batch)))).flat();
      for (const item of items) {
        const pk = String(item[PARTITION_KEY]);
        const fingerprint = pk.startsWith(ITEM.keyUsePk('')) ? pk.slice(ITEM.keyUsePk('').length) : pk.slice(ITEM.keyPk('').length);
        const at = item[KEY_LAST_USED_AT];
        if (typeof at !== 'string' || owners.get(fingerprint) !== item[KEY_LAST_USED_BY]) continue;
        const earlier = found.get(fingerprint);
        if (earlier === undefined || earlier < at) found.set(fingerprint, at);
      }
    }
    return found;
  }

  /**
   * The last-use items of a batch of keys, and their ownership items (the old place), partition
   * key and last use only, retrying what DynamoDB leaves unprocessed.
   */
  private async getBatch(fingerprints: readonly string[]): Promise<Item[]> {
    const items: Item[] = [];
    let keys: Item[] = fingerprints.flatMap((fingerprint) => [keyUseKey(fingerprint), keyKey(fingerprint)]);
    for (let attempt = 1; keys.length > 0; attempt++) {
      if (attempt > MAX_BATCH_ATTEMPTS) throw busy("read the keys' last use");
      let out;
      try {
        out = await this.doc.send(
          new BatchGetCommand({
            RequestItems: {
              [this.tableName]: {
                Keys: keys,
                ProjectionExpression: '#pk, #at, #by',
                ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#at': KEY_LAST_USED_AT, '#by': KEY_LAST_USED_BY },
              },
            },
          }),
        );
      } catch (error) {
        throw storageError(error, "read the keys' last use");
      }
      items.push(...(out.Responses?.[this.tableName] ?? []));
      keys = (out.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Item[];
      if (keys.length > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
    return items;
  }
}

