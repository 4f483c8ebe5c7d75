/**
 * Shared pieces of the authorizer tests: real API Gateway events built from the captures in
 * test/fixtures/apigateway (changed only the way API Gateway changes them for a given call),
 * signed with the core's signRequest for clients registered in DynamoDB Local, and the authorizer
 * built by `createAuthorizer` from a configuration, as the Lambda entry and the local gateway build it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { APIGatewayRequestAuthorizerEvent, APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { type SignetAuthorizer, createAuthorizer } from '../../lambda/authorizer/create-authorizer';
import { flushingMetrics } from '../../lambda/handlers/entry';
import { loadConfig } from '../../lambda/config';
import { ENV } from '../../lambda/config-env';
import { METRICS_NAMESPACE, SERVICE_NAMES } from '../../lambda/observability';
import { type PrivateKeyInfo } from '../../lambda/core/keys';
import { nextTestKey } from '../support/test-keys';
import { signRequest } from '../../lambda/core/sign';
import { DynamoClientStore } from '../../lambda/store/client-store';
import type { NewClient } from '../../lambda/domain/store-types';
import { startTestDynamoDb, type TestDynamoDb } from '../support/dynamodb';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

export const FIXTURE_DIR = path.resolve(__dirname, '../fixtures/apigateway');

/** A fresh copy of a fixture file, so a test can change it. */
export function fixture<T = any>(name: string): T {
  return JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, name), 'utf8')) as T;
}

/** The role catalogue the tests configure (SIGNET_ROLE_CATALOGUE). */
export const ROLE_CATALOGUE = {
  'registry:admin': ['* /registry/**'],
  partner: ['GET /api/*', 'POST /api/*'],
  reader: ['GET /api/*'],
} as const;

/** The execute-api hosts of the captures. */
export const HTTP_API_HOST = 'lsw1ro4ipb.execute-api.eu-west-1.amazonaws.com';
export const REST_API_HOST = 'puhdx84jy9.execute-api.eu-west-1.amazonaws.com';

/** Unix seconds now (the handler reads the system clock). */
export function nowS(): number {
  return Math.floor(Date.now() / 1000);
}

/** A registered client and the private key it signs with. */
export interface Signer {
  readonly clientId: string;
  readonly key: PrivateKeyInfo;
}

/** Creates a client in the store holding `key` (a new 2048-bit key by default). */
export async function registerClient(
  store: DynamoClientStore,
  options: Partial<Omit<NewClient, 'key'>> & { key?: PrivateKeyInfo; notAfter?: string } = {},
): Promise<Signer> {
  const key = options.key ?? nextTestKey();
  const { record, created } = await store.createClient(
    {
      name: options.name ?? 'Test partner',
      networkWhitelist: options.networkWhitelist ?? ['0.0.0.0'],
      roles: options.roles ?? ['partner'],
      key: {
        fingerprint: key.fingerprint,
        spkiPem: key.publicKey.export({ type: 'spki', format: 'pem' }) as string,
        ...(options.notAfter === undefined ? {} : { notAfter: options.notAfter }),
      },
    },
    'test-setup',
  );
  if (!created) throw new Error('registerClient: the key was already registered');
  return { clientId: record.clientId, key };
}

/** The clients the HTTP API and REST API handler tests sign for, one per kind of answer. */
export interface HandlerClients {
  /** Role `partner` (GET and POST /api/*), any address. */
  readonly partner: Signer;
  /** Role `reader` (GET /api/* only), any address. */
  readonly reader: Signer;
  /** Whitelist 10.0.0.0/8 and 2001:db8:1::/48. */
  readonly office: Signer;
  /** Whitelist 2001:db8:85a3::/48 only. */
  readonly ipv6Partner: Signer;
  /** Disabled. */
  readonly disabled: Signer;
  /** Its only key past its not-after (an hour ago). */
  readonly retired: Signer;
}

/** A fresh table on the run's DynamoDB Local, the store on it, and {@link HandlerClients} registered there. */
export interface HandlerTestBed {
  readonly ddb: TestDynamoDb;
  readonly tableName: string;
  readonly store: DynamoClientStore;
  readonly clients: HandlerClients;
}

