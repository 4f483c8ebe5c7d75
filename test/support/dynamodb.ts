/**
 * DynamoDB Local for tests. A Jest run starts ONE in-memory emulator for all its files and
 * workers (test/support/jest-global-setup.ts); `startTestDynamoDb()` connects to it, and every
 * file or test gets tables of its own via `createTable()` (unique names, dropped again by
 * `stop()`). A file that stops or kills its emulator asks for one of its own with `{ own: true }`.
 * Outside such a run (no shared endpoint in the environment), every call starts its own emulator.
 *
 * @example
 * let ddb: TestDynamoDb;
 * beforeAll(async () => { ddb = await startTestDynamoDb(); });
 * afterAll(() => ddb?.stop());
 * test('...', async () => {
 *   const store = new DynamoClientStore({ tableName: await ddb.createTable(), client: ddb.client });
 * });
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { DeleteTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_DYNAMODB_LOCAL_START_TIMEOUT_MS, dynamoDbLocalClientConfig, startDynamoDbLocal } from '../../local/dynamodb-local';
import { ensureClientTable } from '../../lambda/store/table-setup';
import { toDocumentClient } from '../../lambda/store/dynamodb-client';

/** The run's shared emulator, as `http://127.0.0.1:<port>` (set by the Jest global setup). */
export const SHARED_DYNAMODB_ENDPOINT_ENV = 'SIGNET_TEST_DYNAMODB_ENDPOINT';
/** A file the global setup writes the emulator's start failure into (absent while all is well). */
export const SHARED_DYNAMODB_FAILURE_FILE_ENV = 'SIGNET_TEST_DYNAMODB_FAILURE_FILE';

export interface TestDynamoDb {
  readonly endpoint: string;
  /** Low-level client pointed at the emulator (dummy credentials and region). */
  readonly client: DynamoDBClient;
  /** Document client with Signet's marshalling, for reading items back in assertions. */
  readonly doc: DynamoDBDocumentClient;
  /** Creates a client table with a name unique to this call, and returns the name. */
  createTable(): Promise<string>;
  /**
   * On an emulator of its own: stops it (DynamoDB is gone afterwards). On the shared one: drops
   * the tables this handle created and closes its clients; the emulator keeps running.
   */
  stop(): Promise<void>;
}

export interface TestDynamoDbOptions {
  /** Start an emulator for this caller alone, e.g. to stop it mid-test. @default false */
  readonly own?: boolean;
}

const POLL_INTERVAL_MS = 100;

/** Clients for the run's shared DynamoDB Local, or for an emulator of the caller's own. */
export async function startTestDynamoDb(options: TestDynamoDbOptions = {}): Promise<TestDynamoDb> {
  const shared = process.env[SHARED_DYNAMODB_ENDPOINT_ENV];
  if (options.own || shared === undefined) {
    const local = await startDynamoDbLocal();
    return handle(local.endpoint, () => local.stop());
  }
  await waitForSharedEmulator(shared);
  return handle(shared, async (client, tables) => {
    // Best effort: the emulator is in memory and ends with the run anyway.
    await Promise.all(tables.map((TableName) => client.send(new DeleteTableCommand({ TableName })).catch(() => undefined)));
  });
}

function handle(endpoint: string, release: (client: DynamoDBClient, tables: string[]) => Promise<void>): TestDynamoDb {
  const client = new DynamoDBClient(dynamoDbLocalClientConfig(endpoint));
  const doc = toDocumentClient(client);
  const tables: string[] = [];
  let stopping: Promise<void> | undefined;
  return {
    endpoint,
    client,
    doc,
    async createTable() {
      const name = `signet-test-${tables.length + 1}-${randomBytes(4).toString('hex')}`;
      tables.push(name);
      await ensureClientTable(client, name);
      return name;
    },
    stop() {
      stopping ??= release(client, tables).finally(() => client.destroy());
      return stopping;
    },
  };
}

/**
 * The global setup starts the emulator without waiting for it (files that never use DynamoDB do
 * not wait), so the first user waits here until it answers, or fails with the setup's reason.
 */
async function waitForSharedEmulator(endpoint: string): Promise<void> {
  const failureFile = process.env[SHARED_DYNAMODB_FAILURE_FILE_ENV];
  const probe = new DynamoDBClient({ ...dynamoDbLocalClientConfig(endpoint), maxAttempts: 1 });
  const deadline = Date.now() + DEFAULT_DYNAMODB_LOCAL_START_TIMEOUT_MS;
  try {
    for (;;) {
      if (failureFile !== undefined && existsSync(failureFile)) {
        throw new Error(`The test run's DynamoDB Local could not start: ${readFileSync(failureFile, 'utf8')}`);
      }
      try {
        await probe.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(2_000) });
        return;
      } catch {
        // still starting
      }
      if (Date.now() > deadline) {
        throw new Error(
          `The test run's DynamoDB Local did not answer on ${endpoint} within ${DEFAULT_DYNAMODB_LOCAL_START_TIMEOUT_MS} ms ` +
            '(started by test/support/jest-global-setup.ts; it needs Java 17 or newer on PATH).',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    }
  } finally {
    probe.destroy();
  }
}

/** A real SDK client on the emulator at `endpoint` that records the name of every command it sends. */
export function countingClient(endpoint: string): { client: DynamoDBClient; commands: string[] } {
  const client = new DynamoDBClient(dynamoDbLocalClientConfig(endpoint));
  const commands: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      commands.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'countCommands' },
  );
  return { client, commands };
}
