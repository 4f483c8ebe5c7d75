/**
 * DynamoDB goes away mid-run (this file's own DynamoDB Local is stopped): a cached client keeps
 * working only within staleIfErrorMs, an unknown client is never allowed, and past the bound the
 * authorizer fails closed with `dependency_unavailable` and a clear error log. The runtime is the
 * one the handler builds, with a clock the test moves; the logs are the real Powertools output.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Logger } from '@aws-lambda-powertools/logger';
import { AuthorizerRuntime } from '../../lambda/authorizer/runtime';
import { ClientDirectory, DEFAULT_STALE_RETRY_MS } from '../../lambda/authorizer/client-directory';
import { adaptHttpApiEvent } from '../../lambda/adapters/http-api-event';
import { loadConfig } from '../../lambda/config';
import { ENV } from '../../lambda/config-env';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS, DEFAULT_STALE_IF_ERROR_MS } from '../../lambda/core/defaults';
import { SignetError } from '../../lambda/core/errors';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { newClientId } from '../../lambda/store/client-id';
import { toDocumentClient } from '../../lambda/store/dynamodb-client';
import { dynamoDbLocalClientConfig } from '../../local/dynamodb-local';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import { HTTP_API_HOST, type OutputRecorder, Signer, authorizerEnv, httpApiAuthorizerEvent, recordOutput, registerClient, sign } from './support';

const TTL_MS = 60_000;
const STALE_MS = 15 * 60_000;

let ddb: TestDynamoDb;
let cached: Signer;
let neverRead: Signer;
let runtime: AuthorizerRuntime;
let directory: ClientDirectory;
/** The authorizer's own SDK client: it outlives the emulator, so its calls really fail (connection refused). */
let authorizerClient: DynamoDBClient;
const clock = { ms: 0 };
/** When `cached` was last read successfully (the stale bound counts from here). */
let fetchedAtMs = 0;
const staleServed: string[] = [];
/** Every command the authorizer's SDK client sent (counted by a middleware on the real client). */
const commands: string[] = [];
/** Every log line of the file (the authorizer logs each decision); tests read theirs with `logsOf`. */
let output: OutputRecorder;

