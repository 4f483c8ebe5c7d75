/**
 * DynamoDB items <-> client records: the parts of the item layout (./table-schema.ts) that both
 * the authorizer's reader and the registry's writer read and write.
 */
import { DEFAULT_ACCOUNT_ID, isAccountId } from './account-id';
import type { ClientRecord } from './client-record';
import type { Actor, AuditEntry } from './store-types';
import { ITEM, PARTITION_KEY, SORT_KEY } from './table-schema';

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
    keys: keys.map((k) => ({
      fingerprint: String(k.fingerprint),
      spkiPem: String(k.spkiPem),
      addedAt: String(k.addedAt),
      ...(typeof k.notAfter === 'string' ? { notAfter: k.notAfter } : {}),
    })),
    version: Number(item.version),
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
  };
}

export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

export function clip(value: string): string {
  return value.length > MAX_FAILURE_DETAIL_CHARS ? `${value.slice(0, MAX_FAILURE_DETAIL_CHARS - 1)}…` : value;
}

export function toAuditEntry(item: Item): AuditEntry {
  const { [PARTITION_KEY]: _pk, [SORT_KEY]: _sk, type: _type, ...entry } = item;
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
