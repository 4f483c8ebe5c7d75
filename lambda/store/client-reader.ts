/**
 * What the authorizer needs from the client table, and nothing the registry writes: one GetItem
 * per client ({@link ClientReader}) and the failure log's two writes ({@link AuthFailureRecorder}).
 * The registry's store (./client-store.ts) extends it, so the authorizer's bundle carries no
 * registry write.
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AUTH_FAILURE_TTL_S, UNAUTHENTICATED_FAILURE_WINDOW_S } from '../core/defaults';
import { ERROR_CODES, type SignetErrorCode } from '../core/errors';
import { isClientId } from './client-id';
import type { AuthFailureRecorder, ClientReader, ClientRecord } from './client-record';
import { DynamoTable } from './dynamo-table';
import { FAILURE_DETAIL_FIELDS, type Item, clientKey, clip, toRecord } from './item-codec';
import { errorName, storageError } from './store-errors';
import type { AuthFailureDetail } from './store-types';
import { AUTH_FAILURE_SLOTS, ITEM, PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE, unauthenticatedCountAttribute } from './table-schema';

export class DynamoClientReader extends DynamoTable implements ClientReader, AuthFailureRecorder {
  /**
   * The record, or undefined when no client has this id (ids of the wrong shape are answered
   * without a read). One GetItem: everything the authorizer needs.
   */
  async getClient(clientId: string, options: { consistentRead?: boolean } = {}): Promise<ClientRecord | undefined> {
    if (!isClientId(clientId)) return undefined;
    try {
      const out = await this.doc.send(
        new GetCommand({ TableName: this.tableName, Key: clientKey(clientId), ConsistentRead: options.consistentRead ?? false }),
      );
      return out.Item ? toRecord(out.Item) : undefined;
    } catch (error) {
      throw storageError(error, 'read the client');
    }
  }

  /**
   * Records a refused request (see {@link AuthFailureRecorder}): two writes, no read. A counter
   * on the client record picks the next slot of the client's ring of AUTH_FAILURES_KEPT items,
   * each expiring after AUTH_FAILURE_TTL_S. Unknown clients get nothing written (false).
   */
  async recordAuthFailure(clientId: string, reason: string, detail?: string | AuthFailureDetail): Promise<boolean> {
    if (!isClientId(clientId)) return false;
    const now = this.now();
    let seq: number;
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: clientKey(clientId),
          UpdateExpression: 'ADD #seq :one',
          ConditionExpression: 'attribute_exists(#pk)',
          ExpressionAttributeNames: { '#seq': 'authFailureSeq', '#pk': PARTITION_KEY },
          ExpressionAttributeValues: { ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      seq = Number(out.Attributes?.authFailureSeq);
    } catch (error) {
      if (errorName(error) === 'ConditionalCheckFailedException') return false;
      throw storageError(error, 'record the authentication failure');
    }
    const fields: AuthFailureDetail = typeof detail === 'string' ? { message: detail } : (detail ?? {});
    const item: Item = {
      [PARTITION_KEY]: ITEM.clientPk(clientId),
      [SORT_KEY]: `${ITEM.failureSkPrefix}${String((seq - 1) % AUTH_FAILURE_SLOTS).padStart(2, '0')}`,
      seq,
      at: now.toISOString(),
      reason: clip(String(reason)),
      [TTL_ATTRIBUTE]: Math.floor(now.getTime() / 1000) + AUTH_FAILURE_TTL_S,
    };
    for (const field of FAILURE_DETAIL_FIELDS) {
      const value = fields[field];
      if (typeof value === 'string' && value !== '') item[field] = clip(value);
    }
    try {
      await this.doc.send(new PutCommand({ TableName: this.tableName, Item: item }));
    } catch (error) {
      throw storageError(error, 'record the authentication failure');
    }
    return true;
  }

  /**
   * Counts refusals no key of the client signed (see {@link AuthFailureRecorder}): one UpdateItem,
   * no read, on the item of the current window, which expires AUTH_FAILURE_TTL_S after the window
   * starts. Only the reason code (one of a fixed list) and a number are written.
   */
  async countUnauthenticatedFailures(clientId: string, reason: string, count: number): Promise<boolean> {
    if (!isClientId(clientId) || !(reason in ERROR_CODES) || !Number.isSafeInteger(count) || count < 1) return false;
    const windowStartS = Math.floor(this.now().getTime() / 1000 / UNAUTHENTICATED_FAILURE_WINDOW_S) * UNAUTHENTICATED_FAILURE_WINDOW_S;
    const windowStart = new Date(windowStartS * 1000).toISOString();
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: ITEM.clientPk(clientId), [SORT_KEY]: `${ITEM.unauthenticatedFailureSkPrefix}${windowStart}` },
          UpdateExpression: 'ADD #count :count SET #window = :window, #ttl = :ttl',
          ExpressionAttributeNames: { '#count': unauthenticatedCountAttribute(reason as SignetErrorCode), '#window': 'windowStart', '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':count': count, ':window': windowStart, ':ttl': windowStartS + AUTH_FAILURE_TTL_S },
        }),
      );
    } catch (error) {
      throw storageError(error, 'count the unauthenticated failures');
    }
    return true;
  }
}
