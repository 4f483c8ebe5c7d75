/**
 * What the registry API answers with: the JSON shapes of docs/openapi/registry.json, built from
 * store records. Key material appears only as public keys (SPKI PEM) and fingerprints.
 */
import { DEFAULT_RSA_ALGORITHM } from '../core/algorithms';
import { type ClientRecord, type StoredPublicKey, keyVerifiesAt } from '../domain/client-record';
import { UNAUTHENTICATED_FAILURE_WINDOW_S } from '../core/defaults';
import { keyAgeDays } from '../core/key-age';
import { DEFAULT_ACCOUNT_ID } from '../store/account-id';
import type { AccountAuditEntry, AccountRecord, AccountTrailEntry, AuditEntry, AuthFailure, KeyOwner, UnauthenticatedFailureWindow } from '../domain/store-types';
import type { AccountView, AuthFailuresView, ClientView, ExpiringKeyView, KeySourceStatusView, KeyView } from './view-types';
import type { KeySourceStatus } from '../domain/key-source-store';

export type { AccountView, AuthFailuresView, ClientView, ExpiringKeyView } from './view-types';




/**
 * @param keepS the keep bound of published keys, in seconds (`keepSeconds` of SIGNET_KEY_SOURCE_KEEP_DAYS):
 *   a key is `active` when the authorizer would verify with it now, and `keptUntil` is that bound
 * @param lastUse when each key last verified a request, by fingerprint (the store's `keyLastUse`);
 *   keys without an entry have no `lastUsedAt`, and the client's is the latest of its keys'
 */
export function clientView(
  record: ClientRecord,
  nowMs: number,
  keepS: number,
  lastUse: ReadonlyMap<string, string> = new Map(),
  sourceStatus?: KeySourceStatus,
): ClientView {
  const lastUsedAt = latest(record.keys.map((key) => lastUse.get(key.fingerprint)));
  return {
    clientId: record.clientId,
    accountId: record.accountId,
    name: record.name,
    status: record.status,
    networkWhitelist: record.networkWhitelist,
    roles: record.roles,
    ...(record.profile !== undefined ? { profile: record.profile } : {}),
    keys: record.keys.map((key) => keyView(key, record, keepS, nowMs, lastUse.get(key.fingerprint))),
    ...(record.keySource !== undefined ? { keySource: { ...record.keySource } } : {}),
    ...(record.keysFetchedAt !== undefined ? { keysFetchedAt: record.keysFetchedAt } : {}),
    ...(record.keySource !== undefined && sourceStatus !== undefined ? { keySourceStatus: keySourceStatusView(sourceStatus, record.keysFetchedAt, keepS) } : {}),
    version: record.version,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    ...(lastUsedAt !== undefined ? { lastUsedAt } : {}),
  };
}

/** The latest of some ISO-8601 instants (the store writes one form, so string order is time order); undefined for none. */
export function latest(instants: ReadonlyArray<string | undefined>): string | undefined {
  let found: string | undefined;
  for (const at of instants) if (at !== undefined && (found === undefined || at > found)) found = at;
  return found;
}

/** A key source's status as the client view shows it, with the instant its keys stop verifying unless a fetch succeeds. */
function keySourceStatusView(status: KeySourceStatus, keysFetchedAt: string | undefined, keepS: number): KeySourceStatusView {
  const lastSuccess = keysFetchedAt ?? status.lastSuccessAt;
  return {
    url: status.url,
    lastFetchAt: status.lastFetchAt,
    nextFetchAt: status.nextFetchAt,
    ...(status.lastSuccessAt !== undefined ? { lastSuccessAt: status.lastSuccessAt } : {}),
    ...(status.failingSince !== undefined ? { failingSince: status.failingSince } : {}),
    consecutiveFailures: status.consecutiveFailures,
    ...(status.lastError !== undefined ? { lastError: status.lastError } : {}),
    ...(status.refusedKeys !== undefined && status.refusedKeys.length > 0 ? { refusedKeys: status.refusedKeys } : {}),
    ...(lastSuccess !== undefined ? { keptUntil: new Date(Date.parse(lastSuccess) + keepS * 1000).toISOString() } : {}),
  };
}

/** A key as the client view shows it; `active`: the authorizer would verify with it at `nowMs` (its not-after, nbf, exp and, when published, the keep bound). */
function keyView(key: StoredPublicKey, record: ClientRecord, keepS: number, nowMs: number, lastUsedAt: string | undefined): KeyView {
  return {
    fingerprint: key.fingerprint,
    publicKey: key.spkiPem,
    // Keys stored before keys had an algorithm are all RSA keys registered for the default.
    algorithm: key.algorithm ?? DEFAULT_RSA_ALGORITHM,
    addedAt: key.addedAt,
    ...(key.notAfter !== undefined ? { notAfter: key.notAfter } : {}),
    active: keyVerifiesAt(key, record, keepS, nowMs),
    ...(lastUsedAt !== undefined ? { lastUsedAt } : {}),
    ...(key.thumbprint !== undefined ? { thumbprint: key.thumbprint } : {}),
    ...(key.published === true ? { published: true as const } : {}),
    ...(key.kid !== undefined ? { kid: key.kid } : {}),
    ...(key.notBefore !== undefined ? { notBefore: key.notBefore } : {}),
    ...(key.expires !== undefined ? { expires: key.expires } : {}),
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

function accountAuditView(entry: AccountAuditEntry): AccountAuditEntry {
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

/** An entry of an account's trail: the account's own change, or a change to one of its clients. */
export function accountTrailView(entry: AccountTrailEntry): AccountTrailEntry {
  return 'clientId' in entry && typeof entry.clientId === 'string' ? auditView(entry) : accountAuditView(entry as AccountAuditEntry);
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
    ...(entry.keysExpired !== undefined ? { keysExpired: entry.keysExpired } : {}),
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
