/**
 * What the registry API answers with: the JSON shapes of docs/openapi/registry.json, built from
 * store records. Key material appears only as public keys (SPKI PEM) and fingerprints.
 */
import { isKeyActive, type ClientRecord, type StoredPublicKey } from '../store/client-record';
import { UNAUTHENTICATED_FAILURE_WINDOW_S } from '../core/defaults';
import { keyAgeDays } from '../core/key-age';
import { DEFAULT_ACCOUNT_ID } from '../store/account-id';
import type { AccountAuditEntry, AccountRecord, AuditEntry, AuthFailure, KeyOwner, UnauthenticatedFailureWindow } from '../store/store-types';
import type { AccountView, AuthFailuresView, ClientView, ExpiringKeyView, KeyView } from './view-types';

export type { AccountView, AuthFailuresView, ClientView, ExpiringKeyView } from './view-types';




export function clientView(record: ClientRecord, nowMs: number): ClientView {
  return {
    clientId: record.clientId,
    accountId: record.accountId,
    name: record.name,
    status: record.status,
    networkWhitelist: record.networkWhitelist,
    roles: record.roles,
    keys: record.keys.map((key) => keyView(key, nowMs)),
    version: record.version,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

function keyView(key: StoredPublicKey, nowMs: number): KeyView {
  return {
    fingerprint: key.fingerprint,
    publicKey: key.spkiPem,
    addedAt: key.addedAt,
    ...(key.notAfter !== undefined ? { notAfter: key.notAfter } : {}),
    active: isKeyActive(key, nowMs),
  };
}

export function expiringKeyView(owner: KeyOwner, nowMs: number): ExpiringKeyView {
  return { ...owner, ageDays: keyAgeDays(owner.addedAt, nowMs) };
}


export function accountView(record: AccountRecord): AccountView {
  return {
    accountId: record.accountId,
    name: record.name,
    roleCeiling: record.roleCeiling,
    version: record.version,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

export function accountAuditView(entry: AccountAuditEntry): AccountAuditEntry {
  return {
    at: entry.at,
    actor: entry.actor,
    ...(entry.actorAccountId !== undefined ? { actorAccountId: entry.actorAccountId } : {}),
    action: entry.action,
    version: entry.version,
    accountId: entry.accountId,
    ...(entry.changes !== undefined ? { changes: entry.changes } : {}),
  };
}

/** An audit entry; entries written before accounts existed name the default account. */
export function auditView(entry: AuditEntry): AuditEntry {
  return {
    at: entry.at,
    actor: entry.actor,
    ...(entry.actorAccountId !== undefined ? { actorAccountId: entry.actorAccountId } : {}),
    action: entry.action,
    version: entry.version,
    clientId: entry.clientId,
    accountId: entry.accountId ?? DEFAULT_ACCOUNT_ID,
    ...(entry.changes !== undefined ? { changes: entry.changes } : {}),
    ...(entry.keysAdded !== undefined ? { keysAdded: entry.keysAdded } : {}),
    ...(entry.keysRemoved !== undefined ? { keysRemoved: entry.keysRemoved } : {}),
    ...(entry.keyNotAfter !== undefined ? { keyNotAfter: entry.keyNotAfter } : {}),
  };
}

/**
 * `GET .../auth-failures`: the refusals of requests the client's own keys signed, as entries
 * (`failures`, newest first), and the refusals anyone could have caused by naming the client, as
 * counts per reason and window (`unauthenticated`), which carry nothing the requests chose.
 */
export function authFailuresView(
  clientId: string,
  failures: readonly AuthFailure[],
  unauthenticated: readonly UnauthenticatedFailureWindow[],
): AuthFailuresView {
  return {
    clientId,
    failures: [...failures],
    unauthenticated: { windowSeconds: UNAUTHENTICATED_FAILURE_WINDOW_S, windows: [...unauthenticated] },
  };
}
