/**
 * Clients whose keys are published elsewhere (a JWKS URL, a Web Bot Auth key directory): the
 * registry's create / PATCH / view / refresh, and the refresher, against DynamoDB Local and a real
 * HTTP server on 127.0.0.1 (`allowLocalHttp`, as the local gateway fetches). Every registry answer
 * is checked against docs/openapi/registry.json. One table, one handler and one key server for the
 * file; the clock is injected.
 */
import { DeleteCommand, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { ACCOUNT_ADMIN_ROLE, DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';
import { isCoverageProfile } from '../../lambda/core/profiles';
import { BATCH_RESERVE_MS, createKeySourceRefresher, REFRESHER_ACTOR } from '../../lambda/key-sources/key-source-refresher';
import { createRegistryHandler, type RegistryHandler } from '../../lambda/registry/registry-handler';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { sourceOwnerKey } from '../../lambda/store/item-codec';
import { DynamoKeySourceStore } from '../../lambda/store/key-source-store';
import { ITEM, LIST_INDEX_PARTITION_KEY, LIST_INDEX_SORT_KEY } from '../../lambda/store/table-schema';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import { DIRECTORY_PATH, type KeySourceServer, type PublishedTestKey, keySet, publishedKey, startKeySourceServer } from '../support/key-source-server';
import { type CallOptions, type CallResult, callRegistry, checkAgainstDocument, httpApiEvent } from '../support/registry-harness';
import { loadRegistryOpenApi } from '../support/registry-openapi';
import { signDirectory } from '../support/signed-directory';
import { nextTestKey } from '../support/test-keys';

const doc = loadRegistryOpenApi();
const roles = compileRoleCatalogue({ 'registry:admin': ['* /registry/**'], demo: ['* /api/*'], 'orders:read': ['GET /api/orders'] });
const T0 = Date.parse('2026-04-05T09:30:00.000Z');
const INTERVAL_S = 900;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

let ddb: TestDynamoDb;
let server: KeySourceServer;
let nowMs = T0;
let tableName: string;
let store: DynamoClientStore;
let keySources: DynamoKeySourceStore;
let handler: RegistryHandler;

function registryOn(
  table: string,
  requireSignedDirectories = false,
  keySourceKeepDays = DEFAULT_KEY_SOURCE_KEEP_DAYS,
): { store: DynamoClientStore; keySources: DynamoKeySourceStore; handler: RegistryHandler } {
  const clients = new DynamoClientStore({ tableName: table, client: ddb.client, now: () => new Date(nowMs), keySourceKeepDays });
  const sources = new DynamoKeySourceStore({ tableName: table, client: ddb.client, now: () => new Date(nowMs) }, clients);
  const registry = createRegistryHandler({
    store: clients,
    keySources: sources,
    roles,
    logger: silent,
    now: () => new Date(nowMs),
    fetchKeySource: (source, held) => server.fetch(source, held),
    keySourceRefreshIntervalS: INTERVAL_S,
    requireSignedDirectories,
    keySourceKeepDays,
  });
  return { store: clients, keySources: sources, handler: registry };
}

beforeAll(async () => {
  [ddb, server] = await Promise.all([startTestDynamoDb(), startKeySourceServer(() => Math.floor(nowMs / 1000))]);
  tableName = await ddb.createTable();
  ({ store, keySources, handler } = registryOn(tableName));
});

afterAll(async () => {
  await Promise.all([ddb?.stop(), server?.stop()]);
});

async function call(options: CallOptions, on: RegistryHandler = handler): Promise<CallResult> {
  const result = await callRegistry(on, options, doc);
  expect(result.schemaProblems).toEqual([]);
  return result;
}

let sourceCounter = 0;
/** A fresh path on the key server, serving these keys. */
function newSource(body: unknown, headers: Record<string, string> = {}): string {
  const path = `/jwks-${++sourceCounter}`;
  server.serve(path, body, headers);
  return path;
}

function createBody(overrides: Record<string, unknown>): Record<string, unknown> {
  return { name: `Published ${++sourceCounter}`, networkWhitelist: ['0.0.0.0'], roles: ['demo'], ...overrides };
}

async function rawItem(pk: string, sk: string, table = tableName): Promise<Record<string, unknown> | undefined> {
  return (await ddb.doc.send(new GetCommand({ TableName: table, Key: { pk, sk }, ConsistentRead: true }))).Item;
}

async function clientCount(): Promise<number> {
  const out = await ddb.doc.send(new ScanCommand({ TableName: tableName, FilterExpression: '#t = :c', ExpressionAttributeNames: { '#t': 'type' }, ExpressionAttributeValues: { ':c': 'client' }, ConsistentRead: true }));
  return out.Items?.length ?? 0;
}

function expectError(res: CallResult, status: number, code: string): void {
  expect({ status: res.status, error: res.body.error }).toEqual({ status, error: code });
}

type ViewKey = { fingerprint: string; thumbprint?: string; kid?: string; published?: boolean; notBefore?: string; expires?: string; active?: boolean };
/** A key to register (Ed25519: no RSA generation in this file), as its SPKI PEM. */
const pem = (key: PublishedTestKey): string => key.publicKey.export({ type: 'spki', format: 'pem' }) as string;
const registered = [publishedKey(), publishedKey(), publishedKey(), publishedKey()];

const fingerprints = (body: Record<string, unknown>): string[] => (body.keys as ViewKey[]).map((k) => k.fingerprint).sort();

// ----------------------------------------------------------------------------- registration

describe('registering a client by its key source', () => {
  test('jwksUri: fetched once, its keys stored as published with thumbprint, kid, nbf and exp; the status and index items written', async () => {
    const nbf = Math.floor(T0 / 1000) - 60;
    const exp = Math.floor(T0 / 1000) + 30 * 86_400;
    const a = publishedKey({ nbf, exp, kid: 'signing-2026' });
    const b = publishedKey();
    const path = newSource(keySet(a, b), { 'cache-control': 'max-age=3600' });
    const res = await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: server.url(path) }) });
    expect(res.status).toBe(201);
    expect(server.hits.get(path)).toBe(1);
    expect(res.body.keySource).toEqual({ jwksUri: server.url(path) });
    expect(res.body.keysFetchedAt).toBe(new Date(T0).toISOString());
    const keys = res.body.keys as ViewKey[];
    expect(keys.find((k) => k.fingerprint === a.fingerprint)).toMatchObject({
      published: true,
      thumbprint: a.thumbprint,
      kid: 'signing-2026',
      notBefore: new Date(nbf * 1000).toISOString(),
      expires: new Date(exp * 1000).toISOString(),
      algorithm: 'ed25519',
      active: true,
    });
    expect(keys.find((k) => k.fingerprint === b.fingerprint)).toMatchObject({ published: true, thumbprint: b.thumbprint, kid: b.thumbprint });
    // max-age 3600 sets the next fetch; the keys are kept 7 days past the last success.
    expect(res.body.keySourceStatus).toEqual({
      url: server.url(path),
      lastFetchAt: new Date(T0).toISOString(),
      nextFetchAt: new Date(T0 + 3_600_000).toISOString(),
      lastSuccessAt: new Date(T0).toISOString(),
      consecutiveFailures: 0,
      keptUntil: new Date(T0 + 7 * 86_400_000).toISOString(),
    });
    const clientId = res.body.clientId as string;
    expect(await rawItem(ITEM.thumbprintPk(a.thumbprint), ITEM.thumbprintSk)).toMatchObject({ clientId, fingerprint: a.fingerprint });
    expect(await rawItem(ITEM.keyPk(b.fingerprint), ITEM.keySk)).toMatchObject({ clientId });
    expect(await rawItem(ITEM.keySourcePk(clientId), ITEM.keySourceSk)).toMatchObject({
      [LIST_INDEX_PARTITION_KEY]: ITEM.keySourcesPartition,
      [LIST_INDEX_SORT_KEY]: `${new Date(T0 + 3_600_000).toISOString()}#${clientId}`,
      clientId,
      url: server.url(path),
    });
    const audit = await call({ method: 'GET', path: `/registry/clients/${clientId}/audit` });
    expect((audit.body.entries as Array<Record<string, unknown>>)[0]).toMatchObject({
      action: 'client.created',
      changes: expect.objectContaining({ keySource: { to: server.url(path) } }),
      keysAdded: expect.arrayContaining([a.fingerprint, b.fingerprint]),
    });
    // The view of GET is the same.
    const read = await call({ method: 'GET', path: `/registry/clients/${clientId}` });
    expect(read.body.keySourceStatus).toEqual(res.body.keySourceStatus);
  });

  test('signatureAgent: the directory at the well-known path of the origin is fetched; the agent gets the web-bot-auth profile once the deployment knows it', async () => {
    const key = publishedKey();
    server.serve(DIRECTORY_PATH, keySet(key), { 'content-type': 'application/http-message-signatures-directory+json' });
    const res = await call({ method: 'POST', path: '/registry/clients', body: createBody({ signatureAgent: server.origin }) });
    expect(res.status).toBe(201);
    expect(res.body.keySource).toEqual({ signatureAgent: server.origin });
    expect(fingerprints(res.body)).toEqual([key.fingerprint]);
    expect((res.body.keySourceStatus as { url: string }).url).toBe(server.url(DIRECTORY_PATH));
    expect(res.body.profile).toBe(isCoverageProfile('web-bot-auth') ? 'web-bot-auth' : undefined);
    const explicit = await call({ method: 'POST', path: '/registry/clients', body: createBody({ signatureAgent: server.origin, profile: 'rfc9421' }) });
    // The same directory, registered again: its key is in use by the first client.
    expectError(explicit, 400, 'key_source_refused');
    expect(explicit.body.message).toMatch(/key_in_use/);
  });

  test.each([
    ['a 5xx', { status: 503, body: 'down', headers: { 'retry-after': '120' } }, 'http_error'],
    ['a timeout', { hang: true }, 'timeout'],
    ['an oversize body', { body: ' '.repeat(70_000) }, 'body_too_large'],
    ['a redirect', { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } }, 'redirect_refused'],
    ['invalid JSON', { body: '{"keys": [' }, 'invalid_json'],
    ['no keys', { body: { keys: [] } }, 'no_usable_key'],
    ['only refused keys', { body: { keys: [{ kty: 'oct', k: 'c2VjcmV0', kid: 'hmac' }] } }, 'no_usable_key'],
  ])('a source answering with %s is refused: 400 key_source_refused naming the fetch code and the URL; nothing is written', async (_kind, answer, code) => {
    const path = `/failing-${++sourceCounter}`;
    server.answer(path, answer as never);
    const before = await clientCount();
    const res = await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: server.url(path) }) });
    expectError(res, 400, 'key_source_refused');
    expect(res.body.message).toContain(code);
    expect(res.body.message).toContain(server.url(path));
    expect(await clientCount()).toBe(before);
  });

  test('a URL that is not an allowed source is refused before any connection', async () => {
    const res = await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: 'http://10.0.0.7/jwks' }) });
    expectError(res, 400, 'key_source_refused');
    expect(res.body.message).toMatch(/scheme_not_allowed|address_not_public/);
  });

  test('publicKey with a key source, or both sources, is invalid_request; a source is a string', async () => {
    const path = newSource(keySet(publishedKey()));
    const both = await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: server.url(path), publicKey: pem(registered[0]) }) });
    expectError(both, 400, 'invalid_request');
    expect(both.body.message).toMatch(/one of publicKey, jwksUri and signatureAgent/);
    const none = await call({ method: 'POST', path: '/registry/clients', body: createBody({}) });
    expectError(none, 400, 'invalid_request');
    const notString = await call({ method: 'POST', path: '/registry/clients', body: createBody({ signatureAgent: 42 }) });
    expectError(notString, 400, 'invalid_request');
  });

  test('a published key another client holds is key_in_use: the other keys are used, the refused one is reported', async () => {
    const shared = publishedKey();
    const own = publishedKey();
    const first = await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: server.url(newSource(keySet(shared))) }) });
    expect(first.status).toBe(201);
    const second = await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: server.url(newSource(keySet(shared, own))) }) });
    expect(second.status).toBe(201);
    expect(fingerprints(second.body)).toEqual([own.fingerprint]);
    expect((second.body.keySourceStatus as { refusedKeys: unknown[] }).refusedKeys).toEqual([{ kid: shared.thumbprint, thumbprint: shared.thumbprint, reason: 'key_in_use' }]);
    // The thumbprint still names the first client's key only.
    expect(await rawItem(ITEM.thumbprintPk(shared.thumbprint), ITEM.thumbprintSk)).toMatchObject({ clientId: first.body.clientId });
  });

  test('a source set before owner items were written: another client may claim it, and its first client can still leave it', async () => {
    const path = newSource(keySet(publishedKey()));
    const url = server.url(path);
    const first = await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: url }) });
    // As an earlier release left it: no owner item.
    await ddb.doc.send(new DeleteCommand({ TableName: tableName, Key: sourceOwnerKey(url) }));
    server.serve(path, keySet(publishedKey()));
    const second = await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: url }) });
    expect(second.status).toBe(201);
    const left = await call({ method: 'PATCH', path: `/registry/clients/${first.body.clientId as string}`, body: { version: 1, publicKey: pem(publishedKey()) } });
    expect([left.status, left.body.keySource]).toEqual([200, undefined]);
    expect(await rawItem(sourceOwnerKey(url).pk as string, sourceOwnerKey(url).sk as string)).toMatchObject({ clientId: second.body.clientId, source: url });
  });

  test("a source serves one client: a second client of the same agent, or of a JWKS URI naming its directory, is 409 key_source_in_use; once the first gives it up, it may", async () => {
    const agent = await startKeySourceServer(() => Math.floor(nowMs / 1000));
    try {
      const directory = { 'content-type': 'application/http-message-signatures-directory+json' };
      agent.serve(DIRECTORY_PATH, keySet(publishedKey()), directory);
      const first = await call({ method: 'POST', path: '/registry/clients', body: createBody({ signatureAgent: agent.origin }) });
      expect(first.status).toBe(201);
      // The agent publishes a new key: another client naming the same agent would take it (and every later one) from the first.
      agent.serve(DIRECTORY_PATH, keySet(publishedKey()), directory);
      for (const source of [{ signatureAgent: agent.origin }, { jwksUri: agent.url(DIRECTORY_PATH) }]) {
        const second = await call({ method: 'POST', path: '/registry/clients', body: createBody(source) });
        expectError(second, 409, 'key_source_in_use');
        expect(second.body.message).toContain(`client ${first.body.clientId as string}`);
      }
      // An edit to the agent's source is refused the same way, and changes nothing.
      const other = await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: server.url(newSource(keySet(publishedKey()))) }) });
      const moved = await call({ method: 'PATCH', path: `/registry/clients/${other.body.clientId as string}`, body: { version: 1, signatureAgent: agent.origin } });
      expectError(moved, 409, 'key_source_in_use');
      expect(await store.getClient(other.body.clientId as string, { consistentRead: true })).toMatchObject({ version: 1, keySource: { jwksUri: expect.any(String) } });

      // The first client goes back to a registered key: the source is free.
      expect((await call({ method: 'PATCH', path: `/registry/clients/${first.body.clientId as string}`, body: { version: 1, publicKey: pem(registered[1]) } })).status).toBe(200);
      const taken = await call({ method: 'PATCH', path: `/registry/clients/${other.body.clientId as string}`, body: { version: 1, signatureAgent: agent.origin } });
      expect([taken.status, taken.body.keySource]).toEqual([200, { signatureAgent: agent.origin }]);
    } finally {
      await agent.stop();
    }
  });
});

