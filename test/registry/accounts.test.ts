/**
 * Accounts through the registry handler, against DynamoDB Local, with realistic API Gateway events
 * carrying the authorizer's context (clientId, roles, accountId), every answer checked against
 * docs/openapi/registry.json:
 * - account A's admin cannot see, edit, disable, rotate, read failures or audit of, or find (by
 *   public key or fingerprint) any client of account B: every such answer is the 404 (or empty
 *   find) a clientId nobody holds gets;
 * - a role above the account's ceiling is refused (400 role_not_allowed, with the allowed list),
 *   registry:admin never given by an account admin;
 * - the keys of a client an operator gave a role above the ceiling cannot be changed by the
 *   account admin (403 client_above_ceiling): the real authorizer then refuses a request signed
 *   as that client with the admin's key;
 * - the operator (registry:admin) sees and manages both;
 * - an account of 1,000 clients: the store lists it one Query per page, an account admin's listing
 *   through the registry one Query per page plus one BatchGetItem for the page's keys' last use
 *   (the store's test lives here to share the 1,000 registrations);
 * - the audit trail names the account and the acting client;
 * - end to end: the real authorizer puts the caller's account in the context the registry scopes by.
 */
import { createHash } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ACCOUNT_ADMIN_ROLE, DEFAULT_ROLE_CATALOGUE, ENV } from '../../lambda/config-env';
import { createSignature } from '../../lambda/core/algorithms';
import { buildSignatureBase } from '../../lambda/core/signature-base';
import { readSignatureInput } from '../../lambda/core/signature-params';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { createRegistryHandler, type RegistryHandler } from '../../lambda/registry/registry-handler';
import { DEFAULT_ACCOUNT_ID } from '../../lambda/store/account-id';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { dynamoDbLocalClientConfig } from '../../local/dynamodb-local';
import { HTTP_API_HOST, authorizerEnv, httpApiAuthorizerEvent, loadAuthorizer, sign } from '../authorizer/support';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import { type CallOptions, checkAgainstDocument, httpApiEvent, restApiEvent } from '../support/registry-harness';
import { newKey, spkiPem, testKey } from '../support/registry-fixtures';
import { loadRegistryOpenApi } from '../support/registry-openapi';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

const doc = loadRegistryOpenApi();
const CATALOGUE = { ...DEFAULT_ROLE_CATALOGUE, demo: ['* /api/*'], 'orders:read': ['GET /orders/*'], 'payments:refund': ['POST /payments/*/refund'] };
const roles = compileRoleCatalogue(CATALOGUE);

/** Who is calling, as the authorizer context says. */
interface Caller {
  readonly clientId: string;
  readonly roles: readonly string[];
  readonly accountId?: string;
}

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Record<string, string>;
}

const OPERATOR: Caller = { clientId: 'c_OperatorOperatorOper0A', roles: ['registry:admin'], accountId: DEFAULT_ACCOUNT_ID };

let ddb: TestDynamoDb;
let tableName: string;
let store: DynamoClientStore;
let handler: RegistryHandler;
/** Counts the SDK commands the handler's store sends. */
let counter: DynamoDBClient;
const commands: string[] = [];
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  tableName = await ddb.createTable();
  counter = new DynamoDBClient(dynamoDbLocalClientConfig(ddb.endpoint));
  counter.middlewareStack.add(
    (next, context) => async (args) => {
      commands.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'countCommands' },
  );
  store = new DynamoClientStore({ tableName, client: counter, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  handler = createRegistryHandler({ store, roles, logger: silent });
});

afterAll(async () => {
  counter?.destroy();
  await ddb?.stop();
});

/** The event API Gateway delivers for `options`, with `caller` in the authorizer context. */
function eventAs(caller: Caller, options: CallOptions): APIGatewayProxyEventV2 {
  const event = options.format === 'v1' ? (restApiEvent(options) as unknown as APIGatewayProxyEventV2) : httpApiEvent(options);
  const context = { roles: caller.roles.join(','), accountId: caller.accountId ?? '' };
  const authorizer = (event.requestContext as unknown as { authorizer: { lambda?: Record<string, unknown> } & Record<string, unknown> }).authorizer;
  if (authorizer.lambda) Object.assign(authorizer.lambda, { clientId: caller.clientId }, context);
  else Object.assign(authorizer, { principalId: caller.clientId, clientId: caller.clientId }, context);
  return event;
}

/** Calls the registry as `caller`, and insists the answer conforms to the OpenAPI document. */
async function call(caller: Caller, options: CallOptions): Promise<Answer> {
  const result = await handler(eventAs(caller, options), { awsRequestId: 'test' });
  const body = JSON.parse(result.body) as Record<string, unknown>;
  expect(checkAgainstDocument(doc, options, result.statusCode, body)).toEqual([]);
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
  return { status: result.statusCode, body, headers };
}

function expectError(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, error: answer.body.error }).toEqual({ status, error: code });
}

/** The refusal with ids blanked, to compare "outside your account" with "nobody holds this id". */
function shape(answer: Answer, ...ids: string[]): unknown {
  let message = String(answer.body.message);
  for (const id of ids) message = message.split(id).join('<id>');
  return { status: answer.status, error: answer.body.error, message, keys: Object.keys(answer.body).sort() };
}

function clientBody(i: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: `Partner ${i}`, networkWhitelist: ['203.0.113.7'], publicKey: spkiPem(testKey(i)), roles: ['demo'], ...overrides };
}

async function createAccount(name: string, roleCeiling: string[]): Promise<string> {
  const answer = await call(OPERATOR, { method: 'POST', path: '/registry/accounts', body: { name, roleCeiling } });
  expect(answer.status).toBe(201);
  return answer.body.accountId as string;
}

async function createClient(caller: Caller, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer = await call(caller, { method: 'POST', path: '/registry/clients', body });
  expect(answer.status).toBe(201);
  return answer.body;
}

const UNKNOWN_CLIENT = 'c_NobodyHoldsThisIdAtAl0';
const UNKNOWN_ACCOUNT = 'acct_NobodyHoldsThisIdAtAl0';

