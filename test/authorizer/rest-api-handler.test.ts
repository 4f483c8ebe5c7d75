/**
 * The REST API authorizer handler (REQUEST authorizer, IAM policy) end to end: events built from
 * the real capture (client-case headers, multiValueHeaders, decoded query maps, stage in
 * requestContext.path), signed by the core signer for clients registered in DynamoDB Local.
 * A 401 is a thrown `Error('Unauthorized')`, a 403 a Deny policy carrying signetError and
 * signetMessage, a 5xx any other thrown error.
 */
import { ENV } from '../../lambda/config-env';
import type { DynamoClientStore } from '../../lambda/store/client-store';
import { newClientId } from '../../lambda/store/client-id';
import { findFreePort } from '../../local/dynamodb-local';
import type { TestDynamoDb } from '../support/dynamodb';
import {
  AuthorizerModule,
  Call,
  Outcome,
  REST_API_HOST,
  RestEventOptions,
  Signer,
  authorizerEnv,
  fixture,
  loadAuthorizer,
  nowS,
  outcomeOf,
  restAuthorizerEvent,
  sign,
  expectRecorded,
  startHandlerTestBed,
} from './support';
import { nextTestKey } from '../support/test-keys';

let ddb: TestDynamoDb;
let tableName: string;
let store: DynamoClientStore;
let authorizer: AuthorizerModule;
let partner: Signer;
let reader: Signer;
let office: Signer;
let ipv6Partner: Signer;
let disabled: Signer;
let retired: Signer;

const PROD = `https://${REST_API_HOST}/prod`;

beforeAll(async () => {
  ({ ddb, tableName, store, clients: { partner, reader, office, ipv6Partner, disabled, retired } } = await startHandlerTestBed());
  authorizer = loadAuthorizer(authorizerEnv(tableName, ddb.endpoint));
});

afterAll(async () => {
  await ddb?.stop();
});

type RestResult = Awaited<ReturnType<AuthorizerModule['restApiHandler']>>;

async function decide(
  call: Call,
  signer: Signer,
  options: Omit<RestEventOptions, 'headers'> & { edit?: (headers: Record<string, string>) => void; handler?: AuthorizerModule } = {},
): Promise<Outcome<RestResult>> {
  const { headers } = sign(call, signer);
  options.edit?.(headers);
  const event = restAuthorizerEvent(call, { ...options, headers });
  return outcomeOf((options.handler ?? authorizer).restApiHandler(event));
}

/** What API Gateway makes of the outcome: allowed, 401, 403 <code>, or 500. */
function verdictOf(outcome: Outcome<RestResult>): string {
  if (!outcome.ok) return outcome.error.message === 'Unauthorized' ? '401' : `500 ${outcome.error.message}`;
  const effect = outcome.value.policyDocument.Statement[0].Effect;
  return effect === 'Allow' ? 'allowed' : `403 ${String((outcome.value.context as { signetError?: string } | undefined)?.signetError)}`;
}

