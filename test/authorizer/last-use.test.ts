/**
 * The authorizer records each (client, key)'s last use off its hot path, on DynamoDB Local, with
 * a clock the test moves. Every command the authorizer's own SDK client sends is recorded by a
 * middleware, so "one write" means one request left the process:
 * - two allowed requests within the interval: one write (a transaction: the key's ownership
 *   checked, its last-use item updated), no read;
 * - after the interval: a second one, with the later time; the registry's store reads it back;
 * - a refused request (even one the client's own key signed): none;
 * - interval 0: none at all;
 * - a write DynamoDB refuses is logged without secrets, changes no decision, and is not retried
 *   before the interval is over.
 */
import { DynamoDBClient, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { Logger } from '@aws-lambda-powertools/logger';
import { adaptHttpApiEvent } from '../../lambda/adapters/http-api-event';
import { AuthorizerRuntime } from '../../lambda/authorizer/runtime';
import { loadConfig } from '../../lambda/config';
import { ENV } from '../../lambda/config-env';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { toDocumentClient } from '../../lambda/store/dynamodb-client';
import { ITEM } from '../../lambda/store/table-schema';
import { dynamoDbLocalClientConfig } from '../../local/dynamodb-local';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import { HTTP_API_HOST, type Signer, authorizerEnv, captureOutput, httpApiAuthorizerEvent, registerClient, sign } from './support';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

const INTERVAL_MS = 15 * 60_000;
const T0 = Date.parse('2026-05-04T10:00:00Z');

let ddb: TestDynamoDb;
let tableName: string;
let store: DynamoClientStore;

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  tableName = await ddb.createTable();
  // The registry registers keys before the authorizer's clock starts.
  store = new DynamoClientStore({ tableName, client: ddb.client, now: () => new Date(T0 - 60_000), keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
});

afterAll(async () => {
  await ddb?.stop();
});

interface Sent {
  readonly command: string;
  readonly pk?: string;
}

/** The partition key a command writes: its Key, or its transaction's Update. */
function writtenPk(input: { Key?: { pk?: string | { S?: string } }; TransactItems?: Array<{ Update?: { Key?: { pk?: string | { S?: string } } } }> }): string | undefined {
  const pk = input.Key?.pk ?? input.TransactItems?.find((item) => item.Update)?.Update?.Key?.pk;
  return typeof pk === 'string' ? pk : pk?.S;
}

/** A runtime on its own SDK client (every command recorded; writes refused while `refuse.on`), at a clock the test moves. */
function runtimeWith(extraEnv: Record<string, string> = {}, logLevel: 'INFO' | 'SILENT' = 'SILENT') {
  const client = new DynamoDBClient({ ...dynamoDbLocalClientConfig(ddb.endpoint), maxAttempts: 1 });
  const sent: Sent[] = [];
  const refuse = { on: false };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push({ command: String(context.commandName), pk: writtenPk(args.input as Parameters<typeof writtenPk>[0]) });
      if (refuse.on && /^(UpdateItem|TransactWriteItems)Command$/.test(String(context.commandName))) {
        throw new ProvisionedThroughputExceededException({ message: 'The level of configured provisioned throughput for the table was exceeded.', $metadata: { httpStatusCode: 400 } });
      }
      return next(args);
    },
    { step: 'initialize', name: 'recordCommands' },
  );
  const clock = { ms: T0 };
  const runtime = new AuthorizerRuntime({
    config: loadConfig(authorizerEnv(tableName, ddb.endpoint, { [ENV.lastUsedRecordIntervalMs]: String(INTERVAL_MS), [ENV.recordAuthFailures]: 'false', ...extraEnv })),
    doc: toDocumentClient(client),
    logger: new Logger({ serviceName: 'signet-authorizer', logLevel }),
    nowMs: () => clock.ms,
  });
  return { runtime, client, sent, clock, refuse };
}

/** A request signed by `signer` at the clock; `path` /api/... is allowed for the `partner` role, /registry/... is not. */
async function decide(runtime: AuthorizerRuntime, clock: { ms: number }, signer: Signer, path = '/api/echo') {
  const call = { method: 'GET', url: `https://${HTTP_API_HOST}${path}`, created: Math.floor(clock.ms / 1000) };
  const { headers } = sign(call, signer);
  const decision = await runtime.decide(adaptHttpApiEvent(httpApiAuthorizerEvent(call, { headers })));
  await runtime.settled();
  return decision;
}

const keyWrites = (sent: readonly Sent[], signer: Signer) => sent.filter((s) => s.command === 'TransactWriteItemsCommand' && s.pk === ITEM.keyUsePk(signer.key.fingerprint));
const reads = (sent: readonly Sent[]) => sent.filter((s) => /^(GetItem|BatchGetItem|Query|Scan)/.test(s.command));

