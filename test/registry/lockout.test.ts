/**
 * Nobody locks the registry's administrators out, against DynamoDB Local:
 *
 * - `self_lockout` (409): a caller may not disable its own client, nor take `registry:admin`
 *   (or `account:admin`) from it;
 * - `last_admin` (409): no change (disable, role removed) may leave the registry without an
 *   active client holding `registry:admin`, and this holds under concurrency: two operators
 *   disabling each other at once cannot both succeed (a condition on the admin roster item in
 *   the same DynamoDB transaction, not a read-then-write);
 * - a table written before the roster existed gets it built from its client lists on first need.
 *
 * Also: an operator counts only while it holds a key valid for 24 hours more, so
 * the last one cannot strand the registry by keeping only a key about to expire; and a caller
 * cannot give its own client a whitelist that refuses the address it calls from.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_ROLE_CATALOGUE } from '../../lambda/config-env';
import { ACCOUNT_ADMIN_ROLE, DEFAULT_KEY_SOURCE_KEEP_DAYS, REGISTRY_ADMIN_ROLE } from '../../lambda/core/defaults';
import { SignetError } from '../../lambda/core/errors';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { createRegistryHandler, type RegistryHandler } from '../../lambda/registry/registry-handler';
import { DynamoClientStore } from '../../lambda/store/client-store';
import type { DynamoClientStoreOptions } from '../../lambda/store/dynamo-table';
import { loadConfig } from '../../lambda/config';
import { createRegistry } from '../../lambda/registry/create-registry';
import type { ClientRecord } from '../../lambda/domain/client-record';
import { ITEM, PARTITION_KEY, SORT_KEY } from '../../lambda/store/table-schema';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import { type CallOptions, checkAgainstDocument, httpApiEvent } from '../support/registry-harness';
import { newClient, spkiPem, testKey } from '../support/registry-fixtures';
import { refusal } from '../core/helpers';
import { loadRegistryOpenApi } from '../support/registry-openapi';

const doc = loadRegistryOpenApi();
const roles = compileRoleCatalogue({ ...DEFAULT_ROLE_CATALOGUE, demo: ['* /api/*'] });
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

let ddb: TestDynamoDb;
let keyIndex = 0;

beforeAll(async () => {
  ddb = await startTestDynamoDb();
});

afterAll(async () => {
  await ddb?.stop();
});

interface Fixture {
  readonly store: DynamoClientStore;
  readonly tableName: string;
  readonly handler: RegistryHandler;
}

/** A registry on a fresh table; `options` reach the store (its clock, the keep bound of published keys). */
async function fresh(options: Partial<Pick<DynamoClientStoreOptions, 'now' | 'keySourceKeepDays'>> = {}): Promise<Fixture> {
  const tableName = await ddb.createTable();
  const store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS, ...options });
  return { store, tableName, handler: createRegistryHandler({ store, roles, logger: silent }) };
}

/** A client with `clientRoles`, each with a key of its own (the pool holds 2048-bit keys; they are reused across tables). */
async function client(store: DynamoClientStore, clientRoles: string[], accountId?: string): Promise<ClientRecord> {
  const i = keyIndex++ % 12;
  const { record, created } = await store.createClient(newClient(i, { roles: clientRoles, ...(accountId === undefined ? {} : { accountId }) }), 'test-setup');
  expect(created).toBe(true);
  return record;
}

/** Active clients holding registry:admin, read back consistently. */
async function activeAdmins(store: DynamoClientStore, ids: readonly string[]): Promise<string[]> {
  const records = await Promise.all(ids.map((id) => store.getClient(id, { consistentRead: true })));
  return records.filter((r) => r !== undefined && r.status === 'active' && r.roles.includes(REGISTRY_ADMIN_ROLE)).map((r) => (r as ClientRecord).clientId);
}

