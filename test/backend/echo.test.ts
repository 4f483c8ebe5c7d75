/**
 * The demo backend behind `/api/echo`, end to end: a client signs a POST with the core signer,
 * the HTTP API authorizer handler (on DynamoDB Local) allows it, API Gateway hands the backend a
 * v2 proxy event (the real capture) carrying the authorizer's context and the body as received;
 * the echo handler checks the body against the signed digest and echoes the request.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { Logger } from '@aws-lambda-powertools/logger';
import { createEcho } from '../../lambda/backend/echo';
import { SERVICE_NAMES } from '../../lambda/observability';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import {
  AuthorizerModule,
  Call,
  HTTP_API_HOST,
  REST_API_HOST,
  Signer,
  authorizerEnv,
  fixture,
  httpApiAuthorizerEvent,
  loadAuthorizer,
  registerClient,
  restAuthorizerEvent,
  sign,
} from '../authorizer/support';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

const logger = new Logger({ serviceName: SERVICE_NAMES.echo, logLevel: 'SILENT' });
const echo = createEcho({ logger });
let ddb: TestDynamoDb;
let authorizer: AuthorizerModule;
let partner: Signer;

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  const tableName = await ddb.createTable();
  partner = await registerClient(new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS }), { name: 'Echo partner' });
  authorizer = loadAuthorizer(authorizerEnv(tableName, ddb.endpoint));
});

afterAll(async () => {
  await ddb?.stop();
});

/**
 * Runs `call` through the authorizer, then builds the proxy event API Gateway would send the
 * backend (from the v2 capture), with `received` as the body that actually arrived.
 */
async function throughGateway(call: Call, received: { body?: string; isBase64Encoded?: boolean } = { body: call.body }): Promise<APIGatewayProxyEventV2> {
  const { headers } = sign(call, partner);
  const decision = await authorizer.httpApiHandler(httpApiAuthorizerEvent(call, { headers }));
  expect(decision.isAuthorized).toBe(true);
  const url = new URL(call.url);
  const event = fixture('http-api-proxy-v2-encoding.capture.json');
  event.rawPath = decodeURIComponent(url.pathname);
  event.rawQueryString = url.search.slice(1);
  event.routeKey = '$default';
  event.headers = { ...event.headers, host: url.host, ...headers };
  event.requestContext.domainName = url.host;
  event.requestContext.http.method = call.method;
  event.requestContext.http.path = event.rawPath;
  event.requestContext.authorizer = { lambda: decision.context };
  event.body = received.body;
  event.isBase64Encoded = received.isBase64Encoded ?? false;
  if (received.body === undefined) delete event.body;
  return event as APIGatewayProxyEventV2;
}

async function callEcho(event: APIGatewayProxyEventV2) {
  const response = (await echo(event, {})) as APIGatewayProxyStructuredResultV2;
  return { status: response.statusCode, body: JSON.parse(String(response.body)) as Record<string, any> };
}

const url = `https://${HTTP_API_HOST}/api/echo?x=1&x=2`;

test('the body as signed passes; the backend sees method, path, query, body and the authorizer context', async () => {
  const body = '{"message":"hello from the public internet","unicode":"lambda-λ"}';
  const call = { method: 'POST', url, body };
  const { status, body: echoed } = await callEcho(await throughGateway(call));
  expect(status).toBe(200);
  expect(echoed).toEqual({
    method: 'POST',
    path: '/api/echo',
    query: 'x=1&x=2',
    body,
    authorizer: {
      clientId: partner.clientId,
      roles: 'partner',
      keyFingerprint: partner.key.fingerprint,
      contentDigest: expect.stringMatching(/^sha-256=:/),
      signetProfile: 'signet',
      signetRequestBound: 'true',
    },
  });
});

test('a body changed after signing (the authorizer cannot see it) is refused by the backend: 400 digest_mismatch', async () => {
  const call = { method: 'POST', url, body: '{"amount":10}' };
  const event = await throughGateway(call, { body: '{"amount":10000}' });
  const logged = jest.spyOn(logger, 'info');
  const { status, body } = await callEcho(event);
  expect(status).toBe(400);
  expect(body).toEqual({ error: 'digest_mismatch', message: expect.any(String), requestId: event.requestContext.requestId });
  // The refusal is logged through Powertools with who and which request, never the body.
  expect(logged.mock.calls).toEqual([['refused: the body does not match its signature', { reason: 'digest_mismatch', clientId: partner.clientId, requestId: event.requestContext.requestId }]]);
  logged.mockRestore();
});

test('a body API Gateway delivered base64-encoded passes on its decoded bytes', async () => {
  const body = '{"binary":"\u00ff\u00fe","text":"ok"}';
  const call = { method: 'POST', url, body };
  const { status, body: echoed } = await callEcho(await throughGateway(call, { body: Buffer.from(body).toString('base64'), isBase64Encoded: true }));
  expect(status).toBe(200);
  expect(echoed.body).toBe(body);
});

test('a GET without a body passes with an empty contentDigest', async () => {
  const { status, body } = await callEcho(await throughGateway({ method: 'GET', url }));
  expect(status).toBe(200);
  expect(body.authorizer.contentDigest).toBe('');
  expect(body.body).toBe('');
});

test('REST: the Allow context reaches a v1 proxy event and the body check passes / refuses', async () => {
  const body = '{"rest":true}';
  const call = { method: 'POST', url: `https://${REST_API_HOST}/prod/api/echo`, body };
  const { headers } = sign(call, partner);
  const allow = await authorizer.restApiHandler(restAuthorizerEvent(call, { headers }));
  const event = fixture('rest-api-proxy-v1-lambda-authorizer.capture.json');
  event.httpMethod = 'POST';
  event.path = '/api/echo';
  event.requestContext.authorizer = { principalId: allow.principalId, integrationLatency: 3, ...allow.context };
  event.body = body;
  const ok = (await echo(event, {})) as { statusCode: number; body: string };
  expect(ok.statusCode).toBe(200);
  expect(JSON.parse(ok.body)).toMatchObject({ method: 'POST', path: '/api/echo', body, authorizer: { clientId: partner.clientId } });
  const refused = (await echo({ ...event, body: '{"rest":false}' }, {})) as { statusCode: number; body: string };
  expect(refused.statusCode).toBe(400);
  expect(JSON.parse(refused.body).error).toBe('digest_mismatch');
});
