/**
 * Exact-replay rejection (SIGNET_REPLAY_PROTECTION=true): the first use of a signature is
 * recorded with a DynamoDB conditional write (TTL = the freshness window), the same signed
 * request again is refused with `replayed_request`. Against DynamoDB Local, through both handlers.
 */
import { createHash } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { authorize } from '../../lambda/authorizer/authorize';
import { ClientDirectory } from '../../lambda/authorizer/client-directory';
import { adaptHttpApiEvent } from '../../lambda/adapters/http-api-event';
import { ENV } from '../../lambda/config-env';
import { DEFAULT_MAX_AGE_S, DEFAULT_MAX_SKEW_S } from '../../lambda/core/defaults';
import { SignetError } from '../../lambda/core/errors';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { defaultVerifyPolicy } from '../../lambda/core/verify';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { toDocumentClient } from '../../lambda/store/dynamodb-client';
import { DynamoReplayGuard } from '../../lambda/store/replay-store';
import { PARTITION_KEY, REPLAY_PREFIX, SORT_KEY, TTL_ATTRIBUTE } from '../../lambda/store/table-schema';
import { dynamoDbLocalClientConfig, findFreePort } from '../../local/dynamodb-local';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import {
  AuthorizerModule,
  HTTP_API_HOST,
  REST_API_HOST,
  ROLE_CATALOGUE,
  Signer,
  authorizerEnv,
  httpApiAuthorizerEvent,
  loadAuthorizer,
  nowS,
  outcomeOf,
  registerClient,
  restAuthorizerEvent,
  sign,
} from './support';

let ddb: TestDynamoDb;
let tableName: string;
let store: DynamoClientStore;
let guarded: AuthorizerModule;
let unguarded: AuthorizerModule;
let partner: Signer;
let office: Signer;

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  tableName = await ddb.createTable();
  store = new DynamoClientStore({ tableName, client: ddb.client });
  partner = await registerClient(store, { name: 'Partner' });
  office = await registerClient(store, { name: 'Office', networkWhitelist: ['10.0.0.0/8'] });
  guarded = loadAuthorizer(authorizerEnv(tableName, ddb.endpoint, { [ENV.replayProtection]: 'true' }));
  unguarded = loadAuthorizer(authorizerEnv(tableName, ddb.endpoint));
});

afterAll(async () => {
  await ddb?.stop();
});

/** The replay item's key for a `Signature: sig=:<b64>:` header. */
function replayKey(signatureHeader: string): Record<string, string> {
  const bytes = Buffer.from(/^sig=:([^:]*):$/.exec(signatureHeader)![1], 'base64');
  return { [PARTITION_KEY]: `${REPLAY_PREFIX}${createHash('sha256').update(bytes).digest('base64url')}`, [SORT_KEY]: 'REPLAY' };
}

async function replayItem(signatureHeader: string): Promise<Record<string, unknown> | undefined> {
  return (await ddb.doc.send(new GetCommand({ TableName: tableName, Key: replayKey(signatureHeader), ConsistentRead: true }))).Item;
}

test('HTTP API: the same signed request twice → the second is refused (replayed_request); the record expires with the window', async () => {
  const created = nowS();
  const call = { method: 'POST', url: `https://${HTTP_API_HOST}/api/echo?x=1`, body: '{"pay":10}', created };
  const { headers } = sign(call, partner);
  const event = httpApiAuthorizerEvent(call, { headers });

  expect(await guarded.httpApiHandler(structuredClone(event))).toMatchObject({ isAuthorized: true });
  expect(await guarded.httpApiHandler(structuredClone(event))).toMatchObject({ isAuthorized: false, context: { signetError: 'replayed_request' } });
  expect((await store.listAuthFailures(partner.clientId))[0]).toMatchObject({ reason: 'replayed_request' });
  expect(await replayItem(headers.signature)).toMatchObject({ [TTL_ATTRIBUTE]: created + DEFAULT_MAX_AGE_S + DEFAULT_MAX_SKEW_S });

  // Signed anew (another created, so another signature): accepted.
  const again = { ...call, created: created - 1 };
  const fresh = sign(again, partner);
  expect(await guarded.httpApiHandler(httpApiAuthorizerEvent(again, { headers: fresh.headers }))).toMatchObject({ isAuthorized: true });
});

