/**
 * The parts of a client change's transaction that touch the client record and its key ownership
 * items: built here, sent together by the store (./client-store.ts) with the audit entry and the
 * admin roster's part (./admin-roster.ts).
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { ClientRecord, StoredPublicKey } from './client-record';
import { clientKey, keyAttribute, keyItem, keyKey, ownedBy } from './item-codec';
import { PARTITION_KEY } from './table-schema';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** A transaction item that fails when the client's record is no longer at `version`. */
export function unchangedRecordItem(tableName: string, record: { clientId: string; version: number }): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName,
      Key: clientKey(record.clientId),
      ConditionExpression: '#version = :version',
      ExpressionAttributeNames: { '#version': 'version' },
      ExpressionAttributeValues: { ':version': record.version },
    },
  };
}


export function updateRecordItem(tableName: string, next: ClientRecord, currentVersion: number): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: clientKey(next.clientId),
      UpdateExpression: 'SET #name = :name, #status = :status, #wl = :wl, #roles = :roles, #keys = :keys, #version = :next, #updatedAt = :updatedAt',
      ConditionExpression: '#version = :current',
      ExpressionAttributeNames: {
        '#name': 'name',
        '#status': 'status',
        '#wl': 'networkWhitelist',
        '#roles': 'roles',
        '#keys': 'keys',
        '#version': 'version',
        '#updatedAt': 'updatedAt',
      },
      ExpressionAttributeValues: {
        ':name': next.name,
        ':status': next.status,
        ':wl': [...next.networkWhitelist],
        ':roles': [...next.roles],
        ':keys': next.keys.map(keyAttribute),
        ':next': next.version,
        ':current': currentVersion,
        ':updatedAt': next.updatedAt,
      },
    },
  };
}

/** A key ownership item; a new one must not exist, a rewritten one must be this client's. */
export function putKeyItem(tableName: string, clientId: string, key: StoredPublicKey, isNew: boolean): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: keyItem(clientId, key),
      ...(isNew
        ? { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': PARTITION_KEY }, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const }
        : ownedBy(clientId)),
    },
  };
}

export function deleteKeyItem(tableName: string, clientId: string, fingerprint: string): TransactItem {
  return { Delete: { TableName: tableName, Key: keyKey(fingerprint), ...ownedBy(clientId) } };
}
