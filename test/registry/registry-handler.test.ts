/**
 * The registry Lambda handler against DynamoDB Local, driven with realistic API Gateway events
 * (HTTP API 2.0 and REST v1). Every answer is checked against docs/openapi/registry.json (status
 * documented for the operation, body valid against its schema), and so is every accepted body.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { computeContentDigest } from '../../lambda/core/content-digest';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS, MAX_REGISTRY_BODY_BYTES } from '../../lambda/core/defaults';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { AUTHORIZER_CACHE_TTL_HEADER } from '../../lambda/core/defaults';
import { createRegistryHandler, type RegistryHandler } from '../../lambda/registry/registry-handler';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { dynamoDbLocalClientConfig } from '../../local/dynamodb-local';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import { ADMIN_ID, type CallOptions, type CallResult, callRegistry } from '../support/registry-harness';
import { privateKeyForms, spkiPem, testKey, unacceptablePublicKeys } from '../support/registry-fixtures';
import { infinityPointSpki, pemOf } from '../core/key-fuzz-inputs';
import { loadRegistryOpenApi } from '../support/registry-openapi';

const doc = loadRegistryOpenApi();
const roles = compileRoleCatalogue({ 'registry:admin': ['* /registry/**'], demo: ['* /api/*'] });

let ddb: TestDynamoDb;
let store: DynamoClientStore;
let handler: RegistryHandler;
const logLines: string[] = [];

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  store = new DynamoClientStore({ tableName: await ddb.createTable(), client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  // A real Powertools logger; its JSON lines (info on stdout, warn/error on stderr) are captured.
  const logger = new Logger({ serviceName: 'signet-registry' });
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    jest.spyOn(stream, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = chunk.toString();
      if (text.includes('"service":"signet-registry"')) {
        logLines.push(...text.split('\n').filter(Boolean));
        return true;
      }
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write);
  }
  handler = createRegistryHandler({ store, roles, logger });
});

afterAll(async () => {
  jest.restoreAllMocks();
  await ddb?.stop();
});

/** Calls the handler and insists the answer conforms to the OpenAPI document. */
async function call(options: CallOptions): Promise<CallResult> {
  const result = await callRegistry(handler, options, doc);
  expect(result.schemaProblems).toEqual([]);
  return result;
}

function createBody(i: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: `Partner ${i}`, networkWhitelist: ['203.0.113.7', '198.51.100.0/24'], publicKey: spkiPem(testKey(i)), roles: ['demo'], ...overrides };
}

async function createClient(i: number): Promise<Record<string, unknown>> {
  const res = await call({ method: 'POST', path: '/registry/clients', body: createBody(i) });
  expect(res.status).toBe(201);
  return res.body;
}

function expectError(res: CallResult, status: number, code: string): void {
  expect({ status: res.status, error: res.body.error }).toEqual({ status, error: code });
  expect(typeof res.body.message).toBe('string');
  expect((res.body.message as string).length).toBeGreaterThan(10);
  expect(res.body.requestId).toMatch(/^(req|rest)-\d+$/);
}

// ----------------------------------------------------------------------------- create

describe('POST /registry/clients', () => {
  test('creates a client: 201, Location, ETag, canonical values, audit by the acting client', async () => {
    const res = await call({ method: 'POST', path: '/registry/clients', body: createBody(0, { networkWhitelist: ['2001:DB8::/32', '203.0.113.7/32', '203.0.113.7'] }) });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      registration: 'created',
      name: 'Partner 0',
      status: 'active',
      networkWhitelist: ['2001:db8::/32', '203.0.113.7'],
      roles: ['demo'],
      version: 1,
      keys: [{ fingerprint: testKey(0).fingerprint, publicKey: spkiPem(testKey(0)), active: true }],
    });
    const clientId = res.body.clientId as string;
    expect(res.headers.location).toBe(`/registry/clients/${clientId}`);
    expect(res.headers.etag).toBe('"1"');
    expect(res.headers['content-type']).toBe('application/json');

    const got = await call({ method: 'GET', path: `/registry/clients/${clientId}` });
    expect(got.status).toBe(200);
    const { registration: _r, ...record } = res.body;
    expect(got.body).toEqual(record);
    const audit = await call({ method: 'GET', path: `/registry/clients/${clientId}/audit` });
    expect(audit.body.entries).toEqual([expect.objectContaining({ action: 'client.created', actor: ADMIN_ID, version: 1 })]);
  });

  test('a public key already registered: 200, "registration": "skipped", the holder\'s record', async () => {
    const first = await createClient(1);
    const again = await call({ method: 'POST', path: '/registry/clients', body: createBody(1, { name: 'Another name' }) });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ registration: 'skipped', clientId: first.clientId, name: 'Partner 1' });
  });

  test('20 concurrent creates with the same public key: one 201, nineteen 200 skipped, one client', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call({ method: 'POST', path: '/registry/clients', body: createBody(2, { name: `racer ${i}` }) })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200 && r.body.registration === 'skipped')).toHaveLength(19);
    expect(new Set(results.map((r) => r.body.clientId)).size).toBe(1);
    const found = await call({ method: 'GET', path: '/registry/clients', query: `fingerprint=${testKey(2).fingerprint}` });
    expect(found.body.clients).toEqual([expect.objectContaining({ clientId: results[0].body.clientId })]);
  });

  test('a REST v1 event with a stage, and a base64-encoded HTTP API body, work the same', async () => {
    const rest = await call({ method: 'POST', path: '/registry/clients', body: createBody(3), format: 'v1', stage: '/prod' });
    expect(rest.status).toBe(201);
    expect(rest.headers.location).toBe(`/prod/registry/clients/${rest.body.clientId}`);
    const got = await call({ method: 'GET', path: `/registry/clients/${rest.body.clientId}`, format: 'v1' });
    expect(got.body.clientId).toBe(rest.body.clientId);

    const v2 = await call({ method: 'POST', path: '/registry/clients', body: createBody(4), stage: '/prod', base64: true });
    expect(v2.status).toBe(201);
    expect(v2.headers.location).toBe(`/prod/registry/clients/${v2.body.clientId}`);
  });
});