/** Calls the registry as `actor` (with its roles and account in the authorizer context, and the profile that admitted the call when given). */
async function call(fixture: Fixture, actor: ClientRecord, options: CallOptions, admittedUnder?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const event = httpApiEvent(options);
  const context = (event.requestContext as unknown as { authorizer: { lambda: Record<string, unknown> } }).authorizer.lambda;
  Object.assign(context, { clientId: actor.clientId, roles: actor.roles.join(','), accountId: actor.accountId, ...(admittedUnder === undefined ? {} : { signetProfile: admittedUnder }) });
  const result = await fixture.handler(event, { awsRequestId: 'lockout' });
  const body = JSON.parse(result.body) as Record<string, unknown>;
  expect(checkAgainstDocument(doc, options, result.statusCode, body)).toEqual([]);
  return { status: result.statusCode, body };
}

function expectRefusal(answer: { status: number; body: Record<string, unknown> }, code: string, sentence: RegExp): void {
  expect({ status: answer.status, error: answer.body.error }).toEqual({ status: 409, error: code });
  expect(answer.body.message).toMatch(sentence);
}

describe('self_lockout: a caller does not lock itself out', () => {
  test('an operator cannot disable its own client, nor remove registry:admin from it; another operator can', async () => {
    const f = await fresh();
    const me = await client(f.store, [REGISTRY_ADMIN_ROLE]);
    const other = await client(f.store, [REGISTRY_ADMIN_ROLE]);

    expectRefusal(await call(f, me, { method: 'POST', path: `/registry/clients/${me.clientId}/disable`, body: { version: 1 } }), 'self_lockout', /another administrator/);
    expectRefusal(await call(f, me, { method: 'PATCH', path: `/registry/clients/${me.clientId}`, body: { version: 1, roles: ['demo'] } }), 'self_lockout', /Give the role to another client first/);
    expect(await f.store.getClient(me.clientId, { consistentRead: true })).toMatchObject({ status: 'active', roles: [REGISTRY_ADMIN_ROLE], version: 1 });

    // Edits of its own client that keep its access are fine.
    const renamed = await call(f, me, { method: 'PATCH', path: `/registry/clients/${me.clientId}`, body: { version: 1, name: 'Me', roles: [REGISTRY_ADMIN_ROLE, 'demo'] } });
    expect(renamed.status).toBe(200);
    // The other operator may do what the client could not do to itself.
    expect((await call(f, other, { method: 'POST', path: `/registry/clients/${me.clientId}/disable`, body: { version: 2 } })).status).toBe(200);
  });

  test('an account admin cannot disable itself nor drop its own account:admin', async () => {
    const f = await fresh();
    await client(f.store, [REGISTRY_ADMIN_ROLE]);
    const account = await f.store.createAccount({ name: 'Hooli', roleCeiling: ['demo', ACCOUNT_ADMIN_ROLE] }, 'test-setup');
    const admin = await client(f.store, [ACCOUNT_ADMIN_ROLE], account.accountId);
    expectRefusal(await call(f, admin, { method: 'POST', path: `/registry/clients/${admin.clientId}/disable` }), 'self_lockout', /lock yourself out/);
    expectRefusal(await call(f, admin, { method: 'PATCH', path: `/registry/clients/${admin.clientId}`, body: { version: 1, roles: ['demo'] } }), 'self_lockout', /account:admin/);
    expect((await f.store.getClient(admin.clientId, { consistentRead: true }))?.version).toBe(1);
  });
});

