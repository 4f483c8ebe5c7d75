/**
 * DynamoClientStore against DynamoDB Local (no mocks): key ownership and optimistic concurrency
 * enforced by the database under concurrency, audit written alongside every change, rollover,
 * status, listings, auth failures and SDK error translation.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AUTH_FAILURE_TTL_S, AUTH_FAILURES_KEPT, DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';
import { SignetError, isSignetError } from '../../lambda/core/errors';
import { MAX_KEYS_PER_CLIENT } from '../../lambda/domain/key-rollover';
import { StoreRefusal } from '../../lambda/domain/store-refusal';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { isClientId } from '../../lambda/store/client-id';
import type { ClientRecord } from '../../lambda/domain/client-record';
import { ITEM, TTL_ATTRIBUTE } from '../../lambda/store/table-schema';
import { dynamoDbLocalClientConfig } from '../../local/dynamodb-local';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import { newClient, newKey, testKey } from '../support/registry-fixtures';
import { thumbprintOfKey } from '../../lambda/core/jwk-thumbprint';

let ddb: TestDynamoDb;
beforeAll(async () => {
  ddb = await startTestDynamoDb();
});
afterAll(async () => {
  await ddb?.stop();
});

const DAY_MS = 86_400_000;
const T0 = Date.parse('2026-01-05T09:30:00.000Z');

/** A store on a fresh table, with a clock the test can move. */
async function freshStore(startMs = T0): Promise<{ store: DynamoClientStore; tableName: string; clock: { ms: number } }> {
  const tableName = await ddb.createTable();
  const clock = { ms: startMs };
  return { store: new DynamoClientStore({ tableName, client: ddb.client, now: () => new Date(clock.ms), keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS }), tableName, clock };
}

