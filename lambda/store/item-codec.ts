/**
 * DynamoDB items <-> records (./table-schema.ts has the layout): client records, key ownership
 * items, audit entries, and the canonical forms the store writes. Pure: no SDK, no clock.
 */
import { createHash, createPublicKey } from 'node:crypto';
import { DEFAULT_ACCOUNT_ID, isAccountId } from './account-id';
import { thumbprintOfKey } from '../core/jwk-thumbprint';
import type { KeySourceStatus } from '../domain/key-source-store';
import { isSignatureAlgorithm } from '../core/algorithms';
import { SignetError } from '../core/errors';
import { isCoverageProfile } from '../core/profiles';
import type { ClientRecord, KeySource, StoredPublicKey } from '../domain/client-record';
import type { Actor, AuditEntry, KeyOwner, NewKey } from '../domain/store-types';
import { ITEM, LIST_INDEX_PARTITION_KEY, LIST_INDEX_SORT_KEY, PARTITION_KEY, SORT_KEY } from './table-schema';

export type Item = Record<string, unknown>;

/** Digits of the version in an audit item's sort key (so string order is version order). */
export const AUDIT_VERSION_DIGITS = 12;

/** Actor name used when a change has no identifiable caller. */
export const UNKNOWN_ACTOR = 'unknown';

/** Longest text kept in an auth-failure detail field, in characters. @default 512 */
export const MAX_FAILURE_DETAIL_CHARS = 512;

/** The detail fields an auth-failure item may carry besides its reason. */
export const FAILURE_DETAIL_FIELDS = ['message', 'sourceIp', 'method', 'path', 'fingerprint'] as const;

export function clientKey(clientId: string): Item {
  return { [PARTITION_KEY]: ITEM.clientPk(clientId), [SORT_KEY]: ITEM.clientSk };
}

/**
 * @param listedIn the account whose list the item came from (the list index does not project
 *   `accountId`); a record without the attribute was written before accounts: the default account
 */
export function toRecord(item: Item, listedIn?: string): ClientRecord {
  const keys = Array.isArray(item.keys) ? (item.keys as Item[]) : [];
  return {
    clientId: String(item.clientId),
    accountId: typeof item.accountId === 'string' ? item.accountId : (listedIn ?? DEFAULT_ACCOUNT_ID),
    name: String(item.name),
    status: item.status === 'disabled' ? 'disabled' : 'active',
    networkWhitelist: stringList(item.networkWhitelist),
    roles: stringList(item.roles),
    ...(isCoverageProfile(item.profile) ? { profile: item.profile } : {}),
    keys: keys.map((k) => ({
      fingerprint: String(k.fingerprint),
      spkiPem: String(k.spkiPem),
      ...(isSignatureAlgorithm(k.algorithm) ? { algorithm: k.algorithm } : {}),
      addedAt: String(k.addedAt),
      ...(typeof k.notAfter === 'string' ? { notAfter: k.notAfter } : {}),
      ...(typeof k.thumbprint === 'string' ? { thumbprint: k.thumbprint } : {}),
      ...(k.published === true ? { published: true as const } : {}),
      ...(typeof k.kid === 'string' ? { kid: k.kid } : {}),
      ...(typeof k.notBefore === 'string' ? { notBefore: k.notBefore } : {}),
      ...(typeof k.expires === 'string' ? { expires: k.expires } : {}),
    })),
    ...(keySourceOf(item.keySource) !== undefined ? { keySource: keySourceOf(item.keySource) } : {}),
    ...(typeof item.keysFetchedAt === 'string' ? { keysFetchedAt: item.keysFetchedAt } : {}),
    version: Number(item.version),
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
  };
}

/** A stored key source (`{ jwksUri }` or `{ signatureAgent }`), or undefined for anything else. */
export function keySourceOf(value: unknown): KeySource | undefined {
  const source = value as { jwksUri?: unknown; signatureAgent?: unknown } | undefined;
  if (typeof source?.jwksUri === 'string') return { jwksUri: source.jwksUri };
  if (typeof source?.signatureAgent === 'string') return { signatureAgent: source.signatureAgent };
  return undefined;
}

/** What a key source names, for people and the audit trail: the JWKS URL or the agent's origin. */
export function keySourceText(source: KeySource): string {
  return 'jwksUri' in source ? source.jwksUri : source.signatureAgent;
}

export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

export function clip(value: string): string {
  return value.length > MAX_FAILURE_DETAIL_CHARS ? `${value.slice(0, MAX_FAILURE_DETAIL_CHARS - 1)}…` : value;
}