/** What the HTTP API and REST API handler tests start from (see {@link HandlerTestBed}). */
export async function startHandlerTestBed(): Promise<HandlerTestBed> {
  const ddb = await startTestDynamoDb();
  const tableName = await ddb.createTable();
  const store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  const partner = await registerClient(store, { name: 'Partner', roles: ['partner'] });
  const reader = await registerClient(store, { name: 'Reader', roles: ['reader'] });
  const office = await registerClient(store, { name: 'Office', networkWhitelist: ['10.0.0.0/8', '2001:db8:1::/48'] });
  const ipv6Partner = await registerClient(store, { name: 'IPv6 partner', networkWhitelist: ['2001:db8:85a3::/48'] });
  const disabled = await registerClient(store, { name: 'Disabled' });
  await store.disable(disabled.clientId, 'test-setup');
  const retired = await registerClient(store, { name: 'Retired key', notAfter: new Date(Date.now() - 3_600_000).toISOString() });
  return { ddb, tableName, store, clients: { partner, reader, office, ipv6Partner, disabled, retired } };
}

/** A request as the client makes it. */
export interface Call {
  readonly method: string;
  /** The URL the client calls and signs. */
  readonly url: string;
  readonly body?: string;
  /** Signing time. @default now */
  readonly created?: number;
  /** The keyid to put in the signature. @default the signer's clientId */
  readonly keyId?: string;
}

/** What the client sends: the signature headers (lower-case) and the signature base (never sent). */
export interface Signed {
  readonly headers: Record<string, string>;
  readonly base: string;
}

/** Signs `call` with the core signer, as a partner would; adds content-type/length for a body. */
export function sign(call: Call, signer: Signer): Signed {
  const { headers, base } = signRequest({
    method: call.method,
    url: call.url,
    body: call.body,
    keyId: call.keyId ?? signer.clientId,
    privateKey: signer.key.key,
    created: call.created ?? nowS(),
  });
  const out: Record<string, string> = { ...headers };
  if (call.body !== undefined) {
    out['content-type'] = 'application/json';
    out['content-length'] = String(Buffer.byteLength(call.body));
  }
  return { headers: out, base };
}

function decodeSegments(pathname: string): string {
  return pathname
    .split('/')
    .map((segment) => decodeURIComponent(segment))
    .join('/');
}

export interface HttpApiEventOptions {
  /** The stage the route belongs to. @default '$default' */
  readonly stage?: string;
  /** The caller's address (`requestContext.http.sourceIp`). @default the capture's */
  readonly sourceIp?: string;
  /**
   * The call went through a custom domain whose API mapping key is this first path segment:
   * API Gateway drops it from `rawPath` (and adds `/{stage}` for a named stage).
   */
  readonly mappingKey?: string;
  /** Headers as API Gateway delivers them (lower-case names; repeated fields already joined with ','). */
  readonly headers: Record<string, string>;
}

/**
 * The HTTP API (payload 2.0) authorizer event for `call`, built from the real capture
 * `http-api-authorizer-v2.capture.json`: rawPath decoded, rawQueryString as sent, lower-case headers.
 */
export function httpApiAuthorizerEvent(call: Call, options: HttpApiEventOptions): APIGatewayRequestAuthorizerEventV2 {
  const url = new URL(call.url);
  const stage = options.stage ?? '$default';
  const event = fixture('http-api-authorizer-v2.capture.json');
  let pathname = url.pathname;
  if (options.mappingKey !== undefined) {
    pathname = pathname.slice(`/${options.mappingKey}`.length) || '/';
    if (stage !== '$default') pathname = `/${stage}${pathname}`;
  }
  const rawPath = decodeSegments(pathname);
  const routePath = stage !== '$default' && rawPath.startsWith(`/${stage}/`) ? rawPath.slice(stage.length + 1) : rawPath;
  const sourceIp = options.sourceIp ?? event.requestContext.http.sourceIp;
  event.rawPath = rawPath;
  event.rawQueryString = url.search.slice(1);
  event.routeKey = `${call.method} ${routePath}`;
  event.routeArn = `arn:aws:execute-api:eu-west-1:123456789012:lsw1ro4ipb/${stage}/${call.method}${routePath}`;
  event.identitySource = [options.headers.signature ?? ''];
  const { authorization: _authorization, 'content-length': _length, ...captured } = event.headers;
  event.headers = {
    ...captured,
    host: url.host,
    'content-length': call.body === undefined ? '0' : String(Buffer.byteLength(call.body)),
    'x-forwarded-for': sourceIp,
    ...options.headers,
  };
  event.requestContext.domainName = url.host;
  event.requestContext.domainPrefix = url.host.split('.')[0];
  event.requestContext.http.method = call.method;
  event.requestContext.http.path = rawPath;
  event.requestContext.http.sourceIp = sourceIp;
  event.requestContext.routeKey = event.routeKey;
  event.requestContext.stage = stage;
  event.requestContext.time = new Date().toUTCString();
  event.requestContext.timeEpoch = Date.now();
  return event as APIGatewayRequestAuthorizerEventV2;
}