// ----------------------------------------------------------------------------- managed keys, PATCH

describe('a client with a key source', () => {
  let clientId: string;
  let path: string;
  const a = publishedKey();

  beforeAll(async () => {
    path = newSource(keySet(a));
    clientId = (await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: server.url(path) }) })).body.clientId as string;
  });

  test('key add, remove and expiry are key_source_managed (409): the source holds the keys', async () => {
    const add = await call({ method: 'POST', path: `/registry/clients/${clientId}/keys`, body: { publicKey: pem(registered[1]) } });
    expectError(add, 409, 'key_source_managed');
    expect(add.body.message).toContain(server.url(path));
    const remove = await call({ method: 'DELETE', path: `/registry/clients/${clientId}/keys/${a.fingerprint}` });
    expectError(remove, 409, 'key_source_managed');
    await expect(store.setKeyNotAfter(clientId, a.fingerprint, '2030-01-01T00:00:00Z', 'rotation')).rejects.toMatchObject({ code: 'key_source_managed' });
  });

  test('PATCH publicKey switches it back to a registered key: the source, its status and the published keys go', async () => {
    const read = await call({ method: 'GET', path: `/registry/clients/${clientId}` });
    const res = await call({ method: 'PATCH', path: `/registry/clients/${clientId}`, body: { version: read.body.version, publicKey: pem(registered[2]) } });
    expect(res.status).toBe(200);
    expect(res.body.keySource).toBeUndefined();
    expect(res.body.keySourceStatus).toBeUndefined();
    expect(fingerprints(res.body)).toEqual([registered[2].fingerprint]);
    expect(await rawItem(ITEM.keySourcePk(clientId), ITEM.keySourceSk)).toBeUndefined();
    expect(await rawItem(ITEM.thumbprintPk(a.thumbprint), ITEM.thumbprintSk)).toBeUndefined();
    expect(await rawItem(ITEM.keyPk(a.fingerprint), ITEM.keySk)).toBeUndefined();

    // And PATCH jwksUri switches it to a source again: fetched, its keys replace the registered one.
    const again = await call({ method: 'PATCH', path: `/registry/clients/${clientId}`, body: { version: res.body.version, jwksUri: server.url(path) } });
    expect(again.status).toBe(200);
    expect(again.body.keySource).toEqual({ jwksUri: server.url(path) });
    expect(fingerprints(again.body)).toEqual([a.fingerprint]);
    expect(await rawItem(ITEM.keyPk(registered[2].fingerprint), ITEM.keySk)).toBeUndefined();
    expect(await rawItem(ITEM.keySourcePk(clientId), ITEM.keySourceSk)).toMatchObject({ clientId });
  });

  test('PATCH to a failing source changes nothing (400 key_source_refused)', async () => {
    const read = await call({ method: 'GET', path: `/registry/clients/${clientId}` });
    const failing = `/failing-${++sourceCounter}`;
    server.serve(failing, 'oops', {}, 500);
    const res = await call({ method: 'PATCH', path: `/registry/clients/${clientId}`, body: { version: read.body.version, jwksUri: server.url(failing) } });
    expectError(res, 400, 'key_source_refused');
    const after = await call({ method: 'GET', path: `/registry/clients/${clientId}` });
    expect(after.body.version).toBe(read.body.version);
    expect(after.body.keySource).toEqual({ jwksUri: server.url(path) });
  });
});

