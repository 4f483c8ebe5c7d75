/**
 * Starts the whole local gateway: the services and clients (./bootstrap.ts), an HTTP server on
 * 127.0.0.1, and the deployed Lambda handlers (authorizer, registry, echo) configured for them.
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
import { handler as echo } from '../lambda/handlers/echo';
import { SignetConfig, loadConfig } from '../lambda/config';
import { SERVICE_NAMES } from '../lambda/observability';
import { createRegistry } from '../lambda/registry/create-registry';
import { AUTHORIZER_CACHE_TTL_HEADER } from '../lambda/core/defaults';
import { ENV } from '../lambda/config-env';
import { LocalServices, bootstrapLocal } from './bootstrap';
import { writeLocalState } from './local-state';
import { GatewayHandlers, createGatewayListener } from './gateway';
import { withPortal } from './portal-assets';
import { LOCAL_ROLE_CATALOGUE } from './role-catalogue';
import { DEFAULT_LOCAL_PORT, LOCAL_HOST } from './signet-home';

export interface LocalGatewayOptions {
  /** The state directory, absolute (see ./signet-home.ts). */
  readonly home: string;
  /** Port on 127.0.0.1; 0 picks a free one. @default DEFAULT_LOCAL_PORT (3000) */
  readonly port?: number;
  /** Where request lines and failures go. @default - silent */
  readonly log?: (line: string) => void;
}

/** A running local gateway. */
export interface LocalGateway {
  /** `http://127.0.0.1:<port>`: the base of every URL clients call and sign. */
  readonly url: string;
  readonly port: number;
  readonly services: LocalServices;
  /** Stops serving, then stops the stand-in and DynamoDB Local. Safe to call more than once. */
  stop(): Promise<void>;
}

/**
 * The handlers' configuration as a deployment's environment would hold it (names from
 * lambda/config-env.ts). Values the caller has set win for the tunables (SIGNET_CLIENT_CACHE_TTL_MS
 * and the like) and the role catalogue; the endpoints, the table and the public base URL are
 * always the local ones.
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
  };
}

/**
 * The deployed handlers, built from `config` by the same factories the Lambda entries use, in
 * this process: a registry write reaches the authorizer's cache at once.
 */
function localHandlers(config: SignetConfig): GatewayHandlers {
  // No metrics: CloudWatch's EMF lines mean nothing on a laptop.
  const authorizer = createAuthorizer(config, { logger: new Logger({ serviceName: SERVICE_NAMES.authorizer }) });
  const registry = createRegistry(config);
  return {
    authorizer: (event) => authorizer.httpApiHandler(event),
    // Registry and authorizer share this process: a write applies to the very next request.
    registry: async (event, context) => {
      if (event.requestContext.http.method === 'GET') return registry(event, context);
      try {
        const result = await registry(event, context);
        return { ...result, headers: { ...result.headers, [AUTHORIZER_CACHE_TTL_HEADER]: '0' } };
      } finally {
        authorizer.forgetCachedClients();
      }
    },
    echo: (event, context) => echo(event, context),
  };
}

/**
 * Bootstraps the local services, listens, and serves.
 * @throws Error when the state directory is in use, a service cannot start, or the port is taken (nothing is left running)
 */
export async function startLocalGateway(options: LocalGatewayOptions): Promise<LocalGateway> {
  const services = await bootstrapLocal({ home: options.home });
  let serve: GatewayHandlers | undefined;
  let listener: ReturnType<typeof createGatewayListener> | undefined;
  const server = createServer((req, res) => {
    if (listener !== undefined) return listener(req, res);
    res.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"Service Unavailable"}');
  });
  try {
    await listen(server, options.port ?? DEFAULT_LOCAL_PORT);
    const port = (server.address() as AddressInfo).port;
    const url = `http://${LOCAL_HOST}:${port}`;
    const config = loadConfig(handlerEnvironment(services, url, process.env));
    serve = localHandlers(config);
    // Tell `signet rotate` how long the authorizer caches client records (it waits that long).
    writeLocalState(services.paths.localState, { ...services.state, clientCacheTtlMs: config.clientCacheTtlMs });
    // /portal/ (the client portal's static files) is answered before the gateway's routes.
    listener = withPortal(createGatewayListener(serve, { log: options.log }), { baseUrl: url, log: options.log });
    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> =>
      (stopping ??= (async () => {
        await closeServer(server);
        await services.stop();
      })());
    return { url, port, services, stop };
  } catch (error) {
    await closeServer(server).catch(() => undefined);
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