export interface RestEventOptions {
  /** @default 'prod' (the capture's stage) */
  readonly stage?: string;
  /** @default the capture's */
  readonly sourceIp?: string;
  /**
   * The call went through a custom domain with this base-path mapping (first path segment):
   * `path` and `requestContext.path` keep it, and there is no stage in the path.
   */
  readonly basePath?: string;
  /** Key order of the query maps (API Gateway does not keep the client's). @default order of first appearance */
  readonly queryOrder?: readonly string[];
  /** Headers the client sent (any case); each becomes one `headers` and one `multiValueHeaders` entry. */
  readonly headers: Record<string, string>;
  /** Repeated headers: all values go to `multiValueHeaders`, the last to `headers`. */
  readonly repeatedHeaders?: Record<string, readonly string[]>;
}

function clientCase(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}

/**
 * The REST API REQUEST authorizer event for `call`, built from the real capture
 * `rest-api-request-authorizer-v1.capture.json`: client-case headers with multiValueHeaders,
 * decoded query maps, `path` without the stage and `requestContext.path` as called.
 */
export function restAuthorizerEvent(call: Call, options: RestEventOptions): APIGatewayRequestAuthorizerEvent {
  const url = new URL(call.url);
  const stage = options.stage ?? 'prod';
  const event = fixture('rest-api-request-authorizer-v1.capture.json');
  const sourceIp = options.sourceIp ?? event.requestContext.identity.sourceIp;

  let apiPath: string;
  let deliveredPath: string;
  if (options.basePath !== undefined) {
    deliveredPath = url.pathname;
    apiPath = url.pathname.slice(`/${options.basePath}`.length) || '/';
  } else {
    deliveredPath = url.pathname.slice(`/${stage}`.length) || '/';
    apiPath = deliveredPath;
  }

  const multi: Record<string, string[]> = {};
  for (const [key, value] of url.searchParams) (multi[key] ??= []).push(value);
  const order = options.queryOrder ?? Object.keys(multi);
  const hasQuery = order.length > 0;
  event.multiValueQueryStringParameters = hasQuery ? Object.fromEntries(order.map((k) => [k, multi[k]])) : null;
  event.queryStringParameters = hasQuery ? Object.fromEntries(order.map((k) => [k, multi[k][multi[k].length - 1]])) : null;

  const { Authorization: _a, 'Content-Length': _l, Host: _h, 'X-Forwarded-For': _x, ...capturedHeaders } = event.headers;
  const headers: Record<string, string> = {
    ...capturedHeaders,
    Host: url.host,
    'Content-Length': call.body === undefined ? '0' : String(Buffer.byteLength(call.body)),
    'X-Forwarded-For': `${sourceIp}, 130.176.209.37`,
  };
  for (const [name, value] of Object.entries(options.headers)) headers[clientCase(name)] = value;
  const multiValueHeaders: Record<string, string[]> = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]]));
  for (const [name, values] of Object.entries(options.repeatedHeaders ?? {})) {
    headers[name] = values[values.length - 1];
    multiValueHeaders[name] = [...values];
  }

  event.methodArn = `arn:aws:execute-api:eu-west-1:123456789012:puhdx84jy9/${stage}/${call.method}${apiPath}`;
  event.resource = apiPath;
  event.path = deliveredPath;
  event.httpMethod = call.method;
  event.headers = headers;
  event.multiValueHeaders = multiValueHeaders;
  event.pathParameters = {};
  event.requestContext.resourcePath = apiPath;
  event.requestContext.httpMethod = call.method;
  event.requestContext.path = url.pathname;
  event.requestContext.stage = stage;
  event.requestContext.domainName = url.host;
  event.requestContext.domainPrefix = url.host.split('.')[0];
  event.requestContext.identity.sourceIp = sourceIp;
  event.requestContext.requestTime = new Date().toUTCString();
  event.requestContext.requestTimeEpoch = Date.now();
  return event as APIGatewayRequestAuthorizerEvent;
}

/** The authorizer's two entry points, as lambda/authorizer/create-authorizer.ts builds them. */
export type AuthorizerModule = SignetAuthorizer;

