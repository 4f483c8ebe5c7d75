/**
 * What each registry change does to a client, planned from the record as read: the record's new
 * fields, the key ownership items to add, rewrite or delete, and the audit entry. Pure: the store
 * (./client-store.ts) writes a plan in one transaction conditioned on the version it was planned
 * from, and plans again when that version moved. The key rules come from the registry's domain
 * rules (../domain/key-rollover.ts).
 */
import { SignetError } from '../core/errors';
import { addKeyTo, removeKeyFrom, setKeyNotAfterOn } from '../domain/key-rollover';
import type { ClientRecord, ClientStatus, StoredPublicKey } from '../domain/client-record';
import type { KeySourceStatus } from '../domain/key-source-store';
import { type Mutable, actorFields, keySourceText, sameList, storedKey } from './item-codec';
import type { Actor, AuditEntry, AuditFieldChange, AuditedField, ClientChanges, NewClient, NewKey } from '../domain/store-types';

/** What a change does to the record, its key items and the audit trail. */
export interface ClientChangePlan {
  readonly record: Partial<Pick<ClientRecord, 'name' | 'status' | 'networkWhitelist' | 'roles' | 'profile' | 'keys' | 'keySource' | 'keysFetchedAt'>>;
  /** The key source status item written with the change; null: deleted (the client left its source). */
  readonly sourceStatus?: KeySourceStatus | null;
  /** New key ownership items: must not exist yet. */
  readonly keyPuts?: readonly StoredPublicKey[];
  /** Key ownership items rewritten (not-after changed): must belong to this client. */
  readonly keyRewrites?: readonly StoredPublicKey[];
  /** Fingerprints whose ownership items go. */
  readonly keyDeletes?: readonly string[];
  readonly audit: Omit<AuditEntry, 'clientId' | 'accountId' | 'at' | 'actor' | 'actorAccountId' | 'version'>;
}

/** A new client's record (version 1, one key) and its `client.created` audit entry. */
export function newClient(input: NewClient, clientId: string, accountId: string, at: string, actor: Actor): { record: ClientRecord; keys: readonly StoredPublicKey[]; audit: AuditEntry } {
  const published = input.published;
  if ((input.key === undefined) === (published === undefined)) throw new SignetError('invalid_request', 'A client has a registered key or a key source: give one of them.');
  const keys = published === undefined ? [storedKey(input.key as NewKey, at)] : published.keys;
  const record: ClientRecord = {
    clientId,
    accountId,
    name: input.name,
    status: 'active',
    networkWhitelist: [...input.networkWhitelist],
    roles: [...input.roles],
    ...(input.profile !== undefined ? { profile: input.profile } : {}),
    keys: [...keys],
    ...(published !== undefined ? { keySource: published.source, keysFetchedAt: published.fetchedAt } : {}),
    version: 1,
    createdAt: at,
    updatedAt: at,
  };
  const audit: AuditEntry = {
    clientId,
    accountId,
    at,
    ...actorFields(actor),
    action: 'client.created',
    version: 1,
    changes: {
      name: { to: record.name },
      status: { to: record.status },
      networkWhitelist: { to: record.networkWhitelist },
      roles: { to: record.roles },
      ...(record.profile !== undefined ? { profile: { to: record.profile } } : {}),
      ...(published !== undefined ? { keySource: { to: keySourceText(published.source) } } : {}),
    },
    keysAdded: keys.map((k) => k.fingerprint),
  };
  return { record, keys, audit };
}

/**
 * The client's keys replaced by a fetch's: keys still published keep their `addedAt`; the
 * ownership items of new keys are put and those of keys gone deleted.
 */
export function planPublishedKeys(current: ClientRecord, fetched: readonly StoredPublicKey[]): Pick<ClientChangePlan, 'keyPuts' | 'keyDeletes' | 'keyRewrites'> & { keys: StoredPublicKey[] } {
  const before = new Map(current.keys.map((k) => [k.fingerprint, k]));
  const keys = fetched.map((k) => (before.has(k.fingerprint) ? { ...k, addedAt: before.get(k.fingerprint)!.addedAt } : k));
  const after = new Set(keys.map((k) => k.fingerprint));
  // A key held with a not-after (ended when its set stopped listing it) and listed again loses it in its own item too.
  const keyRewrites = keys.filter((k) => before.has(k.fingerprint) && before.get(k.fingerprint)!.notAfter !== k.notAfter);
  return {
    keys,
    keyPuts: keys.filter((k) => !before.has(k.fingerprint)),
    keyDeletes: current.keys.filter((k) => !after.has(k.fingerprint)).map((k) => k.fingerprint),
    ...(keyRewrites.length > 0 ? { keyRewrites } : {}),
  };
}

