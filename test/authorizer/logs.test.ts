/**
 * What the authorizer writes: everything the handlers print over a run of allowed and refused
 * requests (both API types, a fail-closed outage included) is captured from stdout/stderr.
 * Every line must be Powertools JSON; decisions carry clientId, reason and latency; and no line
 * may contain a signature value, a Signature / Signature-Input header, a signature base, or any
 * private or public key material actually used in the run. The main run logs every allowed
 * request (SIGNET_ALLOWED_LOG_SAMPLE=1); the sample and the batched metrics are checked below
 * with a clock of their own.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { createAuthorizer } from '../../lambda/authorizer/create-authorizer';
import { flushingMetrics } from '../../lambda/handlers/entry';
import { loadConfig } from '../../lambda/config';
import { ENV } from '../../lambda/config-env';
import { type PrivateKeyInfo } from '../../lambda/core/keys';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { newClientId } from '../../lambda/store/client-id';
import { AUTHORIZER_METRICS_INTERVAL_MS, METRICS_NAMESPACE, SERVICE_NAMES } from '../../lambda/observability';
import { findFreePort } from '../../local/dynamodb-local';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import {
  AuthorizerModule,
  Call,
  HTTP_API_HOST,
  REST_API_HOST,
  Signed,
  Signer,
  authorizerEnv,
  captureOutput,
  httpApiAuthorizerEvent,
  loadAuthorizer,
  nowS,
  outcomeOf,
  registerClient,
  restAuthorizerEvent,
  sign,
} from './support';
import { nextTestKey } from '../support/test-keys';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

let ddb: TestDynamoDb;
let logs: Record<string, unknown>[];
let rawLines: string[];
const signedRequests: Signed[] = [];
const keysUsed: PrivateKeyInfo[] = [];
let partner: Signer;
let reader: Signer;
let office: Signer;
let unknownId: string;
let store: DynamoClientStore;
let tableName: string;

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  tableName = await ddb.createTable();
  store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  partner = await registerClient(store, { name: 'Partner', roles: ['partner'] });
  reader = await registerClient(store, { name: 'Reader', roles: ['reader'] });
  office = await registerClient(store, { name: 'Office', networkWhitelist: ['10.0.0.0/8'] });
  const stranger = nextTestKey();
  keysUsed.push(partner.key, reader.key, office.key, stranger);
  unknownId = newClientId();

  // A long recording interval makes the collapse of a repeated refusal deterministic, however slow the machine.
  const env = authorizerEnv(tableName, ddb.endpoint, { [ENV.authFailureRecordIntervalMs]: '600000', [ENV.allowedLogSample]: '1' });
  const authorizer = loadAuthorizer(env, { loud: true });
  const cut = loadAuthorizer(authorizerEnv(tableName, `http://127.0.0.1:${await findFreePort()}`, { [ENV.allowedLogSample]: '1' }), { loud: true });

  const http = async (handler: AuthorizerModule, call: Call, signer: Signer, edit?: (h: Record<string, string>) => void, sourceIp?: string) => {
    const signed = sign(call, signer);
    signedRequests.push({ headers: { ...signed.headers }, base: signed.base });
    edit?.(signed.headers);
    return outcomeOf(handler.httpApiHandler(httpApiAuthorizerEvent(call, { headers: signed.headers, sourceIp })));
  };
  const rest = async (call: Call, signer: Signer, edit?: (h: Record<string, string>) => void) => {
    const signed = sign(call, signer);
    signedRequests.push({ headers: { ...signed.headers }, base: signed.base });
    edit?.(signed.headers);
    return outcomeOf(authorizer.restApiHandler(restAuthorizerEvent(call, { headers: signed.headers })));
  };
  const echo = `https://${HTTP_API_HOST}/api/echo?q=a%20b`;
  const restEcho = `https://${REST_API_HOST}/prod/api/echo?q=a+b`;
  const body = '{"amount":10,"secret":"not really"}';

  const run = await captureOutput(async () => {
    await http(authorizer, { method: 'POST', url: echo, body }, partner);
    await http(authorizer, { method: 'GET', url: echo }, reader);
    await http(authorizer, { method: 'GET', url: echo }, { clientId: partner.clientId, key: stranger });
    await http(authorizer, { method: 'GET', url: echo }, { clientId: unknownId, key: stranger });
    await http(authorizer, { method: 'GET', url: echo, created: nowS() - 3_600 }, partner);
    await http(authorizer, { method: 'GET', url: echo }, partner, (h) => { delete h.date; });
    await http(authorizer, { method: 'GET', url: echo }, partner, (h) => { h.signature = h.signature.replace(/^sig=:./, 'sig=:*'); });
    await http(authorizer, { method: 'GET', url: echo }, office, undefined, '192.0.2.1');
    await http(authorizer, { method: 'POST', url: echo, body }, reader);
    await http(cut, { method: 'GET', url: echo }, partner);
    await rest({ method: 'POST', url: restEcho, body }, partner);
    await rest({ method: 'GET', url: restEcho }, { clientId: reader.clientId, key: stranger });
    await rest({ method: 'DELETE', url: restEcho }, reader);
  });
  rawLines = run.lines;
  logs = rawLines.map((line) => JSON.parse(line) as Record<string, unknown>);
});

afterAll(async () => {
  await ddb?.stop();
});

function decisions(message: string): Record<string, unknown>[] {
  return logs.filter((log) => log.message === message);
}

test('every line written is JSON (Powertools logs and metrics)', () => {
  expect(rawLines.length).toBeGreaterThan(13);
  for (const line of rawLines) expect(() => JSON.parse(line)).not.toThrow();
});

test('a refusal line stays short whatever the request sends: a 9 KB path is cut to its first 256 characters', async () => {
  const authorizer = loadAuthorizer(authorizerEnv(tableName, ddb.endpoint), { loud: true });
  const path = `/api/${'a'.repeat(9_000)}`;
  const call = { method: 'GET', url: `https://${HTTP_API_HOST}${path}` };
  const run = await captureOutput(() => outcomeOf(authorizer.httpApiHandler(httpApiAuthorizerEvent(call, { headers: { signature: 'junk' } }))));
  const refused = run.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.message === 'refused');
  expect(refused).toEqual([expect.objectContaining({ reason: 'missing_signature', path: `${path.slice(0, 255)}…` })]);
  expect(Math.max(...run.lines.map((line) => line.length))).toBeLessThan(1_024);
});

test('no warnings: nothing the handlers log is dropped or rejected by Powertools', () => {
  expect(logs.filter((log) => log.level === 'WARN')).toEqual([]);
});

test('each decision is one log line with service, level, timestamp and latency', () => {
  const decided = [...decisions('allowed'), ...decisions('refused'), ...decisions('refused: fail closed')];
  expect(decided).toHaveLength(13);
  for (const log of decided) {
    expect(log).toMatchObject({ service: 'signet-authorizer', level: expect.stringMatching(/^(INFO|ERROR)$/), timestamp: expect.any(String) });
    expect(log.latencyMs).toEqual(expect.any(Number));
    expect(log.latencyMs as number).toBeGreaterThanOrEqual(0);
  }
});

test('allowed lines carry the clientId and the key fingerprint', () => {
  expect(decisions('allowed')).toEqual([
    expect.objectContaining({ clientId: partner.clientId, keyFingerprint: partner.key.fingerprint, method: 'POST', path: '/api/echo' }),
    expect.objectContaining({ clientId: reader.clientId, keyFingerprint: reader.key.fingerprint, method: 'GET' }),
    expect.objectContaining({ clientId: partner.clientId, method: 'POST' }),
  ]);
});

test('refused lines carry the reason, the status, the sentence and the client the keyid named', () => {
  expect(decisions('refused').map((log) => [log.reason, log.clientId ?? log.keyId])).toEqual([
    ['signature_mismatch', partner.clientId],
    ['unknown_client', unknownId],
    ['expired', partner.clientId],
    ['missing_date', partner.clientId],
    ['malformed_signature', partner.clientId],
    ['ip_not_allowed', office.clientId],
    ['role_forbidden', reader.clientId],
    ['signature_mismatch', reader.clientId],
    ['role_forbidden', reader.clientId],
  ]);
  for (const log of decisions('refused')) {
    expect(log).toMatchObject({ level: 'INFO', status: expect.any(Number), message: 'refused', detail: expect.stringMatching(/^.{20,}$/) });
  }
  expect(decisions('refused')[5]).toMatchObject({ sourceIp: '192.0.2.1' });
});

test('the outage is an ERROR line with reason dependency_unavailable and the cause', () => {
  expect(decisions('refused: fail closed')).toEqual([
    expect.objectContaining({ level: 'ERROR', reason: 'dependency_unavailable', status: 503, error: expect.anything() }),
  ]);
});

test('no line contains a signature, a Signature-Input, a signature base or key material', () => {
  const secrets = secretsOfTheRun();
  expect(secrets.length).toBeGreaterThan(200);

  const leaks: string[] = [];
  rawLines.forEach((line, n) => {
    // The raw line, and every string in it decoded (a base's quotes and newlines are escaped in JSON).
    const text = [line, ...stringsIn(JSON.parse(line))].join('\n');
    leaks.push(...leaksIn(text, secrets).map((what) => `line ${n}: ${what}`));
  });
  expect(leaks).toEqual([]);
});

test('the auth failures kept for partners (GET .../auth-failures) hold reasons, never secrets', async () => {
  const secrets = secretsOfTheRun();
  const clients = [partner, reader, office];
  const recorded = (await Promise.all(clients.map((s) => store.listAuthFailures(s.clientId)))).flat();
  const counted = (await Promise.all(clients.map((s) => store.listUnauthenticatedFailures(s.clientId)))).flat();
  // Every refusal is logged. Those the client's own key signed are entries, stored at most once
  // per interval (SIGNET_AUTH_FAILURE_RECORD_INTERVAL_MS): the reader's second role_forbidden
  // (logged above) is not stored again. The others may come from anyone: counted, per reason.
  expect(recorded.map((f) => f.reason).sort()).toEqual(['ip_not_allowed', 'role_forbidden']);
  const counts = counted.flatMap((w) => Object.entries(w.counts)).sort();
  expect(counts).toEqual([['expired', 1], ['malformed_signature', 1], ['missing_date', 1], ['signature_mismatch', 1], ['signature_mismatch', 1]]);
  expect(leaksIn(JSON.stringify([recorded, counted]) + stringsIn(recorded).join('\n'), secrets)).toEqual([]);
});

describe('allowed lines sampled, metrics published in batches (clock injected)', () => {
  /** An authorizer as deployed (INFO logs, Powertools metrics) on a clock the test moves. */
  const clocked = (extra: Record<string, string>) => {
    const clock = { ms: Date.now() };
    const logger = new Logger({ serviceName: SERVICE_NAMES.authorizer, logLevel: 'INFO' });
    const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAMES.authorizer, logger });
    const authorizer = createAuthorizer(loadConfig(authorizerEnv(tableName, ddb.endpoint, extra)), { logger, metrics, nowMs: () => clock.ms });
    // As the Lambda entry runs it: the entry publishes what an invocation added to the metrics.
    const handler = { httpApiHandler: flushingMetrics(metrics, authorizer.httpApiHandler) };
    return { handler, clock };
  };
  const echo = `https://${HTTP_API_HOST}/api/echo`;
  const parse = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  const emf = (lines: Record<string, unknown>[]) => lines.filter((line) => line._aws !== undefined);
  const counts = (line: Record<string, unknown>) => ({ Allowed: line.Allowed, Denied: line.Denied });

  test('a quarter of the allowed requests are logged, evenly spaced from the first; the counts wait for a refusal or the interval', async () => {
    const { handler, clock } = clocked({ [ENV.allowedLogSample]: '0.25' });
    const allowed = httpApiAuthorizerEvent({ method: 'GET', url: echo }, { headers: sign({ method: 'GET', url: echo }, partner).headers });
    const forged = sign({ method: 'GET', url: echo }, { clientId: partner.clientId, key: keysUsed[3] });
    const refused = httpApiAuthorizerEvent({ method: 'GET', url: echo }, { headers: forged.headers });

    const first = parse((await captureOutput(async () => {
      for (let i = 0; i < 8; i++) expect(await outcomeOf(handler.httpApiHandler(allowed))).toMatchObject({ value: { isAuthorized: true } });
    })).lines);
    // Requests 1 and 5 of 8 get a line; nothing is published yet.
    expect(first.map((line) => line.message)).toEqual(['allowed', 'allowed']);
    expect(first[0]).toMatchObject({ clientId: partner.clientId, keyFingerprint: partner.key.fingerprint, method: 'GET', path: '/api/echo', latencyMs: expect.any(Number) });

    const refusal = parse((await captureOutput(async () => expect(await outcomeOf(handler.httpApiHandler(refused))).toMatchObject({ value: { isAuthorized: false } }))).lines);
    // The refusal is logged in full, and every count gathered so far is published in one EMF line after it.
    expect(refusal.filter((line) => line.message === 'refused')).toEqual([
      expect.objectContaining({ reason: 'signature_mismatch', clientId: partner.clientId, status: 401, detail: expect.stringMatching(/^.{20,}$/), latencyMs: expect.any(Number) }),
    ]);
    expect(emf(refusal).map(counts)).toEqual([{ Allowed: 8, Denied: 1 }]);
    expect(emf(refusal)[0]).toMatchObject({
      service: SERVICE_NAMES.authorizer,
      _aws: { CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [['service']], Metrics: expect.arrayContaining([{ Name: 'Allowed', Unit: 'Count' }, { Name: 'Denied', Unit: 'Count' }]) }] },
    });

    const later = parse((await captureOutput(async () => {
      for (let i = 0; i < 3; i++) await handler.httpApiHandler(allowed);
      clock.ms += AUTHORIZER_METRICS_INTERVAL_MS - 1;
      await handler.httpApiHandler(allowed);
    })).lines);
    expect(emf(later)).toEqual([]); // one interval has not passed since the refusal published
    const due = parse((await captureOutput(async () => {
      clock.ms += 1;
      await handler.httpApiHandler(allowed);
    })).lines);
    expect(emf(due).map(counts)).toEqual([{ Allowed: 5, Denied: undefined }]);
  });

  test('as deployed (no setting): one allowed line in a hundred, and every refusal logged in full', async () => {
    const { handler } = clocked({});
    const allowed = httpApiAuthorizerEvent({ method: 'GET', url: echo }, { headers: sign({ method: 'GET', url: echo }, reader).headers });
    const refusals = ([
      [{ method: 'GET', url: echo }, { clientId: reader.clientId, key: keysUsed[3] }],
      [{ method: 'GET', url: echo, created: nowS() - 3_600 }, reader],
      [{ method: 'DELETE', url: echo }, reader],
    ] as const).map(([call, signer]) => httpApiAuthorizerEvent(call, { headers: sign(call, signer).headers }));
    const run = parse((await captureOutput(async () => {
      for (let i = 0; i < 150; i++) {
        await handler.httpApiHandler(allowed);
        if (i % 50 === 49) await handler.httpApiHandler(refusals[(i - 49) / 50]);
      }
    })).lines);
    expect(run.filter((line) => line.message === 'allowed')).toHaveLength(2); // requests 1 and 101
    expect(run.filter((line) => line.message === 'refused').map((line) => [line.reason, line.clientId, line.status])).toEqual([
      ['signature_mismatch', reader.clientId, 401],
      ['expired', reader.clientId, 401],
      ['role_forbidden', reader.clientId, 403],
    ]);
    expect(emf(run).map(counts)).toEqual([{ Allowed: 50, Denied: 1 }, { Allowed: 50, Denied: 1 }, { Allowed: 50, Denied: 1 }]);
  });
});

