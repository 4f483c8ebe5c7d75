/**
 * The registry routes on exactly the path the authorizer judged the caller's roles on: no way
 * around. Each case runs the real authorizer on a signed request, then hands the event API
 * Gateway would deliver (the same path, stage and base path, with the authorizer's context) to the
 * registry handler, against DynamoDB Local:
 *
 * - a role given only `* /registry/clients/*\/keys` and `…/keys/**` cannot reach createClient or
 *   listClients by appending `/registry/clients` to a path its pattern admits;
 * - an `account:admin` (default catalogue) cannot reach listAccounts by appending
 *   `/registry/accounts` to a client path;
 * - the ordinary routes still work behind a named HTTP API stage and a REST custom-domain base
 *   path, and anything that is not exactly a route (a trailing slash, a route further down) is 404.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { apiPathOfEvent } from '../../lambda/adapters/api-path';
import { adaptHttpApiEvent } from '../../lambda/adapters/http-api-event';
import { fromRestApiAuthorizerEvent } from '../../lambda/adapters/rest-api-event';
import { ACCOUNT_ADMIN_ROLE, DEFAULT_ROLE_CATALOGUE, ENV } from '../../lambda/config-env';
import { DEFAULT_ACCOUNT_ID } from '../../lambda/store/account-id';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { createRegistryHandler, type RegistryHandler } from '../../lambda/registry/registry-handler';
import { DynamoClientStore } from '../../lambda/store/client-store';
import {
  type AuthorizerModule,
  HTTP_API_HOST,
  REST_API_HOST,
  type Signer,
  authorizerEnv,
  httpApiAuthorizerEvent,
  loadAuthorizer,
  restAuthorizerEvent,
  sign,
} from '../authorizer/support';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import { newKey, spkiPem, testKey } from '../support/registry-fixtures';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

const KEY_MANAGER = 'keys:manager';
const CATALOGUE = {
  ...DEFAULT_ROLE_CATALOGUE,
  demo: ['* /api/*'],
  [KEY_MANAGER]: ['* /registry/clients/*/keys', '* /registry/clients/*/keys/**'],
};
const roles = compileRoleCatalogue(CATALOGUE);
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

let ddb: TestDynamoDb;
let tableName: string;
let store: DynamoClientStore;
let registry: RegistryHandler;
let authorizer: AuthorizerModule;
let keyManager: Signer;
let accountAdmin: Signer;
let target: string;

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  tableName = await ddb.createTable();
  store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  registry = createRegistryHandler({ store, roles, logger: silent });
  authorizer = loadAuthorizer(authorizerEnv(tableName, ddb.endpoint, { [ENV.roleCatalogue]: JSON.stringify(CATALOGUE) }));
  const common = { networkWhitelist: ['0.0.0.0'] };
  const km = await store.createClient({ ...common, name: 'key manager', roles: [KEY_MANAGER], key: newKey(0) }, 'test-setup');
  keyManager = { clientId: km.record.clientId, key: testKey(0) };
  const account = await store.createAccount({ name: 'Hooli', roleCeiling: ['demo'] }, 'test-setup');
  const aa = await store.createClient({ ...common, accountId: account.accountId, name: 'Hooli admin', roles: [ACCOUNT_ADMIN_ROLE], key: newKey(1) }, 'test-setup');
  accountAdmin = { clientId: aa.record.clientId, key: testKey(1) };
  // The key manager (not an operator) changes keys only of clients whose roles are within its account's ceiling.
  await store.updateAccount(DEFAULT_ACCOUNT_ID, 0, { roleCeiling: ['demo'] }, 'test-setup');
  const t = await store.createClient({ ...common, name: 'target', roles: ['demo'], key: newKey(2) }, 'test-setup');
  target = t.record.clientId;
});

afterAll(async () => {
  await ddb?.stop();
});

interface Outcome {
  /** What the authorizer decided on the path. */
  readonly authorized: boolean;
  /** The registry's answer (only when authorized). */
  readonly status?: number;
  readonly body?: Record<string, unknown>;
}

/**
 * Signs `method url` as `signer`, runs the real HTTP API authorizer, then (on Allow) the registry
 * with the proxy event for the same request carrying the authorizer's context.
 */
async function throughHttpApi(signer: Signer, method: string, url: string, body?: unknown, stage = '$default'): Promise<Outcome> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const signed = sign({ method, url, body: text }, signer);
  const event = httpApiAuthorizerEvent({ method, url, body: text }, { headers: signed.headers, stage });
  const decision = (await authorizer.httpApiHandler(event)) as { isAuthorized: boolean; context?: Record<string, unknown> };
  if (!decision.isAuthorized) return { authorized: false };
  const proxy = { ...structuredClone(event), version: '2.0', body: text, isBase64Encoded: false } as unknown as APIGatewayProxyEventV2;
  (proxy.requestContext as unknown as { authorizer: unknown }).authorizer = { lambda: decision.context };
  // The registry and the authorizer find the same path inside the API in this event.
  expect(apiPathOfEvent(proxy)).toBe(adaptHttpApiEvent(event).apiPath);
  const answer = await registry(proxy, { awsRequestId: 'routing' });
  return { authorized: true, status: answer.statusCode, body: JSON.parse(answer.body) as Record<string, unknown> };
}