// ----------------------------------------------------------------------------- the keep bound in the view

describe("a published key's active flag", () => {
  test('is the authorizer\'s rule: once the source\'s last successful fetch is older than the keep bound, the key shows inactive in the client and in the list; a longer bound keeps it active', async () => {
    const a = publishedKey();
    const path = newSource(keySet(a));
    const created = await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: server.url(path) }) });
    const clientId = created.body.clientId as string;
    const activeIn = (body: Record<string, unknown>): boolean | undefined => (body.keys as ViewKey[]).find((k) => k.fingerprint === a.fingerprint)?.active;
    const keptUntil = T0 + DEFAULT_KEY_SOURCE_KEEP_DAYS * 86_400_000;
    try {
      nowMs = keptUntil - 1_000;
      expect(activeIn((await call({ method: 'GET', path: `/registry/clients/${clientId}` })).body)).toBe(true);

      // The source has not been fetched since: past the keep bound the authorizer refuses the key.
      nowMs = keptUntil + 1_000;
      const read = await call({ method: 'GET', path: `/registry/clients/${clientId}` });
      expect((read.body.keySourceStatus as Record<string, unknown>).keptUntil).toBe(new Date(keptUntil).toISOString());
      expect(activeIn(read.body)).toBe(false);
      const listed = await call({ method: 'GET', path: '/registry/clients', query: `fingerprint=${a.fingerprint}` });
      expect((listed.body.clients as Array<Record<string, unknown>>).map(activeIn)).toEqual([false]);

      // A deployment that keeps published keys 30 days still verifies it.
      const keeping = registryOn(tableName, false, 30).handler;
      expect(activeIn((await call({ method: 'GET', path: `/registry/clients/${clientId}` }, keeping)).body)).toBe(true);
    } finally {
      nowMs = T0;
    }
  });
});