// ----------------------------------------------------------------------------- edit

describe('PATCH /registry/clients/{clientId}', () => {
  test('edits with the version in the body or If-Match; a stale version is 409 and changes nothing', async () => {
    const client = await createClient(5);
    const path = `/registry/clients/${client.clientId}`;
    const byBody = await call({ method: 'PATCH', path, body: { version: 1, name: 'Renamed', roles: ['demo', 'registry:admin'] } });
    expect(byBody.status).toBe(200);
    expect(byBody.body).toMatchObject({ name: 'Renamed', roles: ['demo', 'registry:admin'], version: 2 });
    expect(byBody.headers.etag).toBe('"2"');

    const byHeader = await call({ method: 'PATCH', path, body: { networkWhitelist: ['0.0.0.0'] }, headers: { 'If-Match': byBody.headers.etag } });
    expect(byHeader.body).toMatchObject({ networkWhitelist: ['0.0.0.0'], version: 3 });

    const stale = await call({ method: 'PATCH', path, body: { version: 2, name: 'Lost?' } });
    expectError(stale, 409, 'version_conflict');
    expect((await call({ method: 'GET', path })).body).toMatchObject({ name: 'Renamed', version: 3 });

    expectError(await call({ method: 'PATCH', path, body: { name: 'x' } }), 400, 'invalid_request');
    expectError(await call({ method: 'PATCH', path, body: { version: 3, name: 'x' }, headers: { 'if-match': '"2"' } }), 400, 'invalid_request');
    expectError(await call({ method: 'PATCH', path, body: { version: 3, name: 'x' }, headers: { 'if-match': 'yesterday' } }), 400, 'invalid_request');
    expectError(await call({ method: 'PATCH', path, body: { version: 3 } }), 400, 'invalid_request');
    expectError(await call({ method: 'PATCH', path, body: { version: 0, name: 'x' } }), 400, 'invalid_request');
  });

  test('20 concurrent edits from the same version: exactly one 200, nineteen 409, no lost update', async () => {
    const client = await createClient(6);
    const path = `/registry/clients/${client.clientId}`;
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call({ method: 'PATCH', path, body: { version: 1, name: `editor ${i}` } })));
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.status === 409 && r.body.error === 'version_conflict')).toHaveLength(19);
    const stored = await call({ method: 'GET', path });
    expect(stored.body).toMatchObject({ name: winners[0].body.name, version: 2 });
  });

  test('publicKey replaces the keys; a key held by another client is 409 key_already_registered', async () => {
    const a = await createClient(7);
    const b = await createClient(8);
    const path = `/registry/clients/${a.clientId}`;
    const taken = await call({ method: 'PATCH', path, body: { version: 1, publicKey: spkiPem(testKey(8)) } });
    expectError(taken, 409, 'key_already_registered');
    expect(taken.body.message).toContain(b.clientId as string);

    const replaced = await call({ method: 'PATCH', path, body: { version: 1, publicKey: spkiPem(testKey(9)) } });
    expect((replaced.body.keys as { fingerprint: string }[]).map((k) => k.fingerprint)).toEqual([testKey(9).fingerprint]);
    const old = await call({ method: 'GET', path: '/registry/clients', query: `fingerprint=${testKey(7).fingerprint}` });
    expect(old.body.clients).toEqual([]);
  });
});

