/**
 * The client records on DynamoDB: one GetItem per client, everything the authorizer needs to
 * verify a request, and what every registry change reads first. The smallest of the store's parts.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { isThumbprintKeyId } from '../core/jwk-thumbprint';
import type { ClientRecord } from '../domain/client-record';
import { isClientId } from './client-id';
import { DynamoTable } from './dynamo-table';
import { clientKey, toRecord } from './item-codec';
import { storageError } from './store-errors';
import { ITEM, PARTITION_KEY, SORT_KEY } from './table-schema';

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

  /**
   * The client whose key has this JWK thumbprint, and that key's fingerprint: one GetItem of the
   * thumbprint index item (`THUMB#<thumbprint>`, ./table-schema.ts), then {@link getClient}.
   * A keyid that cannot be a thumbprint is answered without a read.
   */
  async getClientByThumbprint(thumbprint: string, options: { consistentRead?: boolean } = {}): Promise<{ record: ClientRecord; fingerprint: string } | undefined> {
    if (!isThumbprintKeyId(thumbprint)) return undefined;
    let index: Record<string, unknown> | undefined;
    try {
      const out = await this.doc.send(
        new GetCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: ITEM.thumbprintPk(thumbprint), [SORT_KEY]: ITEM.thumbprintSk },
          ProjectionExpression: 'clientId, fingerprint',
          ConsistentRead: options.consistentRead ?? false,
        }),
      );
      index = out.Item;
    } catch (error) {
      throw storageError(error, 'read the key thumbprint index');
    }
    const clientId = index?.clientId;
    const fingerprint = index?.fingerprint;
    if (typeof clientId !== 'string' || typeof fingerprint !== 'string') return undefined;
    const record = await this.getClient(clientId, options);
    return record === undefined ? undefined : { record, fingerprint };
  }
}
