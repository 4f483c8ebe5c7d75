/**
 * A stranger who knows a clientId must not be able to fill that client's
 * failure log. Refusals of requests the client's own keys signed (ip_not_allowed,
 * role_forbidden, ...) are entries; every other refusal naming the client may come from anyone:
 * it is only counted (per reason and hour), carries no text the request chose, and cannot push
 * the client's entries out. Real DynamoDB Local, the real authorizer and registry handlers.
 */
import { randomBytes } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { adaptHttpApiEvent } from '../../lambda/adapters/http-api-event';
import { AuthorizerRuntime } from '../../lambda/authorizer/runtime';
import { loadConfig } from '../../lambda/config';
import { ENV } from '../../lambda/config-env';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { createRegistryHandler } from '../../lambda/registry/registry-handler';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import { callRegistry } from '../support/registry-harness';
import {
  type AuthorizerModule,
  type Call,
  HTTP_API_HOST,
  type Signer,
  authorizerEnv,
  httpApiAuthorizerEvent,
  loadAuthorizer,
  nowS,
  registerClient,
  sign,
} from './support';
import { nextTestKey } from '../support/test-keys';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

let ddb: TestDynamoDb;
let tableName: string;
let store: DynamoClientStore;
let authorizer: AuthorizerModule;

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  tableName = await ddb.createTable();
  store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  // Every refusal written (no per-interval merging), so the counts below are exact.
  authorizer = loadAuthorizer(authorizerEnv(tableName, ddb.endpoint, { [ENV.authFailureRecordIntervalMs]: '0' }));
});

afterAll(async () => {
  await ddb?.stop();
});

const ATTACKER_TEXT = 'ATTACKER-WAS-HERE';

/** A request naming `clientId` with a random signature (and, every fifth, a stale `created`), its path full of attacker text. */
function forged(clientId: string, i: number): ReturnType<typeof httpApiAuthorizerEvent> {
  const call: Call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/${ATTACKER_TEXT}-${i}?note=${ATTACKER_TEXT}`, keyId: clientId, created: i % 5 === 0 ? nowS() - 3_600 : nowS() };
  const { headers } = sign(call, { clientId, key: randomSigner.key });
  return httpApiAuthorizerEvent(call, { headers: { ...headers, signature: `sig=:${randomBytes(256).toString('base64')}:` } });
}

let randomSigner: Signer;

/** The client's own requests that are refused after its signature verified. */
async function ownRefusals(client: Signer, outsider: Signer): Promise<void> {
  const forbidden: Call = { method: 'DELETE', url: `https://${HTTP_API_HOST}/api/orders` };
  expect(await authorizer.httpApiHandler(httpApiAuthorizerEvent(forbidden, { headers: sign(forbidden, client).headers }))).toMatchObject({ context: { signetError: 'role_forbidden' } });
  const nested: Call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/orders/42` };
  expect(await authorizer.httpApiHandler(httpApiAuthorizerEvent(nested, { headers: sign(nested, client).headers }))).toMatchObject({ context: { signetError: 'role_forbidden' } });
  const echo: Call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/echo` };
  const fromOutside = httpApiAuthorizerEvent(echo, { headers: sign(echo, outsider).headers, sourceIp: '198.51.100.9' });
  expect(await authorizer.httpApiHandler(fromOutside)).toMatchObject({ context: { signetError: 'ip_not_allowed' } });
}