describe('PATCH publicKey with the key the client holds', () => {
  test('with another algorithm named, it is applied (its signer moved to it); the same again writes nothing', async () => {
    const client = await createClient(29);
    const path = `/registry/clients/${client.clientId}`;
    const moved = await call({ method: 'PATCH', path, body: { version: 1, publicKey: spkiPem(testKey(29)), algorithm: 'rsa-pss-sha512' } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ version: 2, keys: [expect.objectContaining({ fingerprint: testKey(29).fingerprint, algorithm: 'rsa-pss-sha512' })] });
    const again = await call({ method: 'PATCH', path, body: { version: 2, publicKey: spkiPem(testKey(29)), algorithm: 'rsa-pss-sha512' } });
    expect(again.body).toMatchObject({ version: 2 });
    const back = await call({ method: 'PATCH', path, body: { version: 2, publicKey: spkiPem(testKey(29)), algorithm: 'rsa-v1_5-sha256' } });
    expect(back.body).toMatchObject({ version: 3, keys: [expect.objectContaining({ algorithm: 'rsa-v1_5-sha256' })] });
  });

  test('sent again without an algorithm (as the portal does), it keeps the one it was registered for: its signer goes on verifying', async () => {
    const created = await call({ method: 'POST', path: '/registry/clients', body: createBody(25, { algorithm: 'rsa-pss-sha512' }) });
    expect(created.body).toMatchObject({ keys: [expect.objectContaining({ algorithm: 'rsa-pss-sha512' })] });
    const path = `/registry/clients/${created.body.clientId}`;
    const again = await call({ method: 'PATCH', path, body: { version: 1, publicKey: spkiPem(testKey(25)) } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ version: 1, keys: [expect.objectContaining({ fingerprint: testKey(25).fingerprint, algorithm: 'rsa-pss-sha512' })] });
  });
});

// ----------------------------------------------------------------------------- keys, status

describe('key rollover and status', () => {
  test('add a key (201), remove the old one, refuse removing the last one', async () => {
    const client = await createClient(10);
    const base = `/registry/clients/${client.clientId}`;
    const added = await call({ method: 'POST', path: `${base}/keys`, body: { publicKey: spkiPem(testKey(11)), notAfter: '2099-01-01T00:00:00+01:00' } });
    expect(added.status).toBe(201);
    expect(added.body.keys).toEqual([
      expect.objectContaining({ fingerprint: testKey(10).fingerprint, active: true }),
      expect.objectContaining({ fingerprint: testKey(11).fingerprint, notAfter: '2098-12-31T23:00:00.000Z', active: true }),
    ]);
    expectError(await call({ method: 'POST', path: `${base}/keys`, body: { publicKey: spkiPem(testKey(11)) } }), 409, 'key_already_registered');
    expectError(await call({ method: 'POST', path: `${base}/keys`, body: { publicKey: spkiPem(testKey(11)), version: 1 } }), 409, 'version_conflict');

    const removed = await call({ method: 'DELETE', path: `${base}/keys/${testKey(10).fingerprint}`, headers: { 'if-match': '"2"' } });
    expect(removed.status).toBe(200);
    expect((removed.body.keys as { fingerprint: string }[]).map((k) => k.fingerprint)).toEqual([testKey(11).fingerprint]);

    const lastKey = await call({ method: 'DELETE', path: `${base}/keys/${testKey(11).fingerprint}` });
    expectError(lastKey, 409, 'last_key');
    // The store's refusals, in the registry's words: where to go next, by route.
    expect(lastKey.body.message).toBe(
      "This is the client's last active key, so removing it would lock the client out. Add the new key first (POST /registry/clients/{clientId}/keys), then remove this one.",
    );
    const gone = await call({ method: 'DELETE', path: `${base}/keys/${testKey(10).fingerprint}` });
    expectError(gone, 404, 'not_found');
    expect(gone.body.message).toBe(`Client ${client.clientId} has no key with fingerprint ${testKey(10).fingerprint}. List its keys with GET /registry/clients/${client.clientId}.`);
    expectError(await call({ method: 'DELETE', path: `${base}/keys/not-a-fingerprint` }), 404, 'not_found');
    expectError(await call({ method: 'POST', path: `${base}/keys`, body: { publicKey: spkiPem(testKey(12)), notAfter: 'next week' } }), 400, 'invalid_request');
  });

  test('disable and enable (empty body or a version); repeating is harmless', async () => {
    const client = await createClient(12);
    const base = `/registry/clients/${client.clientId}`;
    const disabled = await call({ method: 'POST', path: `${base}/disable` });
    expect(disabled.body).toMatchObject({ status: 'disabled', version: 2 });
    expect((await call({ method: 'POST', path: `${base}/disable`, body: {} })).body).toMatchObject({ status: 'disabled', version: 2 });
    expectError(await call({ method: 'POST', path: `${base}/enable`, body: { version: 1 } }), 409, 'version_conflict');
    expect((await call({ method: 'POST', path: `${base}/enable`, body: { version: 2 } })).body).toMatchObject({ status: 'active', version: 3 });
    expectError(await call({ method: 'POST', path: `${base}/enable`, body: { force: true } }), 400, 'invalid_request');
  });
});

// ----------------------------------------------------------------------------- find, list

