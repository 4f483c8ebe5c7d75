/**
 * Replay rejection: the signatures of each accepted request are recorded with conditional writes,
 * all of them or none, and expire (DynamoDB TTL) when they could no longer pass the freshness
 * window anyway. One signature (the usual request): one conditional PutItem. Several: one
 * TransactWriteItems of conditional puts, so a request either claims every signature it carries
 * or none (two requests sharing a signature cannot both pass, whichever signature each was
 * accepted by). The item layout is {@link replayMarker}'s alone.
 */
import { DynamoDBDocumentClient, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { ReplayClaim, ReplayGuard } from '../domain/authorizer-ports';
import { cancellationReasons, errorName, isTransactionConflict, storageError } from './store-errors';
import { PARTITION_KEY, REPLAY_PREFIX, SORT_KEY, TTL_ATTRIBUTE } from './table-schema';

/**
 * The conditional put that records one signature: the item (`pk = REPLAY#<replay id>`, its TTL),
 * written only when no live record of it exists (TTL deletion is lazy, so an expired record
 * counts as free).
 */
function replayMarker(tableName: string, claim: ReplayClaim, nowS: number) {
  return {
    TableName: tableName,
    Item: { [PARTITION_KEY]: `${REPLAY_PREFIX}${claim.signatureId}`, [SORT_KEY]: 'REPLAY', [TTL_ATTRIBUTE]: claim.expiresAtS },
    ConditionExpression: 'attribute_not_exists(#pk) OR #ttl < :now',
    ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#ttl': TTL_ATTRIBUTE },
    ExpressionAttributeValues: { ':now': nowS },
  };
}

export class DynamoReplayGuard implements ReplayGuard {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly nowS: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  /**
   * Claims every signature of `claims` or none. True the first time; false when one of them was
   * already claimed and has not expired, or is being claimed by another request at this moment
   * (a transaction conflict: only one of two requests sharing a signature may pass).
   * @throws SignetError `dependency_unavailable` when DynamoDB fails (the caller fails closed)
   */
  async claim(claims: readonly ReplayClaim[]): Promise<boolean> {
    if (claims.length === 0) return true;
    const now = this.nowS();
    try {
      if (claims.length === 1) {
        await this.doc.send(new PutCommand(replayMarker(this.tableName, claims[0], now)));
      } else {
        await this.doc.send(new TransactWriteCommand({ TransactItems: claims.map((claim) => ({ Put: replayMarker(this.tableName, claim, now) })) }));
      }
      return true;
    } catch (error) {
      // By name, as the store does: instanceof fails when two copies of the SDK are bundled.
      if (errorName(error) === 'ConditionalCheckFailedException') return false;
      const reasons = cancellationReasons(error);
      if (reasons !== undefined && (isTransactionConflict(reasons) || reasons.some((r) => r.Code === 'ConditionalCheckFailed'))) return false;
      throw storageError(error, 'record the signatures for replay protection');
    }
  }
}
