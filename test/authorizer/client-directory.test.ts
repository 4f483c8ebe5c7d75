/**
 * The authorizer's client directory over the real store on DynamoDB Local, with a clock the test
 * moves. DynamoDB calls are counted by a middleware on the real SDK client (every command the
 * store sends, whatever its kind), so "zero reads" means no request left the process.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Logger } from '@aws-lambda-powertools/logger';
import { ClientDirectory } from '../../lambda/authorizer/client-directory';
import { AuthorizerRuntime } from '../../lambda/authorizer/runtime';
import { loadConfig } from '../../lambda/config';
import { adaptHttpApiEvent } from '../../lambda/adapters/http-api-event';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { newClientId } from '../../lambda/store/client-id';
import { toDocumentClient } from '../../lambda/store/dynamodb-client';
import { ITEM, PARTITION_KEY, SORT_KEY } from '../../lambda/store/table-schema';
import { countingClient, startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import { HTTP_API_HOST, Signer, authorizerEnv, httpApiAuthorizerEvent, registerClient, sign } from './support';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

let ddb: TestDynamoDb;
let tableName: string;
let setupStore: DynamoClientStore;
let known: Signer;

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  tableName = await ddb.createTable();
  setupStore = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  known = await registerClient(setupStore, { name: 'Known partner' });
});

afterAll(async () => {
  await ddb?.stop();
});

const T0 = Date.parse('2026-03-01T12:00:00Z');


function directoryWith(options: ConstructorParameters<typeof ClientDirectory>[1] = {}) {
  const { client, commands } = countingClient(ddb.endpoint);
  const clock = { ms: T0 };
  const store = new DynamoClientStore({ tableName, client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  const directory = new ClientDirectory(store, { nowMs: () => clock.ms, ...options });
  return { directory, commands, clock, client };
}

describe('warm path', () => {
  test('after the first lookup, a client is served from memory: zero DynamoDB calls', async () => {
    const { directory, commands, client } = directoryWith();
    const first = await directory.get(known.clientId);
    expect(first?.record.clientId).toBe(known.clientId);
    expect(commands).toEqual(['GetItemCommand']);
    for (let i = 0; i < 200; i++) expect((await directory.get(known.clientId))?.record.clientId).toBe(known.clientId);
    expect(commands).toHaveLength(1);
    expect(directory.reads).toBe(1);
    client.destroy();
  });

  test("a whole authorizer decision on a warm cache makes zero DynamoDB calls (the key's last use is written once, on the first)", async () => {
    const { client, commands } = countingClient(ddb.endpoint);
    const runtime = new AuthorizerRuntime({
      config: loadConfig(authorizerEnv(tableName, ddb.endpoint)),
      doc: toDocumentClient(client),
      logger: new Logger({ serviceName: 'test', logLevel: 'SILENT' }),
    });
    const call = { method: 'POST', url: `https://${HTTP_API_HOST}/api/echo?n=1`, body: '{"n":1}' };
    const decideOnce = () => {
      const { headers } = sign(call, known);
      return runtime.decide(adaptHttpApiEvent(httpApiAuthorizerEvent(call, { headers })));
    };
    expect((await decideOnce()).allowed).toBe(true);
    await runtime.settled();
    // One read of the client; its key's last use is one transaction (the key must still be the client's).
    expect(commands).toEqual(['GetItemCommand', 'TransactWriteItemsCommand']);
    const cold = commands.length;
    for (let i = 0; i < 50; i++) expect((await decideOnce()).allowed).toBe(true);
    await runtime.settled();
    expect(commands).toHaveLength(cold);
    expect(runtime.directory.reads).toBe(1);
    client.destroy();
  });

  test('concurrent lookups of one client share one read', async () => {
    const { directory, commands, client } = directoryWith();
    const results = await Promise.all(Array.from({ length: 20 }, () => directory.get(known.clientId)));
    expect(results.every((r) => r?.record.clientId === known.clientId)).toBe(true);
    expect(commands).toEqual(['GetItemCommand']);
    client.destroy();
  });

  test('keys are imported once: the same KeyObject is reused across TTL refreshes', async () => {
    const { directory, clock, client } = directoryWith({ ttlMs: 1_000 });
    const first = await directory.get(known.clientId);
    clock.ms += 2_000;
    const second = await directory.get(known.clientId);
    expect(second).not.toBe(first);
    expect(second?.keys[0].key).toBe(first?.keys[0].key);
    client.destroy();
  });
});

describe('TTL', () => {
  test('a record is read again once its TTL has passed, and a change made meanwhile is seen only then', async () => {
    const other = await registerClient(setupStore, { name: 'Soon disabled' });
    const { directory, commands, clock, client } = directoryWith({ ttlMs: 60_000 });
    expect((await directory.get(other.clientId))?.record.status).toBe('active');
    await setupStore.disable(other.clientId, 'test');

    clock.ms += 59_999;
    expect((await directory.get(other.clientId))?.record.status).toBe('active');
    expect(commands).toHaveLength(1);

    clock.ms += 1;
    expect((await directory.get(other.clientId))?.record.status).toBe('disabled');
    expect(commands).toHaveLength(2);
    client.destroy();
  });
});

describe('unknown keyids', () => {
  test('are negatively cached for negativeTtlMs, then read again', async () => {
    const { directory, commands, clock, client } = directoryWith({ negativeTtlMs: 10_000 });
    const unknown = newClientId();
    expect(await directory.get(unknown)).toBeUndefined();
    expect(await directory.get(unknown)).toBeUndefined();
    expect(commands).toHaveLength(1);
    clock.ms += 10_000;
    expect(await directory.get(unknown)).toBeUndefined();
    expect(commands).toHaveLength(2);
    client.destroy();
  });

  test('a flood of random keyids does not evict a known client, and the negative cache stays bounded', async () => {
    const maxEntries = 16;
    const { directory, commands, client } = directoryWith({ maxEntries });
    await directory.get(known.clientId);
    for (let i = 0; i < 150; i++) expect(await directory.get(newClientId())).toBeUndefined();
    expect(directory.size).toBe(1 + maxEntries);
    const before = commands.length;
    expect((await directory.get(known.clientId))?.record.clientId).toBe(known.clientId);
    expect(commands).toHaveLength(before);
    client.destroy();
  });

  test('keyids that cannot be clientIds are answered without any DynamoDB call', async () => {
    const { directory, commands, client } = directoryWith();
    for (const keyId of ['', 'x', 'c_short', '../../etc/passwd', 'c_' + 'A'.repeat(200), '"quoted"', 'CLIENT#c_AAAAAAAAAAAAAAAAAAAAAA']) {
      expect(await directory.get(keyId)).toBeUndefined();
    }
    expect(commands).toEqual([]);
    client.destroy();
  });
});

describe('bounded size', () => {
  test('known clients never exceed maxEntries; the least recently used one is evicted and read again', async () => {
    const maxEntries = 4;
    const signers: Signer[] = [];
    for (let i = 0; i < 7; i++) signers.push(await registerClient(setupStore, { name: `Bounded ${i}` }));
    const { directory, commands, client } = directoryWith({ maxEntries });
    for (const signer of signers) {
      await directory.get(signer.clientId);
      expect(directory.size).toBeLessThanOrEqual(maxEntries);
    }
    expect(directory.size).toBe(maxEntries);
    const before = commands.length;
    await directory.get(signers[6].clientId); // recent: cached
    expect(commands).toHaveLength(before);
    await directory.get(signers[0].clientId); // evicted: read again
    expect(commands).toHaveLength(before + 1);
    client.destroy();
  });
});

describe('corrupt records fail closed', () => {
  test('a whitelist entry that no longer parses admits nobody; a key whose PEM does not match its fingerprint is skipped', async () => {
    const damaged = await registerClient(setupStore, { name: 'Damaged' });
    await ddb.doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { [PARTITION_KEY]: ITEM.clientPk(damaged.clientId), [SORT_KEY]: ITEM.clientSk },
        UpdateExpression: 'SET networkWhitelist = :w, #keys[0].fingerprint = :f',
        ExpressionAttributeNames: { '#keys': 'keys' },
        ExpressionAttributeValues: { ':w': ['not-an-address'], ':f': known.key.fingerprint },
      }),
    );
    const { directory, client } = directoryWith();
    const resolved = await directory.get(damaged.clientId);
    expect(resolved?.allowList.allows('15.248.3.126')).toBe(false);
    expect(resolved?.allowList.allows('10.0.0.1')).toBe(false);
    expect(resolved?.keys).toEqual([]);
    client.destroy();
  });
});
