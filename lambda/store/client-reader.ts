/**
 * What the authorizer needs from the client table, and nothing the registry writes: one GetItem
 * per client, two by a key's thumbprint ({@link ClientReader}, ./client-records.ts), the failure log's two writes
 * ({@link AuthFailureRecorder}, ./failure-log.ts) and the keys' last use ({@link KeyUseRecorder},
 * ./key-use.ts). A facade over those three small stores, so the authorizer's bundle carries no
 * registry write.
 */
import type { AuthFailureRecorder, ClientReader, KeyUseRecorder } from '../domain/authorizer-ports';
import type { ClientRecord } from '../domain/client-record';
import type { AuthFailureDetail } from '../domain/store-types';
import { DynamoClientRecords } from './client-records';
import { createDocumentClient } from './dynamodb-client';
import type { DynamoTableOptions } from './dynamo-table';
import { DynamoFailureLog } from './failure-log';
import { DynamoKeyUse } from './key-use';

export class DynamoClientReader implements ClientReader, AuthFailureRecorder, KeyUseRecorder {
  private readonly records: DynamoClientRecords;
  private readonly failureLog: DynamoFailureLog;
  private readonly keyUse: DynamoKeyUse;

  constructor(given: DynamoTableOptions) {
    // One SDK client for all the parts.
    const options = { ...given, client: given.client ?? createDocumentClient() };
    this.records = new DynamoClientRecords(options);
    this.failureLog = new DynamoFailureLog(options);
    this.keyUse = new DynamoKeyUse(options);
  }

  /** The record, or undefined when no client has this id: one GetItem (./client-records.ts). */
  getClient(clientId: string, options?: { consistentRead?: boolean }): Promise<ClientRecord | undefined> {
    return this.records.getClient(clientId, options);
  }

  /** The client whose key has this JWK thumbprint, with the key's fingerprint: two GetItems (./client-records.ts). */
  getClientByThumbprint(thumbprint: string, options?: { consistentRead?: boolean }): Promise<{ record: ClientRecord; fingerprint: string } | undefined> {
    return this.records.getClientByThumbprint(thumbprint, options);
  }

    /** Records a refused request in the client's failure log (./failure-log.ts). */
  recordAuthFailure(clientId: string, reason: string, detail?: string | AuthFailureDetail): Promise<boolean> {
    return this.failureLog.recordAuthFailure(clientId, reason, detail);
  }

  /** Counts refusals no key of the client signed, in its failure log (./failure-log.ts). */
  countUnauthenticatedFailures(clientId: string, reason: string, count: number): Promise<boolean> {
    return this.failureLog.countUnauthenticatedFailures(clientId, reason, count);
  }

  /** Records that a key verified a request of the client now (./key-use.ts). */
  recordKeyUse(clientId: string, fingerprint: string): Promise<boolean> {
    return this.keyUse.recordKeyUse(clientId, fingerprint);
  }
}
