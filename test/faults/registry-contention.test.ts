/**
 * Registry writes under contention, at ten times the unit tests' scale: 100 editors at once, ten
 * per client on ten clients, each adding its own network to the client's whitelist through the
 * registry handler (GET the client, PATCH with the version read, on 409 version_conflict read
 * again and retry), on DynamoDB Local.
 *
 * No update may be lost: every client ends with all ten networks, at version 11, and its audit
 * trail holds exactly one entry per version whose whitelist change starts where the previous one
 * ended and adds one network. Every answer is checked against the registry's OpenAPI document.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { createRegistryHandler, type RegistryHandler } from '../../lambda/registry/registry-handler';
import { DynamoClientStore } from '../../lambda/store/client-store';
import type { AuditEntry } from '../../lambda/domain/store-types';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import { type CallOptions, type CallResult, callRegistry } from '../support/registry-harness';
import { spkiPem, testKey } from '../support/registry-fixtures';
import { loadRegistryOpenApi } from '../support/registry-openapi';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

const CLIENTS = 10;
const EDITORS_PER_CLIENT = 10;
const doc = loadRegistryOpenApi();

let ddb: TestDynamoDb;
let store: DynamoClientStore;
let handler: RegistryHandler;

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  store = new DynamoClientStore({ tableName: await ddb.createTable(), client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  const roles = compileRoleCatalogue({ 'registry:admin': ['* /registry/**'], demo: ['* /api/*'] });
  handler = createRegistryHandler({ store, roles, logger: new Logger({ serviceName: 'signet-registry', logLevel: 'SILENT' }) });
});

afterAll(async () => {
  await ddb?.stop();
});

async function call(options: CallOptions): Promise<CallResult> {
  const result = await callRegistry(handler, options, doc);
  expect(result.schemaProblems).toEqual([]);
  return result;
}

/** The network editor `e` of client `c` adds. */
function networkOf(c: number, e: number): string {
  return `10.${c}.${e}.0/24`;
}

/** One editor: read, add its network, write with the version read; on a conflict, again. */
async function editor(clientId: string, network: string): Promise<{ attempts: number; conflicts: number }> {
  let conflicts = 0;
  for (let attempt = 1; attempt <= 50; attempt++) {
    const current = await call({ method: 'GET', path: `/registry/clients/${clientId}` });
    expect(current.status).toBe(200);
    const whitelist = current.body.networkWhitelist as string[];
    const patched = await call({
      method: 'PATCH',
      path: `/registry/clients/${clientId}`,
      body: { version: current.body.version, networkWhitelist: [...whitelist, network] },
    });
    if (patched.status === 200) return { attempts: attempt, conflicts };
    expect({ status: patched.status, error: patched.body.error }).toEqual({ status: 409, error: 'version_conflict' });
    conflicts += 1;
  }
  throw new Error(`editor of ${network} gave up after 50 attempts`);
}

async function auditTrail(clientId: string): Promise<AuditEntry[]> {
  const entries: AuditEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listAudit(clientId, cursor, 100);
    entries.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return entries.sort((a, b) => a.version - b.version);
}

test('100 concurrent edits across 10 clients through the registry handler: no lost update, a gapless audit trail', async () => {
  const clientIds: string[] = [];
  for (let c = 0; c < CLIENTS; c++) {
    const created = await call({
      method: 'POST',
      path: '/registry/clients',
      body: { name: `Contended ${c}`, networkWhitelist: ['203.0.113.7'], publicKey: spkiPem(testKey(c)), roles: ['demo'] },
    });
    expect(created.status).toBe(201);
    clientIds.push(created.body.clientId as string);
  }

  const runs = await Promise.all(clientIds.flatMap((id, c) => Array.from({ length: EDITORS_PER_CLIENT }, (_, e) => editor(id, networkOf(c, e)))));
  const conflicts = runs.reduce((n, r) => n + r.conflicts, 0);
  // The contention was real: many writes were refused as stale, and none of them was lost.
  expect(conflicts).toBeGreaterThan(CLIENTS);

  for (const [c, clientId] of clientIds.entries()) {
    const record = await store.getClient(clientId, { consistentRead: true });
    const added = Array.from({ length: EDITORS_PER_CLIENT }, (_, e) => networkOf(c, e));
    expect(record?.version).toBe(1 + EDITORS_PER_CLIENT);
    expect([...(record?.networkWhitelist ?? [])].sort()).toEqual(['203.0.113.7', ...added].sort());

    const trail = await auditTrail(clientId);
    expect(trail.map((a) => a.version)).toEqual(Array.from({ length: 1 + EDITORS_PER_CLIENT }, (_, v) => v + 1));
    expect(trail[0].action).toBe('client.created');
    let whitelist = ['203.0.113.7'];
    const seen: string[] = [];
    for (const entry of trail.slice(1)) {
      expect(entry.action).toBe('client.updated');
      const change = entry.changes?.networkWhitelist;
      expect(change?.from).toEqual(whitelist);
      const to = change?.to as string[];
      expect(to.slice(0, whitelist.length)).toEqual(whitelist);
      expect(to).toHaveLength(whitelist.length + 1);
      seen.push(to[to.length - 1]);
      whitelist = to;
    }
    expect(seen.sort()).toEqual([...added].sort());
    expect(whitelist).toEqual(record?.networkWhitelist);
  }
}, 300_000);