describe('last_admin: the registry keeps an active operator', () => {
  test('disabling the last active operator, or removing its role, is refused with a sentence; with a second one it works', async () => {
    const f = await fresh();
    const a = await client(f.store, [REGISTRY_ADMIN_ROLE]);
    const b = await client(f.store, [REGISTRY_ADMIN_ROLE]);
    const partner = await client(f.store, ['demo']);

    expect((await call(f, a, { method: 'POST', path: `/registry/clients/${b.clientId}/disable` })).status).toBe(200);
    // `a` is now the only active operator: an automation client (not `a` itself) cannot take it away.
    const asOperator = { ...partner, roles: [REGISTRY_ADMIN_ROLE] };
    expectRefusal(await call(f, asOperator, { method: 'POST', path: `/registry/clients/${a.clientId}/disable` }), 'last_admin', /Give registry:admin to another client/);
    expectRefusal(await call(f, asOperator, { method: 'PATCH', path: `/registry/clients/${a.clientId}`, body: { version: 1, roles: ['demo'] } }), 'last_admin', /nobody can administer/);
    expect(await f.store.getClient(a.clientId, { consistentRead: true })).toMatchObject({ status: 'active', roles: [REGISTRY_ADMIN_ROLE], version: 1 });
    expect((await f.store.listAudit(a.clientId)).items).toHaveLength(1);

    // Enabling b again (or giving the role to another client) makes room.
    expect((await call(f, a, { method: 'POST', path: `/registry/clients/${b.clientId}/enable` })).status).toBe(200);
    expect((await call(f, asOperator, { method: 'PATCH', path: `/registry/clients/${a.clientId}`, body: { version: 1, roles: ['demo'] } })).status).toBe(200);
    expect(await activeAdmins(f.store, [a.clientId, b.clientId, partner.clientId])).toEqual([b.clientId]);
    await f.store.updateClient(partner.clientId, 1, { roles: [REGISTRY_ADMIN_ROLE] }, 'test');
    await f.store.disable(b.clientId, 'test');
    expect((await refusal(f.store.disable(partner.clientId, 'test'))).code).toBe('last_admin');
  });

  test('two operators disabling each other at the same moment: exactly one succeeds (10 rounds)', async () => {
    for (let round = 0; round < 10; round++) {
      const f = await fresh();
      const a = await client(f.store, [REGISTRY_ADMIN_ROLE]);
      const b = await client(f.store, [REGISTRY_ADMIN_ROLE]);
      const outcomes = await Promise.allSettled([
        call(f, a, { method: 'POST', path: `/registry/clients/${b.clientId}/disable` }),
        call(f, b, { method: 'POST', path: `/registry/clients/${a.clientId}/disable` }),
      ]);
      const statuses = outcomes.map((o) => (o.status === 'fulfilled' ? `${o.value.status} ${String(o.value.body.error ?? '')}`.trim() : 'threw'));
      expect(statuses.sort()).toEqual(['200', '409 last_admin']);
      expect(await activeAdmins(f.store, [a.clientId, b.clientId])).toHaveLength(1);
    }
  });

  test('five operators disabled at once, and a role removal racing a disable: one operator always stays', async () => {
    const f = await fresh();
    const admins = await Promise.all(Array.from({ length: 5 }, () => client(f.store, [REGISTRY_ADMIN_ROLE])));
    const ids = admins.map((r) => r.clientId);
    const outcomes = await Promise.allSettled(ids.map((id) => f.store.disable(id, 'test')));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(4);
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => ((o as PromiseRejectedResult).reason as SignetError).code)).toEqual(['last_admin']);
    expect(await activeAdmins(f.store, ids)).toHaveLength(1);

    const g = await fresh();
    const x = await client(g.store, [REGISTRY_ADMIN_ROLE]);
    const y = await client(g.store, [REGISTRY_ADMIN_ROLE]);
    const race = await Promise.allSettled([g.store.updateClient(x.clientId, 1, { roles: ['demo'] }, 'test'), g.store.disable(y.clientId, 'test')]);
    expect(race.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(await activeAdmins(g.store, [x.clientId, y.clientId])).toHaveLength(1);
  });

  test('a table from before the roster: it is built from every account\'s clients when first needed', async () => {
    const f = await fresh();
    const account = await f.store.createAccount({ name: 'Ops elsewhere', roleCeiling: [] }, 'test-setup');
    const a = await client(f.store, [REGISTRY_ADMIN_ROLE]);
    const b = await client(f.store, [REGISTRY_ADMIN_ROLE], account.accountId);
    const disabledAdmin = await client(f.store, [REGISTRY_ADMIN_ROLE]);
    await f.store.disable(disabledAdmin.clientId, 'test');
    // Forget the roster, as a table written by an older Signet has none.
    await ddb.doc.send(new DeleteCommand({ TableName: f.tableName, Key: { [PARTITION_KEY]: ITEM.adminRosterPk, [SORT_KEY]: ITEM.adminRosterSk } }));
    await f.store.disable(a.clientId, 'test');
    expect((await refusal(f.store.disable(b.clientId, 'test'))).code).toBe('last_admin');
    expect(await activeAdmins(f.store, [a.clientId, b.clientId, disabledAdmin.clientId])).toEqual([b.clientId]);
  });
});

