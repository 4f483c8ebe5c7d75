/**
 * Accounts in DynamoClientStore against DynamoDB Local (no mocks): every client belongs to one
 * account, records written before accounts read as the default account, an account's clients are
 * listed one Query per page (with 1,000 clients in test/registry/accounts.test.ts, which shares its
 * 1,000 registrations with the registry's listing), guards run on the record a change is planned
 * from, and account items keep their own optimistic version and audit trail.
 */
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { SignetError, isSignetError } from '../../lambda/core/errors';
import { DEFAULT_ACCOUNT_ID, isAccountId } from '../../lambda/store/account-id';
import { DynamoClientStore, clientNotFound } from '../../lambda/store/client-store';
import { ITEM } from '../../lambda/store/table-schema';
import { countingClient, startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import { newClient, newKey } from '../support/registry-fixtures';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

let ddb: TestDynamoDb;
beforeAll(async () => {
  ddb = await startTestDynamoDb();
});
afterAll(async () => {
  await ddb?.stop();
});

const ADMIN = 'c_AdminAdminAdminAdmin0A';

async function freshStore(): Promise<{ store: DynamoClientStore; tableName: string }> {
  const tableName = await ddb.createTable();
  return { store: new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS }), tableName };
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

/** A store whose SDK client counts the commands it sends, by name. */
function countingStore(tableName: string): { store: DynamoClientStore; calls: string[]; destroy(): void } {
  const { client, commands } = countingClient(ddb.endpoint);
  return { store: new DynamoClientStore({ tableName, client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS }), calls: commands, destroy: () => client.destroy() };
}

/** A distinct, well-formed fingerprint for bulk records (the store takes keys as given). */
describe('clients belong to accounts', () => {
  test('a client created without an account is in the default account, listed under the legacy partition', async () => {
    const { store, tableName } = await freshStore();
    const { record } = await store.createClient(newClient(0), ADMIN);
    expect(record.accountId).toBe(DEFAULT_ACCOUNT_ID);
    const item = await rawItem(tableName, ITEM.clientPk(record.clientId), ITEM.clientSk);
    expect(item).toMatchObject({ accountId: DEFAULT_ACCOUNT_ID, gsi1pk: 'CLIENTS' });
    expect((await store.getClient(record.clientId))?.accountId).toBe(DEFAULT_ACCOUNT_ID);
  });

  test('a client created in an account carries it on its record, and is listed under that account only', async () => {
    const { store, tableName } = await freshStore();
    const a = await store.createAccount({ name: 'Acme', roleCeiling: ['demo'] }, ADMIN);
    const { record } = await store.createClient(newClient(1, { accountId: a.accountId }), ADMIN);
    expect(record.accountId).toBe(a.accountId);
    expect(await rawItem(tableName, ITEM.clientPk(record.clientId), ITEM.clientSk)).toMatchObject({ accountId: a.accountId, gsi1pk: `CLIENTS#${a.accountId}` });
    expect((await store.getClient(record.clientId, { consistentRead: true }))?.accountId).toBe(a.accountId);
    expect((await store.listClients(undefined, 50, a.accountId)).items.map((c) => c.clientId)).toEqual([record.clientId]);
    expect((await store.listClients()).items).toEqual([]);
  });

  test('a malformed account id is refused on create and lists nothing', async () => {
    const { store } = await freshStore();
    expect((await rejection(store.createClient(newClient(2, { accountId: 'acme' }), ADMIN))).code).toBe('invalid_request');
    expect(await store.listClients(undefined, 50, 'CLIENTS')).toEqual({ items: [] });
  });

  test('a record written before accounts existed (no accountId) reads as, and lists in, the default account', async () => {
    const { store, tableName } = await freshStore();
    const key = newKey(3);
    const clientId = 'c_LegacyLegacyLegacyLeg0';
    // Exactly the item the store wrote before accounts (no accountId attribute).
    await ddb.doc.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          pk: ITEM.clientPk(clientId),
          sk: ITEM.clientSk,
          gsi1pk: 'CLIENTS',
          gsi1sk: `2025-12-01T00:00:00.000Z#${clientId}`,
          type: 'client',
          clientId,
          name: 'Old partner',
          status: 'active',
          networkWhitelist: ['0.0.0.0'],
          roles: ['demo'],
          keys: [{ fingerprint: key.fingerprint, spkiPem: key.spkiPem, addedAt: '2025-12-01T00:00:00.000Z' }],
          version: 1,
          createdAt: '2025-12-01T00:00:00.000Z',
          updatedAt: '2025-12-01T00:00:00.000Z',
        },
      }),
    );
    expect((await store.getClient(clientId))?.accountId).toBe(DEFAULT_ACCOUNT_ID);
    expect((await store.listClients()).items).toEqual([expect.objectContaining({ clientId, accountId: DEFAULT_ACCOUNT_ID })]);
    // A change keeps it in the default account, and its audit entry says so.
    const updated = await store.updateClient(clientId, 1, { name: 'Renamed' }, ADMIN);
    expect(updated.accountId).toBe(DEFAULT_ACCOUNT_ID);
    expect((await store.listAudit(clientId)).items[0]).toMatchObject({ accountId: DEFAULT_ACCOUNT_ID, action: 'client.updated' });
  });

  test('the audit trail records the client\'s account, the acting client and the actor\'s account', async () => {
    const { store } = await freshStore();
    const a = await store.createAccount({ name: 'Acme', roleCeiling: ['demo'] }, ADMIN);
    const actor = { clientId: 'c_AcmeAdminAcmeAdminAc0A', accountId: a.accountId };
    const { record } = await store.createClient(newClient(4, { accountId: a.accountId, roles: ['demo'] }), actor);
    await store.disable(record.clientId, actor);
    await store.enable(record.clientId, ADMIN);
    const entries = (await store.listAudit(record.clientId)).items;
    expect(entries.map((e) => [e.action, e.accountId, e.actor, e.actorAccountId])).toEqual([
      ['client.enabled', a.accountId, ADMIN, undefined],
      ['client.disabled', a.accountId, actor.clientId, a.accountId],
      ['client.created', a.accountId, actor.clientId, a.accountId],
    ]);
  });
});

