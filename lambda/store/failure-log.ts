/**
 * A client's failure log: the last AUTH_FAILURES_KEPT refusals of requests one of its keys
 * signed (a ring of items, each expiring after AUTH_FAILURE_TTL_S), and per-window counts of
 * refusals no key of it signed (only a reason code and a number: a stranger's text never lands
 * in the client's log). The authorizer writes it, without a read; the registry lists it.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AUTH_FAILURE_TTL_S, UNAUTHENTICATED_FAILURE_WINDOW_S } from '../core/defaults';
import { ERROR_CODES, type SignetErrorCode } from '../core/errors';
import { isClientId } from './client-id';
import type { AuthFailureRecorder } from './client-record';
import { DynamoTable } from './dynamo-table';
import { FAILURE_DETAIL_FIELDS, type Item, clientKey, clip } from './item-codec';
import { errorName, storageError } from './store-errors';
import type { AuthFailure, AuthFailureDetail, UnauthenticatedFailureWindow } from './store-types';
import { AUTH_FAILURE_SLOTS, ITEM, PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE, unauthenticatedCountAttribute } from './table-schema';

export class DynamoFailureLog extends DynamoTable implements AuthFailureRecorder {
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

  /** The client's recent authentication failures (at most AUTH_FAILURES_KEPT, unexpired), newest first. */
  async listAuthFailures(clientId: string): Promise<AuthFailure[]> {
    if (!isClientId(clientId)) return [];
    const nowS = Math.floor(this.now().getTime() / 1000);
    const out = await this.query('list the authentication failures', {
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      // TTL deletion is lazy: an expired item may still be there for a while.
      FilterExpression: '#ttl > :now',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY, '#ttl': TTL_ATTRIBUTE },
      ExpressionAttributeValues: { ':pk': ITEM.clientPk(clientId), ':prefix': ITEM.failureSkPrefix, ':now': nowS },
    });
    return out.items
      .sort((a, b) => Number(b.seq) - Number(a.seq))
      .map((item) => {
        const failure: Record<string, string> = { at: String(item.at), reason: String(item.reason) };
        for (const field of FAILURE_DETAIL_FIELDS) if (typeof item[field] === 'string') failure[field] = item[field];
        return failure as unknown as AuthFailure;
      });
  }

  /**
   * The client's counts of refusals no key of it signed, one entry per window that has any
   * (unexpired), newest first: at most AUTH_FAILURE_TTL_S / UNAUTHENTICATED_FAILURE_WINDOW_S.
   */
  async listUnauthenticatedFailures(clientId: string): Promise<UnauthenticatedFailureWindow[]> {
    if (!isClientId(clientId)) return [];
    const nowS = Math.floor(this.now().getTime() / 1000);
    const out = await this.query('list the unauthenticated failure counts', {
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      FilterExpression: '#ttl > :now',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY, '#ttl': TTL_ATTRIBUTE },
      ExpressionAttributeValues: { ':pk': ITEM.clientPk(clientId), ':prefix': ITEM.unauthenticatedFailureSkPrefix, ':now': nowS },
      ScanIndexForward: false,
    });
    return out.items.map((item) => {
      const counts: Record<string, number> = {};
      for (const code of Object.keys(ERROR_CODES) as SignetErrorCode[]) {
        const value = Number(item[unauthenticatedCountAttribute(code)]);
        if (value > 0) counts[code] = value;
      }
      return { start: String(item.windowStart), counts };
    });
  }
}