describe('allowed requests', () => {
  test('POST with a body through the stage: Allow for the stage and method, principalId and context', async () => {
    const call = { method: 'POST', url: `${PROD}/api/echo`, body: '{"amount":10}' };
    const { headers } = sign(call, partner);
    const event = restAuthorizerEvent(call, { headers });
    expect(event.requestContext.path).toBe('/prod/api/echo');
    expect(event.path).toBe('/api/echo');
    const result = await authorizer.restApiHandler(event);
    expect(result).toMatchObject({
      principalId: partner.clientId,
      policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn.replace(/\/api\/echo$/, '/*') }] },
      context: { clientId: partner.clientId, roles: 'partner', keyFingerprint: partner.key.fingerprint, contentDigest: headers['content-digest'] },
    });
    expect(result.policyDocument.Statement).toHaveLength(1);
    // REST context values may only be strings, numbers or booleans.
    for (const value of Object.values(result.context ?? {})) expect(typeof value).toBe('string');
  });

  test('a path longer than an IAM policy resource may be is allowed with a policy API Gateway accepts', async () => {
    const call = { method: 'GET', url: `${PROD}/api/${'order-'.repeat(100)}` };
    const { headers } = sign(call, reader);
    const event = restAuthorizerEvent(call, { headers });
    expect(event.methodArn.length).toBeGreaterThan(600);
    const result = await authorizer.restApiHandler(event);
    const statement = result.policyDocument.Statement[0] as { Effect: string; Resource: string };
    expect(statement).toEqual({ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: 'arn:aws:execute-api:eu-west-1:123456789012:puhdx84jy9/prod/GET/*' });
    expect(statement.Resource.length).toBeLessThanOrEqual(512);
  });

  test('multiValueHeaders with repeated fields and multiValue query maps with repeated keys and percent-encoding', async () => {
    const query = new URLSearchParams([['tag', 'a b'], ['tag', 'c+d'], ['redirect', 'https://example.com/a/b']]).toString();
    expect(query).toBe('tag=a+b&tag=c%2Bd&redirect=https%3A%2F%2Fexample.com%2Fa%2Fb');
    const call = { method: 'GET', url: `${PROD}/api/echo?${query}` };
    const { headers } = sign(call, reader);
    const event = restAuthorizerEvent(call, { headers, repeatedHeaders: { Accept: ['application/json', 'text/plain'], 'X-Request-Tag': ['one', 'two'] } });
    expect(event.multiValueQueryStringParameters).toEqual({ tag: ['a b', 'c+d'], redirect: ['https://example.com/a/b'] });
    expect(event.queryStringParameters).toEqual({ tag: 'c+d', redirect: 'https://example.com/a/b' });
    expect(event.headers?.Accept).toBe('text/plain');
    expect(verdictOf(await outcomeOf(authorizer.restApiHandler(event)))).toBe('allowed');
  });

  test('query keys delivered in another order than signed (API Gateway does not keep the order)', async () => {
    const call = { method: 'GET', url: `${PROD}/api/echo?q=caf%C3%A9%20%26%20co&n=1&n=2` };
    expect(verdictOf(await decide(call, reader, { queryOrder: ['n', 'q'] }))).toBe('allowed');
  });

  test('a changed query value does not verify', async () => {
    const call = { method: 'GET', url: `${PROD}/api/echo?amount=10` };
    const { headers } = sign(call, reader);
    const event = restAuthorizerEvent(call, { headers });
    event.multiValueQueryStringParameters = { amount: ['1000'] };
    event.queryStringParameters = { amount: '1000' };
    expect(verdictOf(await outcomeOf(authorizer.restApiHandler(event)))).toBe('401');
    await expectRecorded(store, reader.clientId, 'signature_mismatch');
  });

  test('IPv6 caller inside the client whitelist', async () => {
    expect(verdictOf(await decide({ method: 'GET', url: `${PROD}/api/echo` }, ipv6Partner, { sourceIp: '2001:db8:85a3::1' }))).toBe('allowed');
  });

  test('custom domain with a base-path mapping: verifies with and without SIGNET_PUBLIC_BASE_URL (REST keeps the mapping in path)', async () => {
    const call = { method: 'POST', url: 'https://api.example.com/v1/api/echo?x=1', body: '{"ok":true}' };
    const behindDomain = loadAuthorizer(authorizerEnv(tableName, ddb.endpoint, { [ENV.publicBaseUrl]: 'https://api.example.com/v1' }));
    expect(verdictOf(await decide(call, partner, { basePath: 'v1', handler: behindDomain }))).toBe('allowed');
    expect(verdictOf(await decide(call, partner, { basePath: 'v1' }))).toBe('allowed');
  });
});