/** The environment for a handler instance on `tableName` at `endpoint`. */
export function authorizerEnv(tableName: string, endpoint: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    [ENV.tableName]: tableName,
    [ENV.dynamoDbEndpoint]: endpoint,
    [ENV.roleCatalogue]: JSON.stringify(ROLE_CATALOGUE),
    ...extra,
  };
}

/**
 * An authorizer built by `createAuthorizer` from the configuration `handlerEnv` holds (read by the
 * same `loadConfig` as in Lambda), with a Powertools logger and metrics: silent unless `loud`,
 * then logging at INFO and emitting metrics, as in a deployment.
 */
export function loadAuthorizer(handlerEnv: Record<string, string>, options: { loud?: boolean } = {}): AuthorizerModule {
  const logger = new Logger({ serviceName: SERVICE_NAMES.authorizer, logLevel: options.loud ? 'INFO' : 'SILENT' });
  const metrics = options.loud ? new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAMES.authorizer, logger }) : undefined;
  const authorizer = createAuthorizer(loadConfig(handlerEnv), { logger, metrics });
  if (metrics === undefined) return authorizer;
  // As the Lambda entry publishes them: once per invocation.
  return { ...authorizer, httpApiHandler: flushingMetrics(metrics, authorizer.httpApiHandler), restApiHandler: flushingMetrics(metrics, authorizer.restApiHandler) };
}

/**
 * The Lambda entry itself (lambda/handlers/authorizer.ts), loaded afresh with `env` set, as a
 * cold start sees it; the environment is restored afterwards.
 */
export function loadAuthorizerEntry(env: Record<string, string>): typeof import('../../lambda/handlers/authorizer') {
  const saved = new Map(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  let loaded: typeof import('../../lambda/handlers/authorizer') | undefined;
  try {
    jest.isolateModules(() => {
      loaded = require('../../lambda/handlers/authorizer') as typeof import('../../lambda/handlers/authorizer');
    });
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  if (loaded === undefined) throw new Error('the authorizer module did not load');
  return loaded;
}

/** What a handler call came to: the answer, or the error it threw. */
export type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: Error };

export async function outcomeOf<T>(promise: Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error: error as Error };
  }
}

/** What {@link recordOutput} has collected so far. */
export interface OutputRecorder {
  /** The non-empty lines written since the recorder started (or since `from`, a `lines().length` taken earlier). */
  lines(from?: number): string[];
  /** Stops recording and lets writes through again. */
  stop(): void;
}

/**
 * Records every line Powertools writes (its Logger and Metrics write to process.stdout/stderr
 * through their own Console) from now until `stop()`, and keeps it off the terminal. Node's own
 * process warnings (`(node:<pid>) ...`, e.g. the AWS SDK's notice that Node 20 is old, which
 * Lambda's Node 22 never prints) are not the function's output and are left out. Recorders do
 * not nest: use one at a time.
 */
export function recordOutput(): OutputRecorder {
  const chunks: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) =>
    jest.spyOn(stream, 'write').mockImplementation(((chunk: string | Uint8Array) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      if (!text.startsWith(`(node:${process.pid}) `)) chunks.push(text);
      return true;
    }) as typeof stream.write),
  );
  return {
    lines: (from = 0) => chunks.join('').split('\n').filter((line) => line.trim() !== '').slice(from),
    stop: () => {
      for (const spy of spies) spy.mockRestore();
    },
  };
}

/** The lines Powertools writes while `run` runs (see {@link recordOutput}). */
export async function captureOutput<T>(run: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const recorder = recordOutput();
  try {
    const result = await run();
    return { result, lines: recorder.lines() };
  } finally {
    recorder.stop();
  }
}

/** Refusals only one of the client's own keys can cause: they are entries of its failure list; all others are counted. */
export const AUTHENTICATED_REFUSALS: ReadonlySet<string> = new Set(['client_disabled', 'ip_not_allowed', 'role_forbidden', 'replayed_request']);

/**
 * Checks that the latest refusal of `clientId` with `code` was recorded where it belongs: as the
 * newest entry of its failure list (with method and path), or in its counts.
 */
export async function expectRecorded(store: DynamoClientStore, clientId: string, code: string): Promise<void> {
  if (AUTHENTICATED_REFUSALS.has(code)) {
    const failures = await store.listAuthFailures(clientId);
    expect(failures[0]).toMatchObject({ reason: code, method: expect.any(String), path: expect.stringMatching(/^\//) });
  } else {
    const windows = await store.listUnauthenticatedFailures(clientId);
    expect(windows.some((w) => (w.counts[code] ?? 0) > 0)).toBe(true);
  }
}
