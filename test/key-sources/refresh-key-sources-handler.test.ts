/**
 * The scheduled key source refresher as its Lambda entry builds it (createRefreshKeySourcesHandler
 * with a configuration read by loadConfig): the real stores on DynamoDB Local, sources served by a
 * real HTTP server on 127.0.0.1, an injected clock. Each run counts the three metrics the alarm
 * and dashboard read, 0 included, and logs one summary line with counts only. The refresher's
 * writes racing an admin's edit of the same client are replayed step by step through a document
 * client that holds a command back while the other side runs.
 */
import { DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { loadConfig } from '../../lambda/config';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { RUN_MARGIN_MS, type RefreshContext, createRefreshKeySourcesHandler } from '../../lambda/key-sources/create-refresh-key-sources-handler';
import { type ClientRefreshOutcome, type KeySourceRefresher, type RefreshRunSummary, createKeySourceRefresher } from '../../lambda/key-sources/key-source-refresher';
import { KEY_SOURCE_REFRESH_METRIC_NAMES } from '../../lambda/observability';
import { type RegistryHandler, createRegistryHandler } from '../../lambda/registry/registry-handler';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { keySourceItem } from '../../lambda/store/item-codec';
import { DynamoKeySourceStore } from '../../lambda/store/key-source-store';
import { ITEM } from '../../lambda/store/table-schema';
import { TestDynamoDb, startTestDynamoDb } from '../support/dynamodb';
import { type KeySourceServer, type PublishedTestKey, keySet, publishedKey, startKeySourceServer } from '../support/key-source-server';
import { ADMIN_ID, callRegistry } from '../support/registry-harness';
import { newClient, spkiPem } from '../support/registry-fixtures';
import { testKey } from '../support/test-keys';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

const T0 = Date.parse('2026-04-05T09:30:00.000Z');
const MINUTE_MS = 60_000;
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

let ddb: TestDynamoDb;
let server: KeySourceServer;
let tableName: string;
let store: DynamoClientStore;
let registry: RegistryHandler;
let nowMs = T0;

/** What a run logged and counted. */
interface Recorded {
  readonly lines: Array<{ level: 'info' | 'error'; message: string; attributes: Record<string, unknown>[] }>;
  readonly metrics: Array<[string, string, number]>;
}

function refresherOn(table: string): { run: (context?: RefreshContext) => Promise<RefreshRunSummary>; recorded: Recorded } {
  const recorded: Recorded = { lines: [], metrics: [] };
  const handler = createRefreshKeySourcesHandler(loadConfig({ SIGNET_TABLE_NAME: table, SIGNET_KEY_SOURCE_REFRESH_MINUTES: '15' }), {
    logger: {
      info: (message, ...attributes) => void recorded.lines.push({ level: 'info', message, attributes }),
      error: (message, ...attributes) => void recorded.lines.push({ level: 'error', message, attributes }),
    },
    metrics: { addMetric: (name, unit, value) => void recorded.metrics.push([name, unit, value]) },
    doc: ddb.doc,
    fetch: (source) => server.fetch(source),
    nowMs: () => nowMs,
  });
  return { run: (context) => handler({ source: 'aws.events', 'detail-type': 'Scheduled Event' }, context), recorded };
}

/** Registers a client whose keys the server publishes at `path`. */
async function register(path: string, ...keys: PublishedTestKey[]): Promise<string> {
  server.serve(path, keySet(...keys));
  const res = await callRegistry(registry, {
    method: 'POST',
    path: '/registry/clients',
    body: { name: `Publisher ${path}`, networkWhitelist: ['0.0.0.0'], roles: ['demo'], jwksUri: server.url(path) },
  });
  expect(res.status).toBe(201);
  return res.body.clientId as string;
}

const fingerprintsOf = async (clientId: string): Promise<string[]> => ((await store.getClient(clientId))?.keys ?? []).map((k) => k.fingerprint).sort();

beforeAll(async () => {
  [ddb, server] = await Promise.all([startTestDynamoDb(), startKeySourceServer(() => Math.floor(nowMs / 1000))]);
  tableName = await ddb.createTable();
  store = new DynamoClientStore({ tableName, client: ddb.client, now: () => new Date(nowMs), keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  registry = createRegistryHandler({
    store,
    keySources: new DynamoKeySourceStore({ tableName, client: ddb.client, now: () => new Date(nowMs) }, store),
    roles: compileRoleCatalogue({ 'registry:admin': ['* /registry/**'], demo: ['* /api/*'] }),
    logger: silent,
    now: () => new Date(nowMs),
    fetchKeySource: (source) => server.fetch(source),
    keySourceRefreshIntervalS: 15 * 60,
  });
});

afterAll(async () => {
  await Promise.all([ddb?.stop(), server?.stop()]);
});

test('each run refreshes the due sources, counts refreshed, failed and failing-for-over-an-hour (0 included), and logs one line of counts, never a key', async () => {
  const [rotating, steady, added] = [publishedKey(), publishedKey(), publishedKey()];
  const rotatingId = await register('/rotating', rotating);
  const steadyId = await register('/steady', steady);
  const refresher = refresherOn(tableName);

  // Nothing is due yet: the run still reports, with zeros, so the alarm knows it ran.
  await refresher.run();
  expect(refresher.recorded.metrics).toEqual([
    [KEY_SOURCE_REFRESH_METRIC_NAMES.refreshed, 'Count', 0],
    [KEY_SOURCE_REFRESH_METRIC_NAMES.failed, 'Count', 0],
    [KEY_SOURCE_REFRESH_METRIC_NAMES.failingOverAnHour, 'Count', 0],
    [KEY_SOURCE_REFRESH_METRIC_NAMES.deferred, 'Count', 0],
  ]);

  // One interval later both are due: one publisher added a key, the other's set is the same.
  server.serve('/rotating', keySet(rotating, added));
  nowMs += 16 * MINUTE_MS;
  refresher.recorded.metrics.length = 0;
  refresher.recorded.lines.length = 0;
  await refresher.run();
  expect(refresher.recorded.metrics).toEqual([
    [KEY_SOURCE_REFRESH_METRIC_NAMES.refreshed, 'Count', 2],
    [KEY_SOURCE_REFRESH_METRIC_NAMES.failed, 'Count', 0],
    [KEY_SOURCE_REFRESH_METRIC_NAMES.failingOverAnHour, 'Count', 0],
    [KEY_SOURCE_REFRESH_METRIC_NAMES.deferred, 'Count', 0],
  ]);
  expect(await fingerprintsOf(rotatingId)).toEqual([rotating.fingerprint, added.fingerprint].sort());
  expect(await fingerprintsOf(steadyId)).toEqual([steady.fingerprint]);

  expect(refresher.recorded.lines).toHaveLength(1);
  const [line] = refresher.recorded.lines;
  expect(line.message).toBe('key sources refreshed: 2 due, 1 changed, 1 unchanged, 0 failed, 0 failing for over an hour, 0 deferred to the next run');
  expect(line.attributes[0]).toMatchObject({ checked: 2, refreshed: 1, unchanged: 1, failed: 0, failingOverAnHour: 0, deferred: 0, keysAdded: 1, keysRemoved: 0, durationMs: 0 });
  const logged = JSON.stringify(refresher.recorded.lines);
  for (const key of [rotating, steady, added]) {
    for (const material of [key.jwk.x, key.thumbprint, key.fingerprint]) expect(logged).not.toContain(material);
  }

  // The steady publisher goes down: failed at once, counted as failing for over an hour once it is.
  server.serve('/steady', 'unavailable', {}, 503);
  server.serve('/rotating', keySet(rotating, added));
  nowMs += 16 * MINUTE_MS;
  refresher.recorded.metrics.length = 0;
  await refresher.run();
  expect(refresher.recorded.metrics.map(([name, , value]) => [name, value])).toEqual([
    [KEY_SOURCE_REFRESH_METRIC_NAMES.refreshed, 1],
    [KEY_SOURCE_REFRESH_METRIC_NAMES.failed, 1],
    [KEY_SOURCE_REFRESH_METRIC_NAMES.failingOverAnHour, 0],
    [KEY_SOURCE_REFRESH_METRIC_NAMES.deferred, 0],
  ]);
  nowMs += 61 * MINUTE_MS;
  refresher.recorded.metrics.length = 0;
  await refresher.run();
  expect(refresher.recorded.metrics.map(([name, , value]) => [name, value])).toEqual([
    [KEY_SOURCE_REFRESH_METRIC_NAMES.refreshed, 1],
    [KEY_SOURCE_REFRESH_METRIC_NAMES.failed, 1],
    [KEY_SOURCE_REFRESH_METRIC_NAMES.failingOverAnHour, 1],
    [KEY_SOURCE_REFRESH_METRIC_NAMES.deferred, 0],
  ]);
  // A failed fetch never takes keys away.
  expect(await fingerprintsOf(steadyId)).toEqual([steady.fingerprint]);
});

test("a run's deadline is the Lambda context's remaining time less a margin: with too little left it fetches nothing, reports the due sources as deferred, and still counts the source failing for over an hour", async () => {
  // After the first test: the steady publisher has been failing for over an hour; both sources are due again.
  const refresher = refresherOn(tableName);
  nowMs += 16 * MINUTE_MS;
  const hits = [server.hits.get('/rotating'), server.hits.get('/steady')];
  const summary = await refresher.run({ getRemainingTimeInMillis: () => RUN_MARGIN_MS + 5_000 });
  expect(summary).toMatchObject({ checked: 0, deferred: 2, failingOverAnHour: 1 });
  expect([server.hits.get('/rotating'), server.hits.get('/steady')]).toEqual(hits);
  expect(refresher.recorded.metrics.map(([name, , value]) => [name, value])).toEqual([
    [KEY_SOURCE_REFRESH_METRIC_NAMES.refreshed, 0],
    [KEY_SOURCE_REFRESH_METRIC_NAMES.failed, 0],
    [KEY_SOURCE_REFRESH_METRIC_NAMES.failingOverAnHour, 1],
    [KEY_SOURCE_REFRESH_METRIC_NAMES.deferred, 2],
  ]);
  expect(refresher.recorded.lines.map((l) => l.message)).toEqual(['key sources refreshed: 0 due, 0 changed, 0 unchanged, 0 failed, 1 failing for over an hour, 2 deferred to the next run']);

  // With the function's time (five minutes) the same sources are fetched.
  const full = await refresherOn(tableName).run({ getRemainingTimeInMillis: () => 300_000 });
  expect(full).toMatchObject({ checked: 2, deferred: 0, failed: 1, failingOverAnHour: 1 });
});

test('a run that cannot reach its table is logged with a sentence and rethrown (the function errors), counting nothing', async () => {
  const refresher = refresherOn('signet-no-such-table');
  await expect(refresher.run()).rejects.toThrow();
  expect(refresher.recorded.metrics).toEqual([]);
  expect(refresher.recorded.lines).toEqual([
    {
      level: 'error',
      message: 'key source refresh run failed; every client keeps the keys it had, and the next run tries again',
      attributes: [{ reason: expect.stringMatching(/\S/) }],
    },
  ]);
});

/** A document client on the run's DynamoDB Local whose every command goes through `around`, which sends it (`send`) when it chooses. */
function interleaved(around: (command: object, send: () => Promise<unknown>) => Promise<unknown>): DynamoDBDocumentClient {
  const doc = DynamoDBDocumentClient.from(ddb.client, { marshallOptions: { removeUndefinedValues: true } });
  const send = doc.send.bind(doc) as (command: object) => Promise<unknown>;
  return Object.assign(doc, { send: (command: object) => around(command, () => send(command)) }) as DynamoDBDocumentClient;
}

/** The refresher as the scheduled run builds it, on the test's table, reaching DynamoDB through `doc`. */
function directRefresher(doc: DynamoDBDocumentClient = ddb.doc): KeySourceRefresher {
  return createKeySourceRefresher({
    store: new DynamoKeySourceStore({ tableName, client: doc, now: () => new Date(nowMs), keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS }),
    fetch: (source) => server.fetch(source),
    nowMs: () => nowMs,
    refreshIntervalS: 15 * 60,
    requireSignedDirectories: false,
  });
}

const keySources = (): DynamoKeySourceStore => new DynamoKeySourceStore({ tableName, client: ddb.client, now: () => new Date(nowMs) }, store);

test('a key source set after the refresher read the client without one keeps its status: the refresher leaves it, and the source stays due', async () => {
  const { record } = await store.createClient(newClient(7, { roles: ['demo'] }), ADMIN_ID);
  expect(record.keySource).toBeUndefined();
  server.serve('/set-while-read', keySet(publishedKey()));

  // The refresher reads the record (no source yet); the admin then sets a source; only then does the refresher read the status.
  let recordRead!: () => void;
  const recordWasRead = new Promise<void>((resolve) => (recordRead = resolve));
  const doc = interleaved(async (command, send) => {
    const key = command instanceof GetCommand ? command.input.Key : undefined;
    if (key?.pk === ITEM.clientPk(record.clientId) && key?.sk === ITEM.clientSk) {
      const answer = await send();
      recordRead();
      return answer;
    }
    if (key?.pk === ITEM.keySourcePk(record.clientId)) {
      await recordWasRead;
      const set = await callRegistry(registry, { method: 'PATCH', path: `/registry/clients/${record.clientId}`, body: { version: record.version, jwksUri: server.url('/set-while-read') } });
      expect(set.status).toBe(200);
    }
    return send();
  });

  const outcome = await directRefresher(doc).refreshClient(record.clientId, ADMIN_ID);
  expect(outcome.error?.code).toBe('no_key_source');
  expect((await store.getClient(record.clientId))?.keySource).toEqual({ jwksUri: server.url('/set-while-read') });
  expect((await keySources().getStatus(record.clientId))?.url).toBe(server.url('/set-while-read'));
  const dueLater = await keySources().dueSources(new Date(nowMs + 86_400_000).toISOString(), undefined, 100);
  expect(dueLater.items).toContain(record.clientId);

  // A status whose client really has no source any more is still deleted.
  const back = await callRegistry(registry, { method: 'PATCH', path: `/registry/clients/${record.clientId}`, body: { version: record.version + 1, publicKey: spkiPem(testKey(7)) } });
  expect(back.status).toBe(200);
  const at = new Date(nowMs).toISOString();
  await ddb.doc.send(new PutCommand({ TableName: tableName, Item: keySourceItem({ clientId: record.clientId, url: server.url('/set-while-read'), lastFetchAt: at, nextFetchAt: at, consecutiveFailures: 0 }) }));
  expect(await keySources().getStatus(record.clientId)).toBeDefined();
  expect((await directRefresher().refreshClient(record.clientId, ADMIN_ID)).error?.code).toBe('no_key_source');
  expect(await keySources().getStatus(record.clientId)).toBeUndefined();
});

test("a client edit planned before the refresher recorded a fetch keeps the fetch's keysFetchedAt; a source set, a refresh with new keys and a switch to registered keys still move it", async () => {
  const first = publishedKey();
  const clientId = await register('/renamed-while-fetched', first);
  const registeredAt = new Date(nowMs).toISOString();
  expect((await store.getClient(clientId))?.keysFetchedAt).toBe(registeredAt);

  // The admin's rename reads the record; the refresher then records a fetch of the same keys; then the rename is written.
  nowMs += 20 * MINUTE_MS;
  const fetchedAt = new Date(nowMs).toISOString();
  let fetched: ClientRefreshOutcome | undefined;
  const admin = new DynamoClientStore({
    tableName,
    client: interleaved(async (command, send) => {
      if (command instanceof TransactWriteCommand && fetched === undefined) fetched = await directRefresher().refreshClient(clientId, ADMIN_ID);
      return send();
    }),
    now: () => new Date(nowMs),
    keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS,
  });
  const read = (await store.getClient(clientId))!;
  await admin.updateClient(clientId, read.version, { name: 'Renamed publisher' }, ADMIN_ID);
  expect(fetched).toMatchObject({ ok: true, unchanged: true });
  expect(fetched?.superseded).toBeUndefined();
  expect(await store.getClient(clientId)).toMatchObject({ name: 'Renamed publisher', version: read.version + 1, keysFetchedAt: fetchedAt });
  expect((await keySources().getStatus(clientId))?.lastSuccessAt).toBe(fetchedAt);

  // A refresh that finds other keys writes its own instant.
  server.serve('/renamed-while-fetched', keySet(first, publishedKey()));
  nowMs += 20 * MINUTE_MS;
  const refreshed = await directRefresher().refreshClient(clientId, ADMIN_ID);
  expect(refreshed).toMatchObject({ ok: true, unchanged: false });
  expect((await store.getClient(clientId))?.keysFetchedAt).toBe(new Date(nowMs).toISOString());

  // Registered keys: no fetch instant. A source set again: the instant of its fetch.
  const toRegistered = await callRegistry(registry, { method: 'PATCH', path: `/registry/clients/${clientId}`, body: { version: read.version + 2, publicKey: spkiPem(testKey(8)) } });
  expect(toRegistered.status).toBe(200);
  expect((await store.getClient(clientId))?.keysFetchedAt).toBeUndefined();
  nowMs += MINUTE_MS;
  const toSource = await callRegistry(registry, { method: 'PATCH', path: `/registry/clients/${clientId}`, body: { version: read.version + 3, jwksUri: server.url('/renamed-while-fetched') } });
  expect(toSource.status).toBe(200);
  expect((await store.getClient(clientId))?.keysFetchedAt).toBe(new Date(nowMs).toISOString());
});