// ----------------------------------------------------------------------------- refresh

describe('POST /registry/clients/{clientId}/keys/refresh and the refresher', () => {
  test('rotation at the source: a new key appears, a removed key is gone (version + 1, audited); the same keys only move keysFetchedAt', async () => {
    const old = publishedKey();
    const next = publishedKey();
    const path = newSource(keySet(old));
    const created = await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: server.url(path) }) });
    const clientId = created.body.clientId as string;

    nowMs = T0 + 60_000;
    server.serve(path, keySet(old, next));
    const overlap = await call({ method: 'POST', path: `/registry/clients/${clientId}/keys/refresh` });
    expect(overlap.status).toBe(200);
    expect(overlap.body.refresh).toEqual({ ok: true, added: [next.fingerprint], removed: [], unchanged: false });
    const client = overlap.body.client as Record<string, unknown>;
    expect(fingerprints(client)).toEqual([old.fingerprint, next.fingerprint].sort());
    expect(client.version).toBe(2);

    nowMs = T0 + 120_000;
    server.serve(path, keySet(next));
    const refresher = createKeySourceRefresher({ store: keySources, fetch: (s) => server.fetch(s), nowMs: () => nowMs, refreshIntervalS: INTERVAL_S, requireSignedDirectories: false });
    const rotated = await refresher.refreshClient(clientId, REFRESHER_ACTOR);
    expect(rotated).toMatchObject({ ok: true, added: [], removed: [old.fingerprint], unchanged: false });
    const record = await store.getClient(clientId, { consistentRead: true });
    expect(record?.keys.map((k) => k.fingerprint)).toEqual([next.fingerprint]);
    expect(record?.version).toBe(3);
    expect(record?.keysFetchedAt).toBe(new Date(nowMs).toISOString());
    expect(await rawItem(ITEM.thumbprintPk(old.thumbprint), ITEM.thumbprintSk)).toBeUndefined();
    const audit = await store.listAudit(clientId);
    expect(audit.items[0]).toMatchObject({ action: 'key_source.refreshed', actor: REFRESHER_ACTOR, version: 3, keysRemoved: [old.fingerprint] });

    nowMs = T0 + 180_000;
    const same = await refresher.refreshClient(clientId, REFRESHER_ACTOR);
    expect(same).toMatchObject({ ok: true, unchanged: true, added: [], removed: [] });
    const touched = await store.getClient(clientId, { consistentRead: true });
    expect({ version: touched?.version, keysFetchedAt: touched?.keysFetchedAt }).toEqual({ version: 3, keysFetchedAt: new Date(nowMs).toISOString() });
    expect((await store.listAudit(clientId)).items).toHaveLength(3);
    nowMs = T0;
  });

  test('a set of many new RSA keys is judged four at a time; the keys a client holds stay at every refresh, however many', async () => {
    const rsaKeys = Array.from({ length: 5 }, () => {
      const { publicKey, fingerprint } = nextTestKey();
      return { jwk: publicKey.export({ format: 'jwk' }) as JsonWebKey, fingerprint };
    });
    const path = newSource({ keys: rsaKeys.map((k) => k.jwk) });
    const created = await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: server.url(path) }) });
    expect(created.status).toBe(201);
    expect(fingerprints(created.body)).toEqual(rsaKeys.slice(0, 4).map((k) => k.fingerprint).sort());
    expect(created.body.keySourceStatus).toMatchObject({ refusedKeys: [{ reason: 'too_many_new_rsa_keys' }] });

    // Each fetch here judges anew (no verdicts kept, as after a cold start): the four held keys are not counted, the fifth is judged.
    nowMs = T0 + 60_000;
    const refresher = createKeySourceRefresher({ store: keySources, fetch: (s, held) => server.fetch(s, held), nowMs: () => nowMs, refreshIntervalS: INTERVAL_S, requireSignedDirectories: false });
    const clientId = created.body.clientId as string;
    const refreshed = await refresher.refreshClient(clientId, REFRESHER_ACTOR);
    expect(refreshed).toMatchObject({ ok: true, added: [rsaKeys[4].fingerprint], removed: [] });
    // Naming the same source again (a PATCH, fetched by the registry, which judges anew here too) keeps all five.
    const patched = await call({ method: 'PATCH', path: `/registry/clients/${clientId}`, body: { version: 2, jwksUri: server.url(path) } });
    expect([patched.status, fingerprints(patched.body)]).toEqual([200, rsaKeys.map((k) => k.fingerprint).sort()]);
    nowMs = T0;
  });

  test('a failed fetch keeps the keys, records the error with backoff and Retry-After, and answers 200 ok:false', async () => {
    const key = publishedKey();
    const path = newSource(keySet(key));
    const clientId = (await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: server.url(path) }) })).body.clientId as string;

    nowMs = T0 + 1_000;
    server.serve(path, 'maintenance', { 'retry-after': '600' }, 503);
    const failed = await call({ method: 'POST', path: `/registry/clients/${clientId}/keys/refresh` });
    expect(failed.status).toBe(200);
    expect(failed.body.refresh).toMatchObject({ ok: false, added: [], removed: [], unchanged: false, error: { code: 'http_error', status: 503 } });
    const client = failed.body.client as Record<string, unknown>;
    expect(fingerprints(client)).toEqual([key.fingerprint]);
    const at = new Date(nowMs).toISOString();
    expect(client.keySourceStatus).toMatchObject({
      lastFetchAt: at,
      lastSuccessAt: new Date(T0).toISOString(),
      failingSince: at,
      consecutiveFailures: 1,
      lastError: { code: 'http_error', status: 503, at },
      // Retry-After 600 s is longer than the first backoff (60 s); the runs' 30 s due slack is added,
      // so no run picks the source up before its Retry-After has passed.
      nextFetchAt: new Date(nowMs + 630_000).toISOString(),
      keptUntil: new Date(T0 + 7 * 86_400_000).toISOString(),
    });

    // Without Retry-After: the backoff doubles (2nd failure: 120 s), failingSince stays.
    nowMs = T0 + 2_000;
    server.serve(path, 'broken', {}, 500);
    const refresher = createKeySourceRefresher({ store: keySources, fetch: (s) => server.fetch(s), nowMs: () => nowMs, refreshIntervalS: INTERVAL_S, requireSignedDirectories: false });
    const second = await refresher.refreshClient(clientId, REFRESHER_ACTOR);
    expect(second.status).toMatchObject({ consecutiveFailures: 2, failingSince: at, nextFetchAt: new Date(nowMs + 120_000).toISOString() });
    // Up to the interval at most.
    for (let i = 0; i < 6; i++) await refresher.refreshClient(clientId, REFRESHER_ACTOR);
    expect((await keySources.getStatus(clientId))?.nextFetchAt).toBe(new Date(nowMs + INTERVAL_S * 1000).toISOString());
    expect((await store.getClient(clientId))?.keys.map((k) => k.fingerprint)).toEqual([key.fingerprint]);

    // A success ends the failure run.
    server.serve(path, keySet(key));
    const healed = await refresher.refreshClient(clientId, REFRESHER_ACTOR);
    expect(healed).toMatchObject({ ok: true, unchanged: true });
    expect(healed.status).toEqual(expect.not.objectContaining({ failingSince: expect.anything() }));
    expect(healed.status?.consecutiveFailures).toBe(0);
    nowMs = T0;
  });

  test('a set that no longer lists a key ends it at once, though no key it lists can be used; a key still listed stays until the keep bound', async () => {
    const leaked = publishedKey();
    const kept = publishedKey();
    const path = newSource(keySet(leaked, kept));
    const clientId = (await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: server.url(path) }) })).body.clientId as string;
    const refresher = createKeySourceRefresher({ store: keySources, fetch: (s) => server.fetch(s), nowMs: () => nowMs, refreshIntervalS: INTERVAL_S, requireSignedDirectories: false });
    const activeKeys = async () => {
      const shown = await call({ method: 'GET', path: `/registry/clients/${clientId}` });
      return (shown.body as { keys: Array<{ fingerprint: string; active: boolean }> }).keys.filter((k) => k.active).map((k) => k.fingerprint);
    };

    // The publisher takes the leaked key out; what it still lists cannot be used here (an HMAC key, and
    // the kept key with a "use" that is not for signatures): no usable key, a failed fetch.
    nowMs = T0 + 60_000;
    server.serve(path, JSON.stringify({ keys: [{ kty: 'oct', k: 'c2VjcmV0', kid: 'hmac' }, { ...kept.jwk, use: 'enc' }] }));
    const at = new Date(nowMs).toISOString();
    expect(await refresher.refreshClient(clientId, REFRESHER_ACTOR)).toMatchObject({ ok: false, error: { code: 'no_usable_key' } });
    const record = await store.getClient(clientId, { consistentRead: true });
    expect(record?.keys.map((k) => [k.fingerprint, k.notAfter])).toEqual(expect.arrayContaining([[leaked.fingerprint, at], [kept.fingerprint, undefined]]));
    expect(record?.keysFetchedAt).toBe(new Date(T0).toISOString());
    nowMs += 1_000; // a key verifies up to its not-after, inclusive
    expect(await activeKeys()).toEqual([kept.fingerprint]);
    expect((await keySources.getStatus(clientId))?.lastError).toMatchObject({ code: 'no_usable_key' });
    expect((await store.listAudit(clientId)).items[0]).toMatchObject({ action: 'key_source.refreshed', actor: REFRESHER_ACTOR, keysExpired: [leaked.fingerprint] });

    // An empty set ends the last one too: the client signs with nothing until its publisher lists a key again.
    nowMs = T0 + 120_000;
    server.serve(path, JSON.stringify({ keys: [] }));
    expect(await refresher.refreshClient(clientId, REFRESHER_ACTOR)).toMatchObject({ ok: false });
    nowMs += 1_000;
    expect(await activeKeys()).toEqual([]);
    server.serve(path, keySet(kept));
    expect(await refresher.refreshClient(clientId, REFRESHER_ACTOR)).toMatchObject({ ok: true, removed: [leaked.fingerprint] });
    expect(await activeKeys()).toEqual([kept.fingerprint]);

    // Emptied again and again: the key ends once, and each failed fetch still counts (its status, the backoff).
    server.serve(path, JSON.stringify({ keys: [] }));
    nowMs += 60_000;
    expect(await refresher.refreshClient(clientId, REFRESHER_ACTOR)).toMatchObject({ ok: false, removed: [kept.fingerprint] });
    expect((await rawItem(ITEM.keyPk(kept.fingerprint), ITEM.keySk))?.notAfter).toBe(new Date(nowMs).toISOString());
    nowMs += 60_000;
    // A refresher whose clock is behind the store's still takes the ended key for a verifying one: nothing to end, the failure still counts.
    const lagging = createKeySourceRefresher({ store: keySources, fetch: (s) => server.fetch(s), nowMs: () => nowMs - 90_000, refreshIntervalS: INTERVAL_S, requireSignedDirectories: false });
    expect(await lagging.refreshClient(clientId, REFRESHER_ACTOR)).toMatchObject({ ok: false, removed: [] });
    expect(await keySources.getStatus(clientId)).toMatchObject({ consecutiveFailures: 2, lastFetchAt: new Date(nowMs - 90_000).toISOString() });
    expect((await keySources.getStatus(clientId))?.nextFetchAt).toBe(new Date(nowMs - 90_000 + 120_000).toISOString());
    // Listed again, alone and as it was: it verifies again.
    server.serve(path, keySet(kept));
    expect(await refresher.refreshClient(clientId, REFRESHER_ACTOR)).toMatchObject({ ok: true, unchanged: false });
    nowMs += 1_000;
    expect(await activeKeys()).toEqual([kept.fingerprint]);
    expect((await rawItem(ITEM.keyPk(kept.fingerprint), ITEM.keySk))?.notAfter).toBeUndefined();
    nowMs = T0;
  });

  test('a Retry-After beyond 24 h waits 24 h (and the due slack); a max-age below a minute is read as one minute', async () => {
    const key = publishedKey();
    const path = newSource(keySet(key), { 'cache-control': 'max-age=5' });
    const created = await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: server.url(path) }) });
    expect((created.body.keySourceStatus as { nextFetchAt: string }).nextFetchAt).toBe(new Date(T0 + 60_000).toISOString());
    server.serve(path, '', { 'retry-after': String(10 * 86_400) }, 429);
    const refresher = createKeySourceRefresher({ store: keySources, fetch: (s) => server.fetch(s), nowMs: () => nowMs, refreshIntervalS: INTERVAL_S, requireSignedDirectories: false });
    const outcome = await refresher.refreshClient(created.body.clientId as string, REFRESHER_ACTOR);
    expect(outcome.status?.nextFetchAt).toBe(new Date(T0 + 86_400_000 + 30_000).toISOString());
  });

  test('refreshing a client with registered keys is invalid_request; an unknown client is not_found', async () => {
    const plain = await call({ method: 'POST', path: '/registry/clients', body: createBody({ publicKey: pem(registered[3]) }) });
    const res = await call({ method: 'POST', path: `/registry/clients/${plain.body.clientId as string}/keys/refresh` });
    expectError(res, 400, 'invalid_request');
    expectError(await call({ method: 'POST', path: '/registry/clients/c_AAAAAAAAAAAAAAAAAAAAAA/keys/refresh' }), 404, 'not_found');
  });
});

