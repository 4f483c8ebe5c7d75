/**
 * The narrow IAM grants of ClientRegistry (partition-key prefixes, attribute lists) must cover
 * what the store really sends. DynamoDB Local does not enforce IAM, so this test runs the store's
 * writes against it, records every request, and checks each against the grant that must allow it.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { dynamoDbLocalClientConfig } from '../../local/dynamodb-local';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { DynamoReplayGuard } from '../../lambda/store/replay-store';
import { toDocumentClient } from '../../lambda/store/dynamodb-client';
import { AUTHORIZER_WRITE_PREFIXES, ITEM, KEY_LAST_USE_ATTRIBUTES, LIST_INDEX_NAME, UNAUTHENTICATED_FAILURE_ATTRIBUTES } from '../../lambda/store/table-schema';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { createKeySourceRefresher } from '../../lambda/key-sources/key-source-refresher';
import { createRegistryHandler } from '../../lambda/registry/registry-handler';
import { DynamoKeySourceStore } from '../../lambda/store/key-source-store';
import {
  AUTH_FAILURE_COUNTER_ATTRIBUTES,
  AUTH_FAILURE_ITEM_ATTRIBUTES,
  FAILURE_LOG_ITEMS_PATTERN,
  KEY_SOURCE_REFRESHER_INDEX_PARTITIONS,
  KEY_SOURCE_REFRESHER_ITEM_ACTIONS,
  KEY_SOURCE_REFRESHER_PARTITIONS,
  KEY_USE_ITEMS_PATTERN,
  REPLAY_ITEMS_PATTERN,
  REPLAY_ITEM_ATTRIBUTES,
} from '../../lib/client-registry';
import { TestDynamoDb, startTestDynamoDb } from '../support/dynamodb';
import { type KeySourceServer, keySet, publishedKey, startKeySourceServer } from '../support/key-source-server';
import { callRegistry } from '../support/registry-harness';
import { newClient } from '../support/registry-fixtures';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

interface Sent {
  readonly command: string;
  readonly input: Record<string, unknown>;
}

let ddb: TestDynamoDb;
let tableName: string;
let recorder: DynamoDBClient;
const sent: Sent[] = [];

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  tableName = await ddb.createTable();
  recorder = new DynamoDBClient(dynamoDbLocalClientConfig(ddb.endpoint));
  recorder.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push({ command: String(context.commandName), input: args.input as Record<string, unknown> });
      return next(args);
    },
    { step: 'build', name: 'recordRequests' },
  );
});

afterAll(async () => {
  recorder?.destroy();
  await ddb?.stop();
});

beforeEach(() => {
  sent.length = 0;
});

const EXPRESSION_WORDS = new Set([
  'SET', 'ADD', 'REMOVE', 'DELETE', 'AND', 'OR', 'NOT', 'BETWEEN', 'IN',
  'attribute_exists', 'attribute_not_exists', 'attribute_type', 'begins_with', 'contains', 'size', 'if_not_exists', 'list_append',
]);

/** Top-level attribute names a request touches (what IAM's dynamodb:Attributes sees), keys included. */
function attributesOf(input: Record<string, unknown>): Set<string> {
  const names = new Set<string>();
  for (const field of ['Key', 'Item'] as const) {
    const value = input[field] as Record<string, unknown> | undefined;
    if (value) for (const name of Object.keys(value)) names.add(name);
  }
  const aliases = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  for (const name of Object.values(aliases)) names.add(name);
  for (const field of ['UpdateExpression', 'ConditionExpression', 'ProjectionExpression'] as const) {
    const expression = input[field];
    if (typeof expression !== 'string') continue;
    const bare = expression.replace(/[#:][A-Za-z0-9_]+/g, ' ').match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [];
    for (const word of bare) if (!EXPRESSION_WORDS.has(word)) names.add(word);
  }
  return names;
}

/** The partition-key value of a request's Key or Item (marshalled or not). */
function partitionKeyOf(input: Record<string, unknown>): string {
  const keyed = (input.Key ?? input.Item) as Record<string, unknown>;
  const pk = keyed.pk as string | { S: string };
  return typeof pk === 'string' ? pk : pk.S;
}

/** Single-item operations, with the parts of transactions spelled out as their IAM actions. */
function operations(requests: readonly Sent[]): Array<{ action: string; input: Record<string, unknown> }> {
  return requests.flatMap(({ command, input }) => {
    if (command === 'TransactWriteItemsCommand') {
      return (input.TransactItems as Array<Record<string, Record<string, unknown>>>).map((item) => {
        const [kind, part] = Object.entries(item)[0];
        const action = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' }[kind] ?? kind;
        return { action, input: part };
      });
    }
    return [{ action: command.replace(/Command$/, ''), input }];
  });
}

test("the authorizer's partitions are its own: no client, key, account or roster partition key starts with one of their prefixes", () => {
  expect([...AUTHORIZER_WRITE_PREFIXES].sort()).toEqual(['FAIL#', 'REPLAY#', 'USE#']);
  expect([FAILURE_LOG_ITEMS_PATTERN, KEY_USE_ITEMS_PATTERN, REPLAY_ITEMS_PATTERN].map((p) => p.replace(/\*$/, '')).sort()).toEqual([...AUTHORIZER_WRITE_PREFIXES].sort());
  const registryPartitions = [ITEM.clientPk('c_AAAAAAAAAAAAAAAAAAAAAA'), ITEM.keyPk('x'), ITEM.accountPk('acct_x'), ITEM.adminRosterPk];
  for (const pk of registryPartitions) expect([pk, AUTHORIZER_WRITE_PREFIXES.filter((prefix) => pk.startsWith(prefix))]).toEqual([pk, []]);
});

/** True when `pk` matches an IAM StringLike pattern that ends in `*` (the only shape the grants use). */
const matches = (pattern: string, pk: string) => pk.startsWith(pattern.replace(/\*$/, ''));

test('recordAuthFailure stays within grantRecordFailures: FAIL# items (never the client\'s partition), counter and failure attributes only', async () => {
  const admin = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  const { record } = await admin.createClient(newClient(0), 'test');
  const store = new DynamoClientStore({ tableName, client: recorder, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  sent.length = 0;

  expect(
    await store.recordAuthFailure(record.clientId, 'signature_mismatch', {
      message: 'The signature does not match.',
      sourceIp: '203.0.113.7',
      method: 'POST',
      path: '/api/echo',
      fingerprint: record.keys[0].fingerprint,
    }),
  ).toBe(true);

  const ops = operations(sent);
  expect(ops.map((o) => o.action)).toEqual(['UpdateItem', 'PutItem']);
  for (const op of ops) expect(partitionKeyOf(op.input)).toBe(ITEM.failurePk(record.clientId));
  for (const op of ops) expect(matches(FAILURE_LOG_ITEMS_PATTERN, partitionKeyOf(op.input))).toBe(true);
  const [update, put] = ops;
  expect(attributesOf(update.input)).toEqual(new Set(['pk', 'sk', 'authFailureSeq', 'expiresAt']));
  expect([...attributesOf(put.input)]).toEqual(expect.arrayContaining(['pk', 'sk', 'expiresAt', 'reason', 'sourceIp', 'fingerprint']));
  expect([...attributesOf(update.input)].filter((a) => !AUTH_FAILURE_COUNTER_ATTRIBUTES.includes(a))).toEqual([]);
  expect([...attributesOf(put.input)].filter((a) => !AUTH_FAILURE_ITEM_ATTRIBUTES.includes(a))).toEqual([]);
  // And the failure is really there: the grant did not allow a write that does nothing.
  expect((await admin.listAuthFailures(record.clientId)).map((f) => f.reason)).toEqual(['signature_mismatch']);
});

test('countUnauthenticatedFailures stays within grantRecordFailures: one UpdateItem on a FAIL# item, count attributes only', async () => {
  const admin = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  const { record } = await admin.createClient(newClient(2), 'test');
  const store = new DynamoClientStore({ tableName, client: recorder, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  sent.length = 0;
  expect(await store.countUnauthenticatedFailures(record.clientId, 'signature_mismatch', 3)).toBe(true);
  const ops = operations(sent);
  expect(ops.map((o) => o.action)).toEqual(['UpdateItem']);
  expect(matches(FAILURE_LOG_ITEMS_PATTERN, partitionKeyOf(ops[0].input))).toBe(true);
  expect([...attributesOf(ops[0].input)].filter((a) => !UNAUTHENTICATED_FAILURE_ATTRIBUTES.includes(a))).toEqual([]);
  expect((await admin.listUnauthenticatedFailures(record.clientId)).map((w) => w.counts)).toEqual([{ signature_mismatch: 3 }]);
});

test('createClient (the admin bootstrap) stays within grantCreateClients: GetItem / PutItem on CLIENT#, KEY# and THUMB# items, UpdateItem of the admin roster', async () => {
  const store = new DynamoClientStore({ tableName, client: recorder, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  const first = await store.createClient(newClient(1), 'bootstrap');
  const again = await store.createClient(newClient(1), 'bootstrap'); // key taken: the holder is looked up
  expect(again.created).toBe(false);
  expect(again.record.clientId).toBe(first.record.clientId);

  const ops = operations(sent);
  expect(new Set(ops.map((o) => o.action))).toEqual(new Set(['PutItem', 'GetItem', 'UpdateItem']));
  for (const op of ops) {
    if (op.action === 'UpdateItem') expect(partitionKeyOf(op.input)).toBe(ITEM.adminRosterPk);
    else expect(partitionKeyOf(op.input)).toMatch(/^(CLIENT|KEY|THUMB)#/);
  }
});

test('the bootstrap applying a changed admin name and allow-list stays within grantCreateClients: GetItem, UpdateItem of the record, PutItem of its audit entry, all on CLIENT# items', async () => {
  const admin = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  const { record } = await admin.createClient(newClient(4, { roles: ['registry:admin'] }), 'bootstrap');
  const store = new DynamoClientStore({ tableName, client: recorder, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  sent.length = 0;
  const updated = await store.updateClient(record.clientId, record.version, { name: 'ops admin', networkWhitelist: ['203.0.113.0/24'] }, 'bootstrap');
  expect(updated.version).toBe(record.version + 1);
  const ops = operations(sent);
  expect(ops.map((o) => o.action).sort()).toEqual(['GetItem', 'PutItem', 'UpdateItem']);
  for (const op of ops) expect(partitionKeyOf(op.input)).toBe(ITEM.clientPk(record.clientId));
});

test('DynamoReplayGuard.claim stays within grantRecordReplays: PutItem of REPLAY# items with key and TTL only, also inside a transaction', async () => {
  const guard = new DynamoReplayGuard(toDocumentClient(recorder), tableName, () => 1_800_000_000);
  expect(await guard.claim([{ signatureId: 'sig-hash-1', expiresAtS: 1_800_000_330 }])).toBe(true);
  expect(await guard.claim([{ signatureId: 'sig-hash-1', expiresAtS: 1_800_000_330 }])).toBe(false); // the replay is refused
  // A request with several signatures claims them all in one transaction of conditional puts.
  const several = [
    { signatureId: 'sig-hash-2', expiresAtS: 1_800_000_330 },
    { signatureId: 'sig-hash-3', expiresAtS: 1_800_000_331 },
  ];
  expect(await guard.claim(several)).toBe(true);
  expect(await guard.claim(several)).toBe(false);

  const ops = operations(sent);
  expect(ops.map((o) => o.action)).toEqual(['PutItem', 'PutItem', 'PutItem', 'PutItem', 'PutItem', 'PutItem']);
  const prefix = REPLAY_ITEMS_PATTERN.replace(/\*$/, '');
  for (const op of ops) {
    expect(partitionKeyOf(op.input).startsWith(prefix)).toBe(true);
    expect([...attributesOf(op.input)].sort()).toEqual([...REPLAY_ITEM_ATTRIBUTES].sort());
  }
});

test("recordKeyUse stays within grantRecordKeyUse: a condition check of the KEY# item and one UpdateItem on a USE# item, the last-use attributes only", async () => {
  const admin = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  const { record } = await admin.createClient(newClient(3), 'test');
  const store = new DynamoClientStore({ tableName, client: recorder, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  sent.length = 0;
  expect(await store.recordKeyUse(record.clientId, record.keys[0].fingerprint)).toBe(true);
  const ops = operations(sent);
  expect(ops.map((o) => o.action)).toEqual(['ConditionCheckItem', 'UpdateItem']);
  const [check, update] = ops;
  expect(partitionKeyOf(check.input)).toBe(ITEM.keyPk(record.keys[0].fingerprint));
  expect(partitionKeyOf(update.input)).toBe(ITEM.keyUsePk(record.keys[0].fingerprint));
  expect(matches(KEY_USE_ITEMS_PATTERN, partitionKeyOf(update.input))).toBe(true);
  expect([...attributesOf(update.input)].sort()).toEqual([...KEY_LAST_USE_ATTRIBUTES].sort());
  // And the use is really there: the grant did not allow a write that does nothing.
  expect((await admin.keyLastUse([record])).has(record.keys[0].fingerprint)).toBe(true);
});

describe('the key source refresher stays within grantRefreshKeySources', () => {
  let server: KeySourceServer;
  let nowMs = Date.parse('2026-04-05T09:30:00.000Z');
  beforeAll(async () => {
    server = await startKeySourceServer(() => Math.floor(nowMs / 1000));
  });
  afterAll(() => server?.stop());

  /** Every item a request touches, as [IAM action, partition key]; a Query as its index and index partition. */
  function touched(requests: readonly Sent[]): Array<{ action: string; pk: string; index?: string }> {
    return requests.flatMap(({ command, input }) => {
      if (command === 'BatchGetItemCommand') {
        const tables = Object.values(input.RequestItems as Record<string, { Keys: Record<string, unknown>[] }>);
        return tables.flatMap((t) => t.Keys.map((key) => ({ action: 'BatchGetItem', pk: partitionKeyOf({ Key: key }) })));
      }
      if (command === 'QueryCommand') {
        const [, nameRef, valueRef] = /^(#\w+) = (:\w+)/.exec(String(input.KeyConditionExpression)) ?? [];
        const names = input.ExpressionAttributeNames as Record<string, string>;
        const value = (input.ExpressionAttributeValues as Record<string, { S: string }>)[valueRef];
        return [{ action: 'Query', pk: `${names[nameRef]}=${value.S}`, index: input.IndexName as string | undefined }];
      }
      return operations([{ command, input }]).map((op) => ({ action: op.action, pk: partitionKeyOf(op.input) }));
    });
  }

  test('a scheduled run that adds, removes and keeps keys and records a failure: items of the granted partitions only, and one Query of the due list', async () => {
    const clients = new DynamoClientStore({ tableName, client: ddb.client, now: () => new Date(nowMs), keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
    const registry = createRegistryHandler({
      store: clients,
      keySources: new DynamoKeySourceStore({ tableName, client: ddb.client, now: () => new Date(nowMs) }, clients),
      roles: compileRoleCatalogue({ 'registry:admin': ['* /registry/**'], demo: ['* /api/*'] }),
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      now: () => new Date(nowMs),
      fetchKeySource: (source) => server.fetch(source),
      keySourceRefreshIntervalS: 900,
    });
    const [first, second, steady] = [publishedKey(), publishedKey(), publishedKey()];
    server.serve('/rotating', keySet(first));
    server.serve('/steady', keySet(steady));
    server.serve('/failing', keySet(publishedKey()));
    for (const path of ['/rotating', '/steady', '/failing']) {
      const created = await callRegistry(registry, { method: 'POST', path: '/registry/clients', body: { name: `Publisher ${path}`, networkWhitelist: ['0.0.0.0'], roles: ['demo'], jwksUri: server.url(path) } });
      expect(created.status).toBe(201);
    }

    // The refresher's own store on the recorded client, as the scheduled function builds it.
    const refresher = createKeySourceRefresher({
      store: new DynamoKeySourceStore({ tableName, client: recorder, now: () => new Date(nowMs), keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS }),
      fetch: (source) => server.fetch(source),
      nowMs: () => nowMs,
      refreshIntervalS: 900,
      requireSignedDirectories: false,
    });
    server.serve('/rotating', keySet(second)); // the first key is gone, the second is new
    server.serve('/failing', 'down', {}, 503);
    nowMs += 16 * 60_000;
    sent.length = 0;
    expect(await refresher.refreshDue()).toMatchObject({ checked: 3, refreshed: 1, unchanged: 1, failed: 1, keysAdded: 1, keysRemoved: 1 });

    const items = touched(sent);
    const queries = items.filter((i) => i.action === 'Query');
    expect(queries).toEqual([{ action: 'Query', pk: `gsi1pk=${KEY_SOURCE_REFRESHER_INDEX_PARTITIONS[0]}`, index: LIST_INDEX_NAME }]);
    for (const item of items.filter((i) => i.action !== 'Query')) {
      const granted = KEY_SOURCE_REFRESHER_PARTITIONS.some((pattern) => matches(pattern, item.pk))
        ? KEY_SOURCE_REFRESHER_ITEM_ACTIONS.includes(`dynamodb:${item.action}`)
        : matches(KEY_USE_ITEMS_PATTERN, item.pk) && item.action === 'DeleteItem';
      expect([item, granted]).toEqual([item, true]);
    }
    // Every granted partition is really used: the grant is no wider than the run.
    const prefixes = new Set(items.filter((i) => i.action !== 'Query').map((i) => i.pk.slice(0, i.pk.indexOf('#') + 1)));
    expect([...prefixes].sort()).toEqual(['CLIENT#', 'KEY#', 'SOURCE#', 'THUMB#', 'USE#']);
    expect(items.some((i) => i.action === 'DeleteItem' && i.pk === `THUMB#${first.thumbprint}`)).toBe(true);
    // The failing source is listed on the failing-sources item (an UpdateItem; a second creates the list the
    // first time), which the run reads once.
    const listActions = items.filter((i) => i.pk === ITEM.failingSourcesPk).map((i) => i.action);
    expect({ reads: listActions.filter((a) => a === 'GetItem').length, others: [...new Set(listActions.filter((a) => a !== 'GetItem'))] }).toEqual({ reads: 1, others: ['UpdateItem'] });
  });
});
