/**
 * Finding clients in a big account: `GET /registry/clients` with `q`, `status`, `role`, `sort`,
 * `order`, paged by the registry, through the registry handler on DynamoDB Local, every answer
 * checked against docs/openapi/registry.json. One account holds 36 clients (names, statuses,
 * roles, creation times and last uses chosen by the test), another account a few more.
 */
import { createHash } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ACCOUNT_ADMIN_ROLE, DEFAULT_ROLE_CATALOGUE } from '../../lambda/config-env';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { createRegistryHandler, type RegistryHandler } from '../../lambda/registry/registry-handler';
import { DEFAULT_ACCOUNT_ID } from '../../lambda/store/account-id';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { dynamoDbLocalClientConfig } from '../../local/dynamodb-local';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import { type CallOptions, checkAgainstDocument, httpApiEvent } from '../support/registry-harness';
import { newKey } from '../support/registry-fixtures';
import { loadRegistryOpenApi } from '../support/registry-openapi';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

const doc = loadRegistryOpenApi();
const CATALOGUE = { ...DEFAULT_ROLE_CATALOGUE, demo: ['* /api/*'], 'orders:read': ['GET /orders/*'] };
const roles = compileRoleCatalogue(CATALOGUE);

interface Caller {
  readonly clientId: string;
  readonly roles: readonly string[];
  readonly accountId: string;
}

interface ListedClient {
  clientId: string;
  accountId: string;
  name: string;
  status: string;
  roles: string[];
  createdAt: string;
  lastUsedAt?: string;
  keys: Array<{ fingerprint: string; lastUsedAt?: string }>;
}

interface Answer {
  readonly status: number;
  readonly body: { clients?: ListedClient[]; nextCursor?: string; total?: number; error?: string; message?: string };
}

const OPERATOR: Caller = { clientId: 'c_OperatorOperatorOper0A', roles: ['registry:admin'], accountId: DEFAULT_ACCOUNT_ID };

let ddb: TestDynamoDb;
let handler: RegistryHandler;
let smallCeiling: RegistryHandler;
const commands: string[] = [];
let counter: DynamoDBClient;
let store: DynamoClientStore;
/** The account searched, its admin, and its clients as created. */
let account: string;
let admin: Caller;
let otherAccount: string;
let otherClientId: string;
const clients: Array<{ clientId: string; name: string; status: 'active' | 'disabled'; roles: string[]; createdAt: string; fingerprint: string; lastUsedAt?: string }> = [];