// ----------------------------------------------------------------------------- directory signatures

describe('a Web Bot Auth directory that signs its answer', () => {
  const directoryType = { 'content-type': 'application/http-message-signatures-directory+json' };
  /** The agent of the test: an origin of its own (an agent's directory serves one client). */
  let agent: KeySourceServer;
  const agents: KeySourceServer[] = [];
  afterEach(() => Promise.all(agents.splice(0).map((a) => a.stop())));
  /** Serves these keys as a new agent's directory, signed by `signers` (none: unsigned), or again as the same agent's. */
  async function serveDirectory(keys: ReturnType<typeof publishedKey>[], signers: ReturnType<typeof publishedKey>[], sameAgent = false): Promise<void> {
    if (!sameAgent) {
      agent = await startKeySourceServer(() => Math.floor(nowMs / 1000));
      agents.push(agent);
    }
    const fields = signers.length === 0 ? undefined : await signDirectory(agent.url(DIRECTORY_PATH), signers.map((k) => k.privateKey), Math.floor(nowMs / 1000) - 10);
    agent.serve(DIRECTORY_PATH, keySet(...keys), { ...directoryType, ...(fields === undefined ? {} : { signature: fields.signature, 'signature-input': fields.signatureInput }) });
  }

  test('only the keys whose signature of the answer verifies are used; the others are reported', async () => {
    const signer = publishedKey();
    const stranger = publishedKey();
    await serveDirectory([signer, stranger], [signer]);
    const res = await call({ method: 'POST', path: '/registry/clients', body: createBody({ signatureAgent: agent.origin }) });
    expect(res.status).toBe(201);
    expect(fingerprints(res.body)).toEqual([signer.fingerprint]);
    expect((res.body.keySourceStatus as { refusedKeys: unknown[] }).refusedKeys).toEqual([{ kid: stranger.thumbprint, thumbprint: stranger.thumbprint, reason: 'directory_signature_invalid' }]);
  });

  test('with requireSignedDirectories an unsigned directory is refused (unsigned_directory_key), a signed one is used; a JWKS is not a directory', async () => {
    const strict = registryOn(tableName, true).handler;
    const unsigned = publishedKey();
    await serveDirectory([unsigned], []);
    const refused = await call({ method: 'POST', path: '/registry/clients', body: createBody({ signatureAgent: agent.origin }) }, strict);
    expectError(refused, 400, 'key_source_refused');
    expect(refused.body.message).toContain('unsigned_directory_key');
    // The same directory without the setting is used as it is.
    expect((await call({ method: 'POST', path: '/registry/clients', body: createBody({ signatureAgent: agent.origin }) })).status).toBe(201);

    const signed = publishedKey();
    await serveDirectory([signed], [signed]);
    const ok = await call({ method: 'POST', path: '/registry/clients', body: createBody({ signatureAgent: agent.origin }) }, strict);
    expect(ok.status).toBe(201);
    expect(fingerprints(ok.body)).toEqual([signed.fingerprint]);

    const jwks = await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: server.url(newSource(keySet(publishedKey()))) }) }, strict);
    expect(jwks.status).toBe(201);

    // A refresh under the setting that finds the directory unsigned is a failure: the signed key stays.
    await serveDirectory([signed, publishedKey()], [], true);
    const refresher = createKeySourceRefresher({ store: keySources, fetch: (s) => server.fetch(s), nowMs: () => nowMs, refreshIntervalS: INTERVAL_S, requireSignedDirectories: true });
    const outcome = await refresher.refreshClient(ok.body.clientId as string, REFRESHER_ACTOR);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'no_usable_key' } });
    expect((await store.getClient(ok.body.clientId as string))?.keys.map((k) => k.fingerprint)).toEqual([signed.fingerprint]);
    // Nor does an unsigned empty directory end it: only a JWKS's own list withdraws keys (a directory's
    // signature covers the request's authority, not the list).
    await serveDirectory([], [], true);
    expect(await refresher.refreshClient(ok.body.clientId as string, REFRESHER_ACTOR)).toMatchObject({ ok: false, removed: [] });
    expect((await store.getClient(ok.body.clientId as string))?.keys.map((k) => [k.fingerprint, k.notAfter])).toEqual([[signed.fingerprint, undefined]]);
  });
});