describe('GET /registry/clients', () => {
  test('finds the holder of a key by fingerprint or by public key (percent-encoded or not)', async () => {
    const client = await createClient(13);
    const pem = spkiPem(testKey(13));
    for (const query of [`fingerprint=${testKey(13).fingerprint}`, `publicKey=${encodeURIComponent(pem)}`]) {
      const found = await call({ method: 'GET', path: '/registry/clients', query });
      expect(found.body).toEqual({ clients: [expect.objectContaining({ clientId: client.clientId })] });
    }
    // REST decodes a raw "+" in the query to a space; the key is still found.
    const body = pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
    expect(body).toContain('+');
    const rest = await call({ method: 'GET', path: '/registry/clients', query: `publicKey=${body}`, format: 'v1' });
    expect(rest.body.clients).toEqual([expect.objectContaining({ clientId: client.clientId })]);

    const none = await call({ method: 'GET', path: '/registry/clients', query: `fingerprint=${'A'.repeat(43)}` });
    expect(none.body).toEqual({ clients: [] });

    expectError(await call({ method: 'GET', path: '/registry/clients', query: `fingerprint=${testKey(13).fingerprint}&publicKey=x` }), 400, 'invalid_request');
    expectError(await call({ method: 'GET', path: '/registry/clients', query: 'fingerprint=short' }), 400, 'invalid_request');
    const asPrivate = await call({ method: 'GET', path: '/registry/clients', query: `publicKey=${encodeURIComponent(testKey(13).key.export({ type: 'pkcs8', format: 'pem' }) as string)}` });
    expectError(asPrivate, 400, 'private_key_submitted');
  });

  test('pages with limit and an opaque cursor; bad parameters are 400', async () => {
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await call({ method: 'GET', path: '/registry/clients', query: `limit=3${cursor ? `&cursor=${cursor}` : ''}` });
      const clients = res.body.clients as { clientId: string }[];
      expect(clients.length).toBeLessThanOrEqual(3);
      for (const c of clients) {
        expect(seen.has(c.clientId)).toBe(false);
        seen.add(c.clientId);
      }
      cursor = res.body.nextCursor as string | undefined;
      pages++;
    } while (cursor !== undefined && pages < 50);
    expect(seen.size).toBeGreaterThanOrEqual(10);
    expect(pages).toBeGreaterThan(3);

    for (const query of ['limit=0', 'limit=101', 'limit=ten', 'cursor=!!', 'cursor=eyJ4IjoxfQ', 'sort=size', 'owner=me']) {
      expectError(await call({ method: 'GET', path: '/registry/clients', query }), 400, 'invalid_request');
    }
  });
});

// ----------------------------------------------------------------------------- troubleshooting, keys due

describe('auth failures, audit and keys due for rotation', () => {
  test('GET auth-failures shows what the authorizer recorded, newest first', async () => {
    const client = await createClient(14);
    await store.recordAuthFailure(client.clientId as string, 'ip_not_allowed', { message: 'Requests from 2001:db8::1 are not in the whitelist.', sourceIp: '2001:db8::1', method: 'GET', path: '/api/x' });
    await store.recordAuthFailure(client.clientId as string, 'role_forbidden');
    await store.countUnauthenticatedFailures(client.clientId as string, 'signature_mismatch', 3);
    const res = await call({ method: 'GET', path: `/registry/clients/${client.clientId}/auth-failures` });
    expect(res.body).toEqual({
      clientId: client.clientId,
      failures: [
        { at: expect.any(String), reason: 'role_forbidden' },
        { at: expect.any(String), reason: 'ip_not_allowed', message: 'Requests from 2001:db8::1 are not in the whitelist.', sourceIp: '2001:db8::1', method: 'GET', path: '/api/x' },
      ],
      unauthenticated: { windowSeconds: 3600, windows: [{ start: expect.stringMatching(/:00:00\.000Z$/), counts: { signature_mismatch: 3 } }] },
    });
    expectError(await call({ method: 'GET', path: '/registry/clients/c_AAAAAAAAAAAAAAAAAAAAAA/auth-failures' }), 404, 'not_found');
  });

  test('GET /registry/keys/expiring lists keys older than N days (default 90)', async () => {
    const client = await createClient(15);
    const due = await call({ method: 'GET', path: '/registry/keys/expiring', query: 'olderThanDays=0&limit=100' });
    expect(due.body.olderThanDays).toBe(0);
    expect(due.body.keys).toEqual(expect.arrayContaining([{ clientId: client.clientId, fingerprint: testKey(15).fingerprint, addedAt: expect.any(String), ageDays: 0 }]));
    const byDefault = await call({ method: 'GET', path: '/registry/keys/expiring' });
    expect(byDefault.body).toEqual({ olderThanDays: 90, keys: [] });
    for (const query of ['olderThanDays=-1', 'olderThanDays=ninety', 'olderThanDays=99999999']) {
      expectError(await call({ method: 'GET', path: '/registry/keys/expiring', query }), 400, 'invalid_request');
    }
  });
});

// ----------------------------------------------------------------------------- bad input

