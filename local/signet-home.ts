/**
 * Where `npm start` keeps its state, and the few environment variables the local tools read.
 *
 * The Lambdas read their environment only in lambda/config.ts; the local gateway and the
 * `signet` client commands read only these, here:
 * - `SIGNET_HOME`: the state directory (DynamoDB Local's files, the Secrets Manager stand-in's
 *   file, the admin and demo key directories). @default `.signet` in the current directory
 * - `PORT`: the port the local gateway serves on. @default 3000
 * - `SIGNET_DYNAMODB_ENDPOINT` (the gateway only): a DynamoDB the user already runs (a DynamoDB
 *   Local, say), used instead of starting one, with the table `SIGNET_TABLE_NAME`
 *   (@default `signet-local-clients`). @default - the gateway starts DynamoDB Local itself
 *
 * Layout of `$SIGNET_HOME` (see {@link localPaths}):
 * ```
 * admin/                 registry:admin client: private.pkcs8.b64, private.pem, public.pem, client-id
 * demo/                  demo client (its key also lives in the Secrets Manager stand-in)
 * dynamodb/              DynamoDB Local's database file
 * secrets-manager.json   the stand-in's secrets (mode 0600)
 * secrets-manager-credentials.json  the key pair the stand-in accepts SigV4 signatures from, and DynamoDB Local's key id (mode 0600)
 * local.json             endpoints of the running gateway's services (removed when it stops)
 * gateway.pid            the running gateway's pid (one gateway per SIGNET_HOME)
 * ```
 */
import { isAbsolute, join, relative, resolve } from 'node:path';
import { ENV } from '../lambda/config-env';

/** The environment variables the local gateway and the client commands read. */
export const LOCAL_ENV = {
  home: 'SIGNET_HOME',
  port: 'PORT',
  /** The same names the deployed handlers read their DynamoDB endpoint and table from. */
  dynamoDbEndpoint: ENV.dynamoDbEndpoint,
  tableName: ENV.tableName,
} as const;

/** The state directory when `SIGNET_HOME` is not set, relative to the current directory. @default '.signet' */
export const DEFAULT_SIGNET_HOME = '.signet';

/** The local gateway's port when `PORT` is not set. @default 3000 */
export const DEFAULT_LOCAL_PORT = 3000;

/** The only interface the local gateway listens on: it is for the developer's own machine. */
export const LOCAL_HOST = '127.0.0.1';

/** Name of the client table in DynamoDB Local. */
export const LOCAL_TABLE_NAME = 'signet-local-clients';

/** Name of the demo client's signing-key secret in the Secrets Manager stand-in. */
export const LOCAL_DEMO_SECRET_ID = 'signet/local/demo';

/** Region written into local SDK clients and ARNs (the emulators accept any). */
export const LOCAL_REGION = 'us-east-1';

export type Env = Readonly<Record<string, string | undefined>>;

/** The absolute state directory: `SIGNET_HOME`, else `.signet` under `cwd`. */
export function signetHome(env: Env = process.env, cwd: string = process.cwd()): string {
  const raw = env[LOCAL_ENV.home]?.trim();
  return resolve(cwd, raw ? raw : DEFAULT_SIGNET_HOME);
}

/**
 * The local gateway's port from `PORT` (0 picks a free one).
 * @throws Error naming the variable when it is not a port number
 */
export function localPort(env: Env = process.env): number {
  const raw = env[LOCAL_ENV.port]?.trim();
  if (raw === undefined || raw === '') return DEFAULT_LOCAL_PORT;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65_535) {
    throw new Error(`${LOCAL_ENV.port} must be a port number from 0 to 65535; got ${JSON.stringify(raw.slice(0, 20))}.`);
  }
  return Number(raw);
}

/** A DynamoDB the user runs, for the local gateway to use instead of starting DynamoDB Local. */
export interface GivenDynamoDb {
  /** `http://host:port` (or https), from `SIGNET_DYNAMODB_ENDPOINT`. */
  readonly endpoint: string;
  /** The client table there, from `SIGNET_TABLE_NAME`. @default LOCAL_TABLE_NAME */
  readonly tableName: string;
}

/** DynamoDB's rule for table names: 3 to 255 of letters, digits, `_`, `-` and `.`. */
const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;

/**
 * The DynamoDB named by `SIGNET_DYNAMODB_ENDPOINT` and its table (`SIGNET_TABLE_NAME`), or
 * undefined when the variable is unset: the gateway then starts DynamoDB Local itself, with the
 * table LOCAL_TABLE_NAME (`SIGNET_TABLE_NAME` alone changes nothing).
 * @throws Error naming the variable when the endpoint is not an http(s) URL of a host and port
 *   only, or the table name is not one DynamoDB accepts
 */
export function givenDynamoDb(env: Env = process.env): GivenDynamoDb | undefined {
  const raw = env[LOCAL_ENV.dynamoDbEndpoint]?.trim();
  if (raw === undefined || raw === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  // A URL with a user or password is refused, and not echoed: what follows "//" may be a secret.
  const shown = url !== undefined && (url.username !== '' || url.password !== '') ? 'a URL with a user name or password' : JSON.stringify(raw.slice(0, 80));
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search !== '' || url.username !== '' || url.password !== '' || url.hash !== '') {
    throw new Error(`${LOCAL_ENV.dynamoDbEndpoint} must be the http:// or https:// URL of a DynamoDB you run, host and port only (e.g. http://127.0.0.1:8000); got ${shown}. Unset it to have npm start run DynamoDB Local itself.`);
  }
  const tableName = env[LOCAL_ENV.tableName]?.trim() || LOCAL_TABLE_NAME;
  if (!TABLE_NAME.test(tableName)) {
    throw new Error(`${LOCAL_ENV.tableName} must be a DynamoDB table name (3 to 255 letters, digits, '_', '-' or '.'); got ${JSON.stringify(tableName.slice(0, 80))}.`);
  }
  return { endpoint: url.origin, tableName };
}

/** The local gateway's base URL, `http://127.0.0.1:${PORT:-3000}`: where client commands go by default. */
export function localEndpoint(env: Env = process.env): string {
  return `http://${LOCAL_HOST}:${localPort(env)}`;
}

/** Every path under `$SIGNET_HOME`. */
export interface LocalPaths {
  readonly home: string;
  readonly adminDir: string;
  readonly demoDir: string;
  readonly dynamoDbDir: string;
  readonly secretsManagerState: string;
  /** The Secrets Manager stand-in's credentials (local/secrets-manager-credentials.ts). */
  readonly secretsManagerCredentials: string;
  readonly localState: string;
  readonly pidFile: string;
}

export function localPaths(home: string): LocalPaths {
  return {
    home,
    adminDir: join(home, 'admin'),
    demoDir: join(home, 'demo'),
    dynamoDbDir: join(home, 'dynamodb'),
    secretsManagerState: join(home, 'secrets-manager.json'),
    secretsManagerCredentials: join(home, 'secrets-manager-credentials.json'),
    localState: join(home, 'local.json'),
    pidFile: join(home, 'gateway.pid'),
  };
}

/** A path as a person would type it from `cwd`: relative when it lies below it. */
export function displayPath(path: string, cwd: string = process.cwd()): string {
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}