// ----------------------------------------------------------------------------- account admins

describe('an account admin', () => {
  /** Calls the registry as an account admin of `accountId`. */
  async function callAs(clientId: string, accountId: string, options: CallOptions): Promise<CallResult> {
    const event = httpApiEvent(options);
    Object.assign((event.requestContext as unknown as { authorizer: { lambda: Record<string, unknown> } }).authorizer.lambda, { clientId, roles: ACCOUNT_ADMIN_ROLE, accountId });
    const result = await handler(event, { awsRequestId: 'test' });
    const body = JSON.parse(result.body) as Record<string, unknown>;
    expect(checkAgainstDocument(doc, options, result.statusCode, body)).toEqual([]);
    return { status: result.statusCode, body, headers: {}, schemaProblems: [] };
  }

  test('refreshes and sets the key source of its own clients only, and not of a client holding a role above its ceiling', async () => {
    const account = (await store.createAccount({ name: `Agents ${++sourceCounter}`, roleCeiling: ['demo'] }, 'test')).accountId;
    const admin = `c_AcctAdmin${String(sourceCounter).padStart(13, '0')}`;
    const own = await call({ method: 'POST', path: '/registry/clients', body: createBody({ accountId: account, jwksUri: server.url(newSource(keySet(publishedKey()))) }) });
    const above = await call({ method: 'POST', path: '/registry/clients', body: createBody({ accountId: account, roles: ['orders:read'], jwksUri: server.url(newSource(keySet(publishedKey()))) }) });
    const elsewhere = await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: server.url(newSource(keySet(publishedKey()))) }) });

    expect((await callAs(admin, account, { method: 'POST', path: `/registry/clients/${own.body.clientId as string}/keys/refresh` })).status).toBe(200);
    expectError(await callAs(admin, account, { method: 'POST', path: `/registry/clients/${elsewhere.body.clientId as string}/keys/refresh` }), 404, 'not_found');
    expectError(await callAs(admin, account, { method: 'POST', path: `/registry/clients/${above.body.clientId as string}/keys/refresh` }), 403, 'client_above_ceiling');
    const abovePath = newSource(keySet(publishedKey()));
    expectError(await callAs(admin, account, { method: 'PATCH', path: `/registry/clients/${above.body.clientId as string}`, body: { version: 1, jwksUri: server.url(abovePath) } }), 403, 'client_above_ceiling');
    expect(server.hits.get(abovePath)).toBeUndefined();

    // Switching a client outside its reach to a source is refused before anything is fetched.
    const path = newSource(keySet(publishedKey()));
    const patch = await callAs(admin, account, { method: 'PATCH', path: `/registry/clients/${elsewhere.body.clientId as string}`, body: { version: 1, jwksUri: server.url(path) } });
    expectError(patch, 404, 'not_found');
    expect(server.hits.get(path)).toBeUndefined();
    const created = await callAs(admin, account, { method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: server.url(path) }) });
    expect(created.status).toBe(201);
    expect(created.body.accountId).toBe(account);

    // A source serving a client of another account, which has just published a new key: taken, with no word on which client holds it.
    const held = elsewhere.body.keySource as { jwksUri: string };
    server.serve(new URL(held.jwksUri).pathname, keySet(publishedKey()));
    const squat = await callAs(admin, account, { method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: held.jwksUri }) });
    expectError(squat, 409, 'key_source_in_use');
    expect(squat.body.message).not.toContain(elsewhere.body.clientId as string);
    expect(squat.body.message).toMatch(/ask the API owner's operators to release it/);
  });
});