function leaksIn(text: string, secrets: readonly (readonly [string, string])[]): string[] {
  const found = secrets.filter(([, value]) => text.includes(value)).map(([what]) => what);
  if (/"@method"|@signature-params|BEGIN [A-Z ]*KEY/.test(text)) found.push('signature base or PEM marker');
  return found;
}

/** Every secret value of the run: signatures, Signature-Input values, bases, and runs of each key's Base64. */
function secretsOfTheRun(): [string, string][] {
  const secrets: [string, string][] = [];
  for (const { headers, base } of signedRequests) {
    const signatureB64 = /^sig=:([^:]+):$/.exec(headers.signature)![1];
    secrets.push(['Signature header', headers.signature], ['signature value', signatureB64], ['signature value (base64url)', Buffer.from(signatureB64, 'base64').toString('base64url')]);
    secrets.push(['Signature-Input header', headers['signature-input']], ['signature base', base]);
    for (const line of base.split('\n')) if (line.startsWith('"@signature-params"')) secrets.push(['@signature-params line', line]);
    secrets.push(['signature value (first 40 chars)', signatureB64.slice(0, 40)]);
  }
  for (const key of keysUsed) {
    const privatePem = key.key.export({ type: 'pkcs8', format: 'pem' }) as string;
    const pkcs1Pem = key.key.export({ type: 'pkcs1', format: 'pem' }) as string;
    const publicPem = key.publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const publicPkcs1 = (key.publicKey.export({ type: 'pkcs1', format: 'der' }) as Buffer).toString('base64');
    secrets.push(['private key (PKCS#8 Base64)', key.pkcs8Base64], ['private key PEM', privatePem], ['public key PEM', publicPem]);
    // Any 40-character run of the Base64 bodies (a partial dump is a leak too).
    for (const [what, pem] of [['private key', privatePem], ['PKCS#1 private key', pkcs1Pem], ['public key', publicPem]] as const) {
      const body = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
      for (let i = 0; i + 40 <= body.length; i += 40) secrets.push([`${what} (Base64 run at ${i})`, body.slice(i, i + 40)]);
    }
    for (let i = 0; i + 40 <= publicPkcs1.length; i += 40) secrets.push([`public key PKCS#1 (run at ${i})`, publicPkcs1.slice(i, i + 40)]);
  }
  return secrets;
}

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(stringsIn);
  return [];
}
