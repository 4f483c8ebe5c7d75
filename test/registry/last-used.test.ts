/**
 * "Last used" per client and per key through the registry handler, on DynamoDB Local, every
 * answer checked against docs/openapi/registry.json. The uses are written by the store's own
 * last-use write (what the authorizer calls), at instants the test picks:
 * - GET and list answer `lastUsedAt` on each key and, the latest of them, on the client; absent
 *   when never used;
 * - a PATCH, a key added, a disable, a not-after set after a use keep it, at the version the
 *   caller read (no version_conflict), and the use never bumps `version`;
 * - a removed key takes its use with it (also when the same key comes back), and a write for a
 *   removed key, an unknown key or another client's key creates nothing;
 * - the registry's clock (registration) runs before the authorizer's uses, as in a deployment;
 * - a use only moves forward in time;
 * - listing a page costs the Query and one BatchGetItem, never a read per client.
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { createRegistryHandler, type RegistryHandler } from '../../lambda/registry/registry-handler';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { keyKey, keyUseKey } from '../../lambda/store/item-codec';
import { dynamoDbLocalClientConfig } from '../../local/dynamodb-local';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import { type CallOptions, type CallResult, callRegistry } from '../support/registry-harness';
import { newClient, newKey, spkiPem, testKey } from '../support/registry-fixtures';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

const roles = compileRoleCatalogue({ 'registry:admin': ['* /registry/**'], demo: ['* /api/*'] });

let ddb: TestDynamoDb;
let tableName: string;
let store: DynamoClientStore;
let handler: RegistryHandler;
let counter: DynamoDBClient;
const commands: string[] = [];
/** The authorizer's clock for the uses it records. */
const useClock = { ms: Date.parse('2026-04-01T08:00:00Z') };
/** The store the authorizer writes through, at `useClock`. */
let authorizerStore: DynamoClientStore;
/** The registry's clock: keys are added before they are used. */
const registryClock = { ms: Date.parse('2026-03-01T08:00:00Z') };

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  tableName = await ddb.createTable();
  counter = new DynamoDBClient(dynamoDbLocalClientConfig(ddb.endpoint));
  counter.middlewareStack.add(
    (next, context) => async (args) => {
      commands.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'countCommands' },
  );
  store = new DynamoClientStore({ tableName, client: counter, now: () => new Date(registryClock.ms), keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  authorizerStore = new DynamoClientStore({ tableName, client: ddb.client, now: () => new Date(useClock.ms), keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  handler = createRegistryHandler({ store, roles, logger: { info: () => undefined, warn: () => undefined, error: () => undefined } });
});

afterAll(async () => {
  counter?.destroy();
  await ddb?.stop();
});

async function call(options: CallOptions): Promise<CallResult> {
  const result = await callRegistry(handler, options);
  expect(result.schemaProblems).toEqual([]);
  return result;
}

interface Client {
  clientId: string;
  version: number;
  lastUsedAt?: string;
  keys: Array<{ fingerprint: string; lastUsedAt?: string }>;
}

async function getClient(clientId: string): Promise<Client> {
  const answer = await call({ method: 'GET', path: `/registry/clients/${clientId}` });
  expect(answer.status).toBe(200);
  return answer.body as unknown as Client;
}

/** Records a use of key `i` by `clientId` at `iso`, as the authorizer does. */
async function use(clientId: string, i: number, iso: string): Promise<boolean> {
  useClock.ms = Date.parse(iso);
  return authorizerStore.recordKeyUse(clientId, newKey(i).fingerprint);
}

const lastUse = (client: Client) => Object.fromEntries(client.keys.map((k) => [k.fingerprint, k.lastUsedAt]));

test('a client never used has no lastUsedAt; a use shows on the key and on the client, and only moves forward', async () => {
  const { record } = await store.createClient(newClient(1, { roles: ['demo'] }), 'test');
  expect(await getClient(record.clientId)).not.toHaveProperty('lastUsedAt');
  expect((await getClient(record.clientId)).keys[0]).not.toHaveProperty('lastUsedAt');

  expect(await use(record.clientId, 1, '2026-04-01T09:00:00.000Z')).toBe(true);
  const used = await getClient(record.clientId);
  expect(used.lastUsedAt).toBe('2026-04-01T09:00:00.000Z');
  expect(used.keys[0].lastUsedAt).toBe('2026-04-01T09:00:00.000Z');
  expect(used.version).toBe(record.version); // a use is no change of the record

  // An older instance's late write never moves it back.
  expect(await use(record.clientId, 1, '2026-04-01T08:30:00.000Z')).toBe(false);
  expect((await getClient(record.clientId)).lastUsedAt).toBe('2026-04-01T09:00:00.000Z');
});

test('the client shows the latest of its keys; PATCH, key added, not-after set and disable keep the uses, at the version read', async () => {
  const { record } = await store.createClient(newClient(2, { roles: ['demo'] }), 'test');
  await use(record.clientId, 2, '2026-04-02T10:00:00.000Z');

  const patched = await call({ method: 'PATCH', path: `/registry/clients/${record.clientId}`, body: { version: record.version, name: 'Renamed partner' } });
  expect(patched.status).toBe(200);
  expect(patched.body).toMatchObject({ version: record.version + 1, lastUsedAt: '2026-04-02T10:00:00.000Z' });

  const added = await call({ method: 'POST', path: `/registry/clients/${record.clientId}/keys`, body: { version: record.version + 1, publicKey: spkiPem(testKey(3)) } });
  expect(added.status).toBe(201);
  await use(record.clientId, 3, '2026-04-03T11:00:00.000Z');
  let client = await getClient(record.clientId);
  expect(lastUse(client)).toEqual({ [newKey(2).fingerprint]: '2026-04-02T10:00:00.000Z', [newKey(3).fingerprint]: '2026-04-03T11:00:00.000Z' });
  expect(client.lastUsedAt).toBe('2026-04-03T11:00:00.000Z');

  // A not-after on the old key rewrites its ownership item: the use stays.
  await store.setKeyNotAfter(record.clientId, newKey(2).fingerprint, '2030-01-01T00:00:00Z', 'test', client.version);
  const disabled = await call({ method: 'POST', path: `/registry/clients/${record.clientId}/disable`, body: { version: client.version + 1 } });
  expect(disabled.status).toBe(200);
  client = await getClient(record.clientId);
  expect(client.version).toBe(record.version + 4);
  expect(lastUse(client)).toEqual({ [newKey(2).fingerprint]: '2026-04-02T10:00:00.000Z', [newKey(3).fingerprint]: '2026-04-03T11:00:00.000Z' });
});

test('a use written between reading a client and editing it causes no version_conflict', async () => {
  const { record } = await store.createClient(newClient(4, { roles: ['demo'] }), 'test');
  const read = await getClient(record.clientId);
  await use(record.clientId, 4, '2026-04-04T12:00:00.000Z');
  const patched = await call({ method: 'PATCH', path: `/registry/clients/${record.clientId}`, headers: { 'if-match': `"${read.version}"` }, body: { roles: ['demo', 'registry:admin'] } });
  expect(patched.status).toBe(200);
  expect(patched.body.lastUsedAt).toBe('2026-04-04T12:00:00.000Z');
});

test('removing a key drops its use; a later write for it creates nothing, and the key registered again starts unused', async () => {
  const { record } = await store.createClient(newClient(5, { roles: ['demo'] }), 'test');
  await store.addKey(record.clientId, newKey(6), 'test');
  await use(record.clientId, 5, '2026-04-05T09:00:00.000Z');
  await use(record.clientId, 6, '2026-04-05T10:00:00.000Z');

  const removed = await call({ method: 'DELETE', path: `/registry/clients/${record.clientId}/keys/${newKey(6).fingerprint}` });
  expect(removed.status).toBe(200);
  expect(removed.body.lastUsedAt).toBe('2026-04-05T09:00:00.000Z');
  expect((await ddb.client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: keyUseKey(newKey(6).fingerprint).pk as string }, sk: { S: 'USE' } } }))).Item).toBeUndefined();

  // An authorizer that still held the old record writes late: nothing comes back.
  expect(await use(record.clientId, 6, '2026-04-05T11:00:00.000Z')).toBe(false);
  expect((await ddb.client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: keyKey(newKey(6).fingerprint).pk as string }, sk: { S: 'KEY' } } }))).Item).toBeUndefined();

  registryClock.ms = Date.parse('2026-04-05T12:00:00Z');
  await store.addKey(record.clientId, newKey(6), 'test');
  const again = await getClient(record.clientId);
  expect(lastUse(again)).toEqual({ [newKey(5).fingerprint]: '2026-04-05T09:00:00.000Z', [newKey(6).fingerprint]: undefined });
});

