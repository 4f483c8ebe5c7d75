/**
 * What the authorizer needs from the client table, and nothing the registry writes: one GetItem
 * per client ({@link ClientReader}), the failure log's two writes ({@link AuthFailureRecorder},
 * ./failure-log.ts) and the keys' last use ({@link KeyUseRecorder}, ./key-use.ts).
 * The registry's store (./client-store.ts) extends it, so the authorizer's bundle carries no
 * registry write.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { isClientId } from './client-id';
import type { AuthFailureRecorder, ClientReader, KeyUseRecorder } from '../domain/authorizer-ports';
import type { ClientRecord } from '../domain/client-record';
import { type DynamoClientStoreOptions, DynamoTable } from './dynamo-table';
import { DynamoFailureLog } from './failure-log';
import { clientKey, toRecord } from './item-codec';
import { DynamoKeyUse } from './key-use';
import { storageError } from './store-errors';

export class DynamoClientReader extends DynamoTable implements ClientReader, AuthFailureRecorder, KeyUseRecorder {
  /** The failure log, on the same table. */
  protected readonly failureLog: DynamoFailureLog;
  /** The keys' last use, on their ownership items. */
  protected readonly keyUse: DynamoKeyUse;

  constructor(options: DynamoClientStoreOptions) {
    super(options);
    this.failureLog = new DynamoFailureLog(options);
    this.keyUse = new DynamoKeyUse(options);
  }

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

  /** Records a refused request in the client's failure log (./failure-log.ts). */
  recordAuthFailure(...args: Parameters<DynamoFailureLog['recordAuthFailure']>): ReturnType<DynamoFailureLog['recordAuthFailure']> {
    return this.failureLog.recordAuthFailure(...args);
  }

  /** Counts refusals no key of the client signed, in its failure log (./failure-log.ts). */
  countUnauthenticatedFailures(...args: Parameters<DynamoFailureLog['countUnauthenticatedFailures']>): ReturnType<DynamoFailureLog['countUnauthenticatedFailures']> {
    return this.failureLog.countUnauthenticatedFailures(...args);
  }

  /** Records that a key verified a request of the client now (./key-use.ts). */
  recordKeyUse(...args: Parameters<DynamoKeyUse['recordKeyUse']>): ReturnType<DynamoKeyUse['recordKeyUse']> {
    return this.keyUse.recordKeyUse(...args);
  }
}