test('without SIGNET_REPLAY_PROTECTION the same request passes twice and nothing is written', async () => {
  const call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/echo?unguarded=1` };
  const { headers } = sign(call, partner);
  const event = httpApiAuthorizerEvent(call, { headers });
  expect(await unguarded.httpApiHandler(structuredClone(event))).toMatchObject({ isAuthorized: true });
  expect(await unguarded.httpApiHandler(structuredClone(event))).toMatchObject({ isAuthorized: true });
  expect(await replayItem(headers.signature)).toBeUndefined();
});

test('REST: the second use throws Unauthorized (401)', async () => {
  const call = { method: 'GET', url: `https://${REST_API_HOST}/prod/api/echo?a=1&a=2` };
  const { headers } = sign(call, partner);
  const event = restAuthorizerEvent(call, { headers });
  const first = await outcomeOf(guarded.restApiHandler(structuredClone(event)));
  expect(first.ok && first.value.policyDocument.Statement[0].Effect).toBe('Allow');
  const second = await outcomeOf(guarded.restApiHandler(structuredClone(event)));
  expect(second.ok ? 'answered' : second.error.message).toBe('Unauthorized');
  expect((await store.listAuthFailures(partner.clientId))[0]).toMatchObject({ reason: 'replayed_request' });
});

test('a refused request does not use up its signature (the claim comes last)', async () => {
  const call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/echo?office=1` };
  const { headers } = sign(call, office);
  const outside = httpApiAuthorizerEvent(call, { headers, sourceIp: '192.0.2.10' });
  expect(await guarded.httpApiHandler(outside)).toMatchObject({ isAuthorized: false, context: { signetError: 'ip_not_allowed' } });
  expect(await replayItem(headers.signature)).toBeUndefined();
  const inside = httpApiAuthorizerEvent(call, { headers, sourceIp: '10.1.2.3' });
  expect(await guarded.httpApiHandler(inside)).toMatchObject({ isAuthorized: true });
});

test('concurrent uses of one signature: exactly one is allowed', async () => {
  const call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/echo?race=1` };
  const { headers } = sign(call, partner);
  const event = httpApiAuthorizerEvent(call, { headers });
  const answers = await Promise.all(Array.from({ length: 10 }, () => guarded.httpApiHandler(structuredClone(event))));
  expect(answers.filter((a) => a.isAuthorized)).toHaveLength(1);
  expect(answers.filter((a) => !a.isAuthorized && (a.context as { signetError?: string }).signetError === 'replayed_request')).toHaveLength(9);
});

describe('DynamoReplayGuard', () => {
  test('a record past its TTL (DynamoDB deletes lazily) counts as free', async () => {
    const clock = { s: 1_000 };
    const guard = new DynamoReplayGuard(ddb.doc, tableName, () => clock.s);
    expect(await guard.claim([{ signatureId: 'lazy-ttl-test', expiresAtS: 1_100 }])).toBe(true);
    clock.s = 1_050;
    expect(await guard.claim([{ signatureId: 'lazy-ttl-test', expiresAtS: 1_380 }])).toBe(false);
    clock.s = 1_101;
    expect(await guard.claim([{ signatureId: 'lazy-ttl-test', expiresAtS: 1_431 }])).toBe(true);
  });

  test('DynamoDB unreachable: the claim fails closed, and the decision is dependency_unavailable (never allowed)', async () => {
    const dead = new DynamoDBClient({ ...dynamoDbLocalClientConfig(`http://127.0.0.1:${await findFreePort()}`), maxAttempts: 1 });
    const guard = new DynamoReplayGuard(toDocumentClient(dead), tableName);
    await expect(guard.claim([{ signatureId: 'unreachable', expiresAtS: nowS() + 60 }])).rejects.toMatchObject({ code: 'dependency_unavailable' });

    const call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/echo?dead=1` };
    const { headers } = sign(call, partner);
    const adapted = adaptHttpApiEvent(httpApiAuthorizerEvent(call, { headers }));
    const decision = await authorize(
      { request: adapted.request, targetUriCandidates: adapted.targetUriCandidates, operationPath: adapted.apiPath },
      { policy: defaultVerifyPolicy(), directory: new ClientDirectory(store), roles: compileRoleCatalogue(ROLE_CATALOGUE), replay: guard },
    );
    expect(decision.allowed).toBe(false);
    expect(decision.allowed ? undefined : (decision.error as SignetError).code).toBe('dependency_unavailable');
    dead.destroy();
  });
});
