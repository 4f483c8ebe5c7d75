/**
 * DynamoDB Local for tests: one in-memory emulator per test file (start it in beforeAll, stop it
 * in afterAll), and a fresh client table per test or describe block via `createTable()`.
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
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamoDbLocalClientConfig, startDynamoDbLocal } from '../../local/dynamodb-local';
import { ensureClientTable } from '../../lambda/store/table-setup';
import { toDocumentClient } from '../../lambda/store/dynamodb-client';

export interface TestDynamoDb {
  readonly endpoint: string;
  /** Low-level client pointed at the emulator (dummy credentials and region). */
  readonly client: DynamoDBClient;
  /** Document client with Signet's marshalling, for reading items back in assertions. */
  readonly doc: DynamoDBDocumentClient;
  /** Creates a client table with a name unique to this call, and returns the name. */
  createTable(): Promise<string>;
  stop(): Promise<void>;
}

/** Starts an in-memory DynamoDB Local and returns clients for it. */
export async function startTestDynamoDb(): Promise<TestDynamoDb> {
  const local = await startDynamoDbLocal();
  const client = new DynamoDBClient(dynamoDbLocalClientConfig(local.endpoint));
  const doc = toDocumentClient(client);
  let tables = 0;
  return {
    endpoint: local.endpoint,
    client,
    doc,
    async createTable() {
      const name = `signet-test-${++tables}-${randomBytes(4).toString('hex')}`;
      await ensureClientTable(client, name);
      return name;
    },
    async stop() {
      client.destroy();
      await local.stop();
    },
  };
}