describe('listing one account', () => {
  test('a cursor from one account\'s listing is refused by another\'s (it cannot widen a listing)', async () => {
    const { store } = await freshStore();
    const a = await store.createAccount({ name: 'A', roleCeiling: [] }, ADMIN);
    const b = await store.createAccount({ name: 'B', roleCeiling: [] }, ADMIN);
    for (const i of [10, 11]) await store.createClient(newClient(i, { accountId: a.accountId }), ADMIN);
    await store.createClient(newClient(12, { accountId: b.accountId }), ADMIN);
    const page = await store.listClients(undefined, 1, a.accountId);
    expect(page.nextCursor).toBeDefined();
    expect((await rejection(store.listClients(page.nextCursor, 1, b.accountId))).code).toBe('invalid_request');
    expect((await rejection(store.listClients(page.nextCursor, 1))).code).toBe('invalid_request');
    expect((await store.listClients(page.nextCursor, 1, a.accountId)).items).toHaveLength(1);
  });
});

describe('guards on changes', () => {
  test('a guard runs on the record before its version is compared: a refused caller learns nothing, nothing is written', async () => {
    const { store } = await freshStore();
    const { record } = await store.createClient(newClient(13), ADMIN);
    const guard = (current: { clientId: string }) => {
      throw clientNotFound(current.clientId);
    };
    for (const change of [
      store.updateClient(record.clientId, 99, { name: 'x' }, ADMIN, { guard }),
      store.addKey(record.clientId, newKey(14), ADMIN, 99, { guard }),
      store.removeKey(record.clientId, record.keys[0].fingerprint, ADMIN, 99, { guard }),
      store.disable(record.clientId, ADMIN, 99, { guard }),
      store.enable(record.clientId, ADMIN, undefined, { guard }),
    ]) {
      const error = await rejection(change);
      expect({ code: error.code, message: error.message }).toEqual({ code: 'not_found', message: clientNotFound(record.clientId).message });
    }
    expect(await store.getClient(record.clientId, { consistentRead: true })).toEqual(record);
    expect((await store.listAudit(record.clientId)).items).toHaveLength(1);
    expect(await store.findByFingerprint(newKey(14).fingerprint, { consistentRead: true })).toBeUndefined();
  });

  test('a guard that passes lets the change through, and sees the current record', async () => {
    const { store } = await freshStore();
    const { record } = await store.createClient(newClient(15), ADMIN);
    const seen: number[] = [];
    const updated = await store.updateClient(record.clientId, 1, { name: 'Renamed' }, ADMIN, { guard: (c) => void seen.push(c.version) });
    expect(updated).toMatchObject({ name: 'Renamed', version: 2 });
    expect(seen).toEqual([1]);
  });
});

