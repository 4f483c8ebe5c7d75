/**
 * Starts the whole local gateway: the services and clients (./bootstrap.ts), an HTTP server on
 * 127.0.0.1, and the deployed Lambda handlers (authorizer, registry, echo) configured for them,
 * with the key source refresher on a timer in this process (./key-source-schedule.ts).
 *
 * Published key sources (docs/published-keys.md) may be `http://127.0.0.1` and `http://localhost`
 * URLs here besides https ones (`allowLocalHttp`, for the registry's fetch and the refresher's),
 * so a demo or a test serves its JWKS or key directory from this machine; a deployment never does.
 *
 * The handlers are built by the factories the Lambda entries use, from the configuration a
 * deployment would put in the functions' environment ({@link handlerEnvironment}), read by the
 * same `loadConfig`; nothing is written to this process's environment.
 *
 * @example
 * const gateway = await startLocalGateway({ home: signetHome(), port: localPort() });
 * console.log(`ready: ${gateway.url}`);
 * process.once('SIGINT', () => void gateway.stop());
 */
import { Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@aws-lambda-powertools/logger';
import { createAuthorizer } from '../lambda/authorizer/create-authorizer';
import { createEcho } from '../lambda/backend/echo';
import { SignetConfig, loadConfig } from '../lambda/config';
import { SERVICE_NAMES } from '../lambda/observability';
import { fetchKeySource } from '../lambda/key-sources/fetch-key-source';
import { createKeySourceRefresher } from '../lambda/key-sources/key-source-refresher';
import { createRegistry } from '../lambda/registry/create-registry';
import { DynamoClientStore } from '../lambda/store/client-store';
import { createDocumentClient } from '../lambda/store/dynamodb-client';
import { DynamoKeySourceStore } from '../lambda/store/key-source-store';
import { AUTHORIZER_CACHE_TTL_HEADER, DYNAMODB_REQUEST_TIMEOUT_MS, MIN_LAST_USED_RECORD_INTERVAL_MS } from '../lambda/core/defaults';
import { ENV } from '../lambda/config-env';
import { type LocalDynamoDb, LocalServices, bootstrapLocal } from './bootstrap';
import { writeLocalState } from './local-state';
import { GatewayHandlers, createGatewayListener } from './gateway';
import { KeySourceSchedule, scheduleKeySourceRefresh } from './key-source-schedule';
import { withPortal } from './portal-assets';
import { LOCAL_ROLE_CATALOGUE } from './role-catalogue';
import { DEFAULT_LOCAL_PORT, GivenDynamoDb, LOCAL_HOST } from './signet-home';
import { ModulusVerdicts } from '../lambda/core/rsa-modulus';
import { type Ipv6Loopback, holdIpv6Loopback, ipv6LoopbackFailedWarning, ipv6LoopbackTakenWarning, noIpv6Loopback } from './ipv6-loopback';

export interface LocalGatewayOptions {
  /** The state directory, absolute (see ./signet-home.ts). */
  readonly home: string;
  /** Port on 127.0.0.1; 0 picks a free one. @default DEFAULT_LOCAL_PORT (3000) */
  readonly port?: number;
  /** Where request lines and failures go. @default - silent */
  readonly log?: (line: string) => void;
  /**
   * Also print the handlers' JSON log lines (the authorizer's decisions, the registry's requests)
   * around each access line, as CloudWatch would hold them. Warnings and errors print either way.
   * @default false
   */
  readonly verbose?: boolean;
  /**
   * A DynamoDB the user runs (`SIGNET_DYNAMODB_ENDPOINT`) and the table to use there, instead of
   * starting DynamoDB Local; it is left running when the gateway stops.
   * @default - DynamoDB Local started with the gateway, its files in `$SIGNET_HOME/dynamodb`
   */
  readonly dynamoDb?: GivenDynamoDb;
}

/** A running local gateway. */
export interface LocalGateway {
  /** `http://127.0.0.1:<port>`: the base of every URL clients call and sign. */
  readonly url: string;
  readonly port: number;
  readonly services: LocalServices;
  /** Published key sources: loopback http accepted; refreshed in this process every `refreshMinutes`. */
  readonly keySources: { readonly allowLocalHttp: true; readonly refreshMinutes: number };
  /** Stops serving and the refresher's timer, then the stand-in and DynamoDB Local (if it started it). Safe to call more than once. */
  stop(): Promise<void>;
}

/**
 * The handlers' configuration as a deployment's environment would hold it (names from
 * lambda/config-env.ts). Values the caller has set win for the tunables (SIGNET_CLIENT_CACHE_TTL_MS
 * and the like) and the role catalogue; the endpoints, the table and the public base URL are
 * always the local ones. A key's last use is recorded every second at most (a deployment: every
 * 15 minutes), so LAST USED is current.
 */
function handlerEnvironment(services: LocalServices, baseUrl: string, current: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...current,
    [ENV.tableName]: services.state.tableName,
    [ENV.dynamoDbEndpoint]: services.state.dynamoDbEndpoint,
    [ENV.secretsManagerEndpoint]: services.state.secretsManagerEndpoint,
    // The authorizer rebuilds the signed URL as http://127.0.0.1:<port>/path?query: what the client called.
    [ENV.publicBaseUrl]: baseUrl,
    [ENV.roleCatalogue]: current[ENV.roleCatalogue]?.trim() || JSON.stringify(LOCAL_ROLE_CATALOGUE),
    // A key's last use shows at once on a laptop (the shortest interval allowed), not up to
    // 15 minutes late as a deployment's write-saving default would show it.
    [ENV.lastUsedRecordIntervalMs]: current[ENV.lastUsedRecordIntervalMs]?.trim() || String(MIN_LAST_USED_RECORD_INTERVAL_MS),
    // Every allowed request gets its line (with --verbose): a laptop pays no log ingestion.
    [ENV.allowedLogSample]: current[ENV.allowedLogSample]?.trim() || '1',
  };
}

