/**
 * Who counts as an operator that can administer the registry (lambda/domain/operator-rules.ts),
 * as pure functions; test/registry/lockout.test.ts shows the store holding them in transactions.
 */
import { OPERATOR_KEY_MARGIN_MS, canAdminister, describeLoss, isActiveAdmin, operatorChange } from '../../lambda/domain/operator-rules';
import type { ClientRecord, StoredPublicKey } from '../../lambda/domain/client-record';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const DAY_MS = 86_400_000;
/** The default keep bound (SIGNET_KEY_SOURCE_KEEP_DAYS = 7), in seconds. */
const KEEP_S = 7 * 86_400;

function key(notAfterMs?: number): StoredPublicKey {
  return { fingerprint: 'f'.repeat(43), spkiPem: 'pem', addedAt: '2029-01-01T00:00:00.000Z', ...(notAfterMs !== undefined ? { notAfter: new Date(notAfterMs).toISOString() } : {}) };
}

function client(changes: Partial<ClientRecord> = {}): ClientRecord {
  return {
    clientId: 'c_AAAAAAAAAAAAAAAAAAAAAA',
    accountId: 'acct_default',
    name: 'ops',
    status: 'active',
    networkWhitelist: ['0.0.0.0'],
    roles: ['registry:admin'],
    keys: [key()],
    version: 1,
    createdAt: '2029-01-01T00:00:00.000Z',
    updatedAt: '2029-01-01T00:00:00.000Z',
    ...changes,
  };
}

test('an active client with registry:admin and a key lasting past the margin can administer', () => {
  expect(canAdminister(client(), NOW, KEEP_S)).toBe(true);
  expect(canAdminister(client({ keys: [key(NOW + OPERATOR_KEY_MARGIN_MS + 1)] }), NOW, KEEP_S)).toBe(true);
  expect(canAdminister(client({ keys: [key(NOW + OPERATOR_KEY_MARGIN_MS - 1)] }), NOW, KEEP_S)).toBe(false);
  expect(canAdminister(client({ status: 'disabled' }), NOW, KEEP_S)).toBe(false);
  expect(canAdminister(client({ roles: ['demo'] }), NOW, KEEP_S)).toBe(false);
});

test('an operator counts only with a key the authorizer verifies now and for the margin: published keys end at their exp and at the keep bound', () => {
  const source = { jwksUri: 'https://agent.example/jwks.json' };
  const published = (changes: Partial<StoredPublicKey> = {}): StoredPublicKey => ({ ...key(), published: true, addedAt: new Date(NOW - 30 * DAY_MS).toISOString(), ...changes });
  const fetched = (ms: number) => ({ keySource: source, keysFetchedAt: new Date(ms).toISOString() });
  expect(canAdminister(client({ ...fetched(NOW - DAY_MS), keys: [published()] }), NOW, KEEP_S)).toBe(true);
  // Its exp passed, or the last successful fetch is older than the keep bound: it no longer verifies.
  expect(canAdminister(client({ ...fetched(NOW - DAY_MS), keys: [published({ expires: new Date(NOW - 20 * DAY_MS).toISOString() })] }), NOW, KEEP_S)).toBe(false);
  expect(canAdminister(client({ ...fetched(NOW - 30 * DAY_MS), keys: [published()] }), NOW, KEEP_S)).toBe(false);
  // The keep bound ends within the margin: not lasting enough. A longer keep bound makes it count.
  expect(canAdminister(client({ ...fetched(NOW - 6.5 * DAY_MS), keys: [published()] }), NOW, KEEP_S)).toBe(false);
  expect(canAdminister(client({ ...fetched(NOW - 30 * DAY_MS), keys: [published()] }), NOW, 60 * 86_400)).toBe(true);
  // A key that does not verify yet (nbf ahead) cannot administer now.
  expect(canAdminister(client({ ...fetched(NOW - DAY_MS), keys: [published({ notBefore: new Date(NOW + 3_600_000).toISOString() })] }), NOW, KEEP_S)).toBe(false);
});

test('the last_admin sentence says what the change would do', () => {
  expect(describeLoss(client(), client({ status: 'disabled' }), NOW, KEEP_S)).toBe('disable it');
  expect(describeLoss(client(), client({ roles: [] }), NOW, KEEP_S)).toBe('remove the role from it');
  expect(describeLoss(client(), client({ keys: [key(NOW + 3_600_000)] }), NOW, KEEP_S)).toBe('leave it only keys that expire within 24 hours');
  expect(describeLoss(client(), client({ keys: [key(NOW - 1)] }), NOW, KEEP_S)).toBe('leave it without a usable key');
  const expired = { ...key(), published: true as const, expires: new Date(NOW - DAY_MS).toISOString() };
  expect(describeLoss(client(), client({ keySource: { jwksUri: 'https://agent.example/jwks.json' }, keysFetchedAt: new Date(NOW).toISOString(), keys: [expired] }), NOW, KEEP_S)).toBe('leave it without a usable key');
});

test('a change adds or removes an operator from the roster, or neither', () => {
  expect(isActiveAdmin(client())).toBe(true);
  expect(operatorChange(client({ roles: [] }), client())).toBe('added');
  expect(operatorChange(client(), client({ status: 'disabled' }))).toBe('removed');
  expect(operatorChange(client(), client({ name: 'renamed' }))).toBeUndefined();
});