describe('accounts', () => {
  test('createAccount: a fresh id, version 1, the ceiling kept, an audit entry alongside', async () => {
    const { store, tableName } = await freshStore();
    const account = await store.createAccount({ name: 'Acme', roleCeiling: ['demo', 'account:admin'] }, { clientId: ADMIN, accountId: DEFAULT_ACCOUNT_ID });
    expect(isAccountId(account.accountId)).toBe(true);
    expect(account.accountId).not.toBe(DEFAULT_ACCOUNT_ID);
    expect(account).toMatchObject({ name: 'Acme', roleCeiling: ['demo', 'account:admin'], version: 1 });
    expect(await store.getAccount(account.accountId)).toEqual(account);
    const audit = (await ddb.doc.send(new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': ITEM.accountPk(account.accountId) } }))).Items ?? [];
    expect(audit.map((i) => i.sk)).toEqual(['ACCOUNT', 'AUDIT#000000000001']);
    expect((await store.listAccountAudit(account.accountId)).items).toEqual([
      expect.objectContaining({ action: 'account.created', accountId: account.accountId, actor: ADMIN, actorAccountId: DEFAULT_ACCOUNT_ID, version: 1 }),
    ]);
  });

  test('getAccount: unknown and malformed ids are undefined; the default account exists built-in until edited', async () => {
    const { store, tableName } = await freshStore();
    expect(await store.getAccount('acct_AAAAAAAAAAAAAAAAAAAAAA')).toBeUndefined();
    expect(await store.getAccount('not-an-account')).toBeUndefined();
    expect(await store.getAccount(DEFAULT_ACCOUNT_ID)).toMatchObject({ accountId: DEFAULT_ACCOUNT_ID, roleCeiling: [], version: 0 });
    expect(await rawItem(tableName, ITEM.accountPk(DEFAULT_ACCOUNT_ID), ITEM.accountSk)).toBeUndefined();

    const edited = await store.updateAccount(DEFAULT_ACCOUNT_ID, 0, { roleCeiling: ['demo'] }, ADMIN);
    expect(edited).toMatchObject({ accountId: DEFAULT_ACCOUNT_ID, roleCeiling: ['demo'], version: 1 });
    expect(await store.getAccount(DEFAULT_ACCOUNT_ID, { consistentRead: true })).toEqual(edited);
    // A second "first edit" from version 0 loses: the item exists now.
    expect((await rejection(store.updateAccount(DEFAULT_ACCOUNT_ID, 0, { name: 'x' }, ADMIN))).code).toBe('version_conflict');
  });

  test('updateAccount: optimistic versions, 10 concurrent edits from one version -> exactly one wins, audit per change', async () => {
    const { store } = await freshStore();
    const account = await store.createAccount({ name: 'Acme', roleCeiling: [] }, ADMIN);
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => store.updateAccount(account.accountId, 1, { name: `Acme ${i}` }, ADMIN)));
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) expect((r.reason as SignetError).code).toBe('version_conflict');
    const latest = await store.getAccount(account.accountId, { consistentRead: true });
    expect(latest?.version).toBe(2);
    expect(latest?.name).toBe((won[0] as PromiseFulfilledResult<{ name: string }>).value.name);
    expect((await store.listAccountAudit(account.accountId)).items.map((e) => [e.action, e.version])).toEqual([
      ['account.updated', 2],
      ['account.created', 1],
    ]);
    // No change: nothing written, same version.
    expect((await store.updateAccount(account.accountId, 2, { name: latest?.name }, ADMIN)).version).toBe(2);
    expect((await rejection(store.updateAccount('acct_BBBBBBBBBBBBBBBBBBBBBB', 1, { name: 'x' }, ADMIN))).code).toBe('not_found');
  });

  test("listAccountAudit: the account's own changes and every change to its clients, newest first, paged by one Query and one BatchGetItem per page; no other account's", async () => {
    const { store, tableName } = await freshStore();
    let ms = Date.parse('2026-03-01T00:00:00.000Z');
    // A clock that moves 1 s per change, so "newest first" is checked, not assumed.
    const clocked = new DynamoClientStore({ tableName, client: ddb.client, now: () => new Date((ms += 1_000)), keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
    const account = await clocked.createAccount({ name: 'Acme', roleCeiling: ['demo'] }, ADMIN);
    const other = await clocked.createAccount({ name: 'Other', roleCeiling: ['demo'] }, ADMIN);
    const { record } = await clocked.createClient(newClient(0, { accountId: account.accountId }), ADMIN);
    await clocked.createClient(newClient(1, { accountId: other.accountId }), ADMIN);
    await clocked.addKey(record.clientId, newKey(2), ADMIN);
    await clocked.updateClient(record.clientId, 2, { name: 'Acme orders' }, ADMIN);
    await clocked.updateAccount(account.accountId, 1, { roleCeiling: ['demo', 'account:admin'] }, ADMIN);
    await clocked.disable(record.clientId, ADMIN);

    const whole = (await store.listAccountAudit(account.accountId)).items;
    expect(whole.map((e) => [e.action, 'clientId' in e ? e.clientId : e.accountId, e.version])).toEqual([
      ['client.disabled', record.clientId, 4],
      ['account.updated', account.accountId, 2],
      ['client.updated', record.clientId, 3],
      ['key.added', record.clientId, 2],
      ['client.created', record.clientId, 1],
      ['account.created', account.accountId, 1],
    ]);
    expect(whole[2]).toEqual(expect.objectContaining({ actor: ADMIN, accountId: account.accountId, at: expect.any(String), changes: { name: { from: record.name, to: 'Acme orders' } } }));
    expect(whole.every((e) => e.accountId === account.accountId)).toBe(true);

    const { store: counted, calls, destroy } = countingStore(tableName);
    try {
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = await counted.listAccountAudit(account.accountId, cursor, 4);
        pages.push(page.items.map((e) => e.action));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect(pages.flat()).toEqual(whole.map((e) => e.action));
      expect(pages[0]).toHaveLength(4);
      expect(calls.filter((c) => c !== 'QueryCommand' && c !== 'BatchGetItemCommand')).toEqual([]);
      expect(calls.filter((c) => c === 'QueryCommand')).toHaveLength(pages.length);
    } finally {
      destroy();
    }
    // A cursor of one account's trail does not open another's.
    const firstPage = await store.listAccountAudit(account.accountId, undefined, 1);
    expect((await rejection(store.listAccountAudit(other.accountId, firstPage.nextCursor))).code).toBe('invalid_request');
    expect((await store.listAccountAudit(other.accountId)).items.map((e) => e.action)).toEqual(['client.created', 'account.created']);
  });

  test('listAccounts: the default account first (built-in or stored, never twice), pages of at most `limit`', async () => {
    const { store } = await freshStore();
    const created = [];
    for (const name of ['A', 'B', 'C']) created.push(await store.createAccount({ name, roleCeiling: ['demo'] }, ADMIN));
    const walk = async (limit: number): Promise<string[][]> => {
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listAccounts(cursor, limit);
        expect(page.items.length).toBeLessThanOrEqual(limit);
        pages.push(page.items.map((a) => a.accountId));
        cursor = page.nextCursor;
      } while (cursor !== undefined && pages.length < 10);
      return pages;
    };
    const ids = created.map((a) => a.accountId);
    expect((await walk(2)).flat()).toEqual([DEFAULT_ACCOUNT_ID, ...ids]);
    expect((await walk(2))[0]).toEqual([DEFAULT_ACCOUNT_ID, ids[0]]);
    // Pages of one: the built-in default account alone first, then each stored one (DynamoDB may end with an empty page).
    expect((await walk(1)).flat()).toEqual([DEFAULT_ACCOUNT_ID, ...ids]);
    expect((await store.listAccounts(undefined, 50)).items[1]).toMatchObject({ name: 'A', roleCeiling: ['demo'], version: 1 });

    await store.updateAccount(DEFAULT_ACCOUNT_ID, 0, { name: 'Operators' }, ADMIN);
    expect((await walk(3)).flat()).toEqual([DEFAULT_ACCOUNT_ID, ...ids]);
    expect((await store.listAccounts()).items[0]).toMatchObject({ accountId: DEFAULT_ACCOUNT_ID, name: 'Operators', version: 1 });
  });
});
