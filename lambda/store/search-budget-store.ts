/**
 * The registry's search budgets on DynamoDB (the rule: ../registry/search-budget.ts): one item per
 * caller and window (`BUDGET#<clientId>` / `SEARCH#<window start>`) counting the reads its searches
 * made, so the budget holds across every registry instance. Adding is one UpdateItem with no read
 * (ADD creates the item); the item expires with TTL once its window is long past.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoTable } from './dynamo-table';
import { storageError } from './store-errors';
import { PARTITION_KEY, SEARCH_BUDGET_PREFIX, SORT_KEY, TTL_ATTRIBUTE } from './table-schema';

/** The counter attribute. */
const READS = 'reads';

function budgetKey(callerId: string, windowStartS: number): Record<string, string> {
  return { [PARTITION_KEY]: `${SEARCH_BUDGET_PREFIX}${callerId}`, [SORT_KEY]: `SEARCH#${windowStartS}` };
}

export class DynamoSearchBudget extends DynamoTable {
  /** The reads `callerId`'s searches made in the window starting at `windowStartS` (0 when none). One consistent GetItem. */
  async searchReadsSpent(callerId: string, windowStartS: number): Promise<number> {
    try {
      const out = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: budgetKey(callerId, windowStartS), ConsistentRead: true }));
      const reads = out.Item?.[READS];
      return typeof reads === 'number' ? reads : 0;
    } catch (error) {
      throw storageError(error, 'read the search budget');
    }
  }

  /** Adds `reads` to the caller's window (created if need be), expiring at `expiresAtS`. One UpdateItem, no read. */
  async addSearchReads(callerId: string, windowStartS: number, reads: number, expiresAtS: number): Promise<void> {
    if (!Number.isSafeInteger(reads) || reads <= 0) return;
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: budgetKey(callerId, windowStartS),
          UpdateExpression: 'ADD #reads :reads SET #ttl = :ttl',
          ExpressionAttributeNames: { '#reads': READS, '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':reads': reads, ':ttl': expiresAtS },
        }),
      );
    } catch (error) {
      throw storageError(error, 'count the search against the budget');
    }
  }
}