async function rejection(promise: Promise<unknown>): Promise<SignetError> {
  try {
    await promise;
  } catch (error) {
    if (isSignetError(error)) return error;
    throw new Error(`expected a SignetError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected a rejection');
}

async function rawItem(tableName: string, pk: string, sk: string): Promise<Record<string, unknown> | undefined> {
  return (await ddb.doc.send(new GetCommand({ TableName: tableName, Key: { pk, sk }, ConsistentRead: true }))).Item;
}

async function create(store: DynamoClientStore, i: number, overrides: Parameters<typeof newClient>[1] = {}): Promise<ClientRecord> {
  const { record, created } = await store.createClient(newClient(i, overrides), 'c_AdminAdminAdminAdmin0A');
  expect(created).toBe(true);
  return record;
}

describe('createClient', () => {
  test('stores one record holding the key, an ownership item and an audit entry', async () => {
    const { store, tableName } = await freshStore();
    const record = await create(store, 0);

    expect(isClientId(record.clientId)).toBe(true);
    expect(record).toMatchObject({ name: 'Partner 0', status: 'active', networkWhitelist: ['0.0.0.0'], roles: ['registry:admin'], version: 1 });
    expect(record.keys).toEqual([{ fingerprint: newKey(0).fingerprint, spkiPem: newKey(0).spkiPem, addedAt: new Date(T0).toISOString(), thumbprint: thumbprintOfKey(testKey(0).publicKey) }]);
    expect(await store.getClient(record.clientId)).toEqual(record);
    expect(await store.findByFingerprint(newKey(0).fingerprint)).toEqual({ clientId: record.clientId, fingerprint: newKey(0).fingerprint, addedAt: record.createdAt });

    const audit = await store.listAudit(record.clientId);
    expect(audit.items).toHaveLength(1);
    expect(audit.items[0]).toMatchObject({ action: 'client.created', actor: 'c_AdminAdminAdminAdmin0A', version: 1, keysAdded: [newKey(0).fingerprint] });
    // The audit names the key by fingerprint only: no PEM in the trail.
    const auditItems = await ddb.doc.send(
      new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk AND begins_with(sk, :a)', ExpressionAttributeValues: { ':pk': ITEM.clientPk(record.clientId), ':a': 'AUDIT#' } }),
    );
    expect(JSON.stringify(auditItems.Items)).not.toContain('BEGIN PUBLIC KEY');
  });

  test('a key already registered: nothing written, the holder comes back with created=false', async () => {
    const { store } = await freshStore();
    const first = await create(store, 0);
    const again = await store.createClient(newClient(0, { name: 'Someone else' }), 'c_AdminAdminAdminAdmin0A');
    expect(again.created).toBe(false);
    expect(again.record).toEqual(first);
    expect((await store.listClients()).items).toHaveLength(1);
    expect((await store.listAudit(first.clientId)).items).toHaveLength(1);
  });

  test('20 concurrent creates with the same public key make exactly one client', async () => {
    const { store } = await freshStore();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.createClient(newClient(1, { name: `racer ${i}` }), 'c_AdminAdminAdminAdmin0A')));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const winner = results.find((r) => r.created)?.record as ClientRecord;
    for (const r of results) expect(r.record.clientId).toBe(winner.clientId);
    const listed = await store.listClients();
    expect(listed.items.map((c) => c.clientId)).toEqual([winner.clientId]);
    expect((await store.findByFingerprint(newKey(1).fingerprint))?.clientId).toBe(winner.clientId);
  });
});

describe('getClient', () => {
  test('answers undefined for unknown and malformed ids', async () => {
    const { store } = await freshStore();
    expect(await store.getClient('c_AAAAAAAAAAAAAAAAAAAAAA')).toBeUndefined();
    expect(await store.getClient('not an id')).toBeUndefined();
    expect(await store.getClient('c_' + 'A'.repeat(5000))).toBeUndefined();
  });
});

describe('updateClient (optimistic concurrency)', () => {
  test('applies the change, bumps the version and audits old and new values', async () => {
    const { store, clock } = await freshStore();
    const record = await create(store, 0);
    clock.ms += 1000;
    const updated = await store.updateClient(record.clientId, 1, { name: 'Renamed', networkWhitelist: ['203.0.113.7', '2001:db8::/32'] }, 'c_AdminAdminAdminAdmin0A');
    expect(updated).toMatchObject({ name: 'Renamed', networkWhitelist: ['203.0.113.7', '2001:db8::/32'], roles: ['registry:admin'], version: 2 });
    expect(updated.updatedAt).toBe(new Date(clock.ms).toISOString());
    expect(await store.getClient(record.clientId, { consistentRead: true })).toEqual(updated);
    const [latest] = (await store.listAudit(record.clientId)).items;
    expect(latest).toMatchObject({
      action: 'client.updated',
      version: 2,
      changes: { name: { from: 'Partner 0', to: 'Renamed' }, networkWhitelist: { from: ['0.0.0.0'], to: ['203.0.113.7', '2001:db8::/32'] } },
    });
    expect(latest.changes?.roles).toBeUndefined();
  });

  test('a coverage profile is stored, read back as the authorizer reads it, kept by later edits, and audited', async () => {
    const { store } = await freshStore();
    const record = await create(store, 0);
    expect(record.profile).toBeUndefined();
    const updated = await store.updateClient(record.clientId, 1, { profile: 'rfc9421' }, 'c_AdminAdminAdminAdmin0A');
    expect(updated.profile).toBe('rfc9421');
    expect((await store.getClient(record.clientId))?.profile).toBe('rfc9421');
    await store.updateClient(record.clientId, 2, { name: 'Renamed' }, 'c_AdminAdminAdminAdmin0A');
    expect((await store.getClient(record.clientId, { consistentRead: true }))?.profile).toBe('rfc9421');
    const audit = (await store.listAudit(record.clientId)).items.find((e) => e.version === 2);
    expect(audit?.changes).toEqual({ profile: { to: 'rfc9421' } });
  });

  test('a stale version is refused with version_conflict and changes nothing', async () => {
    const { store } = await freshStore();
    const record = await create(store, 0);
    await store.updateClient(record.clientId, 1, { name: 'First' }, 'a');
    const error = await rejection(store.updateClient(record.clientId, 1, { name: 'Second' }, 'b'));
    expect(error.code).toBe('version_conflict');
    expect(error.status).toBe(409);
    expect((await store.getClient(record.clientId, { consistentRead: true }))?.name).toBe('First');
  });

  test('20 concurrent edits from the same version: exactly one wins, the rest get 409, no lost update', async () => {
    const { store } = await freshStore();
    const record = await create(store, 0);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => store.updateClient(record.clientId, 1, { name: `editor ${i}`, roles: ['registry:admin'] }, `c_Editor${String(i).padStart(14, '0')}`)),
    );
    const won = results.filter((r): r is PromiseFulfilledResult<ClientRecord> => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(19);
    for (const r of lost) expect((r.reason as SignetError).code).toBe('version_conflict');

    const stored = await store.getClient(record.clientId, { consistentRead: true });
    expect(stored?.version).toBe(2);
    expect(stored?.name).toBe(won[0].value.name);
    const audit = (await store.listAudit(record.clientId)).items;
    expect(audit.filter((e) => e.action === 'client.updated')).toHaveLength(1);
    expect(audit[0].changes?.name?.to).toBe(won[0].value.name);
  });

  test('replacing the key moves ownership: the old key is released, the new one taken', async () => {
    const { store } = await freshStore();
    const record = await create(store, 0);
    const updated = await store.updateClient(record.clientId, 1, { key: newKey(2) }, 'a');
    expect(updated.keys.map((k) => k.fingerprint)).toEqual([newKey(2).fingerprint]);
    expect(await store.findByFingerprint(newKey(0).fingerprint, { consistentRead: true })).toBeUndefined();
    expect((await store.findByFingerprint(newKey(2).fingerprint, { consistentRead: true }))?.clientId).toBe(record.clientId);
    expect((await store.listAudit(record.clientId)).items[0]).toMatchObject({ keysAdded: [newKey(2).fingerprint], keysRemoved: [newKey(0).fingerprint] });
    // The released key can be registered by another client now.
    expect((await store.createClient(newClient(0), 'a')).created).toBe(true);
  });

  test('a key held by another client is refused with key_already_registered; nothing changes', async () => {
    const { store } = await freshStore();
    const a = await create(store, 0);
    const b = await create(store, 1);
    const error = await rejection(store.updateClient(a.clientId, 1, { key: newKey(1), name: 'Thief' }, 'x'));
    expect(error.code).toBe('key_already_registered');
    expect(error.message).toContain(b.clientId);
    expect(await store.getClient(a.clientId, { consistentRead: true })).toEqual(a);
    expect((await store.findByFingerprint(newKey(0).fingerprint, { consistentRead: true }))?.clientId).toBe(a.clientId);
  });

  test('an unknown client is not_found; a change equal to the record writes nothing', async () => {
    const { store } = await freshStore();
    expect((await rejection(store.updateClient('c_AAAAAAAAAAAAAAAAAAAAAA', 1, { name: 'x' }, 'a'))).code).toBe('not_found');
    const record = await create(store, 0);
    expect(await store.updateClient(record.clientId, 1, { name: record.name, key: newKey(0) }, 'a')).toEqual(record);
    expect((await store.listAudit(record.clientId)).items).toHaveLength(1);
  });
});

describe('key rollover', () => {
  test('add a key, both are held and findable; remove the old one', async () => {
    const { store, tableName } = await freshStore();
    const record = await create(store, 0);
    const rolled = await store.addKey(record.clientId, newKey(3), 'rotation');
    expect(rolled.keys.map((k) => k.fingerprint)).toEqual([newKey(0).fingerprint, newKey(3).fingerprint]);
    expect(rolled.version).toBe(2);
    expect((await store.findByFingerprint(newKey(3).fingerprint))?.clientId).toBe(record.clientId);

    const done = await store.removeKey(record.clientId, newKey(0).fingerprint, 'rotation');
    expect(done.keys.map((k) => k.fingerprint)).toEqual([newKey(3).fingerprint]);
    expect(await rawItem(tableName, ITEM.keyPk(newKey(0).fingerprint), ITEM.keySk)).toBeUndefined();
    expect((await store.listAudit(record.clientId)).items.map((e) => e.action)).toEqual(['key.removed', 'key.added', 'client.created']);
  });

  test('every key written gets a thumbprint index item naming its client, deleted with the key', async () => {
    const { store, tableName } = await freshStore();
    const record = await create(store, 0);
    const first = thumbprintOfKey(testKey(0).publicKey);
    const second = thumbprintOfKey(testKey(3).publicKey);
    expect(await rawItem(tableName, ITEM.thumbprintPk(first), ITEM.thumbprintSk)).toMatchObject({ clientId: record.clientId, fingerprint: newKey(0).fingerprint });
    await store.addKey(record.clientId, newKey(3), 'rotation');
    expect(await rawItem(tableName, ITEM.thumbprintPk(second), ITEM.thumbprintSk)).toMatchObject({ clientId: record.clientId, fingerprint: newKey(3).fingerprint });
    await store.removeKey(record.clientId, newKey(0).fingerprint, 'rotation');
    expect(await rawItem(tableName, ITEM.thumbprintPk(first), ITEM.thumbprintSk)).toBeUndefined();
    // Replacing the keys with PATCH publicKey moves the index the same way.
    const current = (await store.getClient(record.clientId))!;
    await store.updateClient(record.clientId, current.version, { key: newKey(0) }, 'a');
    expect(await rawItem(tableName, ITEM.thumbprintPk(second), ITEM.thumbprintSk)).toBeUndefined();
    expect(await rawItem(tableName, ITEM.thumbprintPk(first), ITEM.thumbprintSk)).toMatchObject({ clientId: record.clientId });
  });

  test('a thumbprint names one client: the same key under another fingerprint is key_already_registered, and nothing is written', async () => {
    const { store, tableName } = await freshStore();
    const holder = await create(store, 0);
    // Only made-up data can give one key two fingerprints: the thumbprint item still refuses it.
    const disguised = { fingerprint: 'A'.repeat(43), spkiPem: newKey(0).spkiPem };
    const created = await rejection(store.createClient(newClient(1, { key: disguised }), 'a'));
    expect(created.code).toBe('key_already_registered');
    expect(created.message).toContain(holder.clientId);
    expect(await rawItem(tableName, ITEM.keyPk(disguised.fingerprint), ITEM.keySk)).toBeUndefined();
    const other = await create(store, 3);
    const added = await rejection(store.addKey(other.clientId, disguised, 'a'));
    expect(added.code).toBe('key_already_registered');
    expect((await store.getClient(other.clientId))?.version).toBe(1);
  });

  test('a key whose thumbprint item names another client (stored before thumbprint items, another DER spelling) is removed; that item stays', async () => {
    const { store, tableName } = await freshStore();
    const record = await create(store, 0);
    await store.addKey(record.clientId, newKey(3), 'rotation');
    // As a record written before thumbprint items left it: the item of key 0's thumbprint was made
    // for another client that registered the same key later, in its canonical DER.
    const thumbprint = thumbprintOfKey(testKey(0).publicKey);
    await ddb.doc.send(new PutCommand({ TableName: tableName, Item: { pk: ITEM.thumbprintPk(thumbprint), sk: ITEM.thumbprintSk, clientId: 'c_OtherOtherOtherOther0A', fingerprint: 'B'.repeat(43) } }));

    const done = await store.removeKey(record.clientId, newKey(0).fingerprint, 'leaked');
    expect(done.keys.map((k) => k.fingerprint)).toEqual([newKey(3).fingerprint]);
    expect(await rawItem(tableName, ITEM.keyPk(newKey(0).fingerprint), ITEM.keySk)).toBeUndefined();
    expect(await rawItem(tableName, ITEM.thumbprintPk(thumbprint), ITEM.thumbprintSk)).toMatchObject({ clientId: 'c_OtherOtherOtherOther0A' });
    expect((await store.listAudit(record.clientId)).items[0]).toMatchObject({ action: 'key.removed', version: 3 });
  });

  test('the last active key cannot be removed; an unknown fingerprint is not_found', async () => {
    const { store } = await freshStore();
    const record = await create(store, 0);
    const last = await rejection(store.removeKey(record.clientId, newKey(0).fingerprint, 'a'));
    expect(last.code).toBe('last_key');
    expect(last.status).toBe(409);
    expect((await rejection(store.removeKey(record.clientId, newKey(5).fingerprint, 'a'))).code).toBe('not_found');
    // The store's refusals carry their subject as data and name no HTTP route (the registry words them).
    const missing = await rejection(store.removeKey('c_AAAAAAAAAAAAAAAAAAAAAA', newKey(0).fingerprint, 'a'));
    expect(missing).toBeInstanceOf(StoreRefusal);
    expect({ code: missing.code, data: (missing as StoreRefusal).data }).toEqual({ code: 'not_found', data: { about: 'client', clientId: 'c_AAAAAAAAAAAAAAAAAAAAAA' } });
    for (const refusal of [last, missing]) expect(refusal.message).not.toMatch(/\/registry|GET |POST /);
    expect((await store.getClient(record.clientId, { consistentRead: true }))?.keys).toHaveLength(1);
  });

  test('adding a key held here or elsewhere is key_already_registered', async () => {
    const { store } = await freshStore();
    const a = await create(store, 0);
    await create(store, 1);
    expect((await rejection(store.addKey(a.clientId, newKey(0), 'x'))).code).toBe('key_already_registered');
    expect((await rejection(store.addKey(a.clientId, newKey(1), 'x'))).code).toBe('key_already_registered');
    expect((await store.getClient(a.clientId, { consistentRead: true }))?.version).toBe(1);
  });

  test('setKeyNotAfter gives the old key a grace period; expired keys go at the next addKey', async () => {
    const { store, tableName, clock } = await freshStore();
    const record = await create(store, 0);
    await store.addKey(record.clientId, newKey(3), 'rotation');
    const graceEnd = new Date(T0 + DAY_MS).toISOString();
    const graced = await store.setKeyNotAfter(record.clientId, newKey(0).fingerprint, graceEnd, 'rotation');
    expect(graced.keys[0]).toMatchObject({ fingerprint: newKey(0).fingerprint, notAfter: graceEnd });
    expect(await rawItem(tableName, ITEM.keyPk(newKey(0).fingerprint), ITEM.keySk)).toMatchObject({ notAfter: graceEnd });
    expect((await store.listAudit(record.clientId)).items[0]).toMatchObject({ action: 'key.not_after_set', keyNotAfter: { fingerprint: newKey(0).fingerprint, to: graceEnd } });

    clock.ms = T0 + 2 * DAY_MS;
    const next = await store.addKey(record.clientId, newKey(4), 'rotation');
    expect(next.keys.map((k) => k.fingerprint)).toEqual([newKey(3).fingerprint, newKey(4).fingerprint]);
    expect(await store.findByFingerprint(newKey(0).fingerprint, { consistentRead: true })).toBeUndefined();
  });

  test('a not-after that would leave no active key is last_key; a future one is fine', async () => {
    const { store } = await freshStore();
    // A partner: an operator's keys must also last a day more (test/registry/lockout.test.ts).
    const record = await create(store, 0, { roles: ['demo'] });
    const past = new Date(T0 - 1000).toISOString();
    expect((await rejection(store.setKeyNotAfter(record.clientId, newKey(0).fingerprint, past, 'a'))).code).toBe('last_key');
    const future = new Date(T0 + DAY_MS).toISOString();
    expect((await store.setKeyNotAfter(record.clientId, newKey(0).fingerprint, future, 'a')).keys[0].notAfter).toBe(future);
    expect((await store.setKeyNotAfter(record.clientId, newKey(0).fingerprint, undefined, 'a')).keys[0].notAfter).toBeUndefined();
    expect((await rejection(store.setKeyNotAfter(record.clientId, newKey(0).fingerprint, 'tomorrow', 'a'))).code).toBe('invalid_request');
  });

  test(`a client holds at most ${MAX_KEYS_PER_CLIENT} keys`, async () => {
    const { store } = await freshStore();
    const record = await create(store, 0);
    for (let i = 1; i < MAX_KEYS_PER_CLIENT; i++) await store.addKey(record.clientId, newKey(10 + i), 'a');
    const error = await rejection(store.addKey(record.clientId, newKey(10 + MAX_KEYS_PER_CLIENT), 'a'));
    expect(error.code).toBe('invalid_request');
    expect((await store.getClient(record.clientId, { consistentRead: true }))?.keys).toHaveLength(MAX_KEYS_PER_CLIENT);
  });

  test('with an expected version, a stale one is a version_conflict', async () => {
    const { store } = await freshStore();
    const record = await create(store, 0);
    await store.addKey(record.clientId, newKey(3), 'a', 1);
    expect((await rejection(store.removeKey(record.clientId, newKey(0).fingerprint, 'a', 1))).code).toBe('version_conflict');
  });
});

describe('disable / enable', () => {
  test('flip the status with an audit entry; repeating is a no-op', async () => {
    const { store } = await freshStore();
    // (not an operator: the last active registry:admin cannot be disabled, see "the last operator")
    const record = await create(store, 0, { roles: ['demo'] });
    const disabled = await store.disable(record.clientId, 'a');
    expect(disabled).toMatchObject({ status: 'disabled', version: 2 });
    expect(await store.disable(record.clientId, 'a')).toEqual(disabled);
    const enabled = await store.enable(record.clientId, 'a', 2);
    expect(enabled).toMatchObject({ status: 'active', version: 3 });
    expect((await store.listAudit(record.clientId)).items.map((e) => [e.action, e.changes?.status])).toEqual([
      ['client.enabled', { from: 'disabled', to: 'active' }],
      ['client.disabled', { from: 'active', to: 'disabled' }],
      ['client.created', { to: 'active' }],
    ]);
    expect((await rejection(store.disable('c_AAAAAAAAAAAAAAAAAAAAAA', 'a'))).code).toBe('not_found');
  });
});

describe('listings', () => {
  test('listClients pages in creation order with an opaque cursor', async () => {
    const { store, clock } = await freshStore();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      clock.ms += 1000;
      ids.push((await create(store, i)).clientId);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await store.listClients(cursor, 2);
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((c) => c.clientId));
      cursor = page.nextCursor;
      if (cursor !== undefined) expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      pages++;
    } while (cursor !== undefined && pages < 10);
    expect(seen).toEqual(ids);
    expect(pages).toBeGreaterThanOrEqual(3);
  });

  test('a forged or foreign cursor is invalid_request', async () => {
    const { store, clock } = await freshStore();
    await create(store, 0);
    clock.ms += 1000;
    await create(store, 1);
    const auditCursor = Buffer.from(JSON.stringify({ pk: 'CLIENT#x', sk: 'AUDIT#x' })).toString('base64url');
    const keysCursor = Buffer.from(JSON.stringify({ pk: 'KEY#x', sk: 'KEY', gsi1pk: 'KEYS', gsi1sk: 'x' })).toString('base64url');
    for (const bad of ['!!!', 'eyJ', auditCursor, keysCursor, 'a'.repeat(5000)]) {
      expect((await rejection(store.listClients(bad, 1))).code).toBe('invalid_request');
    }
    const page = await store.listClients(undefined, 1);
    expect((await rejection(store.listKeysOlderThan(0, page.nextCursor))).code).toBe('invalid_request');
  });

  test('listKeysOlderThan lists keys added before the cutoff, oldest first, with their holders', async () => {
    const { store, clock } = await freshStore();
    const old = await create(store, 0);
    clock.ms = T0 + 10 * DAY_MS;
    const newer = await create(store, 1);
    await store.addKey(old.clientId, newKey(2), 'rotation');
    clock.ms = T0 + 101 * DAY_MS;

    const due = await store.listKeysOlderThan(90);
    expect(due.items).toEqual([
      { clientId: old.clientId, fingerprint: newKey(0).fingerprint, addedAt: new Date(T0).toISOString() },
      { clientId: newer.clientId, fingerprint: newKey(1).fingerprint, addedAt: new Date(T0 + 10 * DAY_MS).toISOString() },
      { clientId: old.clientId, fingerprint: newKey(2).fingerprint, addedAt: new Date(T0 + 10 * DAY_MS).toISOString() },
    ].sort((a, b) => (a.addedAt + a.fingerprint < b.addedAt + b.fingerprint ? -1 : 1)));
    expect((await store.listKeysOlderThan(95)).items.map((k) => k.fingerprint)).toEqual([newKey(0).fingerprint]);
    const first = await store.listKeysOlderThan(0, undefined, 1);
    expect(first.items).toHaveLength(1);
    const second = await store.listKeysOlderThan(0, first.nextCursor, 5);
    expect(second.items.map((k) => k.fingerprint)).not.toContain(first.items[0].fingerprint);
    expect(second.items).toHaveLength(2);
  });

  test('the audit trail pages newest first', async () => {
    const { store, clock } = await freshStore();
    const record = await create(store, 0);
    for (let i = 1; i <= 4; i++) {
      clock.ms += 1000;
      await store.updateClient(record.clientId, i, { name: `name ${i}` }, 'a');
    }
    const first = await store.listAudit(record.clientId, undefined, 3);
    const second = await store.listAudit(record.clientId, first.nextCursor, 3);
    expect([...first.items, ...second.items].map((e) => e.version)).toEqual([5, 4, 3, 2, 1]);
  });
});

/** Every item of a partition, keys and attributes (consistent read). */
async function partition(tableName: string, pk: string): Promise<Array<Record<string, unknown>>> {
  return (await ddb.doc.send(new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true }))).Items ?? [];
}

describe('auth failures', () => {
  test(`keeps the last ${AUTH_FAILURES_KEPT} per client, newest first, each with a TTL, in the failure-log partition: the client's own holds only its record and audit`, async () => {
    const { store, tableName, clock } = await freshStore();
    const record = await create(store, 0);
    for (let i = 1; i <= AUTH_FAILURES_KEPT + 5; i++) {
      clock.ms += 1000;
      expect(await store.recordAuthFailure(record.clientId, i % 2 ? 'signature_mismatch' : 'clock_skew', { message: `failure ${i}`, sourceIp: '203.0.113.7', method: 'GET', path: '/api/x' })).toBe(true);
    }
    expect(await store.countUnauthenticatedFailures(record.clientId, 'signature_mismatch', 2)).toBe(true);
    const failures = await store.listAuthFailures(record.clientId);
    expect(failures).toHaveLength(AUTH_FAILURES_KEPT);
    expect(failures[0]).toEqual({ at: new Date(clock.ms).toISOString(), reason: 'signature_mismatch', message: `failure ${AUTH_FAILURES_KEPT + 5}`, sourceIp: '203.0.113.7', method: 'GET', path: '/api/x' });
    expect(failures[AUTH_FAILURES_KEPT - 1].message).toBe('failure 6');

    const log = await partition(tableName, ITEM.failurePk(record.clientId));
    const slots = log.filter((item) => String(item.sk).startsWith(ITEM.failureSlotSkPrefix));
    expect(slots).toHaveLength(AUTH_FAILURES_KEPT);
    expect(log.map((item) => String(item.sk).replace(/#.*/, '#')).sort()).toEqual(['SEQ', ...slots.map(() => 'SLOT#'), 'UNAUTH#'].sort());
    for (const item of log.filter((i) => !String(i.sk).startsWith(ITEM.unauthenticatedFailureSkPrefix))) {
      expect(item[TTL_ATTRIBUTE]).toBeGreaterThan(Math.floor(T0 / 1000) + AUTH_FAILURE_TTL_S);
      expect(item[TTL_ATTRIBUTE]).toBeLessThanOrEqual(Math.floor(clock.ms / 1000) + AUTH_FAILURE_TTL_S);
    }
    // The counter lives as long as the last slot it numbered.
    expect(log.find((item) => item.sk === ITEM.failureCounterSk)?.[TTL_ATTRIBUTE]).toBe(Math.floor(clock.ms / 1000) + AUTH_FAILURE_TTL_S);
    // Nothing the authorizer writes lands in the client's partition: its record is as the registry wrote it.
    const own = await partition(tableName, ITEM.clientPk(record.clientId));
    expect(own.map((item) => String(item.sk).replace(/#.*/, '#')).sort()).toEqual(['AUDIT#', 'CLIENT']);
    expect(own.find((item) => item.sk === ITEM.clientSk)).not.toHaveProperty('authFailureSeq');
    expect((await store.getClient(record.clientId, { consistentRead: true }))?.version).toBe(1);

    clock.ms += (AUTH_FAILURE_TTL_S + 1) * 1000;
    expect(await store.listAuthFailures(record.clientId)).toEqual([]);
  });

  test('ids of the wrong shape get nothing written; a string detail becomes the message', async () => {
    const { store, tableName } = await freshStore();
    expect(await store.recordAuthFailure('junk', 'unknown_client')).toBe(false);
    expect(await store.countUnauthenticatedFailures('junk', 'signature_mismatch', 1)).toBe(false);
    expect(await partition(tableName, ITEM.failurePk('junk'))).toEqual([]);
    const record = await create(store, 0);
    await store.recordAuthFailure(record.clientId, 'expired', 'created is 400 s old');
    expect(await store.listAuthFailures(record.clientId)).toEqual([expect.objectContaining({ reason: 'expired', message: 'created is 400 s old' })]);
  });

  test("for one release the lists also read what the earlier layout kept in the client's partition: newer entries first, a window counted in both added up", async () => {
    const { store, tableName, clock } = await freshStore();
    const record = await create(store, 0);
    const ttl = Math.floor(clock.ms / 1000) + AUTH_FAILURE_TTL_S;
    const windowStart = new Date(Math.floor(clock.ms / 3_600_000) * 3_600_000).toISOString();
    // As the authorizer of the earlier release wrote them: a ring slot and a count under CLIENT#.
    for (const item of [
      { pk: ITEM.clientPk(record.clientId), sk: 'FAIL#00', seq: 1, at: new Date(clock.ms).toISOString(), reason: 'ip_not_allowed', message: 'before the upgrade', [TTL_ATTRIBUTE]: ttl },
      { pk: ITEM.clientPk(record.clientId), sk: `UNAUTH#${windowStart}`, windowStart, n_signature_mismatch: 4, n_clock_skew: 1, [TTL_ATTRIBUTE]: ttl },
      { pk: ITEM.clientPk(record.clientId), sk: 'UNAUTH#2026-01-05T07:00:00.000Z', windowStart: '2026-01-05T07:00:00.000Z', n_expired: 2, [TTL_ATTRIBUTE]: ttl },
    ]) {
      await ddb.doc.send(new PutCommand({ TableName: tableName, Item: item }));
    }
    clock.ms += 1000;
    await store.recordAuthFailure(record.clientId, 'role_forbidden', 'after the upgrade');
    await store.countUnauthenticatedFailures(record.clientId, 'signature_mismatch', 3);

    expect((await store.listAuthFailures(record.clientId)).map((f) => f.message)).toEqual(['after the upgrade', 'before the upgrade']);
    expect(await store.listUnauthenticatedFailures(record.clientId)).toEqual([
      { start: windowStart, counts: { signature_mismatch: 7, clock_skew: 1 } },
      { start: '2026-01-05T07:00:00.000Z', counts: { expired: 2 } },
    ]);
  });
});

describe('key last use', () => {
  test("a use is kept on the key's last-use item, never on the ownership item; a use the earlier layout kept on the ownership item shows until a later one is recorded", async () => {
    const { store, tableName, clock } = await freshStore();
    const record = await create(store, 0);
    const fingerprint = newKey(0).fingerprint;
    clock.ms += 60_000;
    const before = new Date(clock.ms).toISOString();
    // As the earlier release's authorizer wrote it: on the ownership item.
    await ddb.doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: ITEM.keyPk(fingerprint), sk: ITEM.keySk },
        UpdateExpression: 'SET lastUsedAt = :at, lastUsedBy = :by',
        ExpressionAttributeValues: { ':at': before, ':by': record.clientId },
      }),
    );
    expect(await store.keyLastUse([record])).toEqual(new Map([[fingerprint, before]]));

    clock.ms += 60_000;
    expect(await store.recordKeyUse(record.clientId, fingerprint)).toBe(true);
    expect(await store.keyLastUse([record])).toEqual(new Map([[fingerprint, new Date(clock.ms).toISOString()]]));
    expect(await rawItem(tableName, ITEM.keyUsePk(fingerprint), ITEM.keyUseSk)).toEqual({
      pk: ITEM.keyUsePk(fingerprint),
      sk: ITEM.keyUseSk,
      lastUsedAt: new Date(clock.ms).toISOString(),
      lastUsedBy: record.clientId,
    });
    expect((await rawItem(tableName, ITEM.keyPk(fingerprint), ITEM.keySk))?.lastUsedAt).toBe(before);

    // Another client's key, or a key nobody holds, gets nothing written.
    const other = await create(store, 1);
    expect(await store.recordKeyUse(other.clientId, fingerprint)).toBe(false);
    expect(await store.recordKeyUse(other.clientId, newKey(2).fingerprint)).toBe(false);
    expect(await rawItem(tableName, ITEM.keyUsePk(newKey(2).fingerprint), ITEM.keyUseSk)).toBeUndefined();
  });
});

describe('SDK errors are translated at the boundary', () => {
  test('a missing table is internal_error; an unreachable DynamoDB is dependency_unavailable', async () => {
    const missing = new DynamoClientStore({ tableName: 'no-such-table', client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
    const error = await rejection(missing.getClient('c_AAAAAAAAAAAAAAAAAAAAAA'));
    expect(error.code).toBe('internal_error');
    expect(error.cause).toBeDefined();

    const dead = new DynamoDBClient({ ...dynamoDbLocalClientConfig('http://127.0.0.1:9'), maxAttempts: 1 });
    const down = new DynamoClientStore({ tableName: 'x', client: dead, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
    for (const attempt of [down.getClient('c_AAAAAAAAAAAAAAAAAAAAAA'), down.createClient(newClient(0), 'a'), down.listClients()]) {
      const e = await rejection(attempt);
      expect(e.code).toBe('dependency_unavailable');
      expect(e.status).toBe(503);
    }
    dead.destroy();
  });
});