/** The same through a REST API behind a custom domain whose base-path mapping is `basePath`. */
async function throughRestApi(signer: Signer, method: string, url: string, basePath: string): Promise<Outcome> {
  const signed = sign({ method, url }, signer);
  const event = restAuthorizerEvent({ method, url }, { headers: signed.headers, basePath });
  const policy = (await authorizer.restApiHandler(event)) as { policyDocument: { Statement: Array<{ Effect: string }> }; context?: Record<string, unknown> };
  if (policy.policyDocument.Statement[0].Effect !== 'Allow') return { authorized: false };
  const proxy = { ...structuredClone(event), body: null, isBase64Encoded: false } as unknown as APIGatewayProxyEvent;
  (proxy.requestContext as unknown as { authorizer: unknown }).authorizer = { principalId: signer.clientId, ...policy.context };
  expect(apiPathOfEvent(proxy)).toBe(fromRestApiAuthorizerEvent(event).apiPath);
  const answer = await registry(proxy, { awsRequestId: 'routing' });
  return { authorized: true, status: answer.statusCode, body: JSON.parse(answer.body) as Record<string, unknown> };
}

function createBody(i: number): Record<string, unknown> {
  return { name: `Smuggled ${i}`, networkWhitelist: ['0.0.0.0'], publicKey: spkiPem(testKey(i)), roles: ['demo'] };
}

async function clientCount(): Promise<number> {
  return (await store.listClients(undefined, 100)).items.length;
}

describe('a path the role admits cannot reach a route further down it', () => {
  const smuggled = (id: string) => `https://${HTTP_API_HOST}/registry/clients/${id}/keys/y/registry/clients`;

  test('POST /registry/clients/x/keys/y/registry/clients with a keys-only role creates no client: 404', async () => {
    const before = await clientCount();
    const outcome = await throughHttpApi(keyManager, 'POST', smuggled('x'), createBody(5));
    // The role pattern `* /registry/clients/*/keys/**` admits the path: the authorizer allows it.
    expect(outcome.authorized).toBe(true);
    expect({ status: outcome.status, error: outcome.body?.error }).toEqual({ status: 404, error: 'not_found' });
    expect(await clientCount()).toBe(before);
    expect(await store.findByFingerprint(testKey(5).fingerprint, { consistentRead: true })).toBeUndefined();
  });

  test('GET on the same path does not list the clients: 404', async () => {
    const outcome = await throughHttpApi(keyManager, 'GET', smuggled(target));
    expect(outcome.authorized).toBe(true);
    expect({ status: outcome.status, error: outcome.body?.error }).toEqual({ status: 404, error: 'not_found' });
    expect(outcome.body).not.toHaveProperty('clients');
  });

  test('an account admin (default catalogue) does not reach listAccounts via GET /registry/clients/x/registry/accounts: 404', async () => {
    const outcome = await throughHttpApi(accountAdmin, 'GET', `https://${HTTP_API_HOST}/registry/clients/x/registry/accounts`);
    expect(outcome.authorized).toBe(true);
    expect({ status: outcome.status, error: outcome.body?.error }).toEqual({ status: 404, error: 'not_found' });
  });

  test('behind a named stage and a REST custom-domain base path the same paths are 404 too', async () => {
    const staged = await throughHttpApi(keyManager, 'GET', `https://${HTTP_API_HOST}/prod/registry/clients/x/keys/y/registry/clients`, undefined, 'prod');
    expect({ authorized: staged.authorized, status: staged.status, error: staged.body?.error }).toEqual({ authorized: true, status: 404, error: 'not_found' });
    const rest = await throughRestApi(keyManager, 'GET', `https://api.example.com/v1/registry/clients/x/keys/y/registry/clients`, 'v1');
    expect({ authorized: rest.authorized, status: rest.status, error: rest.body?.error }).toEqual({ authorized: true, status: 404, error: 'not_found' });
  });
});

describe('the routes themselves, anchored at the API base path', () => {
  test('the key manager reaches the key routes it was given, behind a stage and a base path', async () => {
    const add = await throughHttpApi(keyManager, 'POST', `https://${HTTP_API_HOST}/prod/registry/clients/${target}/keys`, { publicKey: spkiPem(testKey(3)) }, 'prod');
    expect({ authorized: add.authorized, status: add.status }).toEqual({ authorized: true, status: 201 });
    const rest = await throughRestApi(accountAdmin, 'GET', `https://${REST_API_HOST.replace('puhdx84jy9.execute-api', 'api')}/v1/registry/clients`, 'v1');
    expect({ authorized: rest.authorized, status: rest.status }).toEqual({ authorized: true, status: 200 });
  });

  test('a trailing slash, or a route named below a stage that is not the event\'s, is 404', async () => {
    const slash = await throughHttpApi(accountAdmin, 'GET', `https://${HTTP_API_HOST}/registry/clients/${target}/`);
    expect({ authorized: slash.authorized, status: slash.status, error: slash.body?.error }).toEqual({ authorized: true, status: 404, error: 'not_found' });
    // `/prod/registry/...` on the $default stage is the path `/prod/registry/...`: not a registry route.
    const unstaged = await throughHttpApi(accountAdmin, 'GET', `https://${HTTP_API_HOST}/registry/clients/x/prod/registry/clients`);
    expect({ authorized: unstaged.authorized, status: unstaged.status, error: unstaged.body?.error }).toEqual({ authorized: true, status: 404, error: 'not_found' });
  });
});