test('two allowed requests within the interval write once; after the interval a second time, with the later instant; never a read on the warm path', async () => {
  const signer = await registerClient(store, { name: 'Live partner' });
  const { runtime, client, sent, clock } = runtimeWith();

  expect((await decide(runtime, clock, signer)).allowed).toBe(true);
  expect(keyWrites(sent, signer)).toHaveLength(1);
  expect(reads(sent)).toHaveLength(1); // the cold read of the client record
  const record = await store.getClient(signer.clientId);
  expect(await store.keyLastUse([record!])).toEqual(new Map([[signer.key.fingerprint, new Date(T0).toISOString()]]));

  clock.ms += 30_000;
  sent.length = 0;
  expect((await decide(runtime, clock, signer)).allowed).toBe(true);
  clock.ms += INTERVAL_MS - 30_001;
  expect((await decide(runtime, clock, signer)).allowed).toBe(true);
  expect(sent.filter((s) => s.command !== 'GetItemCommand')).toEqual([]); // within the interval: nothing written

  clock.ms += 1; // the interval since the first write is over
  sent.length = 0;
  expect((await decide(runtime, clock, signer)).allowed).toBe(true);
  expect(keyWrites(sent, signer)).toHaveLength(1);
  expect(await store.keyLastUse([record!])).toEqual(new Map([[signer.key.fingerprint, new Date(clock.ms).toISOString()]]));
  client.destroy();
});

test('the warm path reads nothing: 50 allowed requests after the first make no DynamoDB call at all', async () => {
  const signer = await registerClient(store, { name: 'Busy partner' });
  const { runtime, client, sent, clock } = runtimeWith({ [ENV.clientCacheTtlMs]: String(INTERVAL_MS) });
  expect((await decide(runtime, clock, signer)).allowed).toBe(true);
  expect(sent.map((s) => s.command)).toEqual(['GetItemCommand', 'TransactWriteItemsCommand']);
  sent.length = 0;
  for (let i = 0; i < 50; i++) {
    clock.ms += 1_000;
    expect((await decide(runtime, clock, signer)).allowed).toBe(true);
  }
  expect(sent).toEqual([]);
  client.destroy();
});

test('a refused request, even one the client signed itself, records no use', async () => {
  const signer = await registerClient(store, { name: 'Refused partner' });
  const { runtime, client, sent, clock } = runtimeWith();
  const refused = await decide(runtime, clock, signer, '/registry/clients'); // role_forbidden: partner may not call the registry
  expect(refused.allowed ? 'allowed' : refused.error.code).toBe('role_forbidden');
  const forged = await decide(runtime, clock, { ...signer, key: (await registerClient(store, { name: 'Other' })).key });
  expect(forged.allowed ? 'allowed' : forged.error.code).toBe('signature_mismatch');
  expect(keyWrites(sent, signer)).toEqual([]);
  expect(sent.filter((s) => /^(UpdateItem|PutItem|TransactWriteItems)Command$/.test(s.command))).toEqual([]);
  const record = await store.getClient(signer.clientId);
  expect(await store.keyLastUse([record!])).toEqual(new Map());
  client.destroy();
});

test('interval 0 turns the recording off', async () => {
  const signer = await registerClient(store, { name: 'Unrecorded partner' });
  const { runtime, client, sent, clock } = runtimeWith({ [ENV.lastUsedRecordIntervalMs]: '0' });
  expect((await decide(runtime, clock, signer)).allowed).toBe(true);
  expect(sent.map((s) => s.command)).toEqual(['GetItemCommand']);
  client.destroy();
});

test('a write DynamoDB refuses is logged without secrets, leaves the decision alone and waits for the next interval', async () => {
  const signer = await registerClient(store, { name: 'Throttled partner' });
  const { runtime, client, sent, clock, refuse } = runtimeWith({}, 'INFO');
  refuse.on = true;
  const { result, lines } = await captureOutput(() => decide(runtime, clock, signer));
  expect(result.allowed).toBe(true);
  const warning = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.level === 'WARN');
  expect(warning).toMatchObject({ message: "could not record the key's last use", clientId: signer.clientId, keyFingerprint: signer.key.fingerprint });
  const text = lines.join('\n');
  expect(text).not.toMatch(/Signature|BEGIN|sig1=|keyid=/);

  refuse.on = false;
  sent.length = 0;
  clock.ms += 60_000;
  // Captured: this runtime logs at INFO, and a green run prints nothing.
  expect((await captureOutput(() => decide(runtime, clock, signer))).result.allowed).toBe(true);
  expect(keyWrites(sent, signer)).toEqual([]); // not retried within the interval
  clock.ms += INTERVAL_MS;
  expect((await captureOutput(() => decide(runtime, clock, signer))).result.allowed).toBe(true);
  expect(keyWrites(sent, signer)).toHaveLength(1);
  client.destroy();
});

test('the config refuses a non-zero interval under one second', () => {
  expect(() => loadConfig(authorizerEnv(tableName, ddb.endpoint, { [ENV.lastUsedRecordIntervalMs]: '500' }))).toThrow(/SIGNET_LAST_USED_RECORD_INTERVAL_MS must be 0 \(off\) or at least 1000/);
  expect(loadConfig(authorizerEnv(tableName, ddb.endpoint)).lastUsedRecordIntervalMs).toBe(15 * 60_000);
});