describe('last_admin through keys: the last operator keeps a key that lasts', () => {
  const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

  test('adding a key that expires in a minute and removing the lasting one is refused; the sentence says what to do', async () => {
    const f = await fresh();
    const a = await client(f.store, [REGISTRY_ADMIN_ROLE]);
    const lasting = a.keys[0].fingerprint;
    const shortKey = testKey(40);
    const added = await call(f, a, { method: 'POST', path: `/registry/clients/${a.clientId}/keys`, body: { publicKey: spkiPem(shortKey), notAfter: inMinutes(1) } });
    expect(added.status).toBe(201);
    const removal = await call(f, a, { method: 'DELETE', path: `/registry/clients/${a.clientId}/keys/${lasting}` });
    expectRefusal(removal, 'last_admin', /leave it only keys that expire within 24 hours.*add a key that lasts longer/);
    expect((await f.store.getClient(a.clientId, { consistentRead: true }))?.keys.map((k) => k.fingerprint)).toContain(lasting);
    // Cutting the lasting key short is the same loss.
    expect((await refusal(f.store.setKeyNotAfter(a.clientId, lasting, inMinutes(60), 'test'))).code).toBe('last_admin');
    // Replacing the keys by one without an end is fine.
    const replaced = await call(f, a, { method: 'PATCH', path: `/registry/clients/${a.clientId}`, body: { version: 2, publicKey: spkiPem(testKey(41)) } });
    expect(replaced.status).toBe(200);
  });

  test('with a second operator that can sign for long, the same removal works; with one whose only key is about to expire, it does not', async () => {
    const f = await fresh();
    const a = await client(f.store, [REGISTRY_ADMIN_ROLE]);
    const b = await client(f.store, [REGISTRY_ADMIN_ROLE]);
    // b's only key ends in an hour: b does not count.
    const bShort = testKey(42);
    await f.store.addKey(b.clientId, { fingerprint: bShort.fingerprint, spkiPem: spkiPem(bShort), notAfter: inMinutes(60) }, 'test');
    await f.store.removeKey(b.clientId, b.keys[0].fingerprint, 'test');
    await f.store.addKey(a.clientId, { fingerprint: testKey(43).fingerprint, spkiPem: spkiPem(testKey(43)), notAfter: inMinutes(1) }, 'test');
    expect((await refusal(f.store.removeKey(a.clientId, a.keys[0].fingerprint, 'test'))).code).toBe('last_admin');
    // b gets a lasting key: now a may go down to its short one.
    await f.store.addKey(b.clientId, { fingerprint: testKey(44).fingerprint, spkiPem: spkiPem(testKey(44)) }, 'test');
    await f.store.removeKey(a.clientId, a.keys[0].fingerprint, 'test');
    expect((await f.store.getClient(a.clientId, { consistentRead: true }))?.keys).toHaveLength(1);
  });

  test('two operators each dropping their lasting key at the same moment: exactly one succeeds (5 rounds)', async () => {
    for (let round = 0; round < 5; round++) {
      const f = await fresh();
      const [a, b] = [await client(f.store, [REGISTRY_ADMIN_ROLE]), await client(f.store, [REGISTRY_ADMIN_ROLE])];
      await f.store.addKey(a.clientId, { fingerprint: testKey(45).fingerprint, spkiPem: spkiPem(testKey(45)), notAfter: inMinutes(5) }, 'test');
      await f.store.addKey(b.clientId, { fingerprint: testKey(46).fingerprint, spkiPem: spkiPem(testKey(46)), notAfter: inMinutes(5) }, 'test');
      const outcomes = await Promise.allSettled([f.store.removeKey(a.clientId, a.keys[0].fingerprint, 'test'), f.store.removeKey(b.clientId, b.keys[0].fingerprint, 'test')]);
      const codes = outcomes.map((o) => (o.status === 'fulfilled' ? 'ok' : ((o as PromiseRejectedResult).reason as SignetError).code)).sort();
      expect(codes).toEqual(['last_admin', 'ok']);
    }
  });
});

