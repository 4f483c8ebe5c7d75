/**
 * The key-rollover rules on their own (lambda/domain/key-rollover.ts): pure functions of a
 * client's keys and the time. test/store/client-store.test.ts shows the store applying them
 * against DynamoDB Local.
 */
import { SignetError } from '../../lambda/core/errors';
import { MAX_KEYS_PER_CLIENT, addKeyTo, removeKeyFrom, setKeyNotAfterOn } from '../../lambda/domain/key-rollover';
import type { StoredPublicKey } from '../../lambda/domain/client-record';
import { StoreRefusal } from '../../lambda/domain/store-refusal';

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

  test('the refusals carry what they are about as data and name no route: the registry words them', () => {
    const refusal = (run: () => unknown): { code: string; message: string; data: unknown } => {
      try {
        run();
      } catch (error) {
        if (error instanceof StoreRefusal) return { code: error.code, message: error.message, data: error.data };
        throw error;
      }
      throw new Error('expected a StoreRefusal');
    };
    const last = refusal(() => removeKeyFrom(client([key(1)]), key(1).fingerprint, NOW));
    expect(last).toEqual({ code: 'last_key', message: expect.not.stringMatching(/\/registry|GET |POST /), data: { about: 'last-active-key', clientId: 'c_AAAAAAAAAAAAAAAAAAAAAA', removal: true } });
    const wellFormed = 'B'.repeat(43);
    const unknown = refusal(() => removeKeyFrom(client([key(1)]), wellFormed, NOW));
    expect(unknown).toEqual({ code: 'not_found', message: expect.not.stringMatching(/\/registry|GET /), data: { about: 'key', clientId: 'c_AAAAAAAAAAAAAAAAAAAAAA', fingerprint: wellFormed } });
    expect(refusal(() => removeKeyFrom(client([key(1)]), 'not a fingerprint', NOW)).data).toEqual({ about: 'key', clientId: 'c_AAAAAAAAAAAAAAAAAAAAAA', fingerprint: undefined });
    expect(refusal(() => setKeyNotAfterOn(client([key(1)]), key(1).fingerprint, PAST, NOW)).data).toEqual({ about: 'last-active-key', clientId: 'c_AAAAAAAAAAAAAAAAAAAAAA', removal: false });
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