/**
 * The deployed handlers, built from `config` by the same factories the Lambda entries use, in
 * this process: a registry write reaches the authorizer's cache at once. `forgetCachedClients`
 * is for the writes that do not come through the registry (a key rotation's).
 */
function localHandlers(config: SignetConfig, dynamoDb: LocalDynamoDb, verbose: boolean): GatewayHandlers & { forgetCachedClients(): void } {
  // No metrics: CloudWatch's EMF lines mean nothing on a laptop. The handlers' INFO lines only when asked.
  const logLevel = verbose ? 'INFO' : 'WARN';
  // The authorizer's client as its factory makes it (a short timeout, one retry), signed with the home's credentials.
  const authorizerDoc = createDocumentClient({ endpoint: config.dynamoDbEndpoint, localCredentials: dynamoDb.credentials, requestTimeoutMs: DYNAMODB_REQUEST_TIMEOUT_MS, maxAttempts: 2 });
  const authorizer = createAuthorizer(config, { logger: new Logger({ serviceName: SERVICE_NAMES.authorizer, logLevel }), doc: authorizerDoc });
  const registry = createRegistry(config, {
    logger: new Logger({ serviceName: SERVICE_NAMES.registry, logLevel }),
    allowLocalHttp: true,
    doc: createDocumentClient({ endpoint: config.dynamoDbEndpoint, localCredentials: dynamoDb.credentials }),
  });
  const echo = createEcho({ logger: new Logger({ serviceName: SERVICE_NAMES.echo, logLevel }) });
  return {
    authorizer: (event) => authorizer.httpApiHandler(event),
    // Registry and authorizer share this process: a write applies to the very next request.
    registry: async (event, context) => {
      try {
        const result = await registry(event, context);
        return result.statusCode < 300 ? { ...result, headers: { ...result.headers, [AUTHORIZER_CACHE_TTL_HEADER]: '0' } } : result;
      } finally {
        if (event.requestContext.http.method !== 'GET') authorizer.forgetCachedClients();
      }
    },
    echo: (event, context) => echo(event, context),
    forgetCachedClients: () => authorizer.forgetCachedClients(),
  };
}

/**
 * The refresher the deployed schedule runs, on a timer here: loopback http sources allowed; after
 * a run that changed keys the authorizer forgets its cached records (the refresher writes the
 * table itself, not through the registry handler).
 */
function localKeySourceSchedule(config: SignetConfig, dynamoDb: LocalDynamoDb, forgetCachedClients: () => void, log: (line: string) => void): KeySourceSchedule {
  const doc = createDocumentClient({ endpoint: config.dynamoDbEndpoint, localCredentials: dynamoDb.credentials });
  const clients = new DynamoClientStore({ tableName: config.tableName, client: doc, keySourceKeepDays: config.keySourceKeepDays });
  const modulusVerdicts = new ModulusVerdicts();
  const refresher = createKeySourceRefresher({
    store: new DynamoKeySourceStore({ tableName: config.tableName, client: doc }, clients),
    fetch: (source, heldThumbprints) => fetchKeySource(source, { allowLocalHttp: true, nowS: () => Math.floor(Date.now() / 1000), modulusVerdicts, heldThumbprints }),
    nowMs: Date.now,
    refreshIntervalS: config.keySourceRefreshMinutes * 60,
    requireSignedDirectories: config.requireSignedDirectories,
  });
  return scheduleKeySourceRefresh({ refreshDue: () => refresher.refreshDue(), intervalMs: config.keySourceRefreshMinutes * 60_000, onKeysChanged: forgetCachedClients, log });
}

