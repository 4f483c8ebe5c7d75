/**
 * The parts of a client change's transaction that touch the client record and its key ownership
 * items: built here, sent together by the store (./client-store.ts) with the audit entry and the
 * admin roster's part (./admin-roster.ts).
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { keySourceIdentity } from '../core/key-source-url';
import type { ClientRecord, KeySource, StoredPublicKey } from '../domain/client-record';
import type { KeySourceStatus } from '../domain/key-source-store';
import { clientKey, keyAttribute, keyItem, keyKey, keySourceItem, keySourceKey, keyUseKey, ownedBy, sourceOwnerItem, sourceOwnerKey, thumbprintItem, thumbprintKey } from './item-codec';
import { PARTITION_KEY, SORT_KEY } from './table-schema';

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

/**
 * The client record rewritten as `next`, if it is still at the version `read` (the record as read)
 * has. `keysFetchedAt` is bookkeeping the refresher moves without a version bump, so the rewrite
 * leaves it as stored unless the change itself moves it: removed when `next` has no key source,
 * set (or removed) when `next` holds another instant than the record as read (a source set or
 * replaced, a refresh that wrote new keys). An instant the refresher recorded after the read stands.
 */
export function updateRecordItem(tableName: string, next: ClientRecord, read: Pick<ClientRecord, 'version' | 'keysFetchedAt'>): TransactItem {
  const currentVersion = read.version;
  const fetchedChanges = next.keySource === undefined || next.keysFetchedAt !== read.keysFetchedAt;
  const sets = ['#name = :name', '#status = :status', '#wl = :wl', '#roles = :roles', '#keys = :keys', '#version = :next', '#updatedAt = :updatedAt'];
  const names: Record<string, string> = {
    '#name': 'name',
    '#status': 'status',
    '#wl': 'networkWhitelist',
    '#roles': 'roles',
    '#keys': 'keys',
    '#version': 'version',
    '#updatedAt': 'updatedAt',
    '#keySource': 'keySource',
    '#keysFetchedAt': 'keysFetchedAt',
  };
  const values: Record<string, unknown> = {
    ':name': next.name,
    ':status': next.status,
    ':wl': [...next.networkWhitelist],
    ':roles': [...next.roles],
    ':keys': next.keys.map(keyAttribute),
    ':next': next.version,
    ':current': currentVersion,
    ':updatedAt': next.updatedAt,
  };
  if (next.profile !== undefined) {
    sets.push('#profile = :profile');
    names['#profile'] = 'profile';
    values[':profile'] = next.profile;
  }
  const removes: string[] = [];
  if (next.keySource !== undefined) {
    sets.push('#keySource = :keySource');
    values[':keySource'] = { ...next.keySource };
  } else {
    removes.push('#keySource');
  }
  if (!fetchedChanges) {
    delete names['#keysFetchedAt'];
  } else if (next.keySource !== undefined && next.keysFetchedAt !== undefined) {
    sets.push('#keysFetchedAt = :keysFetchedAt');
    values[':keysFetchedAt'] = next.keysFetchedAt;
  } else {
    removes.push('#keysFetchedAt');
  }
  return {
    Update: {
      TableName: tableName,
      Key: clientKey(next.clientId),
      UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
      ConditionExpression: '#version = :current',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/** A new key ownership item: it must not exist yet. */
export function putKeyItem(tableName: string, clientId: string, key: StoredPublicKey): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: keyItem(clientId, key),
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/**
 * A key ownership item rewritten (its not-after changed), if it is this client's: every attribute
 * {@link keyItem} writes is set, and nothing else is touched, so the key's last use
 * (./key-use.ts) stays.
 */
export function rewriteKeyItem(tableName: string, clientId: string, key: StoredPublicKey): TransactItem {
  const { [PARTITION_KEY]: pk, [SORT_KEY]: sk, ...fields } = keyItem(clientId, key);
  const owned = ownedBy(clientId);
  const names: Record<string, string> = { ...owned.ExpressionAttributeNames };
  const values: Record<string, unknown> = { ...owned.ExpressionAttributeValues };
  const sets = Object.entries(fields).map(([name, value], i) => {
    names[`#f${i}`] = name;
    values[`:f${i}`] = value;
    return `#f${i} = :f${i}`;
  });
  if (key.notAfter === undefined) names['#notAfter'] = 'notAfter';
  return {
    Update: {
      TableName: tableName,
      Key: { [PARTITION_KEY]: pk, [SORT_KEY]: sk },
      UpdateExpression: `SET ${sets.join(', ')}${key.notAfter === undefined ? ' REMOVE #notAfter' : ''}`,
      ConditionExpression: owned.ConditionExpression,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

export function deleteKeyItem(tableName: string, clientId: string, fingerprint: string): TransactItem {
  return { Delete: { TableName: tableName, Key: keyKey(fingerprint), ...ownedBy(clientId) } };
}

/** A removed key's last use (./key-use.ts), deleted with its ownership item: the key, if registered again, starts unused. */
export function deleteKeyUseItem(tableName: string, fingerprint: string): TransactItem {
  return { Delete: { TableName: tableName, Key: keyUseKey(fingerprint) } };
}

/** A new key's thumbprint index item: it must not exist yet (a thumbprint names one client's key). */
export function putThumbprintItem(tableName: string, clientId: string, key: StoredPublicKey & { thumbprint: string }): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: thumbprintItem(clientId, key.thumbprint, key.fingerprint),
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/** A removed key's thumbprint index item, if it is this client's (keys stored before thumbprints have none: nothing to delete). */
export function deleteThumbprintItem(tableName: string, clientId: string, thumbprint: string): TransactItem {
  return { Delete: { TableName: tableName, Key: thumbprintKey(thumbprint), ...ownedBy(clientId) } };
}

/** The client's key source status, written with the change. */
export function putKeySourceItem(tableName: string, status: KeySourceStatus): TransactItem {
  return { Put: { TableName: tableName, Item: keySourceItem(status) } };
}

/** The client's key source status, deleted with the change that ends its source. */
export function deleteKeySourceItem(tableName: string, clientId: string): TransactItem {
  return { Delete: { TableName: tableName, Key: keySourceKey(clientId) } };
}

/**
 * The owner items a change of a client's key source writes: the new source claimed (its owner item
 * must be absent or this client's: a source serves one client) and the old one released, when
 * `ownsBefore` says its owner item is this client's (a source set before owner items were written
 * has none, and another client may have claimed it since). `claim` is the put, first in `items`,
 * whose failed condition means another client holds the source. None when the source stays the same.
 */
export function sourceOwnerChanges(
  tableName: string,
  clientId: string,
  before: KeySource | undefined,
  after: KeySource | undefined,
  ownsBefore: boolean,
): { claim?: { identity: string }; items: TransactItem[] } {
  const from = before === undefined ? undefined : keySourceIdentity(before);
  const to = after === undefined ? undefined : keySourceIdentity(after);
  if (from === to) return { items: [] };
  const items: TransactItem[] = [];
  if (to !== undefined) {
    items.push({ Put: { TableName: tableName, Item: sourceOwnerItem(clientId, to), ...ownedBy(clientId), ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } });
  }
  if (from !== undefined && ownsBefore) items.push({ Delete: { TableName: tableName, Key: sourceOwnerKey(from), ...ownedBy(clientId) } });
  return { ...(to !== undefined ? { claim: { identity: to } } : {}), items };
}

/** Whether a change from `before` to `after` ends a source whose owner item must be read first (see sourceOwnerChanges). */
export function endsSource(before: KeySource | undefined, after: KeySource | undefined): before is KeySource {
  return before !== undefined && (after === undefined || keySourceIdentity(before) !== keySourceIdentity(after));
}