/** A scheduled or manual refresh found another key set: the keys replaced, `keysFetchedAt` set, the status written. */
export function planRefresh(current: ClientRecord, fetched: readonly StoredPublicKey[], fetchedAt: string, status: KeySourceStatus): ClientChangePlan {
  const { keys, keyPuts, keyDeletes, keyRewrites } = planPublishedKeys(current, fetched);
  return {
    record: { keys, keysFetchedAt: fetchedAt },
    keyPuts,
    keyDeletes,
    ...(keyRewrites !== undefined ? { keyRewrites } : {}),
    sourceStatus: status,
    audit: {
      action: 'key_source.refreshed',
      ...(keyPuts !== undefined && keyPuts.length > 0 ? { keysAdded: keyPuts.map((k) => k.fingerprint) } : {}),
      ...(keyDeletes !== undefined && keyDeletes.length > 0 ? { keysRemoved: [...keyDeletes] } : {}),
    },
  };
}

/**
 * A fetch whose set no longer lists some of the client's keys, though no key it lists can be used:
 * those keys stop verifying now (a not-after of `at`; the publisher withdrew them: a leaked key is
 * revoked by taking it out of the set), the others stay until the keep bound as after any failed
 * fetch (`keysFetchedAt` unchanged), and the status is written. The keys are kept, expired, until a
 * fetch with a usable key replaces the set, so that a client always holds a key to show.
 * Undefined when every withdrawn key has already stopped verifying.
 */
export function planWithdrawn(current: ClientRecord, withdrawn: ReadonlySet<string>, status: KeySourceStatus, at: string): ClientChangePlan | undefined {
  const ending = current.keys.filter((k) => withdrawn.has(k.fingerprint) && (k.notAfter === undefined || k.notAfter > at));
  if (ending.length === 0) return undefined;
  const expired = new Map(ending.map((k) => [k.fingerprint, { ...k, notAfter: at }]));
  return {
    record: { keys: current.keys.map((k) => expired.get(k.fingerprint) ?? k) },
    keyRewrites: [...expired.values()],
    sourceStatus: status,
    audit: { action: 'key_source.refreshed', keysExpired: [...expired.keys()] },
  };
}

/** Refuses a change of registered keys on a client whose keys come from its key source. */
function refuseOnSource(current: ClientRecord, action: string): void {
  if (current.keySource === undefined) return;
  throw new SignetError(
    'key_source_managed',
    `This client's keys come from its key source (${keySourceText(current.keySource)}), so they cannot ${action} here: publish the change at the source and refresh the client's keys from it, or give the client a registered public key instead of its source.`,
  );
}

