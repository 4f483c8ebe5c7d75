/**
 * Exact-replay rejection: each accepted signature is recorded once with a conditional write,
 * and expires (DynamoDB TTL) when it could no longer pass the freshness window anyway.
 */
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ReplayGuard } from '../authorizer/authorize';
import { errorName, storageError } from './store-errors';
import { PARTITION_KEY, REPLAY_PREFIX, SORT_KEY, TTL_ATTRIBUTE } from './table-schema';


export class DynamoReplayGuard implements ReplayGuard {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly nowS: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  /**
   * Claims a signature. True the first time; false when it was already claimed and has not
   * expired (TTL deletion is lazy, so an expired record counts as free).
   * @throws SignetError `dependency_unavailable` when DynamoDB fails (the caller fails closed)
   */
  async claim(signatureId: string, expiresAtS: number): Promise<boolean> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { [PARTITION_KEY]: `${REPLAY_PREFIX}${signatureId}`, [SORT_KEY]: 'REPLAY', [TTL_ATTRIBUTE]: expiresAtS },
          ConditionExpression: 'attribute_not_exists(#pk) OR #ttl < :now',
          ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':now': this.nowS() },
        }),
      );
      return true;
    } catch (error) {
      // By name, as the store does: instanceof fails when two copies of the SDK are bundled.
      if (errorName(error) === 'ConditionalCheckFailedException') return false;
      throw storageError(error, 'record the signature for replay protection');
    }
  }
}
