/**
 * The key-rollover rules, as pure functions of a client's keys and the time: how many keys a
 * client may hold, that an expired key is pruned when a new one arrives, and that no change may
 * leave a client without an active key (`last_key`). The store applies them inside its
 * optimistic-concurrency loop (lambda/store/client-store.ts); they read no database and no clock.
 */
import { SignetError } from '../core/errors';
import { isFingerprint } from '../core/keys';
import { type ClientRecord, type StoredPublicKey, isKeyActive } from './client-record';
import { removalLeavesNoActiveKey } from './last-key';
import { StoreRefusal } from './store-refusal';

/** Most keys one client may hold (several only during a rollover). @default 10 */
export const MAX_KEYS_PER_CLIENT = 10;

/** The client's keys after `added` joins them, and the expired keys that make way for it. */
export interface KeyAddition {
  readonly keys: readonly StoredPublicKey[];
  readonly pruned: readonly StoredPublicKey[];
}

/**
 * Adds a key: expired keys go, the new one joins the active ones.
 * @throws SignetError `key_already_registered` (on this client), `invalid_request` (too many keys)
 */
export function addKeyTo(keys: readonly StoredPublicKey[], added: StoredPublicKey, nowMs: number): KeyAddition {
  if (keys.some((k) => k.fingerprint === added.fingerprint)) {
    throw new SignetError('key_already_registered', `This public key (fingerprint ${added.fingerprint}) is already registered on this client.`);
  }
  const kept = keys.filter((k) => isKeyActive(k, nowMs));
  if (kept.length >= MAX_KEYS_PER_CLIENT) {
    throw new SignetError('invalid_request', `The client already holds ${kept.length} keys, the most allowed. Remove a key it no longer uses first.`);
  }
  return { keys: [...kept, added], pruned: keys.filter((k) => !isKeyActive(k, nowMs)) };
}

/**
 * Removes a key. The client's last active key cannot go: add the new key first.
 * @throws SignetError `not_found` (no such key), `last_key`
 */
export function removeKeyFrom(client: Pick<ClientRecord, 'clientId' | 'keys'>, fingerprint: string, nowMs: number): StoredPublicKey[] {
  const target = keyOf(client, fingerprint);
  if (removalLeavesNoActiveKey(client.keys, target, (k) => isKeyActive(k, nowMs))) {
    throw new StoreRefusal(
      'last_key',
      "This is the client's last active key, so removing it would lock the client out. Add the new key first, then remove this one.",
      { about: 'last-active-key', clientId: client.clientId, removal: true },
    );
  }
  return client.keys.filter((k) => k !== target);
}

/** The client's keys with one key's not-after set (or cleared), or undefined when nothing changes. */
export interface KeyExpiry {
  readonly keys: readonly StoredPublicKey[];
  readonly before: StoredPublicKey;
  readonly after: StoredPublicKey;
}

/**
 * Sets (or clears, with undefined) the instant after which a key stops verifying.
 * @param notAfter in the store's canonical ISO-8601 form
 * @throws SignetError `not_found` (no such key), `last_key` (no active key would be left)
 */
export function setKeyNotAfterOn(client: Pick<ClientRecord, 'clientId' | 'keys'>, fingerprint: string, notAfter: string | undefined, nowMs: number): KeyExpiry | undefined {
  const before = keyOf(client, fingerprint);
  if (before.notAfter === notAfter) return undefined;
  const { notAfter: _old, ...rest } = before;
  const after: StoredPublicKey = notAfter === undefined ? rest : { ...rest, notAfter };
  const keys = client.keys.map((k) => (k === before ? after : k));
  if (!keys.some((k) => isKeyActive(k, nowMs))) {
    throw new StoreRefusal('last_key', 'This would leave the client without an active key. Add the new key first, then expire this one.', {
      about: 'last-active-key',
      clientId: client.clientId,
      removal: false,
    });
  }
  return { keys, before, after };
}

/** @throws StoreRefusal `not_found` about the key (the registry adds how to list the client's keys) */
function keyOf(client: Pick<ClientRecord, 'clientId' | 'keys'>, fingerprint: string): StoredPublicKey {
  const key = client.keys.find((k) => k.fingerprint === fingerprint);
  if (key === undefined) {
    const shown = isFingerprint(fingerprint) ? fingerprint : undefined;
    throw new StoreRefusal('not_found', `Client ${client.clientId} has no key with fingerprint ${shown ?? '(malformed)'}.`, { about: 'key', clientId: client.clientId, fingerprint: shown });
  }
  return key;
}