/** Name, whitelist, roles and/or the keys replaced by one key; undefined when nothing changes. */
export function planUpdate(current: ClientRecord, changes: ClientChanges, at: string): ClientChangePlan | undefined {
  const record: Mutable<ClientChangePlan['record']> = {};
  const audited: Partial<Record<AuditedField, AuditFieldChange>> = {};
  if (changes.name !== undefined && changes.name !== current.name) {
    record.name = changes.name;
    audited.name = { from: current.name, to: changes.name };
  }
  if (changes.profile !== undefined && changes.profile !== (current.profile ?? undefined)) {
    record.profile = changes.profile;
    audited.profile = { ...(current.profile !== undefined ? { from: current.profile } : {}), to: changes.profile };
  }
  for (const field of ['networkWhitelist', 'roles'] as const) {
    const next = changes[field];
    if (next !== undefined && !sameList(next, current[field])) {
      record[field] = [...next];
      audited[field] = { from: current[field], to: next };
    }
  }
  let keyPuts: StoredPublicKey[] = [];
  let keyRewrites: StoredPublicKey[] = [];
  let keyDeletes: string[] = [];
  let sourceStatus: KeySourceStatus | null | undefined;
  if (changes.published !== undefined) {
    const { source, fetchedAt, status } = changes.published;
    const planned = planPublishedKeys(current, changes.published.keys);
    record.keys = planned.keys;
    record.keySource = source;
    record.keysFetchedAt = fetchedAt;
    keyPuts = [...(planned.keyPuts ?? [])];
    keyRewrites = [...(planned.keyRewrites ?? [])];
    keyDeletes = [...(planned.keyDeletes ?? [])];
    sourceStatus = status;
    const from = current.keySource === undefined ? undefined : keySourceText(current.keySource);
    if (from !== keySourceText(source)) audited.keySource = { ...(from !== undefined ? { from } : {}), to: keySourceText(source) };
  } else if (changes.key !== undefined && current.keySource !== undefined) {
    // Back to registered keys: the source and its status go, the published keys with them.
    const replacement = storedKey(changes.key, at);
    record.keys = [replacement];
    record.keySource = undefined;
    record.keysFetchedAt = undefined;
    const kept = current.keys.some((k) => k.fingerprint === replacement.fingerprint);
    keyPuts = kept ? [] : [replacement];
    keyRewrites = kept ? [replacement] : [];
    keyDeletes = current.keys.filter((k) => k.fingerprint !== replacement.fingerprint).map((k) => k.fingerprint);
    sourceStatus = null;
    audited.keySource = { from: keySourceText(current.keySource) };
  } else if (changes.key !== undefined) {
    const kept = current.keys.find((k) => k.fingerprint === changes.key?.fingerprint);
    // A key the client holds keeps its algorithm unless the request named another (its signer moved to it).
    const algorithm = kept !== undefined && changes.keyAlgorithmNamed !== true ? kept.algorithm : changes.key.algorithm;
    const replacement = storedKey({ ...changes.key, algorithm }, kept?.addedAt ?? at);
    const sameAttributes = kept !== undefined && kept.notAfter === replacement.notAfter && kept.algorithm === replacement.algorithm;
    if (!(current.keys.length === 1 && sameAttributes)) {
      record.keys = [replacement];
      keyDeletes = current.keys.filter((k) => k !== kept).map((k) => k.fingerprint);
      if (kept === undefined) keyPuts = [replacement];
      else if (!sameAttributes) keyRewrites = [replacement];
    }
  }
  if (Object.keys(record).length === 0) return undefined;
  return {
    record,
    keyPuts,
    keyRewrites,
    keyDeletes,
    ...(sourceStatus !== undefined ? { sourceStatus } : {}),
    audit: {
      action: 'client.updated',
      ...(Object.keys(audited).length > 0 ? { changes: audited } : {}),
      ...(keyPuts.length > 0 ? { keysAdded: keyPuts.map((k) => k.fingerprint) } : {}),
      ...(keyDeletes.length > 0 ? { keysRemoved: keyDeletes } : {}),
    },
  };
}

/** One more key (rollover); keys already past their not-after are dropped in the same change. */
export function planAddKey(current: ClientRecord, key: NewKey, at: string, nowMs: number): ClientChangePlan {
  refuseOnSource(current, 'be added');
  const added = storedKey(key, at);
  const { keys, pruned } = addKeyTo(current.keys, added, nowMs);
  return {
    record: { keys: [...keys] },
    keyPuts: [added],
    keyDeletes: pruned.map((k) => k.fingerprint),
    audit: {
      action: 'key.added',
      keysAdded: [added.fingerprint],
      ...(pruned.length > 0 ? { keysRemoved: pruned.map((k) => k.fingerprint) } : {}),
    },
  };
}

/** One key fewer (never the last active one: `last_key`). */
export function planRemoveKey(current: ClientRecord, fingerprint: string, nowMs: number): ClientChangePlan {
  refuseOnSource(current, 'be removed');
  const remaining = removeKeyFrom(current, fingerprint, nowMs);
  return { record: { keys: remaining }, keyDeletes: [fingerprint], audit: { action: 'key.removed', keysRemoved: [fingerprint] } };
}

/** A key's not-after set (or cleared with undefined); undefined when it already is. */
export function planKeyNotAfter(current: ClientRecord, fingerprint: string, notAfter: string | undefined, nowMs: number): ClientChangePlan | undefined {
  refuseOnSource(current, 'be given an expiry');
  const expiry = setKeyNotAfterOn(current, fingerprint, notAfter, nowMs);
  if (expiry === undefined) return undefined;
  return {
    record: { keys: [...expiry.keys] },
    keyRewrites: [expiry.after],
    audit: { action: 'key.not_after_set', keyNotAfter: { fingerprint, from: expiry.before.notAfter, to: notAfter } },
  };
}

/** The client disabled or enabled; undefined when it already is. */
export function planStatus(current: ClientRecord, status: ClientStatus): ClientChangePlan | undefined {
  if (current.status === status) return undefined;
  return {
    record: { status },
    audit: { action: status === 'disabled' ? 'client.disabled' : 'client.enabled', changes: { status: { from: current.status, to: status } } },
  };
}