export function toAuditEntry(item: Item): AuditEntry {
  const { [PARTITION_KEY]: _pk, [SORT_KEY]: _sk, [LIST_INDEX_PARTITION_KEY]: _lpk, [LIST_INDEX_SORT_KEY]: _lsk, type: _type, ...entry } = item;
  return entry as unknown as AuditEntry;
}

export function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

export function dropUndefined(item: Item): Item {
  return Object.fromEntries(Object.entries(item).filter(([, v]) => v !== undefined));
}

function actorName(actor: string): string {
  return typeof actor === 'string' && actor.trim() !== '' ? actor.trim().slice(0, 128) : UNKNOWN_ACTOR;
}

/** The audit's `actor` (and `actorAccountId` when the actor is a client with a known account). */
export function actorFields(actor: Actor): { actor: string; actorAccountId?: string } {
  if (typeof actor === 'string') return { actor: actorName(actor) };
  const accountId = actor?.accountId;
  return { actor: actorName(actor?.clientId), ...(isAccountId(accountId) ? { actorAccountId: accountId } : {}) };
}

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export function rosterKey(): Item {
  return { [PARTITION_KEY]: ITEM.adminRosterPk, [SORT_KEY]: ITEM.adminRosterSk };
}

export function keyKey(fingerprint: string): Item {
  return { [PARTITION_KEY]: ITEM.keyPk(fingerprint), [SORT_KEY]: ITEM.keySk };
}

/** The last-use item of a key (the authorizer's partition, ./key-use.ts). */
export function keyUseKey(fingerprint: string): Item {
  return { [PARTITION_KEY]: ITEM.keyUsePk(fingerprint), [SORT_KEY]: ITEM.keyUseSk };
}

/** The condition that an ownership item is absent or belongs to `clientId`. */
export function ownedBy(clientId: string): { ConditionExpression: string; ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues: Item } {
  return {
    ConditionExpression: 'attribute_not_exists(#pk) OR #clientId = :clientId',
    ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#clientId': 'clientId' },
    ExpressionAttributeValues: { ':clientId': clientId },
  };
}