describe('bad input: each a 4xx with a stable code and a sentence', () => {
  test.each(Object.keys(privateKeyForms(testKey(0))))('a private key (%s) as publicKey: 400 private_key_submitted, never stored or echoed', async (form) => {
    const pasted = privateKeyForms(testKey(16))[form];
    const before = await store.listClients(undefined, 100);
    for (const [method, path, body] of [
      ['POST', '/registry/clients', createBody(16, { publicKey: pasted })],
      ['POST', '/registry/clients', createBody(16, { publicKey: pasted, unexpected: 1 })],
      ['PATCH', `/registry/clients/${before.items[0].clientId}`, { version: 1, publicKey: pasted }],
      ['POST', `/registry/clients/${before.items[0].clientId}/keys`, { publicKey: pasted }],
    ] as const) {
      const res = await call({ method, path, body });
      expectError(res, 400, 'private_key_submitted');
      expect(res.body.message).toMatch(/treat this private key as exposed/);
      expect(JSON.stringify(res.body)).not.toContain(pasted.replace(/-----[A-Z0-9 ]+-----/g, '').replace(/\s+/g, '').slice(20, 60));
    }
    expect((await store.listClients(undefined, 100)).items.length).toBe(before.items.length);
    expect(await store.findByFingerprint(testKey(16).fingerprint, { consistentRead: true })).toBeUndefined();
  });

  test('a private key pasted as the whole body is still recognised', async () => {
    expectError(await call({ method: 'POST', path: '/registry/clients', body: testKey(16).pkcs8Base64 }), 400, 'private_key_submitted');
  });

  test('a registered public PEM followed by a PKCS#8 Base64 private key: 400 private_key_submitted, not 200 skipped', async () => {
    const holder = await createClient(22);
    const pasted = `${spkiPem(testKey(22))}${testKey(16).pkcs8Base64}\n`;
    const wrapped = `${spkiPem(testKey(22))}\n${testKey(16).pkcs8Base64.match(/.{1,64}/g)!.join('\n')}\n`;
    for (const publicKey of [pasted, wrapped]) {
      for (const [method, path, body] of [
        ['POST', '/registry/clients', createBody(22, { publicKey })],
        ['PATCH', `/registry/clients/${holder.clientId as string}`, { version: 1, publicKey }],
        ['POST', `/registry/clients/${holder.clientId as string}/keys`, { publicKey }],
      ] as const) {
        const res = await call({ method, path, body });
        expectError(res, 400, 'private_key_submitted');
        expect(JSON.stringify(res.body)).not.toContain(testKey(16).pkcs8Base64.slice(100, 140));
      }
    }
    expect((await store.getClient(holder.clientId as string))?.version).toBe(1);
  });

  test('private key material in any field of any body: 400 private_key_submitted before anything else', async () => {
    const holder = await createClient(23);
    const id = holder.clientId as string;
    const secret = testKey(16).pkcs8Base64;
    for (const [method, path, body] of [
      ['POST', '/registry/clients', createBody(16, { name: secret })],
      ['POST', '/registry/clients', createBody(16, { networkWhitelist: ['203.0.113.7', secret] })],
      ['POST', '/registry/clients', createBody(16, { comment: { jwk: testKey(16).key.export({ format: 'jwk' }) } })],
      ['PATCH', `/registry/clients/${id}`, { version: 1, name: `key ${testKey(16).key.export({ type: 'pkcs1', format: 'pem' }) as string}` }],
      ['POST', `/registry/clients/${id}/disable`, { version: 1, note: secret }],
      ['POST', '/registry/accounts', { name: secret, roleCeiling: [] }],
    ] as const) {
      expectError(await call({ method, path, body }), 400, 'private_key_submitted');
    }
    expect((await store.getClient(id))?.status).toBe('active');
  });

  test('private keys in less common forms: KEY=, escaped line breaks, hex, a single-quoted JWK, a body that is an array or a string', async () => {
    const holder = await createClient(26);
    const id = holder.clientId as string;
    const key = testKey(16);
    const der = key.key.export({ type: 'pkcs8', format: 'der' }) as Buffer;
    const jwk = key.key.export({ format: 'jwk' }) as Record<string, string>;
    const escaped = key.pkcs8Base64.match(/.{1,64}/g)!.join('\\n');
    for (const [method, path, body] of [
      ['POST', '/registry/clients', createBody(16, { publicKey: `PRIVATE_KEY=${key.pkcs8Base64}` })],
      ['POST', `/registry/clients/${id}/keys`, { publicKey: `key=${key.pkcs8Base64}` }],
      ['PATCH', `/registry/clients/${id}`, { version: 1, name: escaped }],
      ['POST', '/registry/clients', createBody(16, { name: der.toString('hex') })],
      ['POST', '/registry/clients', createBody(16, { name: `{${Object.entries(jwk).map(([k, v]) => `'${k}': '${v}'`).join(', ')}}` })],
      ['POST', '/registry/clients', [createBody(16), key.pkcs8Base64]],
      ['POST', '/registry/clients', JSON.stringify(`-----BEGIN PRIVATE KEY-----\n${key.pkcs8Base64}\n-----END PRIVATE KEY-----`)],
    ] as const) {
      const res = await call({ method, path, body });
      expectError(res, 400, 'private_key_submitted');
      expect(JSON.stringify(res.body)).not.toContain(key.pkcs8Base64.slice(100, 140));
    }
    expect((await store.getClient(id))?.version).toBe(1);
  });

  test('a body with more key-shaped runs than one scan checks: 400 too_many_key_candidates, not waved through', async () => {
    const holder = await createClient(27);
    const id = holder.clientId as string;
    const decoys = Array.from({ length: 70 }, () => spkiPem(testKey(27)));
    const res = await call({ method: 'POST', path: `/registry/clients/${id}/keys`, body: { publicKey: testKey(16).pkcs8Base64, notes: decoys } });
    expectError(res, 400, 'too_many_key_candidates');
    expect((res.body as { message: string }).message).toMatch(/Send only the fields this route takes/);
    expect((await store.getClient(id))?.keys.length).toBe(1);
  });

  const bad = unacceptablePublicKeys();
  test.each([
    ['an EC P-521 key', 'unsupported_key_type', bad.unsupportedKey],
    ['a 1024-bit RSA key', 'key_too_small', bad.rsa1024],
    ['garbage', 'invalid_public_key', bad.garbage],
    ['a truncated PEM', 'invalid_public_key', bad.truncatedPem],
    ['an empty string', 'invalid_public_key', ''],
    ['a number', 'invalid_public_key', 42],
  ])('publicKey that is %s: 400 %s', async (_name, code, publicKey) => {
    expectError(await call({ method: 'POST', path: '/registry/clients', body: createBody(17, { publicKey }) }), 400, code);
  });

  test('an EC key whose point is the point at infinity (it aborted Node) is 400 invalid_public_key on every route that reads a key, and the registry lives on', async () => {
    const holder = await createClient(21);
    const id = holder.clientId as string;
    for (const publicKey of [pemOf(infinityPointSpki('P-256')), infinityPointSpki('P-384').toString('base64')]) {
      for (const [method, path, body, query] of [
        ['POST', '/registry/clients', createBody(21, { publicKey }), undefined],
        ['POST', `/registry/clients/${id}/keys`, { publicKey }, undefined],
        ['PATCH', `/registry/clients/${id}`, { version: 1, publicKey }, undefined],
        ['GET', '/registry/clients', undefined, `publicKey=${encodeURIComponent(publicKey)}`],
      ] as const) {
        const res = await call({ method, path, body, query });
        expectError(res, 400, 'invalid_public_key');
        expect(res.body.message).toMatch(/point at infinity.*generate a new key pair/);
      }
    }
    expect((await store.getClient(id))?.version).toBe(1);
    expect((await call({ method: 'GET', path: `/registry/clients/${id}` })).status).toBe(200);
  });

  test.each([
    ['an address out of range', ['10.0.0.300']],
    ['a prefix too long', ['10.0.0.0/33']],
    ['a host name', ['example.com']],
    ['an empty entry', ['']],
    ['a number', [42]],
    ['an empty list', []],
    ['not a list', '0.0.0.0'],
    ['one bad entry among good ones', ['203.0.113.7', '::1/129']],
  ])('networkWhitelist with %s: 400 invalid_network', async (_name, networkWhitelist) => {
    expectError(await call({ method: 'POST', path: '/registry/clients', body: createBody(17, { networkWhitelist }) }), 400, 'invalid_network');
  });

  test('a CIDR with bits set after its prefix is refused on create and edit, naming the canonical range (IPv4 and IPv6)', async () => {
    const holder = await createClient(24);
    for (const [entry, range] of [['10.0.0.5/8', '10.0.0.0/8'], ['2001:db8::1/32', '2001:db8::/32']]) {
      const created = await call({ method: 'POST', path: '/registry/clients', body: createBody(17, { networkWhitelist: ['203.0.113.7', entry] }) });
      expectError(created, 400, 'invalid_network');
      expect(created.body.message).toContain(`the range it names is ${range}`);
      const edited = await call({ method: 'PATCH', path: `/registry/clients/${holder.clientId as string}`, body: { version: 1, networkWhitelist: [entry] } });
      expectError(edited, 400, 'invalid_network');
      expect(edited.body.message).toContain(`Write ${range} for the whole range`);
    }
    const canonical = await call({ method: 'PATCH', path: `/registry/clients/${holder.clientId as string}`, body: { version: 1, networkWhitelist: ['10.0.0.0/8', '2001:DB8::/32'] } });
    expect(canonical.status).toBe(200);
    expect(canonical.body.networkWhitelist).toEqual(['10.0.0.0/8', '2001:db8::/32']);
  });

  test('whitelist entries that mean everyone are accepted as given', async () => {
    const res = await call({ method: 'POST', path: '/registry/clients', body: createBody(17, { networkWhitelist: ['0.0.0.0', '0.0.0.0/0', '::/0'] }) });
    expect(res.status).toBe(201);
    expect(res.body.networkWhitelist).toEqual(['0.0.0.0', '0.0.0.0/0', '::/0']);
  });

  test.each([
    ['an unknown role', ['superuser']],
    ['a known and an unknown role', ['demo', 'root']],
    ['no roles', []],
    ['not a list', 'demo'],
  ])('roles with %s: 400 unknown_role', async (_name, roleList) => {
    const res = await call({ method: 'POST', path: '/registry/clients', body: createBody(18, { roles: roleList }) });
    expectError(res, 400, 'unknown_role');
    expect(res.body.message).toContain('registry:admin');
  });

  test.each([
    ['an unknown field', createBody(18, { owner: 'me' })],
    ['a missing field', { name: 'x', networkWhitelist: ['0.0.0.0'], roles: ['demo'] }],
    ['a null field', createBody(18, { name: null })],
    ['an empty name', createBody(18, { name: '  ' })],
    ['a name too long', createBody(18, { name: 'x'.repeat(129) })],
    ['a name with a line break', createBody(18, { name: 'a\nb' })],
    ['a name with a C1 control', createBody(18, { name: 'a\u0085b' })],
    ['a name with a right-to-left override (it would read as another)', createBody(18, { name: 'Acme \u202eDORP' })],
    ['a name with a zero-width space', createBody(18, { name: 'Ac\u200bme' })],
    ['a name with an Arabic letter mark (a direction mark)', createBody(18, { name: 'Acme\u061c' })],
    ['a name with a soft hyphen', createBody(18, { name: 'Ac\u00adme' })],
    ['a name with a tag character', createBody(18, { name: 'Acme\u{e0041}' })],
    ['a name with a Hangul filler (shows as a blank)', createBody(18, { name: 'Acme\u3164' })],
    ['a name with a combining grapheme joiner', createBody(18, { name: 'Ac\u034fme' })],
    ['a name with a braille blank', createBody(18, { name: 'Acme\u2800' })],
    ['a name with tag characters outside a flag', createBody(18, { name: 'Acme \u{1f3f4}\u{e0067}\u{e0062}' })],
    ['a JSON array', [createBody(18)]],
    ['a publicKey nested 32,000 levels deep (recursive code such as JSON.stringify would run out of stack: a 500)', `{"name":"x","networkWhitelist":["0.0.0.0"],"roles":["demo"],"publicKey":{"a":${'['.repeat(32_000)}${']'.repeat(32_000)}}}`],
    ['a publicKey nesting the body 33 levels deep', createBody(18, { publicKey: { a: JSON.parse(`${'['.repeat(31)}${']'.repeat(31)}`) as unknown } })],
    ['not JSON', '{"name": '],
    ['no body', undefined],
  ])('a create body with %s: 400 invalid_request', async (_name, body) => {
    expectError(await call({ method: 'POST', path: '/registry/clients', body }), 400, 'invalid_request');
  });

  test("a name in any script, with emoji joined by zero-width joiners, a region's flag or Mongolian's vowel separator, is kept as given", async () => {
    const name = 'Zürich دبي \u{1f469}\u200d\u{1f4bb} Team \u{1f3f4}\u{e0067}\u{e0062}\u{e0065}\u{e006e}\u{e0067}\u{e007f} \u182e\u180e\u1820';
    const res = await call({ method: 'POST', path: '/registry/clients', body: createBody(28, { name }) });
    expect([res.status, res.body.name]).toEqual([201, name]);
  });

  test('an oversized body: 413 payload_too_large', async () => {
    const body = createBody(18, { name: 'x'.repeat(MAX_REGISTRY_BODY_BYTES) });
    expectError(await call({ method: 'POST', path: '/registry/clients', body }), 413, 'payload_too_large');
  });

  test.each([
    ['GET', ''],
    ['PATCH', ''],
    ['POST', '/keys'],
    ['POST', '/disable'],
    ['POST', '/enable'],
    ['GET', '/audit'],
    ['DELETE', `/keys/${'A'.repeat(43)}`],
  ])('unknown clientId on %s %s: 404 not_found', async (method, suffix) => {
    const body = method === 'PATCH' ? { version: 1, name: 'x' } : suffix === '/keys' ? { publicKey: spkiPem(testKey(18)) } : undefined;
    for (const id of ['c_AAAAAAAAAAAAAAAAAAAAAA', 'nonsense']) {
      const res = await call({ method, path: `/registry/clients/${id}${suffix}`, body });
      expectError(res, 404, 'not_found');
      if (method === 'PATCH') {
        expect(res.body.message).toBe(`No client has the id ${id === 'nonsense' ? '(malformed id)' : id}. Check the clientId, or list clients with GET /registry/clients.`);
      }
    }
  });

  test('unknown routes and methods: 404 naming what exists', async () => {
    expectError(await call({ method: 'GET', path: '/registry/nothing' }), 404, 'not_found');
    const wrongMethod = await call({ method: 'PUT', path: '/registry/clients' });
    expectError(wrongMethod, 404, 'not_found');
    expect(wrongMethod.body.message).toContain('POST, GET');
  });
});