test('50 forged refusals naming a client leave its own entries intact and show up only as counts, in the store and in GET /auth-failures', async () => {
  const client = await registerClient(store, { name: 'Target', networkWhitelist: ['10.0.0.0/8', '15.248.3.126'] });
  randomSigner = await registerClient(store, { name: 'Somebody else' });
  await ownRefusals(client, client);

  const before = await store.listAuthFailures(client.clientId);
  expect(before.map((f) => `${f.reason} ${f.method} ${f.path}`)).toEqual(['ip_not_allowed GET /api/echo', 'role_forbidden GET /api/orders/42', 'role_forbidden DELETE /api/orders']);

  for (let i = 0; i < 50; i++) {
    const answer = await authorizer.httpApiHandler(forged(client.clientId, i));
    expect(answer.isAuthorized).toBe(false);
  }

  // The client's own entries are all still there, unchanged, and nothing was added to them.
  expect(await store.listAuthFailures(client.clientId)).toEqual(before);
  // The flood is counts only: 10 with a stale created (expired), 40 with a bad signature.
  const windows = await store.listUnauthenticatedFailures(client.clientId);
  // (One window, unless the flood crossed the hour.)
  const total: Record<string, number> = {};
  for (const { counts } of windows) for (const [reason, n] of Object.entries(counts)) total[reason] = (total[reason] ?? 0) + n;
  expect(total).toEqual({ expired: 10, signature_mismatch: 40 });

  const registry = createRegistryHandler({ store, roles: compileRoleCatalogue({ 'registry:admin': ['* /registry/**'] }), logger: new Logger({ logLevel: 'SILENT' }) });
  const res = await callRegistry(registry, { method: 'GET', path: `/registry/clients/${client.clientId}/auth-failures` });
  expect(res.schemaProblems).toEqual([]);
  expect(res.status).toBe(200);
  expect((res.body.failures as { reason: string }[]).map((f) => f.reason)).toEqual(['ip_not_allowed', 'role_forbidden', 'role_forbidden']);
  expect(res.body.unauthenticated).toEqual({ windowSeconds: 3600, windows });
  expect(JSON.stringify(res.body)).not.toContain(ATTACKER_TEXT);
  // A window starts on the hour.
  for (const { start } of windows) expect(Date.parse(start) % 3_600_000).toBe(0);
});

test('more forged refusals than the list holds still cannot evict a single entry', async () => {
  const client = await registerClient(store, { name: 'Target 2', networkWhitelist: ['15.248.3.126'] });
  randomSigner = await registerClient(store, { name: 'Somebody else 2' });
  await ownRefusals(client, client);
  const before = await store.listAuthFailures(client.clientId);
  for (let i = 0; i < 60; i++) await authorizer.httpApiHandler(forged(client.clientId, i + 1));
  expect(await store.listAuthFailures(client.clientId)).toEqual(before);
});

test('a keyid nobody holds gets nothing written', async () => {
  const nobody = 'c_NobodyHoldsThisKeyId00';
  for (let i = 0; i < 3; i++) await authorizer.httpApiHandler(forged(nobody, i));
  expect(await store.listAuthFailures(nobody)).toEqual([]);
  expect(await store.listUnauthenticatedFailures(nobody)).toEqual([]);
});

test('with the default interval a flood costs one write per interval: the rest is added up in memory and written with the next one', async () => {
  const client = await registerClient(store, { name: 'Target 3' });
  randomSigner = await registerClient(store, { name: 'Somebody else 3' });
  let offsetMs = 0;
  const startMs = Date.now();
  const runtime = new AuthorizerRuntime({
    config: loadConfig({ [ENV.tableName]: tableName, [ENV.dynamoDbEndpoint]: ddb.endpoint, [ENV.authFailureRecordIntervalMs]: '60000' }),
    doc: DynamoDBDocumentClient.from(ddb.client),
    logger: new Logger({ logLevel: 'SILENT' }),
    nowMs: () => startMs + offsetMs,
  });
  /** The counts summed over the windows (the clock may cross an hour). */
  const counted = async (): Promise<Record<string, number>> => {
    const sum: Record<string, number> = {};
    for (const { counts } of await store.listUnauthenticatedFailures(client.clientId)) {
      for (const [reason, n] of Object.entries(counts)) sum[reason] = (sum[reason] ?? 0) + n;
    }
    return sum;
  };

  for (let i = 1; i <= 50; i++) expect((await runtime.decide(adaptHttpApiEvent(forged(client.clientId, i * 5 + 1)))).allowed).toBe(false);
  expect(await counted()).toEqual({ signature_mismatch: 1 }); // one write; 49 waiting in memory
  offsetMs = 60_001;
  const last = await runtime.decide(adaptHttpApiEvent(forged(client.clientId, 1)));
  expect(last).toMatchObject({ allowed: false, clientId: client.clientId, error: { code: "signature_mismatch" } });
  expect(await counted()).toEqual({ signature_mismatch: 51 }); // written with the first one after the interval
});