export function clientItem(record: ClientRecord): Item {
  return {
    ...clientKey(record.clientId),
    [LIST_INDEX_PARTITION_KEY]: ITEM.accountClientsPartition(record.accountId),
    [LIST_INDEX_SORT_KEY]: `${record.createdAt}#${record.clientId}`,
    type: 'client',
    clientId: record.clientId,
    accountId: record.accountId,
    name: record.name,
    status: record.status,
    networkWhitelist: [...record.networkWhitelist],
    roles: [...record.roles],
    ...(record.profile !== undefined ? { profile: record.profile } : {}),
    keys: record.keys.map(keyAttribute),
    ...(record.keySource !== undefined ? { keySource: { ...record.keySource } } : {}),
    ...(record.keysFetchedAt !== undefined ? { keysFetchedAt: record.keysFetchedAt } : {}),
    version: record.version,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

export function keyItem(clientId: string, key: StoredPublicKey): Item {
  return {
    ...keyKey(key.fingerprint),
    [LIST_INDEX_PARTITION_KEY]: ITEM.keysPartition,
    [LIST_INDEX_SORT_KEY]: `${key.addedAt}#${key.fingerprint}`,
    type: 'key',
    clientId,
    fingerprint: key.fingerprint,
    addedAt: key.addedAt,
    ...(key.notAfter !== undefined ? { notAfter: key.notAfter } : {}),
  };
}

export function auditItem(entry: AuditEntry): Item {
  return {
    [PARTITION_KEY]: ITEM.clientPk(entry.clientId),
    // Ordered by version, not time: unique per client, and the true order of changes even if clocks disagree.
    [SORT_KEY]: `${ITEM.auditSkPrefix}${auditVersion(entry.version)}`,
    ...accountTrailKeys(entry.accountId ?? DEFAULT_ACCOUNT_ID, entry.at, entry.clientId, entry.version),
    type: 'audit',
    ...dropUndefined(entry as unknown as Item),
  };
}

/** An audit item's version as its sort key holds it (string order is version order). */
export function auditVersion(version: number): string {
  return String(version).padStart(AUDIT_VERSION_DIGITS, '0');
}

/**
 * The list-index keys that put an audit item in its account's trail (./table-schema.ts, note 3):
 * by time, then by the changed record and its version (unique, so two changes in the same
 * millisecond keep a stable order).
 */
export function accountTrailKeys(accountId: string, at: string, recordId: string, version: number): Item {
  return { [LIST_INDEX_PARTITION_KEY]: ITEM.accountAuditPartition(accountId), [LIST_INDEX_SORT_KEY]: `${at}#${recordId}#${auditVersion(version)}` };
}

export function keyAttribute(key: StoredPublicKey): Item {
  return {
    fingerprint: key.fingerprint,
    spkiPem: key.spkiPem,
    ...(key.algorithm !== undefined ? { algorithm: key.algorithm } : {}),
    addedAt: key.addedAt,
    ...(key.notAfter !== undefined ? { notAfter: key.notAfter } : {}),
    ...(key.thumbprint !== undefined ? { thumbprint: key.thumbprint } : {}),
    ...(key.published === true ? { published: true } : {}),
    ...(key.kid !== undefined ? { kid: key.kid } : {}),
    ...(key.notBefore !== undefined ? { notBefore: key.notBefore } : {}),
    ...(key.expires !== undefined ? { expires: key.expires } : {}),
  };
}

export function thumbprintKey(thumbprint: string): Item {
  return { [PARTITION_KEY]: ITEM.thumbprintPk(thumbprint), [SORT_KEY]: ITEM.thumbprintSk };
}

/** A key's thumbprint index item: the thumbprint names this client's key. */
export function thumbprintItem(clientId: string, thumbprint: string, fingerprint: string): Item {
  return { ...thumbprintKey(thumbprint), type: 'thumbprint', clientId, fingerprint };
}

/**
 * The thumbprint of a stored key: the one recorded, or computed from its SPKI for keys stored
 * before thumbprints were (their index item, if any, is found by it); undefined for an SPKI that
 * does not parse (only hand-made test records have one).
 */
export function keyThumbprint(key: Pick<StoredPublicKey, 'thumbprint' | 'spkiPem'>): string | undefined {
  if (key.thumbprint !== undefined) return key.thumbprint;
  try {
    return thumbprintOfKey(createPublicKey(key.spkiPem));
  } catch {
    return undefined;
  }
}

export function keySourceKey(clientId: string): Item {
  return { [PARTITION_KEY]: ITEM.keySourcePk(clientId), [SORT_KEY]: ITEM.keySourceSk };
}

/** The owner item of a key source (by {@link keySourceIdentity}'s URL). */
export function sourceOwnerKey(identity: string): Item {
  return { [PARTITION_KEY]: ITEM.sourceOwnerPk(createHash('sha256').update(identity).digest('base64url')), [SORT_KEY]: ITEM.sourceOwnerSk };
}

/** The key source `identity` serves this client. */
export function sourceOwnerItem(clientId: string, identity: string): Item {
  return { ...sourceOwnerKey(identity), type: 'sourceOwner', clientId, source: identity };
}

/** A key source status item, listed in the refresher's due list by its next fetch. */
export function keySourceItem(status: KeySourceStatus): Item {
  return {
    ...keySourceKey(status.clientId),
    [LIST_INDEX_PARTITION_KEY]: ITEM.keySourcesPartition,
    [LIST_INDEX_SORT_KEY]: `${status.nextFetchAt}#${status.clientId}`,
    type: 'keySource',
    ...dropUndefined(status as unknown as Item),
  };
}

export function toKeySourceStatus(item: Item): KeySourceStatus {
  const { [PARTITION_KEY]: _pk, [SORT_KEY]: _sk, [LIST_INDEX_PARTITION_KEY]: _lpk, [LIST_INDEX_SORT_KEY]: _lsk, type: _type, ...status } = item;
  return { ...status, consecutiveFailures: Number(status.consecutiveFailures ?? 0) } as unknown as KeySourceStatus;
}

export function toKeyOwner(item: Item): KeyOwner {
  return {
    clientId: String(item.clientId),
    fingerprint: String(item.fingerprint),
    addedAt: String(item.addedAt),
    ...(typeof item.notAfter === 'string' ? { notAfter: item.notAfter } : {}),
  };
}


/** A registered key as stored, with its thumbprint (computed when the caller gave none). */
export function storedKey(key: NewKey, addedAt: string): StoredPublicKey {
  return {
    fingerprint: key.fingerprint,
    spkiPem: key.spkiPem,
    ...(key.algorithm !== undefined ? { algorithm: key.algorithm } : {}),
    addedAt,
    ...(key.notAfter !== undefined ? { notAfter: canonicalInstant(key.notAfter, 'notAfter') } : {}),
    ...withThumbprint(keyThumbprint(key)),
  };
}

function withThumbprint(thumbprint: string | undefined): { thumbprint?: string } {
  return thumbprint === undefined ? {} : { thumbprint };
}

/** An ISO-8601 instant in the one form the store writes (so string order is time order). */
export function canonicalInstant(value: string, field: string): string {
  const ms = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms)) throw new SignetError('invalid_request', `${field} must be an ISO-8601 instant such as 2030-01-31T12:00:00Z.`);
  return new Date(ms).toISOString();
}
