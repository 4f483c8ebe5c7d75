/**
 * Who counts as an operator that can administer the registry (lambda/domain/operator-rules.ts),
 * as pure functions; test/registry/lockout.test.ts shows the store holding them in transactions.
 */
import { OPERATOR_KEY_MARGIN_MS, canAdminister, describeLoss, isActiveAdmin, operatorChange } from '../../lambda/domain/operator-rules';
import type { ClientRecord, StoredPublicKey } from '../../lambda/domain/client-record';

const NOW = Date.parse('2030-01-01T00:00:00Z');

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
  expect(canAdminister(client(), NOW)).toBe(true);
  expect(canAdminister(client({ keys: [key(NOW + OPERATOR_KEY_MARGIN_MS + 1)] }), NOW)).toBe(true);
  expect(canAdminister(client({ keys: [key(NOW + OPERATOR_KEY_MARGIN_MS - 1)] }), NOW)).toBe(false);
  expect(canAdminister(client({ status: 'disabled' }), NOW)).toBe(false);
  expect(canAdminister(client({ roles: ['demo'] }), NOW)).toBe(false);
});

test('the last_admin sentence says what the change would do', () => {
  expect(describeLoss(client(), client({ status: 'disabled' }), NOW)).toBe('disable it');
  expect(describeLoss(client(), client({ roles: [] }), NOW)).toBe('remove the role from it');
  expect(describeLoss(client(), client({ keys: [key(NOW + 3_600_000)] }), NOW)).toBe('leave it only keys that expire within 24 hours');
  expect(describeLoss(client(), client({ keys: [key(NOW - 1)] }), NOW)).toBe('leave it without a usable key');
});

test('a change adds or removes an operator from the roster, or neither', () => {
  expect(isActiveAdmin(client())).toBe(true);
  expect(operatorChange(client({ roles: [] }), client())).toBe('added');
  expect(operatorChange(client(), client({ status: 'disabled' }))).toBe('removed');
  expect(operatorChange(client(), client({ name: 'renamed' }))).toBeUndefined();
});