test('a signature by an expired key is counted, never listed: a retired key may have leaked, so it cannot write the client\'s entries', async () => {
  const client = await registerClient(store, { name: 'Target 4', networkWhitelist: ['15.248.3.126'] });
  randomSigner = await registerClient(store, { name: 'Somebody else 4' });
  // The client's old key, still on record after its rollover grace ended.
  const retired = nextTestKey();
  await store.addKey(client.clientId, { fingerprint: retired.fingerprint, spkiPem: retired.publicKey.export({ type: 'spki', format: 'pem' }) as string, notAfter: new Date(Date.now() - 3_600_000).toISOString() }, 'test-setup');
  await ownRefusals(client, client);
  const before = await store.listAuthFailures(client.clientId);
  for (let i = 0; i < 5; i++) {
    const call: Call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/${ATTACKER_TEXT}-${i}`, keyId: client.clientId };
    const response = await authorizer.httpApiHandler(httpApiAuthorizerEvent(call, { headers: sign(call, { clientId: client.clientId, key: retired }).headers }));
    expect(response).toMatchObject({ isAuthorized: false, context: { signetError: 'key_expired' } });
  }
  expect(await store.listAuthFailures(client.clientId)).toEqual(before);
  const windows = await store.listUnauthenticatedFailures(client.clientId);
  expect(windows.reduce((sum, w) => sum + (w.counts['key_expired'] ?? 0), 0)).toBe(5);
  expect(JSON.stringify(windows)).not.toContain(ATTACKER_TEXT);
});

test('counts waiting in memory are written once the interval has passed by the next decision, whoever it is for, also an allowed one', async () => {
  const client = await registerClient(store, { name: 'Target 5' });
  randomSigner = await registerClient(store, { name: 'Somebody else 5' });
  const bystander = await registerClient(store, { name: 'Bystander 5' });
  let offsetMs = 0;
  const startMs = Date.now();
  const runtime = new AuthorizerRuntime({
    config: loadConfig(authorizerEnv(tableName, ddb.endpoint, { [ENV.authFailureRecordIntervalMs]: '60000' })),
    doc: DynamoDBDocumentClient.from(ddb.client),
    logger: new Logger({ logLevel: 'SILENT' }),
    nowMs: () => startMs + offsetMs,
  });
  const counted = async (): Promise<number> =>
    (await store.listUnauthenticatedFailures(client.clientId)).reduce((sum, w) => sum + (w.counts['signature_mismatch'] ?? 0), 0);

  for (let i = 1; i <= 10; i++) await runtime.decide(adaptHttpApiEvent(forged(client.clientId, i * 5 + 1)));
  expect(await counted()).toBe(1); // the first written, nine waiting
  const allowedLater = (): Promise<Awaited<ReturnType<AuthorizerRuntime['decide']>>> => {
    const echo: Call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/echo`, created: Math.floor((startMs + offsetMs) / 1000) };
    return runtime.decide(adaptHttpApiEvent(httpApiAuthorizerEvent(echo, { headers: sign(echo, bystander).headers })));
  };
  offsetMs = 30_000;
  expect((await allowedLater()).allowed).toBe(true);
  expect(await counted()).toBe(1); // the interval has not passed: still waiting
  offsetMs = 60_001;
  expect((await allowedLater()).allowed).toBe(true);
  expect(await counted()).toBe(10); // no further refusal for the client was needed
  offsetMs = 200_000;
  expect((await allowedLater()).allowed).toBe(true);
  expect(await counted()).toBe(10); // written once, not again
});