// ----------------------------------------------------------------------------- the body half, the door

describe('guards before any route runs', () => {
  test('a body that does not match the signed Content-Digest is refused and nothing is created', async () => {
    const res = await call({ method: 'POST', path: '/registry/clients', body: createBody(19), contentDigest: computeContentDigest('{"something":"else"}') });
    expectError(res, 400, 'digest_mismatch');
    const unsigned = await call({ method: 'POST', path: '/registry/clients', body: createBody(19), contentDigest: '' });
    expectError(unsigned, 401, 'digest_required');
    expect(await store.findByFingerprint(testKey(19).fingerprint, { consistentRead: true })).toBeUndefined();
  });

  test('without the authorizer context the registry refuses to act (500, fail closed)', async () => {
    const res = await call({ method: 'POST', path: '/registry/clients', body: createBody(19), actor: null });
    expectError(res, 500, 'internal_error');
    expect(res.body.message).toMatch(/authorizer/);
    expect(await store.findByFingerprint(testKey(19).fingerprint, { consistentRead: true })).toBeUndefined();
  });

  test('DynamoDB down: 503 dependency_unavailable', async () => {
    const dead = new DynamoDBClient({ ...dynamoDbLocalClientConfig('http://127.0.0.1:9'), maxAttempts: 1 });
    const down = createRegistryHandler({ store: new DynamoClientStore({ tableName: 'x', client: dead, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS }), roles, logger: new Logger({ logLevel: 'SILENT' }) });
    const res = await callRegistry(down, { method: 'GET', path: '/registry/clients' }, doc);
    expect(res.schemaProblems).toEqual([]);
    expectError(res, 503, 'dependency_unavailable');
    dead.destroy();
  });
});