describe('refusals: 401 thrown, 403 Deny policy, 500 thrown', () => {
  const get = { method: 'GET', url: `${PROD}/api/echo` };
  const post = { method: 'POST', url: `${PROD}/api/echo`, body: '{"amount":10}' };

  /** [code, run, the client it is recorded for (null: no registered client is named)] */
  const unauthorized: [string, () => Promise<Outcome<RestResult>>, (() => Signer) | null][] = [
    ['missing_signature', () => decide(get, partner, { edit: (h) => { delete h.signature; delete h['signature-input']; } }), null],
    ['malformed_signature_input', () => decide(get, partner, { edit: (h) => { h['signature-input'] = 'sig=("@method" "@target-uri";created=1'; } }), null],
    ['unsupported_algorithm', () => decide(get, partner, { edit: (h) => { h['signature-input'] = h['signature-input'].replace('rsa-v1_5-sha256', 'hmac-sha256'); } }), () => partner],
    ['algorithm_mismatch', () => decide(get, partner, { edit: (h) => { h['signature-input'] = h['signature-input'].replace('rsa-v1_5-sha256', 'rsa-pss-sha512'); } }), () => partner],
    ['unknown_client', () => decide({ ...get, keyId: newClientId() }, partner), null],
    ['client_disabled', () => decide(get, disabled), () => disabled],
    ['signature_mismatch', () => decide(get, { clientId: partner.clientId, key: nextTestKey() }), () => partner],
    ['expired', () => decide({ ...get, created: nowS() - 3_600 }, partner), () => partner],
    ['clock_skew', () => decide({ ...get, created: nowS() + 600 }, partner), () => partner],
    ['digest_required', () => decide(get, partner, { edit: (h) => { h['content-length'] = '13'; } }), () => partner],
    ['missing_date', () => decide(get, partner, { edit: (h) => { delete h.date; } }), () => partner],
    ['key_expired', () => decide(get, retired), () => retired],
  ];

  test.each(unauthorized)('%s: throws exactly Error("Unauthorized") (401)', async (code, run, recordedFor) => {
    const outcome = await run();
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toBeInstanceOf(Error);
    expect(outcome.error.message).toBe('Unauthorized');
    if (recordedFor !== null) await expectRecorded(store, recordedFor().clientId, code);
  });

  const forbidden: [string, () => Promise<Outcome<RestResult>>, () => Signer][] = [
    ['ip_not_allowed', () => decide(get, office), () => office],
    ['ip_not_allowed', () => decide(get, office, { sourceIp: '2001:db8:2::1' }), () => office],
    ['role_forbidden', () => decide(post, reader), () => reader],
    ['role_forbidden', () => decide({ method: 'DELETE', url: `${PROD}/registry/clients/x` }, partner), () => partner],
  ];

  test.each(forbidden)('%s: Deny policy for the methodArn with signetError and signetMessage (403)', async (code, run, signer) => {
    const outcome = await run();
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const { principalId, policyDocument, context } = outcome.value;
    expect(principalId).toBe(signer().clientId);
    expect(policyDocument.Statement).toEqual([{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: expect.stringMatching(/^arn:aws:execute-api:eu-west-1:123456789012:puhdx84jy9\/prod\/[A-Z]+\//) }]);
    expect(context).toEqual({ signetError: code, signetMessage: expect.stringMatching(/^[^"\\\u0000-\u001f]{20,300}$/) });
    await expectRecorded(store, signer().clientId, code);
  });

  test('an event whose path has a ".." segment is a Deny (role_forbidden), not a crash', async () => {
    const call = { method: 'GET', url: `${PROD}/api/echo` };
    const { headers } = sign(call, partner);
    const event = restAuthorizerEvent(call, { headers });
    event.path = '/api/%2e%2e/registry/clients';
    event.requestContext.path = `/prod${event.path}`;
    expect(verdictOf(await outcomeOf(authorizer.restApiHandler(event)))).toBe('403 role_forbidden');
  });

  test("a path with an encoded '/' is a Deny (role_forbidden): decoded, the role check would see two segments where the gateway routed one", async () => {
    // Signed as sent: the route `/{id}` gets `api%2Fecho`, which a role for `GET /api/*` must not reach.
    const call = { method: 'GET', url: `${PROD}/api%2Fecho` };
    const { headers } = sign(call, partner);
    const event = restAuthorizerEvent(call, { headers });
    event.resource = '/{id}';
    event.pathParameters = { id: 'api%2Fecho' };
    event.path = '/api%2Fecho';
    event.requestContext.path = `/prod${event.path}`;
    expect(verdictOf(await outcomeOf(authorizer.restApiHandler(event)))).toBe('403 role_forbidden');
  });

  test('unsigned or unusable events are refused, never a crash: TOKEN event and the docs example (no Host) → Deny invalid_request, the capture → 401', async () => {
    const token = fixture('rest-api-token-authorizer-v1.capture.json');
    expect(verdictOf(await outcomeOf(authorizer.restApiHandler(token)))).toBe('403 invalid_request');
    expect(verdictOf(await outcomeOf(authorizer.restApiHandler(fixture('rest-api-request-authorizer-v1.docs.json'))))).toBe('403 invalid_request');
    expect(verdictOf(await outcomeOf(authorizer.restApiHandler(fixture('rest-api-request-authorizer-v1.capture.json'))))).toBe('401');
  });

  test('dependency_unavailable: DynamoDB unreachable, nothing cached → thrown error other than Unauthorized (500)', async () => {
    const deadPort = await findFreePort();
    const cut = loadAuthorizer(authorizerEnv(tableName, `http://127.0.0.1:${deadPort}`));
    const outcome = await decide(get, partner, { handler: cut });
    expect(verdictOf(outcome)).toBe('500 Signet authorizer failed closed (dependency_unavailable).');
  });
});
