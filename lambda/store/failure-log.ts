/**
 * A client's failure log: the last AUTH_FAILURES_KEPT refusals of requests one of its keys
 * signed (a ring of items, each expiring after AUTH_FAILURE_TTL_S), and per-window counts of
 * refusals no key of it signed (only a reason code and a number: a stranger's text never lands
 * in the client's log). The authorizer writes it, without a read, in the client's failure-log
 * partition (`FAIL#<clientId>`, ./table-schema.ts), never in the client's own; the registry lists it.
 *
 * Reading both places for one release: the lists also read what earlier releases wrote under the
 * client's partition (`CLIENT#<clientId>`, sort keys `FAIL#…` and `UNAUTH#…`), which expires by
 * TTL within AUTH_FAILURE_TTL_S of the upgrade.
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AUTH_FAILURES_KEPT, AUTH_FAILURE_TTL_S, UNAUTHENTICATED_FAILURE_WINDOW_S } from '../core/defaults';
import { ERROR_CODES, type SignetErrorCode } from '../core/errors';
import { isClientId } from './client-id';
import type { AuthFailureRecorder } from '../domain/authorizer-ports';
import { DynamoTable } from './dynamo-table';
import { FAILURE_DETAIL_FIELDS, type Item, clip } from './item-codec';
import { storageError } from './store-errors';
import type { AuthFailure, AuthFailureDetail, UnauthenticatedFailureWindow } from '../domain/store-types';
import { AUTH_FAILURE_COUNTER_ATTRIBUTE, AUTH_FAILURE_SLOTS, ITEM, PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE, unauthenticatedCountAttribute } from './table-schema';


export class DynamoFailureLog extends DynamoTable implements AuthFailureRecorder {
  /**
   * Records a refused request (see {@link AuthFailureRecorder}): two writes, no read, both in the
   * client's failure-log partition. A counter item picks the next slot of the client's ring of
   * AUTH_FAILURES_KEPT items, each expiring after AUTH_FAILURE_TTL_S; the counter expires with
   * the slot it numbered last, so an idle client's log leaves nothing behind. The authorizer calls
   * it only for a client it has just read; ids of the wrong shape get nothing written (false).
   */
  async recordAuthFailure(clientId: string, reason: string, detail?: string | AuthFailureDetail): Promise<boolean> {
    if (!isClientId(clientId)) return false;
    const now = this.now();
    const expiresAt = Math.floor(now.getTime() / 1000) + AUTH_FAILURE_TTL_S;
    let seq: number;
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: ITEM.failurePk(clientId), [SORT_KEY]: ITEM.failureCounterSk },
          UpdateExpression: 'ADD #seq :one SET #ttl = :ttl',
          ExpressionAttributeNames: { '#seq': AUTH_FAILURE_COUNTER_ATTRIBUTE, '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':one': 1, ':ttl': expiresAt },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      seq = Number(out.Attributes?.[AUTH_FAILURE_COUNTER_ATTRIBUTE]);
    } catch (error) {
      throw storageError(error, 'record the authentication failure');
    }
    const fields: AuthFailureDetail = typeof detail === 'string' ? { message: detail } : (detail ?? {});
    const item: Item = {
      [PARTITION_KEY]: ITEM.failurePk(clientId),
      [SORT_KEY]: `${ITEM.failureSlotSkPrefix}${String((seq - 1) % AUTH_FAILURE_SLOTS).padStart(2, '0')}`,
      seq,
      at: now.toISOString(),
      reason: clip(String(reason)),
      [TTL_ATTRIBUTE]: expiresAt,
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
          Key: { [PARTITION_KEY]: ITEM.failurePk(clientId), [SORT_KEY]: `${ITEM.unauthenticatedFailureSkPrefix}${windowStart}` },
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

  /**
   * The client's recent authentication failures (at most AUTH_FAILURES_KEPT, unexpired), newest
   * first: those of its failure-log partition, then those an earlier release kept under the
   * client's own partition (all older: nothing writes there any more).
   */
  async listAuthFailures(clientId: string): Promise<AuthFailure[]> {
    if (!isClientId(clientId)) return [];
    const [current, legacy] = await Promise.all([
      this.unexpired('list the authentication failures', ITEM.failurePk(clientId), ITEM.failureSlotSkPrefix),
      this.unexpired('list the authentication failures', ITEM.clientPk(clientId), ITEM.legacyFailureSkPrefix),
    ]);
    const newestFirst = (items: Item[]) => items.sort((a, b) => Number(b.seq) - Number(a.seq));
    return [...newestFirst(current), ...newestFirst(legacy)].slice(0, AUTH_FAILURES_KEPT).map((item) => {
      const failure: Record<string, string> = { at: String(item.at), reason: String(item.reason) };
      for (const field of FAILURE_DETAIL_FIELDS) if (typeof item[field] === 'string') failure[field] = item[field];
      return failure as unknown as AuthFailure;
    });
  }

  /**
   * The client's counts of refusals no key of it signed, one entry per window that has any
   * (unexpired), newest first: at most AUTH_FAILURE_TTL_S / UNAUTHENTICATED_FAILURE_WINDOW_S.
   * A window counted in both places (authorizers of both releases ran in it) is added up.
   */
  async listUnauthenticatedFailures(clientId: string): Promise<UnauthenticatedFailureWindow[]> {
    if (!isClientId(clientId)) return [];
    const prefix = ITEM.unauthenticatedFailureSkPrefix;
    const places = await Promise.all([
      this.unexpired('list the unauthenticated failure counts', ITEM.failurePk(clientId), prefix),
      this.unexpired('list the unauthenticated failure counts', ITEM.clientPk(clientId), prefix),
    ]);
    const windows = new Map<string, Record<string, number>>();
    for (const item of places.flat()) {
      const start = String(item.windowStart);
      const counts = windows.get(start) ?? {};
      for (const code of Object.keys(ERROR_CODES) as SignetErrorCode[]) {
        const value = Number(item[unauthenticatedCountAttribute(code)]);
        if (value > 0) counts[code] = (counts[code] ?? 0) + value;
      }
      windows.set(start, counts);
    }
    return [...windows.entries()].sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0)).map(([start, counts]) => ({ start, counts }));
  }

  /** The unexpired items of `pk` whose sort key starts with `prefix` (TTL deletion is lazy: an expired item may still be there). */
  private async unexpired(action: string, pk: string, prefix: string): Promise<Item[]> {
    const out = await this.query(action, {
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      FilterExpression: '#ttl > :now',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY, '#ttl': TTL_ATTRIBUTE },
      ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix, ':now': Math.floor(this.now().getTime() / 1000) },
    });
    return out.items;
  }
}
