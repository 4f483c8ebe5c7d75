/**
 * The HTTP API authorizer handler (payload 2.0, simple responses) end to end: events built from
 * the real capture, signed by the core signer for clients registered in DynamoDB Local, decided
 * by the handler exactly as Lambda would call it. Every refusal code the handler can produce,
 * the context handed to the backend, and the failures recorded per client.
 */
import { ENV } from '../../lambda/config-env';
import type { DynamoClientStore } from '../../lambda/store/client-store';
import { newClientId } from '../../lambda/store/client-id';
import { findFreePort } from '../../local/dynamodb-local';
import type { TestDynamoDb } from '../support/dynamodb';
import {
  AuthorizerModule,
  Call,
  HTTP_API_HOST,
  Signer,
  authorizerEnv,
  fixture,
  httpApiAuthorizerEvent,
  loadAuthorizer,
  loadAuthorizerEntry,
  nowS,
  outcomeOf,
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

const ECHO = `https://${HTTP_API_HOST}/api/echo`;

beforeAll(async () => {
  ({ ddb, tableName, store, clients: { partner, reader, office, ipv6Partner, disabled, retired } } = await startHandlerTestBed());
  // Every refusal recorded, so each case below can read its own record (the per-second limit is shown in logs.test.ts).
  authorizer = loadAuthorizer(authorizerEnv(tableName, ddb.endpoint, { [ENV.authFailureRecordIntervalMs]: '0' }));
});

afterAll(async () => {
  await ddb?.stop();
});

/** Signs `call` for `signer`, builds the HTTP API event (optionally changed) and runs the handler. */
async function decide(
  call: Call,
  signer: Signer,
  options: { stage?: string; sourceIp?: string; mappingKey?: string; edit?: (headers: Record<string, string>) => void; handler?: Pick<AuthorizerModule, 'httpApiHandler'> } = {},
) {
  const { headers } = sign(call, signer);
  options.edit?.(headers);
  const event = httpApiAuthorizerEvent(call, { headers, stage: options.stage, sourceIp: options.sourceIp, mappingKey: options.mappingKey });
  return (options.handler ?? authorizer).httpApiHandler(event);
}

/** The refusal code of a simple response (or 'allowed'). */
function codeOf(response: Awaited<ReturnType<AuthorizerModule['httpApiHandler']>>): string {
  if (response.isAuthorized) return 'allowed';
  return String((response.context as { signetError?: string } | undefined)?.signetError);
}

describe('allowed requests and the context passed to the backend', () => {
  test('$default stage, POST with a JSON body: clientId, roles, key fingerprint and the signed Content-Digest', async () => {
    const call = { method: 'POST', url: `${ECHO}?b=2&a=1&a=3`, body: '{"amount":10,"currency":"EUR"}' };
    const { headers } = sign(call, partner);
    const response = await authorizer.httpApiHandler(httpApiAuthorizerEvent(call, { headers }));
    expect(response).toMatchObject({
      isAuthorized: true,
      context: {
        clientId: partner.clientId,
        roles: 'partner',
        keyFingerprint: partner.key.fingerprint,
        contentDigest: headers['content-digest'],
      },
    });
    expect(headers['content-digest']).toMatch(/^sha-256=:[A-Za-z0-9+/]{43}=:$/);
  });

  test('GET without a body: the context carries an empty contentDigest', async () => {
    const response = await decide({ method: 'GET', url: ECHO }, reader);
    expect(response).toMatchObject({
      isAuthorized: true,
      context: { clientId: reader.clientId, roles: 'reader', keyFingerprint: reader.key.fingerprint, contentDigest: '' },
    });
  });

  test('named stage on the execute-api domain: rawPath carries /prod, the URL verifies and the role sees /api/echo', async () => {
    const call = { method: 'GET', url: `https://${HTTP_API_HOST}/prod/api/echo?x=1` };
    const { headers } = sign(call, reader);
    const event = httpApiAuthorizerEvent(call, { headers, stage: 'prod' });
    expect(event.rawPath).toBe('/prod/api/echo');
    expect(codeOf(await authorizer.httpApiHandler(event))).toBe('allowed');
  });

  test('query strings with repeated keys and percent-encoding are verified exactly as sent', async () => {
    const query = 'tag=a%20b&tag=c%2Bd&redirect=https%3A%2F%2Fexample.com%2Fa%2Fb&literalPlus=a+b&empty=&q=caf%C3%A9';
    const call = { method: 'GET', url: `${ECHO}?${query}` };
    const { headers } = sign(call, reader);
    const event = httpApiAuthorizerEvent(call, { headers });
    expect(event.rawQueryString).toBe(query);
    expect(codeOf(await authorizer.httpApiHandler(event))).toBe('allowed');

    // The same parameters in another order, or decoded differently, are another URL.
    const reordered = { ...event, rawQueryString: 'tag=c%2Bd&tag=a%20b&redirect=https%3A%2F%2Fexample.com%2Fa%2Fb&literalPlus=a+b&empty=&q=caf%C3%A9' };
    expect(codeOf(await authorizer.httpApiHandler(reordered))).toBe('signature_mismatch');
    const respelled = { ...event, rawQueryString: query.replace('a%20b', 'a+b') };
    expect(codeOf(await authorizer.httpApiHandler(respelled))).toBe('signature_mismatch');
  });

  test('a percent-encoded path (decoded in rawPath by API Gateway) is re-encoded and verifies', async () => {
    const call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/caf%C3%A9%20cr%C3%A8me` };
    const { headers } = sign(call, reader);
    const event = httpApiAuthorizerEvent(call, { headers });
    expect(event.rawPath).toBe('/api/café crème');
    expect(codeOf(await authorizer.httpApiHandler(event))).toBe('allowed');
  });

  test('IPv6 caller inside the client whitelist', async () => {
    const response = await decide({ method: 'GET', url: ECHO }, ipv6Partner, { sourceIp: '2001:db8:85a3::8a2e:370:7334' });
    expect(codeOf(response)).toBe('allowed');
  });

  test('IPv6 and IPv4 callers inside a mixed whitelist', async () => {
    expect(codeOf(await decide({ method: 'GET', url: ECHO }, office, { sourceIp: '2001:db8:1:ffff::1' }))).toBe('allowed');
    expect(codeOf(await decide({ method: 'GET', url: ECHO }, office, { sourceIp: '10.20.30.40' }))).toBe('allowed');
  });

  test('header names are matched case-insensitively', async () => {
    const call = { method: 'GET', url: ECHO };
    const { headers } = sign(call, reader);
    const mixed = { 'Signature-Input': headers['signature-input'], SIGNATURE: headers.signature, Date: headers.date };
    const event = httpApiAuthorizerEvent(call, { headers: mixed });
    expect(codeOf(await authorizer.httpApiHandler(event))).toBe('allowed');
  });
});

describe('custom domain', () => {
  let behindDomain: AuthorizerModule;
  beforeAll(() => {
    behindDomain = loadAuthorizer(authorizerEnv(tableName, ddb.endpoint, { [ENV.publicBaseUrl]: 'https://api.example.com/v1' }));
  });

  const call = { method: 'POST', url: 'https://api.example.com/v1/api/echo?x=1&x=2', body: '{"ok":true}' };

  test('with SIGNET_PUBLIC_BASE_URL, a call through the mapping key verifies (named stage in rawPath)', async () => {
    const { headers } = sign(call, partner);
    const event = httpApiAuthorizerEvent(call, { headers, stage: 'live', mappingKey: 'v1' });
    expect(event.rawPath).toBe('/live/api/echo');
    const response = await behindDomain.httpApiHandler(event);
    expect(codeOf(response)).toBe('allowed');
  });

  test('with SIGNET_PUBLIC_BASE_URL, a call through the mapping key verifies ($default stage)', async () => {
    expect(codeOf(await decide(call, partner, { mappingKey: 'v1', handler: behindDomain }))).toBe('allowed');
  });

  test('with SIGNET_PUBLIC_BASE_URL, a call whose rawPath carries the mapping key verifies too, on the path without it', async () => {
    const { headers } = sign(call, partner);
    const event = httpApiAuthorizerEvent(call, { headers }); // no key removed: rawPath is the path as called
    expect(event.rawPath).toBe('/v1/api/echo');
    const response = await behindDomain.httpApiHandler(event);
    expect(codeOf(response)).toBe('allowed'); // the partner's role allows POST /api/*, not /v1/api/*
  });

  test('a base URL the adapters cannot use fails the cold start (not every request)', () => {
    for (const bad of ['ftp://api.example.com/v1', 'https://user:secret@api.example.com/v1']) {
      expect(() => loadAuthorizer(authorizerEnv(tableName, ddb.endpoint, { [ENV.publicBaseUrl]: bad }))).toThrow(/publicBaseUrl/);
    }
  });

  test('without it the mapping key cannot be rebuilt: signature_mismatch (documented)', async () => {
    expect(codeOf(await decide(call, partner, { mappingKey: 'v1', stage: 'live' }))).toBe('signature_mismatch');
  });
});

describe('every refusal code, through the handler', () => {
  const get = { method: 'GET', url: ECHO };
  const post = { method: 'POST', url: ECHO, body: '{"amount":10}' };

  /** [code, request, the client it is recorded for (null: no registered client is named)] */
  type Case = [code: string, run: () => Promise<Awaited<ReturnType<AuthorizerModule['httpApiHandler']>>>, recordedFor: (() => Signer) | null];
  const cases: Case[] = [
    ['missing_signature', () => decide(get, partner, { edit: (h) => { delete h['signature']; delete h['signature-input']; } }), null],
    ['malformed_signature_input', () => decide(get, partner, { edit: (h) => { h['signature-input'] = 'sig=("@method" "@target-uri";created=1'; } }), null],
    ['unsupported_algorithm', () => decide(get, partner, { edit: (h) => { h['signature-input'] = h['signature-input'].replace('rsa-v1_5-sha256', 'hmac-sha256'); } }), () => partner],
    ['unknown_client', () => decide({ ...get, keyId: newClientId() }, partner), null],
    ['client_disabled', () => decide(get, disabled), () => disabled],
    ['signature_mismatch', () => decide(get, { clientId: partner.clientId, key: nextTestKey() }), () => partner],
    ['expired', () => decide({ ...get, created: nowS() - 3_600 }, partner), () => partner],
    ['clock_skew', () => decide({ ...get, created: nowS() + 600 }, partner), () => partner],
    ['digest_required', () => decide(get, partner, { edit: (h) => { h['content-length'] = '13'; } }), () => partner],
    ['missing_date', () => decide(get, partner, { edit: (h) => { delete h.date; } }), () => partner],
    ['key_expired', () => decide(get, retired), () => retired],
    ['ip_not_allowed', () => decide(get, office, { sourceIp: '15.248.3.126' }), () => office],
    ['ip_not_allowed', () => decide(get, office, { sourceIp: '2001:db8:2::1' }), () => office],
    ['role_forbidden', () => decide(post, reader), () => reader],
    ['role_forbidden', () => decide({ method: 'GET', url: `https://${HTTP_API_HOST}/registry/clients` }, partner), () => partner],
  ];

  test.each(cases)('%s', async (code, run, recordedFor) => {
    const response = await run();
    expect(response.isAuthorized).toBe(false);
    expect(codeOf(response)).toBe(code);
    const message = (response.context as { signetMessage: string }).signetMessage;
    expect(message.length).toBeGreaterThan(20);
    // The partner can read why (GET /registry/clients/{clientId}/auth-failures reads these).
    if (recordedFor !== null) await expectRecorded(store, recordedFor().clientId, code);
  });

  test('a body sent with a digest for other bytes passes the authorizer: the backend catches it (see test/backend)', async () => {
    // The authorizer never sees the body; it only requires the digest to be signed.
    const response = await decide(post, partner, { edit: (h) => { h['content-length'] = '99'; } });
    expect(codeOf(response)).toBe('allowed');
  });

  test('the unsigned captures, and a payload 1.0 event sent to the 2.0 handler, are refused with a code, never a crash', async () => {
    expect(codeOf(await authorizer.httpApiHandler(fixture('http-api-authorizer-v2.capture.json')))).toBe('missing_signature');
    expect(codeOf(await authorizer.httpApiHandler(fixture('http-api-authorizer-v2.docs.json')))).toBe('missing_signature');
    expect(codeOf(await authorizer.httpApiHandler(fixture('http-api-authorizer-v1-format.docs.json')))).toBe('invalid_request');
  });

  test('dependency_unavailable: with DynamoDB unreachable an unknown client is never allowed; the handler throws (500)', async () => {
    const deadPort = await findFreePort();
    const cut = loadAuthorizer(authorizerEnv(tableName, `http://127.0.0.1:${deadPort}`));
    const outcome = await outcomeOf(decide(get, partner, { handler: cut }));
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.name).toBe('AuthorizerFailure');
    expect(outcome.error.message).toContain('dependency_unavailable');
  });
});

describe('the Lambda entry (lambda/handlers/authorizer.ts)', () => {
  test('builds itself from the environment at a cold start and decides like the factory', async () => {
    const entry = loadAuthorizerEntry({ ...authorizerEnv(tableName, ddb.endpoint), POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' });
    const call: Call = { method: 'GET', url: ECHO, created: nowS() };
    expect(codeOf(await decide(call, partner, { handler: entry }))).toBe('allowed');
    expect(codeOf(await decide(call, reader, { handler: entry, edit: (h) => (h.date = new Date(Date.now() - 3_600_000).toUTCString()) }))).toBe('clock_skew');
  });

  test('a configuration it cannot use fails the cold start with the reason, not every request', () => {
    expect(() => loadAuthorizerEntry({ ...authorizerEnv(tableName, ddb.endpoint), [ENV.publicBaseUrl]: 'https://user:pw@api.example.com/v1' })).toThrow(
      /publicBaseUrl must not carry user information/,
    );
  });
});
