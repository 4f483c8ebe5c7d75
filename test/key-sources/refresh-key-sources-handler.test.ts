/**
 * The scheduled key source refresher as its Lambda entry builds it (createRefreshKeySourcesHandler
 * with a configuration read by loadConfig): the real stores on DynamoDB Local, sources served by a
 * real HTTP server on 127.0.0.1, an injected clock. Each run counts the three metrics the alarm
 * and dashboard read, 0 included, and logs one summary line with counts only.
 */
import { loadConfig } from '../../lambda/config';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { createRefreshKeySourcesHandler } from '../../lambda/key-sources/create-refresh-key-sources-handler';
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

function refresherOn(table: string): { run: () => Promise<unknown>; recorded: Recorded } {
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
  return { run: () => handler({ source: 'aws.events', 'detail-type': 'Scheduled Event' }), recorded };
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
  ]);
  expect(await fingerprintsOf(rotatingId)).toEqual([rotating.fingerprint, added.fingerprint].sort());
  expect(await fingerprintsOf(steadyId)).toEqual([steady.fingerprint]);

  expect(refresher.recorded.lines).toHaveLength(1);
  const [line] = refresher.recorded.lines;
  expect(line.message).toBe('key sources refreshed: 2 due, 1 changed, 1 unchanged, 0 failed, 0 failing for over an hour');
  expect(line.attributes[0]).toMatchObject({ checked: 2, refreshed: 1, unchanged: 1, failed: 0, failingOverAnHour: 0, keysAdded: 1, keysRemoved: 0, durationMs: 0 });
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
  ]);
  nowMs += 61 * MINUTE_MS;
  refresher.recorded.metrics.length = 0;
  await refresher.run();
  expect(refresher.recorded.metrics.map(([name, , value]) => [name, value])).toEqual([
    [KEY_SOURCE_REFRESH_METRIC_NAMES.refreshed, 1],
    [KEY_SOURCE_REFRESH_METRIC_NAMES.failed, 1],
    [KEY_SOURCE_REFRESH_METRIC_NAMES.failingOverAnHour, 1],
  ]);
  // A failed fetch never takes keys away.
  expect(await fingerprintsOf(steadyId)).toEqual([steady.fingerprint]);
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
