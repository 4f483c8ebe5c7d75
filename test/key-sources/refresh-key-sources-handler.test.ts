/**
 * The scheduled key source refresher as its Lambda entry builds it (createRefreshKeySourcesHandler
 * with a configuration read by loadConfig): the real stores on DynamoDB Local, sources served by a
 * real HTTP server on 127.0.0.1, an injected clock. Each run counts the three metrics the alarm
 * and dashboard read, 0 included, and logs one summary line with counts only.
 */
import { loadConfig } from '../../lambda/config';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { RUN_MARGIN_MS, type RefreshContext, createRefreshKeySourcesHandler } from '../../lambda/key-sources/create-refresh-key-sources-handler';
import type { RefreshRunSummary } from '../../lambda/key-sources/key-source-refresher';
import { KEY_SOURCE_REFRESH_METRIC_NAMES } from '../../lambda/observability';
import { type RegistryHandler, createRegistryHandler } from '../../lambda/registry/registry-handler';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { DynamoKeySourceStore } from '../../lambda/store/key-source-store';
import { TestDynamoDb, startTestDynamoDb } from '../support/dynamodb';
import { type KeySourceServer, type PublishedTestKey, keySet, publishedKey, startKeySourceServer } from '../support/key-source-server';
import { callRegistry } from '../support/registry-harness';

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
  store = new DynamoClientStore({ tableName, client: ddb.client, now: () => new Date(nowMs) });
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