describe('last_admin counts only operators whose keys the authorizer verifies', () => {
  const NOW = Date.parse('2026-06-01T12:00:00Z');
  const DAY_MS = 86_400_000;
  const iso = (ms: number) => new Date(ms).toISOString();

  /** An operator whose only key comes from a key source, last fetched successfully at `fetchedAtMs`. */
  async function publishedOperator(store: DynamoClientStore, keyIndex: number, fetchedAtMs: number, expiresMs?: number): Promise<ClientRecord> {
    const key = testKey(keyIndex);
    const source = { jwksUri: `https://agent-${keyIndex}.example/jwks.json` };
    const fetchedAt = iso(fetchedAtMs);
    const stored = { fingerprint: key.fingerprint, spkiPem: spkiPem(key), addedAt: fetchedAt, published: true as const, ...(expiresMs === undefined ? {} : { expires: iso(expiresMs) }) };
    const status = { clientId: '', url: source.jwksUri, lastFetchAt: fetchedAt, nextFetchAt: iso(fetchedAtMs + 3_600_000), lastSuccessAt: fetchedAt, consecutiveFailures: 0 };
    const { record, created } = await store.createClient({ name: 'Published operator', networkWhitelist: ['0.0.0.0'], roles: [REGISTRY_ADMIN_ROLE], published: { source, keys: [stored], fetchedAt, status } }, 'test-setup');
    expect(created).toBe(true);
    return record;
  }

  test('an operator whose published key passed its exp 20 days ago and was last fetched 30 days ago does not count: cutting the other operator\'s only key to an hour is refused', async () => {
    const f = await fresh({ now: () => new Date(NOW) });
    const o1 = await client(f.store, [REGISTRY_ADMIN_ROLE]);
    await publishedOperator(f.store, 47, NOW - 30 * DAY_MS, NOW - 20 * DAY_MS);
    const refused = await refusal(f.store.setKeyNotAfter(o1.clientId, o1.keys[0].fingerprint, iso(NOW + 3_600_000), 'test'));
    expect(refused.code).toBe('last_admin');
    expect(refused.message).toMatch(/leave it only keys that expire within 24 hours/);
    expect((await f.store.getClient(o1.clientId, { consistentRead: true }))?.keys[0].notAfter).toBeUndefined();
  });

  test('the keep bound is the deployment\'s: an operator whose published key (no exp) was fetched 30 days ago counts with 60 days, not with the default 7', async () => {
    const short = await fresh({ now: () => new Date(NOW) });
    const a = await client(short.store, [REGISTRY_ADMIN_ROLE]);
    await publishedOperator(short.store, 48, NOW - 30 * DAY_MS);
    expect((await refusal(short.store.setKeyNotAfter(a.clientId, a.keys[0].fingerprint, iso(NOW + 3_600_000), 'test'))).code).toBe('last_admin');

    const long = await fresh({ now: () => new Date(NOW), keySourceKeepDays: 60 });
    const b = await client(long.store, [REGISTRY_ADMIN_ROLE]);
    await publishedOperator(long.store, 48, NOW - 30 * DAY_MS);
    expect((await long.store.setKeyNotAfter(b.clientId, b.keys[0].fingerprint, iso(NOW + 3_600_000), 'test')).keys[0].notAfter).toBe(iso(NOW + 3_600_000));
  });

  test('the registry built from the configuration passes SIGNET_KEY_SOURCE_KEEP_DAYS to its store: removing the last lasting key is allowed or refused by it', async () => {
    const now = Date.now();
    for (const [keepDays, expected] of [['60', 200], ['7', 409]] as const) {
      const tableName = await ddb.createTable();
      const config = loadConfig({ SIGNET_TABLE_NAME: tableName, SIGNET_DYNAMODB_ENDPOINT: ddb.endpoint, SIGNET_KEY_SOURCE_KEEP_DAYS: keepDays, AWS_REGION: 'us-east-1' });
      const f: Fixture = { store: new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS }), tableName, handler: createRegistry(config, { doc: ddb.doc, logger: new Logger({ serviceName: 'test', logLevel: 'SILENT' }) }) };
      const a = await client(f.store, [REGISTRY_ADMIN_ROLE]);
      await publishedOperator(f.store, 49, now - 30 * DAY_MS);
      await f.store.addKey(a.clientId, { fingerprint: testKey(50).fingerprint, spkiPem: spkiPem(testKey(50)), notAfter: iso(now + 3_600_000) }, 'test');
      const removal = await call(f, a, { method: 'DELETE', path: `/registry/clients/${a.clientId}/keys/${a.keys[0].fingerprint}` });
      expect({ keepDays, status: removal.status, error: removal.body.error }).toEqual({ keepDays, status: expected, error: expected === 409 ? 'last_admin' : undefined });
    }
  });
});

