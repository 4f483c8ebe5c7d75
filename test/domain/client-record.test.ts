/**
 * When a stored key verifies (lambda/domain/client-record.ts): the one rule the authorizer resolves
 * keys with and the registry counts operators by. Pure: every case passes its own time.
 */
import { type ClientRecord, type StoredPublicKey, keepBoundS, keyValidity, keyVerifiesAt } from '../../lambda/domain/client-record';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const NOW_S = NOW / 1000;
const DAY_MS = 86_400_000;
const KEEP_S = 7 * 86_400;
const SOURCE: ClientRecord['keySource'] = { jwksUri: 'https://agent.example/jwks.json' };

const iso = (ms: number) => new Date(ms).toISOString();

function registered(changes: Partial<StoredPublicKey> = {}): StoredPublicKey {
  return { fingerprint: 'f'.repeat(43), spkiPem: 'pem', addedAt: iso(NOW - 90 * DAY_MS), ...changes };
}

function published(changes: Partial<StoredPublicKey> = {}): StoredPublicKey {
  return registered({ published: true, addedAt: iso(NOW - 30 * DAY_MS), ...changes });
}

/** A client with a key source last fetched `agoMs` before NOW. */
const fetched = (agoMs: number) => ({ keySource: SOURCE, keysFetchedAt: iso(NOW - agoMs) });

describe('keyVerifiesAt', () => {
  test('a published key whose exp has passed does not verify; before its exp it does', () => {
    const key = published({ expires: iso(NOW - 20 * DAY_MS) });
    expect(keyVerifiesAt(key, fetched(DAY_MS), KEEP_S, NOW)).toBe(false);
    expect(keyVerifiesAt(key, fetched(DAY_MS), KEEP_S, NOW - 21 * DAY_MS)).toBe(true);
  });

  test('a published key stops at the keep bound after the last successful fetch', () => {
    expect(keyVerifiesAt(published(), fetched(30 * DAY_MS), KEEP_S, NOW)).toBe(false);
    expect(keyVerifiesAt(published(), fetched(7 * DAY_MS + 1000), KEEP_S, NOW)).toBe(false);
    expect(keyVerifiesAt(published(), fetched(7 * DAY_MS), KEEP_S, NOW)).toBe(true);
    expect(keyVerifiesAt(published(), fetched(30 * DAY_MS), 31 * 86_400, NOW)).toBe(true);
    // With no fetch time recorded, the bound runs from the fetch that added the key.
    expect(keyVerifiesAt(published({ addedAt: iso(NOW - 8 * DAY_MS) }), { keySource: SOURCE }, KEEP_S, NOW)).toBe(false);
    expect(keyVerifiesAt(published({ addedAt: iso(NOW - 6 * DAY_MS) }), { keySource: SOURCE }, KEEP_S, NOW)).toBe(true);
  });

  test('a key whose nbf is ahead does not verify yet', () => {
    const key = published({ notBefore: iso(NOW + 3_600_000) });
    expect(keyVerifiesAt(key, fetched(DAY_MS), KEEP_S, NOW)).toBe(false);
    expect(keyVerifiesAt(key, fetched(DAY_MS), KEEP_S, NOW + 3_600_000)).toBe(true);
  });

  test('a registered key is not bound by the keep bound, only by its not-after', () => {
    expect(keyVerifiesAt(registered(), {}, KEEP_S, NOW)).toBe(true);
    expect(keyVerifiesAt(registered(), fetched(300 * DAY_MS), KEEP_S, NOW)).toBe(true);
    expect(keyVerifiesAt(registered({ notAfter: iso(NOW - 1000) }), {}, KEEP_S, NOW)).toBe(false);
    expect(keyVerifiesAt(registered({ notAfter: iso(NOW + 1000) }), {}, KEEP_S, NOW)).toBe(true);
  });

  test('whole seconds, as the verifier compares them: a key verifies through the second of its end', () => {
    expect(keyVerifiesAt(registered({ notAfter: iso(NOW) }), {}, KEEP_S, NOW + 999)).toBe(true);
    expect(keyVerifiesAt(registered({ notAfter: iso(NOW) }), {}, KEEP_S, NOW + 1000)).toBe(false);
  });

  test('an instant that does not parse ends the key (fail closed)', () => {
    expect(keyVerifiesAt(registered({ notAfter: 'soon' }), {}, KEEP_S, NOW)).toBe(false);
    expect(keyVerifiesAt(published(), { keySource: SOURCE, keysFetchedAt: 'yesterday' }, KEEP_S, NOW)).toBe(false);
  });
});

describe('keyValidity', () => {
  test('the earliest of not-after, exp and keep bound; nbf as the start; none for a registered key without an end', () => {
    const key = published({ notBefore: iso(NOW - DAY_MS), expires: iso(NOW + 3 * DAY_MS), notAfter: iso(NOW + 5 * DAY_MS) });
    expect(keyValidity(key, fetched(DAY_MS), KEEP_S)).toEqual({ notBeforeS: NOW_S - 86_400, notAfterS: NOW_S + 3 * 86_400 });
    expect(keyValidity(key, fetched(6 * DAY_MS), KEEP_S)).toEqual({ notBeforeS: NOW_S - 86_400, notAfterS: NOW_S + 86_400 });
    expect(keyValidity(registered(), fetched(DAY_MS), KEEP_S)).toEqual({});
  });

  test('the keep bound is the client\'s only with a source and a fetch time', () => {
    expect(keepBoundS(fetched(DAY_MS), KEEP_S)).toBe(NOW_S - 86_400 + KEEP_S);
    expect(keepBoundS({ keysFetchedAt: iso(NOW) }, KEEP_S)).toBeUndefined();
    expect(keepBoundS({ keySource: SOURCE }, KEEP_S)).toBeUndefined();
  });
});