// ----------------------------------------------------------------------------- logs

describe('logs', () => {
  test('one JSON line per request with route, outcome and status, and never key material', () => {
    const entries = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.length).toBeGreaterThan(50);
    for (const entry of entries) {
      expect(entry).toEqual(expect.objectContaining({ service: 'signet-registry', route: expect.any(String), status: expect.any(Number), outcome: expect.any(String) }));
    }
    expect(entries).toContainEqual(expect.objectContaining({ route: 'POST /registry/clients', outcome: 'ok', status: 201, clientId: expect.stringMatching(/^c_/), latencyMs: expect.any(Number) }));
    expect(entries).toContainEqual(expect.objectContaining({ route: 'POST /registry/clients', outcome: 'private_key_submitted', status: 400 }));
    expect(entries).toContainEqual(expect.objectContaining({ route: 'PATCH /registry/clients/{clientId}', outcome: 'version_conflict', actor: ADMIN_ID }));

    const all = logLines.join('\n');
    expect(all).not.toMatch(/PRIVATE KEY|PUBLIC KEY/);
    for (const i of [0, 13, 16]) {
      const key = testKey(i);
      for (const material of [key.pkcs8Base64, spkiPem(key).replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '')]) {
        for (let at = 0; at + 24 <= material.length; at += 24) expect(all).not.toContain(material.slice(at, at + 24));
      }
    }
  });
});