const fingerprintOf = (i: number) => createHash('sha256').update(`search-key-${i}`).digest('base64url');
const NAMES = ['Acme', 'Globex', 'Initech', 'umbrella', 'Stark', 'ACME Labs'];

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  const tableName = await ddb.createTable();
  counter = new DynamoDBClient(dynamoDbLocalClientConfig(ddb.endpoint));
  counter.middlewareStack.add(
    (next, context) => async (args) => {
      commands.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'countCommands' },
  );
  const clock = { ms: Date.parse('2026-02-01T00:00:00Z') };
  store = new DynamoClientStore({ tableName, client: counter, now: () => new Date(clock.ms), keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
  handler = createRegistryHandler({ store, roles, logger: silent });
  smallCeiling = createRegistryHandler({ store, roles, logger: silent, maxSearchedClients: 10 });

  account = (await store.createAccount({ name: 'Search partner', roleCeiling: ['demo', 'orders:read'] }, OPERATOR.clientId)).accountId;
  otherAccount = (await store.createAccount({ name: 'Other partner', roleCeiling: ['demo'] }, OPERATOR.clientId)).accountId;
  admin = { clientId: 'c_SearchAdminSearchAdm0A', roles: [ACCOUNT_ADMIN_ROLE], accountId: account };
  const spkiPem = newKey(0).spkiPem;
  for (let i = 0; i < 36; i++) {
    clock.ms += 3_600_000; // one an hour: creation order is index order
    const name = `${NAMES[i % NAMES.length]} ${String(i).padStart(2, '0')}`;
    const clientRoles = i % 3 === 0 ? ['demo', 'orders:read'] : ['demo'];
    const { record } = await store.createClient({ accountId: account, name, networkWhitelist: ['0.0.0.0'], roles: clientRoles, key: { fingerprint: fingerprintOf(i), spkiPem, thumbprint: fingerprintOf(i) } }, OPERATOR.clientId);
    const status = i % 5 === 0 ? 'disabled' : 'active';
    if (status === 'disabled') await store.disable(record.clientId, OPERATOR.clientId);
    clients.push({ clientId: record.clientId, name, status, roles: clientRoles, createdAt: record.createdAt, fingerprint: fingerprintOf(i) });
  }
  // Last uses, in an order unlike creation: every other client, later for higher i mod 7.
  const user = new DynamoClientStore({ tableName, client: ddb.client, now: () => new Date(clock.ms), keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  for (let i = 0; i < 36; i += 2) {
    clock.ms = Date.parse('2026-03-01T00:00:00Z') + ((i * 7) % 36) * 60_000;
    expect(await user.recordKeyUse(clients[i].clientId, clients[i].fingerprint)).toBe(true);
    clients[i].lastUsedAt = new Date(clock.ms).toISOString();
  }
  otherClientId = (
    await store.createClient({ accountId: otherAccount, name: 'Acme elsewhere', networkWhitelist: ['0.0.0.0'], roles: ['demo'], key: { fingerprint: fingerprintOf(100), spkiPem, thumbprint: fingerprintOf(100) } }, OPERATOR.clientId)
  ).record.clientId;
});

afterAll(async () => {
  counter?.destroy();
  await ddb?.stop();
});

function eventAs(caller: Caller, options: CallOptions): APIGatewayProxyEventV2 {
  const event = httpApiEvent(options);
  const authorizer = (event.requestContext as unknown as { authorizer: { lambda: Record<string, unknown> } }).authorizer;
  Object.assign(authorizer.lambda, { clientId: caller.clientId, roles: caller.roles.join(','), accountId: caller.accountId });
  return event;
}

/** `GET /registry/clients?<query>` as `caller` (the account admin by default), checked against the document. */
async function list(query: string, caller: Caller = admin, registry: RegistryHandler = handler): Promise<Answer> {
  const options: CallOptions = { method: 'GET', path: '/registry/clients', query };
  const result = await registry(eventAs(caller, options), { awsRequestId: 'test' });
  const body = JSON.parse(result.body) as Answer['body'];
  expect(checkAgainstDocument(doc, options, result.statusCode, body)).toEqual([]);
  return { status: result.statusCode, body };
}

/** Every page of a query, with `limit`, checking `total` on each. */
async function allPages(query: string, limit: number): Promise<{ ids: string[]; pages: number; totals: number[] }> {
  const ids: string[] = [];
  const totals: number[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const answer = await list(`${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(answer.status).toBe(200);
    expect(answer.body.clients!.length).toBeLessThanOrEqual(limit);
    ids.push(...answer.body.clients!.map((c) => c.clientId));
    totals.push(answer.body.total!);
    cursor = answer.body.nextCursor;
    pages++;
  } while (cursor !== undefined && pages < 40);
  expect(cursor).toBeUndefined();
  return { ids, pages, totals };
}

const ids = (answer: Answer) => answer.body.clients!.map((c) => c.clientId);
const expectRefused = (answer: Answer, code: string, message: RegExp) => expect({ status: answer.status, error: answer.body.error, message: answer.body.message }).toEqual({ status: 400, error: code, message: expect.stringMatching(message) });
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('search: q', () => {
  test('matches part of the name in any case, with total; nothing from another account', async () => {
    const answer = await list('q=aCmE&limit=100');
    const expected = clients.filter((c) => c.name.toLowerCase().includes('acme'));
    expect(expected.length).toBe(12);
    expect(ids(answer)).toEqual(expected.map((c) => c.clientId)); // creation order without sort
    expect(answer.body.total).toBe(12);
    expect(ids(answer)).not.toContain(otherClientId);
  });

  test('matches the start of a clientId or of a key fingerprint (4 characters or more), exactly as written', async () => {
    const target = clients[17];
    expect(ids(await list(`q=${target.clientId}`))).toEqual([target.clientId]);
    const idPrefix = ids(await list(`q=${target.clientId.slice(0, 10)}`));
    expect(idPrefix).toContain(target.clientId);
    expect(ids(await list(`q=${target.fingerprint.slice(0, 12)}`))).toEqual([target.clientId]);
    expect(ids(await list(`q=${encodeURIComponent(target.fingerprint)}`))).toEqual([target.clientId]);
    // Ids are matched as written: `C_...` is not the start of `c_...`.
    expect(ids(await list(`q=${target.clientId.slice(0, 10).toUpperCase()}`))).toEqual([]);
    // "c_" starts every clientId: too short to be an id prefix, and in no name.
    const short = await list('q=c_');
    expect({ clients: short.body.clients, total: short.body.total }).toEqual({ clients: [], total: 0 });
  });
});

describe('search: filters', () => {
  test('status and role, alone and together with q', async () => {
    const disabled = await list('status=disabled&limit=100');
    expect(ids(disabled)).toEqual(clients.filter((c) => c.status === 'disabled').map((c) => c.clientId));
    expect(disabled.body.clients!.every((c) => c.status === 'disabled')).toBe(true);

    const readers = await list('role=orders%3Aread&limit=100');
    expect(ids(readers)).toEqual(clients.filter((c) => c.roles.includes('orders:read')).map((c) => c.clientId));

    const both = await list('q=acme&status=active&role=orders:read&limit=100');
    expect(ids(both)).toEqual(clients.filter((c) => c.name.toLowerCase().includes('acme') && c.status === 'active' && c.roles.includes('orders:read')).map((c) => c.clientId));
    expect(both.body.total).toBe(ids(both).length);
    expect(ids(await list('role=no-such-role'))).toEqual([]);
  });

  test('an empty parameter counts as not given: the plain listing, without total', async () => {
    const answer = await list('q=&status=&limit=5');
    expect(answer.body.total).toBeUndefined();
    expect(ids(answer)).toEqual(clients.slice(0, 5).map((c) => c.clientId));
  });
});

describe('search: sort and order', () => {
  test('name ascending by default, descending on request, any case, then clientId', async () => {
    const byName = [...clients].sort((a, b) => cmp(a.name.toLowerCase(), b.name.toLowerCase()) || cmp(a.clientId, b.clientId)).map((c) => c.clientId);
    expect(ids(await list('sort=name&limit=100'))).toEqual(byName);
    expect(ids(await list('sort=name&order=desc&limit=100'))).toEqual([...byName].reverse());
  });

  test('createdAt newest first by default, oldest first with order=asc', async () => {
    const created = clients.map((c) => c.clientId);
    expect(ids(await list('sort=createdAt&limit=100'))).toEqual([...created].reverse());
    expect(ids(await list('sort=createdAt&order=asc&limit=100'))).toEqual(created);
  });

  test('lastUsedAt most recent first, never-used last; ascending puts never-used first; lastUsedAt is on each client', async () => {
    const byUse = [...clients].sort((a, b) => cmp(b.lastUsedAt ?? '', a.lastUsedAt ?? '') || cmp(b.clientId, a.clientId));
    const answer = await list('sort=lastUsedAt&limit=100');
    expect(ids(answer)).toEqual(byUse.map((c) => c.clientId));
    expect(answer.body.clients!.map((c) => c.lastUsedAt)).toEqual(byUse.map((c) => c.lastUsedAt));
    expect(answer.body.clients!.slice(0, 18).every((c) => c.keys[0].lastUsedAt === c.lastUsedAt)).toBe(true);
    expect(ids(await list('sort=lastUsedAt&order=asc&limit=100'))).toEqual(byUse.map((c) => c.clientId).reverse());
  });
});

describe('search: paging', () => {
  test.each([
    ['sort=name&status=active', (c: (typeof clients)[number]) => c.status === 'active', (a: (typeof clients)[number], b: (typeof clients)[number]) => cmp(a.name.toLowerCase(), b.name.toLowerCase()) || cmp(a.clientId, b.clientId)],
    ['sort=lastUsedAt&role=demo', () => true, (a: (typeof clients)[number], b: (typeof clients)[number]) => cmp(b.lastUsedAt ?? '', a.lastUsedAt ?? '') || cmp(b.clientId, a.clientId)],
    ['q=e&order=desc', (c: (typeof clients)[number]) => c.name.toLowerCase().includes('e'), (a: (typeof clients)[number], b: (typeof clients)[number]) => cmp(b.createdAt, a.createdAt) || cmp(b.clientId, a.clientId)],
  ])('%s, 7 a page: every match once, in order, no gap; total on every page', async (query, keep, order) => {
    const expected = clients.filter(keep).sort(order).map((c) => c.clientId);
    expect(expected.length).toBeGreaterThan(14);
    const { ids: seen, pages, totals } = await allPages(query, 7);
    expect(seen).toEqual(expected);
    expect(pages).toBe(Math.ceil(expected.length / 7));
    expect(new Set(totals)).toEqual(new Set([expected.length]));
  });

  test('the page size may change between pages', async () => {
    const first = await list('sort=name&limit=5');
    const second = await list(`sort=name&limit=9&cursor=${first.body.nextCursor}`);
    const byName = [...clients].sort((a, b) => cmp(a.name.toLowerCase(), b.name.toLowerCase()) || cmp(a.clientId, b.clientId)).map((c) => c.clientId);
    expect([...ids(first), ...ids(second)]).toEqual(byName.slice(0, 14));
  });

  test('a cursor only continues its own search: another q, status, role, sort, order or account is refused', async () => {
    const page = await list('q=acme&sort=name&limit=3');
    const cursor = page.body.nextCursor!;
    expect(cursor).toEqual(expect.any(String));
    for (const other of ['q=globex&sort=name', 'q=acme&sort=createdAt', 'q=acme&sort=name&order=desc', 'q=acme&sort=name&status=active', 'q=acme&sort=name&role=demo']) {
      expectRefused(await list(`${other}&cursor=${cursor}`), 'invalid_request', /cursor belongs to a different search/);
    }
    // The operator with the same query on another account.
    expectRefused(await list(`account=${otherAccount}&q=acme&sort=name&cursor=${cursor}`, OPERATOR), 'invalid_request', /cursor belongs to a different search/);
    // A search cursor in the plain listing, and a plain cursor in a search.
    expectRefused(await list(`cursor=${cursor}`), 'invalid_request', /cursor is not one this listing returned/);
    const plain = await list('limit=3');
    expectRefused(await list(`q=acme&cursor=${plain.body.nextCursor}`), 'invalid_request', /cursor is not one this search returned/);
    expectRefused(await list('q=acme&cursor=bm90LWEtY3Vyc29y'), 'invalid_request', /cursor is not one this search returned/);
  });
});

describe('search: validation and scope', () => {
  test('unknown values are 400 invalid_request saying what is accepted', async () => {
    expectRefused(await list('sort=size'), 'invalid_request', /sort must be one of: name, createdAt, lastUsedAt/);
    expectRefused(await list('status=gone'), 'invalid_request', /status must be one of: active, disabled/);
    expectRefused(await list('sort=name&order=up'), 'invalid_request', /order must be asc or desc/);
    expectRefused(await list(`q=${'x'.repeat(201)}`), 'invalid_request', /q must be 1 to 200 characters/);
    expectRefused(await list(`q=acme&fingerprint=${clients[0].fingerprint}`), 'invalid_request', /cannot be combined with q, status, role, sort, order/);
    expectRefused(await list('q=acme&owner=me'), 'invalid_request', /Unknown query parameter/);
  });

  test("an account admin never reaches another account's clients through q, nor names another account", async () => {
    const byId = await list(`q=${otherClientId}`);
    expect({ clients: byId.body.clients, total: byId.body.total }).toEqual({ clients: [], total: 0 });
    const byFingerprint = await list(`q=${fingerprintOf(100)}`);
    expect(byFingerprint.body.total).toBe(0);
    expect(ids(await list('q=elsewhere'))).toEqual([]);
    const named = await list(`account=${otherAccount}&q=acme`);
    expect({ status: named.status, error: named.body.error }).toEqual({ status: 404, error: 'not_found' });
    // The operator, naming that account, finds it.
    expect(ids(await list(`account=${otherAccount}&q=acme`, OPERATOR))).toEqual([otherClientId]);
  });

  test('a search reads the account with Queries and the page (or, sorting by last use, every match) with BatchGetItem: never a read per client', async () => {
    // Besides: the caller's search budget, read before (GetItem) and charged after (UpdateItem).
    const budgeted = ['GetItemCommand', 'QueryCommand', 'BatchGetItemCommand', 'UpdateItemCommand'];
    commands.length = 0;
    expect(ids(await list('q=acme&limit=5'))).toHaveLength(5);
    expect([...commands].sort()).toEqual([...budgeted].sort());
    commands.length = 0;
    expect(ids(await list('sort=lastUsedAt&limit=5'))).toHaveLength(5);
    expect([...commands].sort()).toEqual([...budgeted].sort());
  });

  test('above the ceiling a search is refused with too_many_clients; the plain listing still pages', async () => {
    const refused = await list('q=acme', admin, smallCeiling);
    expectRefused(refused, 'too_many_clients', /more than 10 clients.*Page through it without q, status, role, sort, order/);
    expect((await list('limit=5', admin, smallCeiling)).status).toBe(200);
  });
});

describe("search: one caller's budget", () => {
  test('searches past the budget answer 429 search_budget_exceeded with Retry-After until the window ends; other callers and plain pages go on', async () => {
    const clock = { ms: Date.parse('2026-04-01T10:00:10Z') };
    const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const budgeted = createRegistryHandler({ store, roles, logger: silent, now: () => new Date(clock.ms), searchBudget: { reads: 100, windowS: 60 } });
    const caller: Caller = { ...admin, clientId: 'c_BudgetAdminBudgetAdm0A' };
    const windowStartS = Date.parse('2026-04-01T10:00:00Z') / 1000;

    // Each page reads every client of the account and the last use of the page's 5 keys: three pages pass 100.
    const pages: Answer[] = [];
    for (let i = 0; i < 3; i++) pages.push(await list('q=a&limit=5', caller, budgeted));
    for (const page of pages) expect(page.status).toBe(200);
    const perPage = clients.length + 5;
    expect(await store.searchReadsSpent(caller.clientId, windowStartS)).toBe(3 * perPage);

    // The fourth is refused before anything is read, with the seconds left in the window.
    commands.length = 0;
    const options: CallOptions = { method: 'GET', path: '/registry/clients', query: 'q=a&limit=5' };
    const refused = await budgeted(eventAs(caller, options), { awsRequestId: 'test' });
    const body = JSON.parse(refused.body) as Answer['body'];
    expect(checkAgainstDocument(doc, options, refused.statusCode, body)).toEqual([]);
    expect({ status: refused.statusCode, error: body.error, retryAfter: refused.headers?.['retry-after'] }).toEqual({ status: 429, error: 'search_budget_exceeded', retryAfter: '50' });
    expect(body.message).toMatch(/read 123 clients and key last uses in this 60-second window.*Retry after 50 s, page through the account without q, status, role, sort and order/);
    expect(commands).toEqual(['GetItemCommand']);
    expect((await list('sort=lastUsedAt', caller, budgeted)).status).toBe(429);

    // Plain pages are not counted; another caller has its own budget.
    expect((await list('limit=5', caller, budgeted)).status).toBe(200);
    expect((await list('q=a&limit=5', admin, budgeted)).status).toBe(200);

    // Sorting by last use reads every match's: charged in full.
    clock.ms = Date.parse('2026-04-01T10:01:00Z');
    const sorted = await list('sort=lastUsedAt&limit=5', caller, budgeted);
    expect(sorted.status).toBe(200);
    expect(await store.searchReadsSpent(caller.clientId, windowStartS + 60)).toBe(2 * clients.length);
    expect(await store.searchReadsSpent(caller.clientId, windowStartS)).toBe(3 * perPage);
  });
});

// Last: it adds a client to the account.
describe('search: keyset paging under change', () => {
  test('a client added before the position of the next page does not make it repeat or skip one', async () => {
    const byName = [...clients].sort((a, b) => cmp(a.name.toLowerCase(), b.name.toLowerCase()) || cmp(a.clientId, b.clientId)).map((c) => c.clientId);
    const first = await list('sort=name&limit=6');
    expect(ids(first)).toEqual(byName.slice(0, 6));
    const { record } = await store.createClient(
      { accountId: account, name: 'Aaa newcomer', networkWhitelist: ['0.0.0.0'], roles: ['demo'], key: { fingerprint: fingerprintOf(200), spkiPem: newKey(0).spkiPem, thumbprint: fingerprintOf(200) } },
      OPERATOR.clientId,
    );
    const second = await list(`sort=name&limit=6&cursor=${first.body.nextCursor}`);
    expect(ids(second)).toEqual(byName.slice(6, 12));
    expect(second.body.total).toBe(37);
    expect(ids(await list('sort=name&limit=1'))).toEqual([record.clientId]);
  });
});