/** How long an idle keep-alive connection to the gateway stays open (an ALB's default idle timeout is 60 s). */
const GATEWAY_KEEP_ALIVE_MS = 65_000;

/**
 * Bootstraps the local services, listens, and serves.
 * @throws Error when the state directory is in use, a service cannot start, or the port is taken (nothing is left running)
 */
export async function startLocalGateway(options: LocalGatewayOptions): Promise<LocalGateway> {
  let serve: GatewayHandlers | undefined;
  let listener: ReturnType<typeof createGatewayListener> | undefined;
  // Until the services are up, every request is answered 503, saying so.
  const server = createServer((req, res) => {
    if (listener !== undefined) return listener(req, res);
    res
      .writeHead(503, { 'content-type': 'application/json', 'retry-after': '2' })
      .end(JSON.stringify({ error: 'dependency_unavailable', message: 'The local gateway is starting (DynamoDB Local and the Secrets Manager stand-in); wait for its "ready:" line, then try again.' }));
  });
  // Idle keep-alive connections stay open for a minute, as behind a load balancer (Node's own 5 s
  // would close a client's pooled connection while that client is busy, e.g. running a signer as a
  // child process, and its next request would find the socket closed under it).
  server.keepAliveTimeout = GATEWAY_KEEP_ALIVE_MS;
  // The port is claimed once the home is locked and before any service starts: a port in use fails at once.
  // [::1] at the same port is held too, so that `localhost` cannot lead a browser to another program.
  let ipv6: Ipv6Loopback | undefined;
  const closeIpv6 = (): Promise<void> => (ipv6?.state === 'held' ? ipv6.close() : Promise.resolve());
  const claimPort = async (): Promise<void> => {
    await listen(server, options.port ?? DEFAULT_LOCAL_PORT);
    const port = (server.address() as AddressInfo).port;
    ipv6 = await holdIpv6Loopback(port, `http://${LOCAL_HOST}:${port}`);
    if (ipv6.state === 'taken') options.log?.(ipv6LoopbackTakenWarning(port, `http://${LOCAL_HOST}:${port}`));
    else if (ipv6.state === 'unavailable' && !noIpv6Loopback(ipv6.code)) options.log?.(ipv6LoopbackFailedWarning(port, ipv6.code, `http://${LOCAL_HOST}:${port}`));
  };
  const services = await bootstrapLocal({ home: options.home, dynamoDb: options.dynamoDb, beforeServices: claimPort }).catch(async (error: unknown) => {
    await closeServer(server).catch(() => undefined);
    await closeIpv6().catch(() => undefined);
    throw error;
  });
  try {
    const port = (server.address() as AddressInfo).port;
    const url = `http://${LOCAL_HOST}:${port}`;
    const config = loadConfig(handlerEnvironment(services, url, process.env));
    const handlers = localHandlers(config, services.dynamoDb, options.verbose === true);
    serve = handlers;
    // A key rotation registers the new key straight in the table, then moves AWSCURRENT in the
    // stand-in (this process): the authorizer forgets its cached records then, so the new key
    // verifies on the next request and `signet rotate` has nothing to wait for.
    services.secretsManager.onCurrentVersionMoved(() => handlers.forgetCachedClients());
    writeLocalState(services.paths.localState, { ...services.state, clientCacheTtlMs: config.clientCacheTtlMs, rotationSettleMs: 0, gatewayUrl: url, keySourceKeepDays: config.keySourceKeepDays });
    // /portal/ (the client portal's static files) is answered before the gateway's routes.
    listener = withPortal(createGatewayListener(serve, { log: options.log, publicUrl: url }), { baseUrl: url, log: options.log });
    const schedule = localKeySourceSchedule(config, services.dynamoDb, () => handlers.forgetCachedClients(), options.log ?? (() => undefined));
    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> =>
      (stopping ??= (async () => {
        await schedule.stop();
        await closeServer(server);
        await closeIpv6();
        await services.stop();
      })());
    return { url, port, services, keySources: { allowLocalHttp: true, refreshMinutes: config.keySourceRefreshMinutes }, stop };
  } catch (error) {
    await closeServer(server).catch(() => undefined);
    await closeIpv6().catch(() => undefined);
    await services.stop().catch(() => undefined);
    throw error;
  }
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`Port ${port} on ${LOCAL_HOST} is in use. Stop what uses it, or start on another port: PORT=3001 npm start`)
          : error,
      );
    };
    server.once('error', onError);
    server.listen(port, LOCAL_HOST, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
