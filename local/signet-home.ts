/**
 * Where `npm start` keeps its state, and the few environment variables the local tools read.
 *
 * The Lambdas read their environment only in lambda/config.ts; the local gateway and the
 * `signet` client commands read only these two, here:
 * - `SIGNET_HOME`: the state directory (DynamoDB Local's files, the Secrets Manager stand-in's
 *   file, the admin and demo key directories). @default `.signet` in the current directory
 * - `PORT`: the port the local gateway serves on. @default 3000
 *
 * Layout of `$SIGNET_HOME` (see {@link localPaths}):
 * ```
 * admin/                 registry:admin client: private.pkcs8.b64, private.pem, public.pem, client-id
 * demo/                  demo client (its key also lives in the Secrets Manager stand-in)
 * dynamodb/              DynamoDB Local's database file
 * secrets-manager.json   the stand-in's secrets (mode 0600)
 * secrets-manager-credentials.json  the key pair the stand-in accepts SigV4 signatures from (mode 0600)
 * local.json             endpoints of the running gateway's services (removed when it stops)
 * gateway.pid            the running gateway's pid (one gateway per SIGNET_HOME)
 * ```
 */
import { isAbsolute, join, relative, resolve } from 'node:path';

/** The environment variables the local gateway and the client commands read. */
export const LOCAL_ENV = {
  home: 'SIGNET_HOME',
  port: 'PORT',
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

type Env = Readonly<Record<string, string | undefined>>;

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
