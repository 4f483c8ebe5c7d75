/**
 * The key-rollover rules on their own (lambda/domain/key-rollover.ts): pure functions of a
 * client's keys and the time. test/store/client-store.test.ts shows the store applying them
 * against DynamoDB Local.
 */
import { SignetError } from '../../lambda/core/errors';
import { MAX_KEYS_PER_CLIENT, addKeyTo, removeKeyFrom, setKeyNotAfterOn } from '../../lambda/domain/key-rollover';
import type { StoredPublicKey } from '../../lambda/domain/client-record';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const PAST = '2029-12-31T00:00:00.000Z';
const FUTURE = '2030-06-01T00:00:00.000Z';

function key(n: number, notAfter?: string): StoredPublicKey {
  return { fingerprint: `fp${String(n).padStart(41, '0')}x`, spkiPem: `pem ${n}`, addedAt: '2029-01-01T00:00:00.000Z', ...(notAfter ? { notAfter } : {}) };
}

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return error instanceof SignetError ? error.code : `not a SignetError: ${String(error)}`;
  }
  return 'no error';
}

describe('adding a key', () => {
  test('the new key joins the active ones; expired keys are pruned and named', () => {
    const expired = key(1, PAST);
    const active = key(2, FUTURE);
    const added = key(3);
    const { keys, pruned } = addKeyTo([expired, active], added, NOW);
    expect(keys).toEqual([active, added]);
    expect(pruned).toEqual([expired]);
  });

  test('a key already on the client is refused', () => {
    expect(codeOf(() => addKeyTo([key(1)], key(1), NOW))).toBe('key_already_registered');
  });

  test(`at most ${MAX_KEYS_PER_CLIENT} active keys; expired ones do not count`, () => {
    const full = Array.from({ length: MAX_KEYS_PER_CLIENT }, (_, i) => key(i));
    expect(codeOf(() => addKeyTo(full, key(99), NOW))).toBe('invalid_request');
    const withExpired = [...full.slice(1), key(50, PAST)];
    expect(addKeyTo(withExpired, key(99), NOW).keys).toHaveLength(MAX_KEYS_PER_CLIENT);
  });
});

describe('removing a key', () => {
  const client = (keys: StoredPublicKey[]) => ({ clientId: 'c_AAAAAAAAAAAAAAAAAAAAAA', keys });

  test('one of two active keys goes', () => {
    expect(removeKeyFrom(client([key(1), key(2)]), key(1).fingerprint, NOW)).toEqual([key(2)]);
  });

  test('the last active key cannot go, even beside an expired one; the only key never', () => {
    expect(codeOf(() => removeKeyFrom(client([key(1), key(2, PAST)]), key(1).fingerprint, NOW))).toBe('last_key');
    expect(codeOf(() => removeKeyFrom(client([key(1, PAST)]), key(1).fingerprint, NOW))).toBe('last_key');
  });

  test('an expired key goes while an active one stays', () => {
    expect(removeKeyFrom(client([key(1), key(2, PAST)]), key(2).fingerprint, NOW)).toEqual([key(1)]);
  });

  test('an unknown fingerprint is not_found, naming the client', () => {
    expect(codeOf(() => removeKeyFrom(client([key(1)]), key(7).fingerprint, NOW))).toBe('not_found');
  });
});

describe("setting a key's not-after", () => {
  const client = (keys: StoredPublicKey[]) => ({ clientId: 'c_AAAAAAAAAAAAAAAAAAAAAA', keys });

  test('sets and clears it; the same value is no change', () => {
    const set = setKeyNotAfterOn(client([key(1), key(2)]), key(1).fingerprint, FUTURE, NOW);
    expect(set?.after).toEqual(key(1, FUTURE));
    expect(set?.keys).toEqual([key(1, FUTURE), key(2)]);
    expect(setKeyNotAfterOn(client([key(1, FUTURE)]), key(1).fingerprint, undefined, NOW)?.after).toEqual(key(1));
    expect(setKeyNotAfterOn(client([key(1, FUTURE)]), key(1).fingerprint, FUTURE, NOW)).toBeUndefined();
  });

  test('expiring the last active key is last_key', () => {
    expect(codeOf(() => setKeyNotAfterOn(client([key(1), key(2, PAST)]), key(1).fingerprint, PAST, NOW))).toBe('last_key');
  });
});