test("a client moving to a source that publishes a key it held with an end: the key's ownership item loses the end with the record", async () => {
  const first = publishedKey();
  const ending = publishedKey();
  const created = await call({ method: 'POST', path: '/registry/clients', body: createBody({ publicKey: pem(first) }) });
  const clientId = created.body.clientId as string;
  expect((await call({ method: 'POST', path: `/registry/clients/${clientId}/keys`, body: { version: 1, publicKey: pem(ending), notAfter: '2030-01-01T00:00:00Z' } })).status).toBe(201);
  const moved = await call({ method: 'PATCH', path: `/registry/clients/${clientId}`, body: { version: 2, jwksUri: server.url(newSource(keySet(ending))) } });
  expect(moved.status).toBe(200);
  const held = (moved.body.keys as ViewKey[]).find((k) => k.fingerprint === ending.fingerprint) as ViewKey & { notAfter?: string };
  expect(held.notAfter).toBeUndefined();
  expect((await rawItem(`KEY#${ending.fingerprint}`, 'KEY'))?.notAfter).toBeUndefined();
});

describe('refreshDue', () => {
  test("a set the registry refuses (the last operator would be left without a lasting key) is a failure of the source: recorded, backed off, listed as failing, and its keys stay", async () => {
    const table = await ddb.createTable();
    const own = registryOn(table);
    const first = publishedKey();
    const path = newSource(keySet(first));
    const body = { name: 'Operator by JWKS', networkWhitelist: ['0.0.0.0'], roles: ['registry:admin'], profile: 'rfc9421', jwksUri: server.url(path) };
    const clientId = (await call({ method: 'POST', path: '/registry/clients', body }, own.handler)).body.clientId as string;
    // The publisher withdraws the key for one that expires in two hours: the only operator would be left without a lasting key.
    server.serve(path, keySet(publishedKey({ exp: Math.floor(nowMs / 1000) + 7200 })));
    const start = nowMs;
    nowMs += INTERVAL_S * 1000;
    try {
      const refresher = createKeySourceRefresher({ store: own.keySources, fetch: (s) => server.fetch(s), nowMs: () => nowMs, refreshIntervalS: INTERVAL_S, requireSignedDirectories: false });
      expect(await refresher.refreshDue()).toMatchObject({ checked: 1, failed: 1, refreshed: 0 });
      const status = await own.keySources.getStatus(clientId);
      expect(status).toMatchObject({ consecutiveFailures: 1, failingSince: new Date(nowMs).toISOString(), lastError: { code: 'last_admin' }, nextFetchAt: new Date(nowMs + 60_000).toISOString() });
      expect([...(await own.keySources.failingSources()).keys()]).toEqual([clientId]);
      // Backed off: a run at the same instant fetches nothing.
      expect((await refresher.refreshDue()).checked).toBe(0);
      // Asked for by hand, the refresh answers the same failure (ok: false, its code), as for any failing source.
      expect(await refresher.refreshClient(clientId, REFRESHER_ACTOR)).toMatchObject({ ok: false, error: { code: 'last_admin' } });
      expect((await own.store.getClient(clientId, { consistentRead: true }))?.keys.map((k) => k.fingerprint)).toEqual([first.fingerprint]);
    } finally {
      nowMs = start;
    }
  });

  test('pages through the due sources only (two a page), refreshes each once, and counts what it did', async () => {
    const table = await ddb.createTable();
    const own = registryOn(table);
    const keys = Array.from({ length: 5 }, () => publishedKey());
    const paths = keys.map((k) => newSource(keySet(k)));
    const ids: string[] = [];
    for (const path of paths) ids.push((await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: server.url(path) }) }, own.handler)).body.clientId as string);
    const refresher = createKeySourceRefresher({ store: own.keySources, fetch: (s) => server.fetch(s), nowMs: () => nowMs, refreshIntervalS: INTERVAL_S, requireSignedDirectories: false, pageSize: 2, concurrency: 2 });

    // Nothing is due before the interval has passed.
    expect(await refresher.refreshDue()).toEqual({ checked: 0, refreshed: 0, unchanged: 0, failed: 0, failingOverAnHour: 0, deferred: 0, keysAdded: 0, keysRemoved: 0 });

    nowMs = T0 + INTERVAL_S * 1000;
    const rotated = publishedKey();
    server.serve(paths[0], keySet(keys[0], rotated));
    server.serve(paths[1], 'down', {}, 503);
    const hitsBefore = paths.map((p) => server.hits.get(p) ?? 0);
    const run = await refresher.refreshDue();
    expect(run).toEqual({ checked: 5, refreshed: 1, unchanged: 3, failed: 1, failingOverAnHour: 0, deferred: 0, keysAdded: 1, keysRemoved: 0 });
    expect(paths.map((p, i) => (server.hits.get(p) ?? 0) - hitsBefore[i])).toEqual([1, 1, 1, 1, 1]);
    // Each is rescheduled: an immediate second run finds none due.
    expect((await refresher.refreshDue()).checked).toBe(0);

    // Two hours later the failing source has been failing for over an hour; a limit stops the run
    // early and counts the sources it left due. Each run counts the failing source, fetched by it or not.
    nowMs = T0 + INTERVAL_S * 1000 + 2 * 3_600_000;
    const limited = await refresher.refreshDue({ limit: 3 });
    expect({ checked: limited.checked, deferred: limited.deferred }).toEqual({ checked: 3, deferred: 2 });
    const rest = await refresher.refreshDue();
    expect({ checked: rest.checked, deferred: rest.deferred }).toEqual({ checked: 2, deferred: 0 });
    expect([limited.failingOverAnHour, rest.failingOverAnHour]).toEqual([1, 1]);

    // A source whose storage call fails is counted as failed and the run goes on with the others.
    nowMs += 2 * 3_600_000;
    const faulty: typeof own.keySources = Object.create(own.keySources, {
      getClient: { value: (id: string) => (id === ids[2] ? Promise.reject(new Error('throttled')) : own.keySources.getClient(id)) },
    });
    const survivor = createKeySourceRefresher({ store: faulty, fetch: (s) => server.fetch(s), nowMs: () => nowMs, refreshIntervalS: INTERVAL_S, requireSignedDirectories: false, pageSize: 2 });
    const partial = await survivor.refreshDue();
    expect({ checked: partial.checked, failed: partial.failed }).toEqual({ checked: 5, failed: 2 });
    nowMs = T0;
  });

  test('a source fetched in one run is due at the next, though the schedule fires a few seconds early and the fetch ends late in the run', async () => {
    nowMs = T0;
    const own = registryOn(await ddb.createTable());
    const path = newSource(keySet(publishedKey()));
    const clientId = (await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: server.url(path) }) }, own.handler)).body.clientId as string;
    // Each fetch takes 40 s of the run.
    const slow = async (source: Parameters<KeySourceServer['fetch']>[0]) => {
      const fetched = await server.fetch(source);
      nowMs += 40_000;
      return fetched;
    };
    const refresher = createKeySourceRefresher({ store: own.keySources, fetch: slow, nowMs: () => nowMs, refreshIntervalS: INTERVAL_S, requireSignedDirectories: false });
    const checked: number[] = [];
    for (let run = 1; run <= 3; run++) {
      nowMs = T0 + run * INTERVAL_S * 1000 - 5_000;
      checked.push((await refresher.refreshDue()).checked);
    }
    expect(checked).toEqual([1, 1, 1]);
    // Planned one interval after the run's start, not after the fetch.
    const runStart = T0 + 3 * INTERVAL_S * 1000 - 5_000;
    expect((await own.keySources.getStatus(clientId))?.nextFetchAt).toBe(new Date(runStart + INTERVAL_S * 1000).toISOString());
    // The slack is small: a run a minute early does not fetch it.
    nowMs = runStart + INTERVAL_S * 1000 - 60_000;
    expect((await refresher.refreshDue()).checked).toBe(0);
    nowMs = T0;
  });

  test('every source failing for over an hour is counted by each run, also one waiting out a long Retry-After; a success or a switch back to a registered key takes it off the failing list', async () => {
    nowMs = T0;
    const table = await ddb.createTable();
    const own = registryOn(table);
    const [a, b] = [publishedKey(), publishedKey()];
    const [pathA, pathB] = [newSource(keySet(a)), newSource(keySet(b))];
    const ids: string[] = [];
    for (const path of [pathA, pathB]) ids.push((await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: server.url(path) }) }, own.handler)).body.clientId as string);
    const refresher = createKeySourceRefresher({ store: own.keySources, fetch: (s) => server.fetch(s), nowMs: () => nowMs, refreshIntervalS: INTERVAL_S, requireSignedDirectories: false });
    const failingList = async () => ((await rawItem(ITEM.failingSourcesPk, ITEM.failingSourcesSk, table))?.failing ?? {}) as Record<string, string>;

    nowMs = T0 + INTERVAL_S * 1000;
    const since = new Date(nowMs).toISOString();
    server.serve(pathA, 'slow down', { 'retry-after': String(3 * 3600) }, 429);
    server.serve(pathB, 'down', {}, 503);
    expect(await refresher.refreshDue()).toMatchObject({ checked: 2, failed: 2, failingOverAnHour: 0 });

    // 61 minutes on, B is fetched again (its backoff is over), A is not (its Retry-After is not): both count.
    nowMs += 61 * 60_000;
    const hitsA = server.hits.get(pathA);
    expect(await refresher.refreshDue()).toMatchObject({ checked: 1, failed: 1, failingOverAnHour: 2 });
    expect(server.hits.get(pathA)).toBe(hitsA);
    // Both are on the failing-sources list, each since its first failure.
    expect(await failingList()).toEqual({ [ids[0]]: since, [ids[1]]: since });

    // B recovers; A's client switches back to a registered key (its status goes): neither counts, both leave the list.
    server.serve(pathB, keySet(b));
    const read = await call({ method: 'GET', path: `/registry/clients/${ids[0]}` }, own.handler);
    const back = await call({ method: 'PATCH', path: `/registry/clients/${ids[0]}`, body: { version: read.body.version, publicKey: pem(publishedKey()) } }, own.handler);
    expect(back.status).toBe(200);
    nowMs += 16 * 60_000;
    expect(await refresher.refreshDue()).toMatchObject({ checked: 1, unchanged: 1, failed: 0, failingOverAnHour: 0 });
    expect(await failingList()).toEqual({});
    nowMs = T0;
  });

  test('with a deadline, no fetch starts without time to finish: the sources left stay due, are counted as deferred, and go first next run', async () => {
    nowMs = T0;
    const own = registryOn(await ddb.createTable());
    const paths = Array.from({ length: 5 }, () => newSource(keySet(publishedKey())));
    for (const path of paths) await call({ method: 'POST', path: '/registry/clients', body: createBody({ jwksUri: server.url(path) }) }, own.handler);
    // Each fetch takes 4 s.
    const slow = async (source: Parameters<KeySourceServer['fetch']>[0]) => {
      const fetched = await server.fetch(source);
      nowMs += 4_000;
      return fetched;
    };
    const refresher = createKeySourceRefresher({ store: own.keySources, fetch: slow, nowMs: () => nowMs, refreshIntervalS: INTERVAL_S, requireSignedDirectories: false, concurrency: 1, pageSize: 2 });
    nowMs = T0 + INTERVAL_S * 1000;
    const hitsBefore = paths.map((p) => server.hits.get(p) ?? 0);
    // Fetches start at +0, +4 and +8 s; at +12 s less than BATCH_RESERVE_MS is left before the deadline.
    const first = await refresher.refreshDue({ deadlineMs: nowMs + BATCH_RESERVE_MS + 9_000 });
    expect({ checked: first.checked, deferred: first.deferred }).toEqual({ checked: 3, deferred: 2 });
    const second = await refresher.refreshDue();
    expect({ checked: second.checked, deferred: second.deferred }).toEqual({ checked: 2, deferred: 0 });
    expect(paths.map((p, i) => (server.hits.get(p) ?? 0) - hitsBefore[i])).toEqual([1, 1, 1, 1, 1]);
    // A deadline already too close: nothing is fetched, everything due is deferred.
    nowMs += INTERVAL_S * 1000;
    expect(await refresher.refreshDue({ deadlineMs: nowMs + 1_000 })).toMatchObject({ checked: 0, deferred: 5 });
    nowMs = T0;
  });
});