// ----------------------------------------------------------------------------- propagation

describe('how long a change takes to reach the authorizers', () => {
  test('every answer carries x-signet-authorizer-cache-ttl with the configured TTL in seconds: writes (how long the old record may still decide) and reads (how long a change would take); refusals do not', async () => {
    const ttlHandler = createRegistryHandler({ store, roles, logger: new Logger({ serviceName: 'signet-registry', logLevel: 'SILENT' }), authorizerCacheTtlMs: 45_000 });
    const created = await callRegistry(ttlHandler, { method: 'POST', path: '/registry/clients', body: createBody(30) }, doc);
    expect(created.status).toBe(201);
    expect(created.headers[AUTHORIZER_CACHE_TTL_HEADER]).toBe('45');
    const disabled = await callRegistry(ttlHandler, { method: 'POST', path: `/registry/clients/${created.body.clientId as string}/disable`, body: {} }, doc);
    expect(disabled.status).toBe(200);
    expect(disabled.headers[AUTHORIZER_CACHE_TTL_HEADER]).toBe('45');
    const read = await callRegistry(ttlHandler, { method: 'GET', path: `/registry/clients/${created.body.clientId as string}` }, doc);
    expect(read.status).toBe(200);
    expect(read.headers[AUTHORIZER_CACHE_TTL_HEADER]).toBe('45');
    const refused = await callRegistry(ttlHandler, { method: 'GET', path: '/registry/clients/c_NoSuchClientNoSuchCli0' }, doc);
    expect(refused.status).toBe(404);
    expect(refused.headers[AUTHORIZER_CACHE_TTL_HEADER]).toBeUndefined();
  });

  test('without a configured TTL it is the default, 60 s', async () => {
    const created = await call({ method: 'POST', path: '/registry/clients', body: createBody(31) });
    expect(created.headers[AUTHORIZER_CACHE_TTL_HEADER]).toBe('60');
  });
});

// ----------------------------------------------------------------------------- the deployed entry point

describe('lambda/handlers/registry.ts', () => {
  test('builds its store from the environment and serves the routes', async () => {
    const tableName = await ddb.createTable();
    const saved = { ...process.env };
    Object.assign(process.env, { SIGNET_TABLE_NAME: tableName, SIGNET_DYNAMODB_ENDPOINT: ddb.endpoint, POWERTOOLS_LOG_LEVEL: 'SILENT' });
    try {
      let entry: RegistryHandler | undefined;
      jest.isolateModules(() => {
        entry = (require('../../lambda/handlers/registry') as { handler: RegistryHandler }).handler;
      });
      const created = await callRegistry(entry as RegistryHandler, { method: 'POST', path: '/registry/clients', body: createBody(20, { roles: ['registry:admin'] }) }, doc);
      expect(created.schemaProblems).toEqual([]);
      expect(created.status).toBe(201);
      const direct = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
      expect((await direct.getClient(created.body.clientId as string, { consistentRead: true }))?.name).toBe('Partner 20');
    } finally {
      process.env = saved;
    }
  });
});