describe('two partner accounts', () => {
  let accountA: string;
  let accountB: string;
  let adminA: Caller;
  let adminB: Caller;
  let clientB: Record<string, unknown>;

  beforeAll(async () => {
    accountA = await createAccount('Acme', ['demo', ACCOUNT_ADMIN_ROLE]);
    accountB = await createAccount('Globex', ['demo']);
    const a = await createClient(OPERATOR, clientBody(0, { accountId: accountA, roles: [ACCOUNT_ADMIN_ROLE], name: 'Acme admin' }));
    const b = await createClient(OPERATOR, clientBody(1, { accountId: accountB, roles: [ACCOUNT_ADMIN_ROLE], name: 'Globex admin' }));
    adminA = { clientId: a.clientId as string, roles: [ACCOUNT_ADMIN_ROLE], accountId: accountA };
    adminB = { clientId: b.clientId as string, roles: [ACCOUNT_ADMIN_ROLE], accountId: accountB };
    clientB = await createClient(adminB, clientBody(2, { name: 'Globex payments' }));
  });

  test("an account admin's client goes to its own account; naming another account is 404", async () => {
    const own = await createClient(adminA, clientBody(3));
    expect(own).toMatchObject({ accountId: accountA, roles: ['demo'], registration: 'created' });
    expect(await createClient(adminA, clientBody(4, { accountId: accountA }))).toMatchObject({ accountId: accountA });
    const elsewhere = await call(adminA, { method: 'POST', path: '/registry/clients', body: clientBody(5, { accountId: accountB }) });
    const nowhere = await call(adminA, { method: 'POST', path: '/registry/clients', body: clientBody(5, { accountId: UNKNOWN_ACCOUNT }) });
    expectError(elsewhere, 404, 'not_found');
    expect(shape(elsewhere, accountB)).toEqual(shape(nowhere, UNKNOWN_ACCOUNT));
    expect(await store.findByFingerprint(testKey(5).fingerprint, { consistentRead: true })).toBeUndefined();
  });

  test("A's admin cannot see, edit, disable, enable, rotate, read failures or audit of B's client: the 404 of an unknown id", async () => {
    const id = clientB.clientId as string;
    const fp = testKey(2).fingerprint;
    const routes: CallOptions[] = [
      { method: 'GET', path: '/registry/clients/{id}' },
      { method: 'PATCH', path: '/registry/clients/{id}', body: { version: 1, name: 'hijacked' } },
      { method: 'PATCH', path: '/registry/clients/{id}', body: { version: 7, roles: ['demo'] } }, // a stale version still says nothing
      { method: 'POST', path: '/registry/clients/{id}/disable', body: { version: 1 } },
      { method: 'POST', path: '/registry/clients/{id}/disable' },
      { method: 'POST', path: '/registry/clients/{id}/enable' },
      { method: 'POST', path: '/registry/clients/{id}/keys', body: { publicKey: spkiPem(testKey(6)) } },
      { method: 'DELETE', path: `/registry/clients/{id}/keys/${fp}` },
      { method: 'GET', path: '/registry/clients/{id}/auth-failures' },
      { method: 'GET', path: '/registry/clients/{id}/audit' },
    ];
    for (const route of routes) {
      for (const format of ['v2', 'v1'] as const) {
        const theirs = await call(adminA, { ...route, path: route.path.replace('{id}', id), format });
        const nobodys = await call(adminA, { ...route, path: route.path.replace('{id}', UNKNOWN_CLIENT), format });
        expectError(theirs, 404, 'not_found');
        expect({ route: `${route.method} ${route.path}`, ...(shape(theirs, id) as object) }).toEqual({ route: `${route.method} ${route.path}`, ...(shape(nobodys, UNKNOWN_CLIENT) as object) });
      }
    }
    // Nothing changed, nothing was added.
    expect(await store.getClient(id, { consistentRead: true })).toMatchObject({ name: 'Globex payments', status: 'active', version: 1, keys: [{ fingerprint: fp }] });
    expect((await store.listAudit(id)).items).toHaveLength(1);
    expect(await store.findByFingerprint(testKey(6).fingerprint, { consistentRead: true })).toBeUndefined();
  });

  test("A's admin cannot find B's client by public key or fingerprint, nor list B's account", async () => {
    const byFingerprint = await call(adminA, { method: 'GET', path: '/registry/clients', query: `fingerprint=${testKey(2).fingerprint}` });
    const byPublicKey = await call(adminA, { method: 'GET', path: '/registry/clients', query: `publicKey=${encodeURIComponent(spkiPem(testKey(2)))}` });
    expect([byFingerprint.status, byFingerprint.body]).toEqual([200, { clients: [] }]);
    expect([byPublicKey.status, byPublicKey.body]).toEqual([200, { clients: [] }]);
    // ...the same answer as for a key nobody registered.
    expect((await call(adminA, { method: 'GET', path: '/registry/clients', query: `fingerprint=${testKey(22).fingerprint}` })).body).toEqual({ clients: [] });
    // B's admin finds it.
    expect((await call(adminB, { method: 'GET', path: '/registry/clients', query: `fingerprint=${testKey(2).fingerprint}` })).body.clients).toEqual([
      expect.objectContaining({ clientId: clientB.clientId, accountId: accountB }),
    ]);

    const listB = await call(adminA, { method: 'GET', path: '/registry/clients', query: `account=${accountB}` });
    const listNobody = await call(adminA, { method: 'GET', path: '/registry/clients', query: `account=${UNKNOWN_ACCOUNT}` });
    expectError(listB, 404, 'not_found');
    expect(shape(listB, accountB)).toEqual(shape(listNobody, UNKNOWN_ACCOUNT));
    const own = await call(adminA, { method: 'GET', path: '/registry/clients', query: 'limit=100' });
    const accounts = new Set((own.body.clients as Array<{ accountId: string }>).map((c) => c.accountId));
    expect([...accounts]).toEqual([accountA]);
    expect((own.body.clients as Array<{ clientId: string }>).map((c) => c.clientId)).not.toContain(clientB.clientId);
  });

  test("registering or rolling over to a key held in B is 409 key_already_registered, never naming B's client", async () => {
    const create = await call(adminA, { method: 'POST', path: '/registry/clients', body: clientBody(2, { name: 'copycat' }) });
    expectError(create, 409, 'key_already_registered');
    expect(JSON.stringify(create.body)).not.toContain(clientB.clientId as string);
    expect(JSON.stringify(create.body)).not.toContain(accountB);

    const own = await createClient(adminA, clientBody(7));
    for (const options of [
      { method: 'POST', path: `/registry/clients/${own.clientId}/keys`, body: { publicKey: spkiPem(testKey(2)) } },
      { method: 'PATCH', path: `/registry/clients/${own.clientId}`, body: { version: 1, publicKey: spkiPem(testKey(2)) } },
    ]) {
      const answer = await call(adminA, options);
      expectError(answer, 409, 'key_already_registered');
      expect(JSON.stringify(answer.body)).not.toContain(clientB.clientId as string);
    }
    // The operator is told who holds it.
    const operator = await call(OPERATOR, { method: 'POST', path: `/registry/clients/${own.clientId}/keys`, body: { publicKey: spkiPem(testKey(2)) } });
    expectError(operator, 409, 'key_already_registered');
    expect(operator.body.message).toContain(clientB.clientId as string);
  });

  test("a key held in another account is 409 for operators too (named to them only); in the same account the holder comes back as skipped", async () => {
    // An operator registering in A the key B's client holds: 409, never "skipped" with B's client.
    const operator = await call(OPERATOR, { method: 'POST', path: '/registry/clients', body: clientBody(2, { accountId: accountA, name: 'Acme payments' }) });
    expectError(operator, 409, 'key_already_registered');
    expect(operator.body.message).toContain(`on client ${clientB.clientId as string} in account ${accountB}, not in ${accountA}`);
    // In B, its own account, the registration is skipped: the answer is the holder as it is, nothing created.
    for (const caller of [OPERATOR, adminB]) {
      const again = await call(caller, { method: 'POST', path: '/registry/clients', body: clientBody(2, { accountId: accountB, name: 'Another name', roles: ['demo'] }) });
      expect([again.status, again.body.registration, again.body.clientId, again.body.name]).toEqual([200, 'skipped', clientB.clientId, 'Globex payments']);
    }
    expect((await store.listClients(undefined, 100, accountB)).items.filter((c) => c.name === 'Another name')).toEqual([]);
  });

  test("a squatted key: the partner's registration is 409 without the holder; the operator finds the holder and releases the key", async () => {
    // Another partner's admin registers A's published public key first (no proof of possession is asked for).
    const accountC = await createAccount('Soylent', ['demo']);
    const c = await createClient(OPERATOR, clientBody(42, { accountId: accountC, roles: [ACCOUNT_ADMIN_ROLE], name: 'Soylent admin' }));
    const adminC: Caller = { clientId: c.clientId as string, roles: [ACCOUNT_ADMIN_ROLE], accountId: accountC };
    const squatter = await createClient(adminC, clientBody(40, { name: 'squatter' }));
    const refused = await call(adminA, { method: 'POST', path: '/registry/clients', body: clientBody(40, { name: 'Acme billing' }) });
    expectError(refused, 409, 'key_already_registered');
    expect(refused.body.message).toMatch(/ask the API owner's operators to release the key/);
    for (const secret of [squatter.clientId as string, accountC, 'squatter']) expect(JSON.stringify(refused.body)).not.toContain(secret);
    // The operator finds the holder and who registered it...
    const found = await call(OPERATOR, { method: 'GET', path: '/registry/clients', query: `fingerprint=${testKey(40).fingerprint}&account=${accountC}` });
    expect((found.body.clients as Array<{ clientId: string }>).map((c) => c.clientId)).toEqual([squatter.clientId]);
    const audit = await call(OPERATOR, { method: 'GET', path: `/registry/clients/${squatter.clientId}/audit` });
    expect((audit.body.entries as Array<Record<string, unknown>>)[0]).toMatchObject({ action: 'client.created', actor: adminC.clientId, actorAccountId: accountC });
    // ...disables it and replaces its key, which releases the squatted one.
    expect((await call(OPERATOR, { method: 'POST', path: `/registry/clients/${squatter.clientId}/disable` })).status).toBe(200);
    expect((await call(OPERATOR, { method: 'PATCH', path: `/registry/clients/${squatter.clientId}`, body: { version: 2, publicKey: spkiPem(testKey(41)) } })).status).toBe(200);
    expect(await createClient(adminA, clientBody(40, { name: 'Acme billing' }))).toMatchObject({ accountId: accountA, registration: 'created' });
  });

  test('a role above the ceiling is refused with the allowed list; registry:admin never; held roles may stay', async () => {
    const above = await call(adminA, { method: 'POST', path: '/registry/clients', body: clientBody(8, { roles: ['demo', 'payments:refund'] }) });
    expectError(above, 400, 'role_not_allowed');
    expect(above.body.allowedRoles).toEqual([ACCOUNT_ADMIN_ROLE, 'demo']);
    expect(above.body.message).toContain('"payments:refund"');
    const admin = await call(adminA, { method: 'POST', path: '/registry/clients', body: clientBody(8, { roles: ['registry:admin'] }) });
    expectError(admin, 400, 'role_not_allowed');
    expect(admin.body.allowedRoles).toEqual([ACCOUNT_ADMIN_ROLE, 'demo']);
    expect(await store.findByFingerprint(testKey(8).fingerprint, { consistentRead: true })).toBeUndefined();
    // Unknown roles are still unknown_role (the catalogue first), and the sentence lists no role of
    // another account's ceiling: it points to GET /registry/roles. An operator's lists the catalogue.
    for (const options of [
      { method: 'POST', path: '/registry/clients', body: clientBody(8, { roles: ['superuser'] }) },
      { method: 'POST', path: '/registry/clients', body: clientBody(8, { roles: [] }) },
      { method: 'PATCH', path: `/registry/clients/${(await createClient(adminA, clientBody(18))).clientId}`, body: { version: 1, roles: ['superuser'] } },
    ]) {
      const unknown = await call(adminA, options);
      expectError(unknown, 400, 'unknown_role');
      expect(unknown.body.message).toMatch(/GET \/registry\/roles lists the roles you may give\.$/);
      expect(unknown.body.message).not.toMatch(/payments:refund|orders:read|registry:admin/);
    }
    const toOperator = await call(OPERATOR, { method: 'POST', path: '/registry/clients', body: clientBody(8, { roles: ['superuser'] }) });
    expect(toOperator.body.message).toContain(`Known roles: ${ACCOUNT_ADMIN_ROLE}, demo, orders:read, payments:refund, registry:admin.`);

    // An edit may not add a role above the ceiling...
    const own = await createClient(adminA, clientBody(9));
    const raise = await call(adminA, { method: 'PATCH', path: `/registry/clients/${own.clientId}`, body: { version: 1, roles: ['demo', 'orders:read'] } });
    expectError(raise, 400, 'role_not_allowed');
    expect(raise.body.allowedRoles).toEqual([ACCOUNT_ADMIN_ROLE, 'demo']);
    // ...but a role the operator gave (above the ceiling) may stay while the account admin edits the client.
    const given = await call(OPERATOR, { method: 'PATCH', path: `/registry/clients/${own.clientId}`, body: { version: 1, roles: ['demo', 'orders:read'] } });
    expect(given.body).toMatchObject({ roles: ['demo', 'orders:read'], version: 2 });
    const kept = await call(adminA, { method: 'PATCH', path: `/registry/clients/${own.clientId}`, body: { version: 2, name: 'Renamed', roles: ['orders:read', 'demo', ACCOUNT_ADMIN_ROLE] } });
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ name: 'Renamed', roles: ['orders:read', 'demo', ACCOUNT_ADMIN_ROLE], version: 3 });
    // The account admin may give account:admin because the operator put it in A's ceiling; B's admin may not.
    expectError(await call(adminB, { method: 'POST', path: '/registry/clients', body: clientBody(10, { roles: [ACCOUNT_ADMIN_ROLE] }) }), 400, 'role_not_allowed');

    // GET /registry/roles tells each admin what it may give.
    expect((await call(adminA, { method: 'GET', path: '/registry/roles' })).body).toEqual({ roles: [ACCOUNT_ADMIN_ROLE, 'demo'] });
    expect((await call(adminB, { method: 'GET', path: '/registry/roles' })).body).toEqual({ roles: ['demo'] });
    expect((await call(OPERATOR, { method: 'GET', path: '/registry/roles' })).body).toEqual({ roles: [ACCOUNT_ADMIN_ROLE, 'demo', 'orders:read', 'payments:refund', 'registry:admin'] });
  });

  test('a client holding registry:admin in the account can be seen but not changed by the account admin (403)', async () => {
    const operatorInA = await createClient(OPERATOR, clientBody(11, { accountId: accountA, roles: ['registry:admin'] }));
    const id = operatorInA.clientId as string;
    expect((await call(adminA, { method: 'GET', path: `/registry/clients/${id}` })).status).toBe(200);
    for (const options of [
      { method: 'POST', path: `/registry/clients/${id}/keys`, body: { publicKey: spkiPem(testKey(12)) } },
      { method: 'PATCH', path: `/registry/clients/${id}`, body: { version: 1, name: 'mine now' } },
      { method: 'POST', path: `/registry/clients/${id}/disable` },
    ]) {
      expectError(await call(adminA, options), 403, 'role_forbidden');
    }
    expect(await store.getClient(id, { consistentRead: true })).toMatchObject({ version: 1, status: 'active', name: 'Partner 11' });
  });

  test('operator-only routes answer an account admin 403; its own account 200, another 404', async () => {
    expectError(await call(adminA, { method: 'POST', path: '/registry/accounts', body: { name: 'Mine', roleCeiling: ['demo'] } }), 403, 'role_forbidden');
    expectError(await call(adminA, { method: 'GET', path: '/registry/accounts' }), 403, 'role_forbidden');
    expectError(await call(adminA, { method: 'PATCH', path: `/registry/accounts/${accountA}`, body: { version: 1, roleCeiling: ['demo', 'payments:refund'] } }), 403, 'role_forbidden');
    expectError(await call(adminA, { method: 'GET', path: '/registry/keys/expiring' }), 403, 'role_forbidden');
    expect((await call(adminA, { method: 'GET', path: `/registry/accounts/${accountA}` })).body).toMatchObject({ accountId: accountA, name: 'Acme', roleCeiling: ['demo', ACCOUNT_ADMIN_ROLE] });
    expect((await call(adminA, { method: 'GET', path: `/registry/accounts/${accountA}/audit` })).status).toBe(200);
    for (const path of [`/registry/accounts/${accountB}`, `/registry/accounts/${accountB}/audit`]) {
      const theirs = await call(adminA, { method: 'GET', path });
      const nobodys = await call(adminA, { method: 'GET', path: path.replace(accountB, UNKNOWN_ACCOUNT) });
      expectError(theirs, 404, 'not_found');
      expect(shape(theirs, accountB)).toEqual(shape(nobodys, UNKNOWN_ACCOUNT));
    }
  });

  test('the operator sees both accounts, finds and manages any client, and lists accounts', async () => {
    const listA = await call(OPERATOR, { method: 'GET', path: '/registry/clients', query: `account=${accountA}&limit=100` });
    const listB = await call(OPERATOR, { method: 'GET', path: '/registry/clients', query: `account=${accountB}&limit=100` });
    expect((listA.body.clients as Array<{ clientId: string }>).map((c) => c.clientId)).toContain(adminA.clientId);
    expect((listB.body.clients as Array<{ clientId: string }>).map((c) => c.clientId).sort()).toEqual([adminB.clientId, clientB.clientId].sort());
    // Without `account`: the default account, as before accounts existed.
    const defaults = (await call(OPERATOR, { method: 'GET', path: '/registry/clients', query: 'limit=100' })).body.clients as Array<{ accountId: string }>;
    for (const c of defaults) expect(c.accountId).toBe(DEFAULT_ACCOUNT_ID);
    expectError(await call(OPERATOR, { method: 'GET', path: '/registry/clients', query: `account=${UNKNOWN_ACCOUNT}` }), 404, 'not_found');

    expect((await call(OPERATOR, { method: 'GET', path: `/registry/clients/${clientB.clientId}` })).body).toMatchObject({ accountId: accountB });
    expect((await call(OPERATOR, { method: 'GET', path: '/registry/clients', query: `fingerprint=${testKey(2).fingerprint}` })).body.clients).toEqual([
      expect.objectContaining({ clientId: clientB.clientId }),
    ]);
    // Narrowed to an account, a key held elsewhere is not found.
    expect((await call(OPERATOR, { method: 'GET', path: '/registry/clients', query: `fingerprint=${testKey(2).fingerprint}&account=${accountA}` })).body).toEqual({ clients: [] });
    const disabled = await call(OPERATOR, { method: 'POST', path: `/registry/clients/${clientB.clientId}/disable` });
    expect(disabled.body).toMatchObject({ status: 'disabled', accountId: accountB });
    expect((await call(OPERATOR, { method: 'POST', path: `/registry/clients/${clientB.clientId}/enable` })).body).toMatchObject({ status: 'active' });
    // The operator may give any role, in any account.
    expect(await createClient(OPERATOR, clientBody(13, { accountId: accountB, roles: ['payments:refund'] }))).toMatchObject({ accountId: accountB, roles: ['payments:refund'] });
    expectError(await call(OPERATOR, { method: 'POST', path: '/registry/clients', body: clientBody(14, { accountId: UNKNOWN_ACCOUNT }) }), 404, 'not_found');

    const accounts = (await call(OPERATOR, { method: 'GET', path: '/registry/accounts', query: 'limit=100' })).body.accounts as Array<{ accountId: string }>;
    expect(accounts[0].accountId).toBe(DEFAULT_ACCOUNT_ID);
    expect(accounts.map((a) => a.accountId)).toEqual(expect.arrayContaining([accountA, accountB]));
  });

  test('the audit trail names the account and the acting client (and its account) for every change', async () => {
    const own = await createClient(adminA, clientBody(15));
    const id = own.clientId as string;
    await call(adminA, { method: 'POST', path: `/registry/clients/${id}/disable` });
    await call(OPERATOR, { method: 'POST', path: `/registry/clients/${id}/enable` });
    const entries = (await call(adminA, { method: 'GET', path: `/registry/clients/${id}/audit` })).body.entries as Array<Record<string, unknown>>;
    expect(entries.map((e) => [e.action, e.accountId, e.actor, e.actorAccountId])).toEqual([
      ['client.enabled', accountA, OPERATOR.clientId, DEFAULT_ACCOUNT_ID],
      ['client.disabled', accountA, adminA.clientId, accountA],
      ['client.created', accountA, adminA.clientId, accountA],
    ]);
    // The account's trail holds its clients' changes too, newest first, for its own admin as for an operator.
    const accountAudit = (await call(adminA, { method: 'GET', path: `/registry/accounts/${accountA}/audit` })).body.entries as Array<Record<string, unknown>>;
    const ofThisClient = accountAudit.filter((e) => e.clientId === id);
    expect(ofThisClient).toEqual(entries);
    expect(accountAudit.slice(0, 3)).toEqual(entries);
    expect(accountAudit[accountAudit.length - 1]).toEqual(expect.objectContaining({ action: 'account.created', accountId: accountA, actor: OPERATOR.clientId, actorAccountId: DEFAULT_ACCOUNT_ID }));
    expect(accountAudit.every((e) => e.accountId === accountA)).toBe(true);
    expect((await call(OPERATOR, { method: 'GET', path: `/registry/accounts/${accountA}/audit` })).body.entries).toEqual(accountAudit);
  });
});