beforeAll(async () => {
  output = recordOutput();
  ddb = await startTestDynamoDb({ own: true }); // stopped below: not the run's shared emulator
  const tableName = await ddb.createTable();
  const setup = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  cached = await registerClient(setup, { name: 'Cached partner' });
  neverRead = await registerClient(setup, { name: 'Never read' });
  authorizerClient = new DynamoDBClient(dynamoDbLocalClientConfig(ddb.endpoint));
  authorizerClient.middlewareStack.add(
    (next, context) => async (args) => {
      commands.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'countCommands' },
  );
  const store = new DynamoClientStore({ tableName, client: authorizerClient, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  clock.ms = Date.now();
  fetchedAtMs = clock.ms;
  const config = loadConfig(authorizerEnv(tableName, ddb.endpoint, { [ENV.clientCacheTtlMs]: String(TTL_MS), [ENV.staleIfErrorMs]: String(STALE_MS) }));
  runtime = new AuthorizerRuntime({ config, doc: toDocumentClient(authorizerClient), logger: new Logger({ serviceName: 'signet-authorizer', logLevel: 'INFO' }), nowMs: () => clock.ms });
  // A directory of its own on the same store, to see what it answers and when it serves stale.
  directory = new ClientDirectory(store, { ttlMs: TTL_MS, staleIfErrorMs: STALE_MS, nowMs: () => clock.ms, onStaleServed: (id) => staleServed.push(id) });

  // Warm both caches for `cached` while DynamoDB is up, then stop DynamoDB.
  expect((await decide(cached)).allowed).toBe(true);
  expect((await directory.get(cached.clientId))?.record.clientId).toBe(cached.clientId);
  await ddb.stop();
});

afterAll(async () => {
  output?.stop();
  authorizerClient?.destroy();
  await ddb?.stop();
});

/** A freshly signed GET for `signer` at the test clock, decided by the runtime. */
async function decide(signer: Signer, keyId?: string) {
  const call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/echo`, created: Math.floor(clock.ms / 1000), keyId };
  const { headers } = sign(call, signer);
  return runtime.decide(adaptHttpApiEvent(httpApiAuthorizerEvent(call, { headers })));
}

/** What `run` returns, and the log lines written while it ran. */
async function logsOf<T>(run: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const from = output.lines().length;
  const result = await run();
  return { result, lines: output.lines(from) };
}

function codeOf(decision: Awaited<ReturnType<typeof decide>>): string {
  return decision.allowed ? 'allowed' : decision.error.code;
}

async function rejectionOf(promise: Promise<unknown>): Promise<SignetError> {
  try {
    await promise;
  } catch (error) {
    return error as SignetError;
  }
  throw new Error('expected a rejection');
}

test('the configured bound is the documented default (15 min)', () => {
  expect(STALE_MS).toBe(DEFAULT_STALE_IF_ERROR_MS);
});

test('within the TTL nothing changes: the cached client is allowed without touching DynamoDB', async () => {
  clock.ms += TTL_MS / 2;
  const before = commands.length;
  expect(codeOf(await decide(cached))).toBe('allowed');
  expect(commands).toHaveLength(before);
});

test('past the TTL, within staleIfErrorMs: the cached client keeps working, with an error log naming it', async () => {
  clock.ms += TTL_MS;
  const { result, lines } = await logsOf(() => decide(cached));
  expect(codeOf(result)).toBe('allowed');
  const logs = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(logs).toContainEqual(
    expect.objectContaining({ level: 'ERROR', clientId: cached.clientId, message: expect.stringContaining('client registry unreachable') }),
  );
  expect(await directory.get(cached.clientId)).toMatchObject({ record: { clientId: cached.clientId } });
  expect(staleServed).toEqual([cached.clientId]);
});

test('after a failed read the stale record is used for staleRetryMs without asking DynamoDB again, then it is retried', async () => {
  const before = commands.length;
  expect(codeOf(await decide(cached))).toBe('allowed');
  clock.ms += DEFAULT_STALE_RETRY_MS - 1;
  expect(codeOf(await decide(cached))).toBe('allowed');
  expect(commands).toHaveLength(before);
  clock.ms += 1;
  expect(codeOf(await decide(cached))).toBe('allowed');
  expect(commands).toEqual([...commands.slice(0, before), 'GetItemCommand']);
});

test('a registered client that was never cached is NEVER allowed: dependency_unavailable (fail closed)', async () => {
  const { result, lines } = await logsOf(() => decide(neverRead));
  expect(codeOf(result)).toBe('dependency_unavailable');
  expect(result.allowed ? 0 : result.error.status).toBe(503);
  const logs = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(logs).toContainEqual(expect.objectContaining({ level: 'ERROR', reason: 'dependency_unavailable', message: 'refused: fail closed' }));
  expect((await rejectionOf(directory.get(neverRead.clientId))).code).toBe('dependency_unavailable');
});

test('an unknown keyid is never allowed either', async () => {
  const unknown = newClientId();
  expect(codeOf(await decide(cached, unknown))).toBe('dependency_unavailable');
  expect((await rejectionOf(directory.get(unknown))).code).toBe('dependency_unavailable');
});

test('a cached client with a bad signature is still refused while stale records are served', async () => {
  const forger: Signer = { clientId: cached.clientId, key: neverRead.key };
  expect(codeOf(await decide(forger))).toBe('signature_mismatch');
});

test('the bound is exact: served at staleIfErrorMs after the last good read, refused 1 ms later, whatever was re-armed', async () => {
  clock.ms = fetchedAtMs + STALE_MS - DEFAULT_STALE_RETRY_MS / 2;
  expect(codeOf(await decide(cached))).toBe('allowed'); // a failed read: re-armed, but only up to the bound
  clock.ms = fetchedAtMs + STALE_MS;
  expect(codeOf(await decide(cached))).toBe('allowed');
  clock.ms = fetchedAtMs + STALE_MS + 1;
  expect(codeOf(await decide(cached))).toBe('dependency_unavailable');
  expect((await rejectionOf(directory.get(cached.clientId))).code).toBe('dependency_unavailable');
});

test('long past the bound it stays closed', async () => {
  clock.ms += STALE_MS;
  expect(codeOf(await decide(cached))).toBe('dependency_unavailable');
});