test('a write for an unknown client or key, or for a key of another client, shows nowhere', async () => {
  const { record } = await store.createClient(newClient(7, { roles: ['demo'] }), 'test');
  expect(await use('c_NoSuchClientNoSuchCli0', 8, '2026-04-06T09:00:00.000Z')).toBe(false); // key 8 is registered nowhere
  expect((await ddb.client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: keyKey(newKey(8).fingerprint).pk as string }, sk: { S: 'KEY' } } }))).Item).toBeUndefined();
  expect((await ddb.client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: keyUseKey(newKey(8).fingerprint).pk as string }, sk: { S: 'USE' } } }))).Item).toBeUndefined();

  // A write for another clientId (the key moved while an authorizer held an old record) is refused: the key is not its.
  expect(await use('c_SomeOtherClientSomeOt0', 7, '2026-04-06T10:00:00.000Z')).toBe(false);
  expect(await getClient(record.clientId)).not.toHaveProperty('lastUsedAt');
  expect(await use(record.clientId, 7, '2026-04-06T11:00:00.000Z')).toBe(true);
  expect((await getClient(record.clientId)).lastUsedAt).toBe('2026-04-06T11:00:00.000Z');
});

test('a listing page carries lastUsedAt with one Query and one BatchGetItem, whatever its size', async () => {
  const account = (await call({ method: 'POST', path: '/registry/accounts', body: { name: 'Listed partner', roleCeiling: ['demo'] } })).body.accountId as string;
  const ids: string[] = [];
  for (let i = 10; i < 22; i++) {
    registryClock.ms += 1000; // listed in creation order
    ids.push((await store.createClient({ ...newClient(i, { roles: ['demo'] }), accountId: account }, 'test')).record.clientId);
  }
  await use(ids[3], 13, '2026-04-07T09:00:00.000Z');
  await use(ids[8], 18, '2026-04-07T10:00:00.000Z');

  commands.length = 0;
  const page = await call({ method: 'GET', path: '/registry/clients', query: `account=${account}&limit=100` });
  expect(page.status).toBe(200);
  expect(commands.filter((c) => c !== 'GetItemCommand')).toEqual(['QueryCommand', 'BatchGetItemCommand']); // (GetItem: the account exists)
  const clients = page.body.clients as Client[];
  expect(clients.map((c) => c.clientId)).toEqual(ids);
  expect(Object.fromEntries(clients.filter((c) => c.lastUsedAt !== undefined).map((c) => [c.clientId, c.lastUsedAt]))).toEqual({
    [ids[3]]: '2026-04-07T09:00:00.000Z',
    [ids[8]]: '2026-04-07T10:00:00.000Z',
  });
});
