/**
 * DynamoDB throttles: DynamoDB Local cannot throttle, so the authorizer's real SDK client gets a
 * middleware that answers every attempt with the SDK's own ProvisionedThroughputExceededException
 * while a window is open. It sits in the finalizeRequest step below the SDK's retry middleware, so
 * the SDK treats it exactly as a throttled response: it retries with throttling back-off, then
 * gives up. Outside the window, requests reach DynamoDB Local unchanged.
 *
 * During the window: an unknown clientId and a registered client never cached are refused
 * (dependency_unavailable, fail closed), the cached client is served from its stale record only
 * while younger than staleIfErrorMs on the test's clock, a forged signature for it is refused,
 * and each of these leaves a clear ERROR log line. After the window, everything is read again.
 */
import { DynamoDBClient, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import type { AuthorizerRuntime } from '../../lambda/authorizer/runtime';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { newClientId } from '../../lambda/store/client-id';
import { dynamoDbLocalClientConfig } from '../../local/dynamodb-local';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import { Signer, captureOutput, registerClient } from '../authorizer/support';
import { STALE_MS, TTL_MS, TestClock, decideAt, jsonLines, outcome, runtimeOn } from './fault-support';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

let ddb: TestDynamoDb;
let authorizerClient: DynamoDBClient;
let runtime: AuthorizerRuntime;
let cached: Signer;
let neverCached: Signer;
const clock: TestClock = { ms: Date.parse('2026-06-01T09:00:00Z') };
/** The throttling window, and what happened inside it. */
const throttle = { open: false, injected: 0, passed: 0 };

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  const tableName = await ddb.createTable();
  const store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  cached = await registerClient(store, { name: 'Cached partner' });
  neverCached = await registerClient(store, { name: 'Never cached' });
  // Two attempts per call (one retry) keep the test short; the retry path is the SDK's own.
  authorizerClient = new DynamoDBClient({ ...dynamoDbLocalClientConfig(ddb.endpoint), maxAttempts: 2 });
  authorizerClient.middlewareStack.add(
    (next) => async (args) => {
      if (!throttle.open) {
        throttle.passed += 1;
        return next(args);
      }
      throttle.injected += 1;
      throw new ProvisionedThroughputExceededException({
        message: 'The level of configured provisioned throughput for the table was exceeded.',
        $metadata: { httpStatusCode: 400 },
      });
    },
    { step: 'finalizeRequest', priority: 'low', name: 'injectThrottling' },
  );
  runtime = runtimeOn(tableName, ddb.endpoint, authorizerClient, clock);
});

afterAll(async () => {
  authorizerClient?.destroy();
  await ddb?.stop();
});

test('a throttled DynamoDB: fail closed for unknown and uncached clients, stale-if-error within the bound, clear logs, recovery after', async () => {
  // Before: the cached client is read once and cached.
  expect(outcome((await captureOutput(() => decideAt(runtime, clock, cached))).result)).toBe('allowed');
  const fetchedAtMs = clock.ms;
  const readsBefore = throttle.passed;
  expect(readsBefore).toBe(1);

  throttle.open = true;
  clock.ms = fetchedAtMs + TTL_MS + 1; // the record must be read again, and cannot be
  const unknownId = newClientId();
  const { result, lines } = await captureOutput(async () => ({
    cached: outcome(await decideAt(runtime, clock, cached)),
    forged: outcome(await decideAt(runtime, clock, { clientId: cached.clientId, key: neverCached.key })),
    unknown: outcome(await decideAt(runtime, clock, cached, unknownId)),
    neverCached: outcome(await decideAt(runtime, clock, neverCached)),
  }));
  expect(result).toEqual({ cached: 'allowed', forged: 'signature_mismatch', unknown: 'dependency_unavailable', neverCached: 'dependency_unavailable' });
  // Every read in the window was throttled, and the SDK retried each one once.
  expect(throttle.passed).toBe(readsBefore);
  expect(throttle.injected).toBeGreaterThanOrEqual(2 * 3);
  expect(throttle.injected % 2).toBe(0);

  const logs = jsonLines(lines);
  expect(logs).toContainEqual(
    expect.objectContaining({ level: 'ERROR', message: 'client registry unreachable; serving the cached record within the stale-if-error bound', clientId: cached.clientId }),
  );
  expect(logs).toContainEqual(expect.objectContaining({ level: 'ERROR', message: 'refused: fail closed', reason: 'dependency_unavailable', status: 503, keyId: unknownId }));
  expect(logs).toContainEqual(expect.objectContaining({ level: 'ERROR', message: 'refused: fail closed', reason: 'dependency_unavailable', keyId: neverCached.clientId }));
  for (const line of logs.filter((l) => l.level === 'ERROR')) {
    expect(line.error).toEqual(expect.objectContaining({ message: expect.stringContaining('DynamoDB did not answer or refused the request') }));
  }
  expect(lines.join('\n')).not.toMatch(/sig=:|signature-input|BEGIN/i);

  // Still throttled, past the stale bound: the cached client fails closed as well.
  clock.ms = fetchedAtMs + STALE_MS + 1;
  expect(outcome((await captureOutput(() => decideAt(runtime, clock, cached))).result)).toBe('dependency_unavailable');

  // The window closes: records are read again, the unknown id is unknown, the other client works.
  throttle.open = false;
  const recovered = await captureOutput(async () => ({
    cached: outcome(await decideAt(runtime, clock, cached)),
    unknown: outcome(await decideAt(runtime, clock, cached, unknownId)),
    neverCached: outcome(await decideAt(runtime, clock, neverCached)),
  }));
  expect(recovered.result).toEqual({ cached: 'allowed', unknown: 'unknown_client', neverCached: 'allowed' });
  expect(throttle.passed).toBe(readsBefore + 3);
}, 180_000);