describe('accounts (operator routes)', () => {
  test('create: 201 with Location and ETag; the ceiling is checked against the catalogue and never holds registry:admin', async () => {
    const created = await call(OPERATOR, { method: 'POST', path: '/registry/accounts', body: { name: 'Initech', roleCeiling: ['demo'] } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Initech', roleCeiling: ['demo'], version: 1 });
    expect(created.headers.location).toBe(`/registry/accounts/${created.body.accountId}`);
    expect(created.headers.etag).toBe('"1"');
    expectError(await call(OPERATOR, { method: 'POST', path: '/registry/accounts', body: { name: 'x', roleCeiling: ['registry:admin'] } }), 400, 'role_not_allowed');
    expectError(await call(OPERATOR, { method: 'POST', path: '/registry/accounts', body: { name: 'x', roleCeiling: ['superuser'] } }), 400, 'unknown_role');
    expectError(await call(OPERATOR, { method: 'POST', path: '/registry/accounts', body: { name: 'x' } }), 400, 'invalid_request');
    expectError(await call(OPERATOR, { method: 'POST', path: '/registry/accounts', body: { name: 'x', roleCeiling: [], owner: 'me' } }), 400, 'invalid_request');
  });

  test('edit: version in the body or If-Match, stale is 409; the default account is editable from version 0', async () => {
    const id = (await call(OPERATOR, { method: 'POST', path: '/registry/accounts', body: { name: 'Umbrella', roleCeiling: [] } })).body.accountId as string;
    const raised = await call(OPERATOR, { method: 'PATCH', path: `/registry/accounts/${id}`, body: { roleCeiling: ['demo', 'orders:read'] }, headers: { 'if-match': '"1"' } });
    expect(raised.body).toMatchObject({ roleCeiling: ['demo', 'orders:read'], version: 2 });
    expect(raised.headers.etag).toBe('"2"');
    expectError(await call(OPERATOR, { method: 'PATCH', path: `/registry/accounts/${id}`, body: { version: 1, name: 'late' } }), 409, 'version_conflict');
    expectError(await call(OPERATOR, { method: 'PATCH', path: `/registry/accounts/${id}`, body: { name: 'no version' } }), 400, 'invalid_request');
    expectError(await call(OPERATOR, { method: 'PATCH', path: `/registry/accounts/${UNKNOWN_ACCOUNT}`, body: { version: 1, name: 'x' } }), 404, 'not_found');

    const before = await call(OPERATOR, { method: 'GET', path: `/registry/accounts/${DEFAULT_ACCOUNT_ID}` });
    expect(before.body).toMatchObject({ accountId: DEFAULT_ACCOUNT_ID, roleCeiling: [] });
    const edited = await call(OPERATOR, { method: 'PATCH', path: `/registry/accounts/${DEFAULT_ACCOUNT_ID}`, body: { version: before.body.version, roleCeiling: ['demo'] } });
    expect(edited.body).toMatchObject({ accountId: DEFAULT_ACCOUNT_ID, roleCeiling: ['demo'], version: (before.body.version as number) + 1 });
  });

  test('a caller that is not an operator and has no account in the context is refused, not guessed', async () => {
    const answer = await call({ clientId: 'c_NoAccountNoAccountNoA0', roles: [ACCOUNT_ADMIN_ROLE] }, { method: 'GET', path: '/registry/clients' });
    expectError(answer, 500, 'internal_error');
  });
});

describe('an account of 1,000 clients', () => {
  // Read by the store's listing and by the registry's: each registration is one DynamoDB
  // transaction (the 1,000 cost about 7 s of CPU on DynamoDB Local), so they are made once.
  let account: string;
  const expected = new Set<string>();
  beforeAll(async () => {
    account = (await call(OPERATOR, { method: 'POST', path: '/registry/accounts', body: { name: 'Big partner', roleCeiling: ['demo'] } })).body.accountId as string;
    const spki = newKey(0).spkiPem;
    for (let batch = 0; batch < 1000; batch += 25) {
      const results = await Promise.all(
        Array.from({ length: 25 }, (_, j) =>
          store.createClient(
            { accountId: account, name: `bulk ${batch + j}`, networkWhitelist: ['0.0.0.0'], roles: ['demo'], key: syntheticKey(`registry-bulk-${batch + j}`, spki) },
            OPERATOR.clientId,
          ),
        ),
      );
      for (const { record, created } of results) {
        expect(created).toBe(true);
        expected.add(record.clientId);
      }
    }
  }, 120_000);

  test("the store lists it exactly one Query per page, all 1,000 once, no other account's client; the other accounts list only their own", async () => {
    const spki = newKey(0).spkiPem;
    const other = await store.createAccount({ name: 'Other partner', roleCeiling: [] }, OPERATOR.clientId);
    const others = await Promise.all(
      [1001, 1002, 1003].map((i) => store.createClient({ accountId: other.accountId, name: `other ${i}`, networkWhitelist: ['0.0.0.0'], roles: ['demo'], key: syntheticKey(`store-other-${i}`, spki) }, OPERATOR.clientId)),
    );
    const defaultsBefore = (await store.listClients(undefined, 100)).items.map((c) => c.clientId);
    const defaultOne = await store.createClient({ name: 'default one', networkWhitelist: ['0.0.0.0'], roles: ['demo'], key: syntheticKey('store-default-one', spki) }, OPERATOR.clientId);

    const calls: string[] = [];
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      commands.length = 0;
      const page = await store.listClients(cursor, 100, account);
      expect(commands).toEqual(['QueryCommand']);
      calls.push(...commands);
      expect(page.items.length).toBeLessThanOrEqual(100);
      for (const item of page.items) expect(item.accountId).toBe(account);
      seen.push(...page.items.map((c) => c.clientId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined && pages < 20);
    expect(cursor).toBeUndefined();
    expect(seen).toHaveLength(1000);
    expect(new Set(seen)).toEqual(expected);
    expect(calls).toHaveLength(pages);
    for (const o of others) expect(seen).not.toContain(o.record.clientId);
    // The other accounts list only their own: the new one its three, the default one what it held and the client made without an account.
    expect((await store.listClients(undefined, 100, other.accountId)).items.map((c) => c.clientId).sort()).toEqual(others.map((o) => o.record.clientId).sort());
    expect((await store.listClients(undefined, 100)).items.map((c) => c.clientId).sort()).toEqual([...defaultsBefore, defaultOne.record.clientId].sort());
  });

  test("as its admin, every page is one Query and one BatchGetItem per 50 keys (the keys' last use): 1,000 clients once each, nothing from other accounts", async () => {
    const admin: Caller = { clientId: 'c_BigAdminBigAdminBigA0A', roles: [ACCOUNT_ADMIN_ROLE], accountId: account };
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      commands.length = 0;
      const page = await call(admin, { method: 'GET', path: '/registry/clients', query: `limit=100${cursor ? `&cursor=${cursor}` : ''}` });
      expect(page.status).toBe(200);
      const clients = page.body.clients as Array<{ clientId: string; accountId: string }>;
      // (DynamoDB may end with an empty page: nothing to read the last use of)
      expect(commands).toEqual(['QueryCommand', ...Array.from({ length: Math.ceil(clients.length / 50) }, () => 'BatchGetItemCommand')]);
      for (const c of clients) expect(c.accountId).toBe(account);
      seen.push(...clients.map((c) => c.clientId));
      cursor = page.body.nextCursor as string | undefined;
      pages++;
    } while (cursor !== undefined && pages < 20);
    expect(cursor).toBeUndefined();
    expect(pages).toBeGreaterThanOrEqual(10);
    expect(seen).toHaveLength(1000);
    expect(new Set(seen)).toEqual(expected);
  });
});

describe('a client an operator raised above its account ceiling', () => {
  /**
   * An account whose ceiling holds only account:admin, its admin (key `adminKey`), and a partner
   * client (key `partnerKey`) the operator gave `demo`, outside the ceiling.
   */
  async function aboveCeiling(name: string, adminKey: number, partnerKey: number, networkWhitelist: string[]): Promise<{ adminCaller: Caller; id: string }> {
    const account = await createAccount(name, [ACCOUNT_ADMIN_ROLE]);
    const admin = await createClient(OPERATOR, clientBody(adminKey, { accountId: account, roles: [ACCOUNT_ADMIN_ROLE], name: `${name} admin` }));
    const partner = await createClient(OPERATOR, clientBody(partnerKey, { accountId: account, roles: ['demo'], networkWhitelist, name: `${name} partner` }));
    return { adminCaller: { clientId: admin.clientId as string, roles: [ACCOUNT_ADMIN_ROLE], accountId: account }, id: partner.clientId as string };
  }

  test('its account admin may not add, replace or remove its keys (403 client_above_ceiling), so it cannot sign as it with its roles', async () => {
    const { adminCaller, id } = await aboveCeiling('Vandelay', 30, 31, ['0.0.0.0']);
    const attackerKey = testKey(32);

    for (const options of [
      { method: 'PATCH', path: `/registry/clients/${id}`, body: { version: 1, publicKey: spkiPem(attackerKey) } },
      { method: 'PATCH', path: `/registry/clients/${id}`, body: { version: 1, publicKey: spkiPem(attackerKey), roles: ['demo'] } },
      { method: 'POST', path: `/registry/clients/${id}/keys`, body: { publicKey: spkiPem(attackerKey) } },
      { method: 'DELETE', path: `/registry/clients/${id}/keys/${testKey(31).fingerprint}` },
    ]) {
      const refused = await call(adminCaller, options);
      expectError(refused, 403, 'client_above_ceiling');
      expect(refused.body.message).toMatch(/holds "demo", outside your account's role ceiling.*Ask the API owner's operators to change its keys, or first remove those roles/);
    }
    expect(await store.getClient(id, { consistentRead: true })).toMatchObject({ version: 1, roles: ['demo'], keys: [{ fingerprint: testKey(31).fingerprint }] });
    expect(await store.findByFingerprint(attackerKey.fingerprint, { consistentRead: true })).toBeUndefined();

    // The real authorizer: a request signed as the partner with the admin's key is refused; the partner's own key still passes.
    const authorizer = loadAuthorizer(authorizerEnv(tableName, ddb.endpoint, { [ENV.roleCatalogue]: JSON.stringify(CATALOGUE) }));
    const request = { method: 'GET', url: `https://${HTTP_API_HOST}/api/orders` };
    const forged = await authorizer.httpApiHandler(httpApiAuthorizerEvent(request, { headers: sign(request, { clientId: id, key: attackerKey }).headers }));
    expect(forged).toMatchObject({ isAuthorized: false });
    const genuine = await authorizer.httpApiHandler(httpApiAuthorizerEvent(request, { headers: sign(request, { clientId: id, key: testKey(31) }).headers }));
    expect(genuine).toMatchObject({ isAuthorized: true, context: { clientId: id, roles: 'demo' } });

    // Other edits stay the account admin's: a name, and taking the role above the ceiling away.
    expect((await call(adminCaller, { method: 'PATCH', path: `/registry/clients/${id}`, body: { version: 1, name: 'Vandelay partner (renamed)' } })).status).toBe(200);
    // An operator may change the keys.
    const rolled = await call(OPERATOR, { method: 'POST', path: `/registry/clients/${id}/keys`, body: { publicKey: spkiPem(testKey(33)) } });
    expect(rolled.status).toBe(201);
    // Once the edit that sets the key also brings the roles within the ceiling, the account admin may make it.
    const lowered = await call(adminCaller, { method: 'PATCH', path: `/registry/clients/${id}`, body: { version: 3, roles: [ACCOUNT_ADMIN_ROLE], publicKey: spkiPem(attackerKey) } });
    expect([lowered.status, lowered.body.message]).toEqual([200, undefined]);
    expect(lowered.body).toMatchObject({ roles: [ACCOUNT_ADMIN_ROLE], keys: [{ fingerprint: attackerKey.fingerprint }] });
  });

  test("nor enable it, nor change its whitelist or profile (403 client_above_ceiling): an operator's disable after a leak stands; renaming and disabling stay the admin's", async () => {
    const { adminCaller, id } = await aboveCeiling('Kruger Industrial', 16, 17, ['198.51.100.0/24']);
    // Its key leaked: the operator disables it.
    expect((await call(OPERATOR, { method: 'POST', path: `/registry/clients/${id}/disable`, body: { version: 1 } })).status).toBe(200);

    for (const options of [
      { method: 'POST', path: `/registry/clients/${id}/enable`, body: { version: 2 } },
      { method: 'PATCH', path: `/registry/clients/${id}`, body: { version: 2, networkWhitelist: ['0.0.0.0'] } },
      { method: 'PATCH', path: `/registry/clients/${id}`, body: { version: 2, profile: 'web-bot-auth' } },
    ]) {
      const refused = await call(adminCaller, options);
      expectError(refused, 403, 'client_above_ceiling');
      expect(refused.body.message).toMatch(/holds "demo", outside your account's role ceiling.*so you may not (enable it|change its network whitelist or coverage profile): who may sign with those roles, from where and how, is the operators' to decide/);
    }
    expect(await store.getClient(id, { consistentRead: true })).toMatchObject({ version: 2, status: 'disabled', networkWhitelist: ['198.51.100.0/24'] });

    expect((await call(adminCaller, { method: 'PATCH', path: `/registry/clients/${id}`, body: { version: 2, name: 'Kruger partner (leaked)' } })).status).toBe(200);
    expect((await call(OPERATOR, { method: 'POST', path: `/registry/clients/${id}/enable`, body: { version: 3 } })).status).toBe(200);
    expect((await call(adminCaller, { method: 'POST', path: `/registry/clients/${id}/disable`, body: { version: 4 } })).body).toMatchObject({ status: 'disabled' });
  });

  test("within the ceiling, and on the admin's own client, keys change as before; the admin's own whitelist and profile stay the operators'", async () => {
    // The admin holds account:admin though the ceiling does not: the operator appointed it, from its office network.
    const account = await createAccount('Kramerica', ['demo']);
    const admin = await createClient(OPERATOR, clientBody(34, { accountId: account, roles: [ACCOUNT_ADMIN_ROLE], name: 'Kramerica admin', networkWhitelist: ['203.0.113.0/24'] }));
    const adminCaller: Caller = { clientId: admin.clientId as string, roles: [ACCOUNT_ADMIN_ROLE], accountId: account };
    // Sending a key along (its own current one, or a new one it may set) does not carry the change past the ceiling.
    for (const body of [
      { version: 1, networkWhitelist: ['0.0.0.0'] },
      { version: 1, profile: 'rfc9421' },
      { version: 1, networkWhitelist: ['0.0.0.0'], publicKey: spkiPem(testKey(34)) },
      { version: 1, networkWhitelist: ['0.0.0.0'], profile: 'rfc9421', publicKey: spkiPem(testKey(39)) },
    ]) {
      const refused = await call(adminCaller, { method: 'PATCH', path: `/registry/clients/${admin.clientId}`, body });
      expectError(refused, 403, 'client_above_ceiling');
      expect(refused.body.message).toMatch(/holds "account:admin", outside your account's role ceiling.*change its network whitelist or coverage profile/);
    }
    const unchanged = await store.getClient(admin.clientId as string, { consistentRead: true });
    expect(unchanged).toMatchObject({ version: 1, networkWhitelist: ['203.0.113.0/24'], keys: [{ fingerprint: testKey(34).fingerprint }] });
    expect(unchanged?.profile).toBeUndefined();
    expect((await call(adminCaller, { method: 'POST', path: `/registry/clients/${admin.clientId}/keys`, body: { publicKey: spkiPem(testKey(35)) } })).status).toBe(201);
    const own = await createClient(adminCaller, clientBody(36));
    expect((await call(adminCaller, { method: 'POST', path: `/registry/clients/${own.clientId}/keys`, body: { publicKey: spkiPem(testKey(37)) } })).status).toBe(201);
    expect((await call(adminCaller, { method: 'DELETE', path: `/registry/clients/${own.clientId}/keys/${testKey(36).fingerprint}` })).status).toBe(200);
    expect((await call(adminCaller, { method: 'PATCH', path: `/registry/clients/${own.clientId}`, body: { version: 3, publicKey: spkiPem(testKey(38)) } })).status).toBe(200);
  });
});

describe('end to end: the authorizer passes the account the registry scopes by', () => {
  test("the real HTTP API authorizer allows an account admin on /registry/clients with its accountId, and the registry lists only that account", async () => {
    const account = (await call(OPERATOR, { method: 'POST', path: '/registry/accounts', body: { name: 'Hooli', roleCeiling: ['demo'] } })).body.accountId as string;
    const key = testKey(20);
    const { record } = await store.createClient({ accountId: account, name: 'Hooli admin', networkWhitelist: ['0.0.0.0'], roles: [ACCOUNT_ADMIN_ROLE], key: newKey(20) }, OPERATOR.clientId);
    await store.createClient({ name: 'elsewhere', networkWhitelist: ['0.0.0.0'], roles: ['demo'], key: newKey(21) }, OPERATOR.clientId);
    const authorizer = loadAuthorizer(authorizerEnv(tableName, ddb.endpoint, { [ENV.roleCatalogue]: JSON.stringify(CATALOGUE) }));

    const signed = { method: 'GET', url: `https://${HTTP_API_HOST}/registry/clients` };
    const allow = await authorizer.httpApiHandler(httpApiAuthorizerEvent(signed, { headers: sign(signed, { clientId: record.clientId, key }).headers }));
    expect(allow).toMatchObject({ isAuthorized: true, context: { clientId: record.clientId, roles: ACCOUNT_ADMIN_ROLE, accountId: account } });

    // The registry event API Gateway then delivers carries that context unchanged.
    const event = httpApiEvent({ method: 'GET', path: '/registry/clients' });
    (event.requestContext as unknown as { authorizer: { lambda: unknown } }).authorizer.lambda = (allow as { context: unknown }).context;
    const answer = await handler(event, { awsRequestId: 'e2e' });
    const clients = (JSON.parse(answer.body) as { clients: Array<{ clientId: string; accountId: string }> }).clients;
    expect(answer.statusCode).toBe(200);
    expect(clients.map((c) => [c.clientId, c.accountId])).toEqual([[record.clientId, account]]);

    // The account admin may not reach the accounts list: the catalogue refuses it before the registry does.
    const accounts = { method: 'GET', url: `https://${HTTP_API_HOST}/registry/accounts` };
    const deny = await authorizer.httpApiHandler(httpApiAuthorizerEvent(accounts, { headers: sign(accounts, { clientId: record.clientId, key }).headers }));
    expect(deny).toMatchObject({ isAuthorized: false, context: { signetError: 'role_forbidden' } });
  });
  test('a web-bot-auth signature of the authority alone gets past the authorizer, but the registry refuses it on any route; one that covers the request is served', async () => {
    const account = (await call(OPERATOR, { method: 'POST', path: '/registry/accounts', body: { name: 'Pied Piper', roleCeiling: ['demo'] } })).body.accountId as string;
    const key = testKey(22);
    const { record: admin } = await store.createClient(
      { accountId: account, name: 'Pied Piper agent', networkWhitelist: ['0.0.0.0'], roles: [ACCOUNT_ADMIN_ROLE], key: newKey(22), profile: 'web-bot-auth' },
      OPERATOR.clientId,
    );
    const { record: victim } = await store.createClient({ accountId: account, name: 'Pied Piper prod', networkWhitelist: ['0.0.0.0'], roles: ['demo'], key: newKey(23) }, OPERATOR.clientId);
    const authorizer = loadAuthorizer(authorizerEnv(tableName, ddb.endpoint, { [ENV.roleCatalogue]: JSON.stringify(CATALOGUE) }));
    /** Headers of a Web Bot Auth signature of `url` by the admin over `components`. */
    const agentHeaders = (components: string, url: string, method: string): Record<string, string> => {
      const created = Math.floor(Date.now() / 1000);
      const field = `sig1=(${components});created=${created};expires=${created + 300};keyid="${admin.clientId}";tag="web-bot-auth"`;
      const input = readSignatureInput(field, 'sig1');
      const base = buildSignatureBase({ method, targetUri: url, headers: {} }, input.covered, input.signatureParams);
      return { 'signature-input': field, signature: `sig1=:${createSignature('rsa-v1_5-sha256', Buffer.from(base), key.key).toString('base64')}:` };
    };
    /** The registry's answer to `method path` sent with `headers`, after the real authorizer allowed it. */
    const through = async (method: string, path: string, headers: Record<string, string>) => {
      const allow = await authorizer.httpApiHandler(httpApiAuthorizerEvent({ method, url: `https://${HTTP_API_HOST}${path}` }, { headers }));
      expect(allow).toMatchObject({ isAuthorized: true, context: { clientId: admin.clientId, signetProfile: 'web-bot-auth' } });
      const event = httpApiEvent({ method, path });
      (event.requestContext as unknown as { authorizer: { lambda: unknown } }).authorizer.lambda = (allow as { context: unknown }).context;
      const answer = await handler(event, { awsRequestId: 'e2e' });
      return { status: answer.statusCode, body: JSON.parse(answer.body) as Record<string, unknown> };
    };

    // Signed for a harmless read, and sent again by whoever saw it as a write to another client.
    const authorityOnly = agentHeaders('"@authority"', `https://${HTTP_API_HOST}/registry/clients`, 'GET');
    const replayed = await through('POST', `/registry/clients/${victim.clientId}/disable`, authorityOnly);
    expect(replayed).toEqual({ status: 403, body: expect.objectContaining({ error: 'request_not_bound' }) });
    expect((await through('GET', '/registry/clients', authorityOnly)).body).toMatchObject({ error: 'request_not_bound' });
    expect((await store.getClient(victim.clientId, { consistentRead: true }))?.status).toBe('active');

    // The same agent covering the method and the target is served.
    const path = `/registry/clients/${victim.clientId}/disable`;
    const bound = await through('POST', path, agentHeaders('"@method" "@target-uri"', `https://${HTTP_API_HOST}${path}`, 'POST'));
    expect([bound.status, bound.body.status]).toEqual([200, 'disabled']);
  });
});

/** One real key under a made-up fingerprint (and thumbprint, so each names its own client). */
function syntheticKey(seed: string, spkiPem: string): { fingerprint: string; spkiPem: string; thumbprint: string } {
  const fingerprint = createHash('sha256').update(seed).digest('base64url');
  return { fingerprint, spkiPem, thumbprint: fingerprint };
}