describe('self_lockout through the whitelist', () => {
  test('a caller cannot give its own client a whitelist that refuses the address it calls from; one that admits it, or another client\'s, is fine', async () => {
    const f = await fresh();
    const me = await client(f.store, [REGISTRY_ADMIN_ROLE]);
    await client(f.store, [REGISTRY_ADMIN_ROLE]);
    const partner = await client(f.store, ['demo']);
    // The harness calls from 203.0.113.7.
    const refused = await call(f, me, { method: 'PATCH', path: `/registry/clients/${me.clientId}`, body: { version: 1, networkWhitelist: ['198.51.100.0/24'] } });
    expectRefusal(refused, 'self_lockout', /does not admit 203\.0\.113\.7, the address this request came from.*Include 203\.0\.113\.7/);
    expect((await f.store.getClient(me.clientId, { consistentRead: true }))?.networkWhitelist).toEqual(['0.0.0.0']);
    expect((await call(f, me, { method: 'PATCH', path: `/registry/clients/${me.clientId}`, body: { version: 1, networkWhitelist: ['203.0.113.0/24', '198.51.100.0/24'] } })).status).toBe(200);
    expect((await call(f, me, { method: 'PATCH', path: `/registry/clients/${partner.clientId}`, body: { version: 1, networkWhitelist: ['198.51.100.0/24'] } })).status).toBe(200);
  });
});

describe('self_lockout through the coverage profile', () => {
  test("a caller cannot switch its own client to a profile its signer may not meet (Web Bot Auth, or signet after rfc9421); rfc9421 after signet, or another client's profile, is fine", async () => {
    const f = await fresh();
    const me = await client(f.store, [REGISTRY_ADMIN_ROLE]);
    const partner = await client(f.store, ['demo']);
    const own = async (profile: string, admittedUnder?: string) => {
      const { version } = (await f.store.getClient(me.clientId, { consistentRead: true })) as ClientRecord;
      return call(f, me, { method: 'PATCH', path: `/registry/clients/${me.clientId}`, body: { version, profile } }, admittedUnder);
    };
    // Signet's own signers send no tag="web-bot-auth": the operator's next request would be refused.
    expectRefusal(await own('web-bot-auth', 'signet'), 'self_lockout', /admitted under the signet profile; under web-bot-auth .*tag="web-bot-auth".*another administrator/);
    expectRefusal(await own('web-bot-auth'), 'self_lockout', /admitted under the signet profile/);
    expect((await f.store.getClient(me.clientId, { consistentRead: true }))?.version).toBe(1);
    // rfc9421 accepts every signature signet does; back to signet from a call admitted under rfc9421 may not.
    expect((await own('rfc9421', 'signet')).status).toBe(200);
    expectRefusal(await own('signet', 'rfc9421'), 'self_lockout', /admitted under the rfc9421 profile; under signet/);
    expect((await f.store.getClient(me.clientId, { consistentRead: true }))?.profile).toBe('rfc9421');
    // Another client's profile is the caller's to set.
    expect((await call(f, me, { method: 'PATCH', path: `/registry/clients/${partner.clientId}`, body: { version: 1, profile: 'web-bot-auth' } }, 'signet')).status).toBe(200);
  });
});
