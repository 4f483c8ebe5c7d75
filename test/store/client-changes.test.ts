/**
 * The plans of registry changes (lambda/store/client-changes.ts), without a table: what changes,
 * what the audit entry says, and "nothing to change" as no plan at all (the store then writes
 * nothing and returns the record as it is). The store's tests run the same changes on DynamoDB Local.
 */
import type { ClientRecord } from '../../lambda/domain/client-record';
import { newClient, planAddKey, planKeyNotAfter, planRemoveKey, planStatus, planUpdate } from '../../lambda/store/client-changes';

const AT = '2026-11-25T12:00:00.000Z';
const NOW = Date.parse(AT);
const key = (n: number) => ({ fingerprint: String(n).repeat(43).slice(0, 43), spkiPem: `PEM ${n}` });

function client(): ClientRecord {
  return newClient({ name: 'Acme', networkWhitelist: ['203.0.113.7'], roles: ['demo'], key: key(1) }, 'c_Acme', 'acct_default', '2026-01-01T00:00:00.000Z', { clientId: 'c_Admin', accountId: 'acct_default' }).record;
}

test('a new client: version 1, one key, and a client.created entry naming every field and the key', () => {
  const { record, audit } = newClient({ name: 'Acme', networkWhitelist: ['203.0.113.7'], roles: ['demo'], key: key(1) }, 'c_Acme', 'acct_x', AT, { clientId: 'c_Admin', accountId: 'acct_default' });
  expect(record).toMatchObject({ clientId: 'c_Acme', accountId: 'acct_x', status: 'active', version: 1, createdAt: AT, keys: [{ fingerprint: key(1).fingerprint, addedAt: AT }] });
  expect(audit).toMatchObject({ action: 'client.created', version: 1, actor: 'c_Admin', keysAdded: [key(1).fingerprint], changes: { name: { to: 'Acme' }, roles: { to: ['demo'] } } });
});

test('an update that changes nothing is no plan; one that does names only what changed', () => {
  const current = client();
  expect(planUpdate(current, { name: 'Acme', roles: ['demo'], networkWhitelist: ['203.0.113.7'] }, AT)).toBeUndefined();
  expect(planUpdate(current, { key: key(1) }, AT)).toBeUndefined();
  const plan = planUpdate(current, { name: 'Acme Ltd', roles: ['demo'] }, AT);
  expect(plan).toEqual({ record: { name: 'Acme Ltd' }, keyPuts: [], keyRewrites: [], keyDeletes: [], audit: { action: 'client.updated', changes: { name: { from: 'Acme', to: 'Acme Ltd' } } } });
});

test('replacing the keys with one key puts the new one and deletes the others', () => {
  const plan = planUpdate(client(), { key: key(2) }, AT);
  expect(plan?.record.keys?.map((k) => k.fingerprint)).toEqual([key(2).fingerprint]);
  expect(plan?.keyPuts?.map((k) => k.fingerprint)).toEqual([key(2).fingerprint]);
  expect(plan?.keyDeletes).toEqual([key(1).fingerprint]);
  expect(plan?.audit).toMatchObject({ keysAdded: [key(2).fingerprint], keysRemoved: [key(1).fingerprint] });
});

test('add a key, then remove the old one; removing the last key is refused', () => {
  const added = planAddKey(client(), key(2), AT, NOW);
  expect(added.record.keys?.map((k) => k.fingerprint)).toEqual([key(1).fingerprint, key(2).fingerprint]);
  expect(added.audit).toEqual({ action: 'key.added', keysAdded: [key(2).fingerprint] });
  const two = { ...client(), keys: [...(added.record.keys ?? [])] };
  expect(planRemoveKey(two, key(1).fingerprint, NOW)).toMatchObject({ keyDeletes: [key(1).fingerprint], audit: { action: 'key.removed' } });
  expect(() => planRemoveKey(client(), key(1).fingerprint, NOW)).toThrow(expect.objectContaining({ code: 'last_key' }));
});

test("a key's not-after: set once is a plan, set again to the same instant is none", () => {
  const two = { ...client(), keys: [...(planAddKey(client(), key(2), AT, NOW).record.keys ?? [])] };
  const later = '2026-11-26T12:00:00.000Z';
  const plan = planKeyNotAfter(two, key(1).fingerprint, later, NOW);
  expect(plan).toMatchObject({ keyRewrites: [{ fingerprint: key(1).fingerprint, notAfter: later }], audit: { action: 'key.not_after_set', keyNotAfter: { fingerprint: key(1).fingerprint, to: later } } });
  const set = { ...two, keys: [...(plan?.record.keys ?? [])] };
  expect(planKeyNotAfter(set, key(1).fingerprint, later, NOW)).toBeUndefined();
});

test('disable and enable: a plan only when the status changes', () => {
  expect(planStatus(client(), 'active')).toBeUndefined();
  expect(planStatus(client(), 'disabled')).toEqual({ record: { status: 'disabled' }, audit: { action: 'client.disabled', changes: { status: { from: 'active', to: 'disabled' } } } });
});
