/**
 * The client records on DynamoDB: one GetItem per client, everything the authorizer needs to
 * verify a request, and what every registry change reads first. The smallest of the store's parts.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { ClientRecord } from '../domain/client-record';
import { isClientId } from './client-id';
import { DynamoTable } from './dynamo-table';
import { clientKey, toRecord } from './item-codec';
import { storageError } from './store-errors';

export class DynamoClientRecords extends DynamoTable {
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
}
