/**
 * `$SIGNET_HOME/local.json`: where the running local gateway's services listen, for the local
 * tools that talk to them directly (`signet rotate` reads it to reach the Secrets Manager
 * stand-in and DynamoDB Local). Written when `npm start` is ready, removed when it stops. A
 * gateway that was killed leaves it behind, naming ports that anyone may have bound since: the
 * file is read only while the gateway named in `gateway.pid` is alive and this user's, so that no
 * tool sends the home's credentials or a new private key to whoever holds those ports now.
 *
 * ```json
 * { "dynamoDbEndpoint": "http://127.0.0.1:41234", "secretsManagerEndpoint": "http://127.0.0.1:41235",
 *   "tableName": "signet-local-clients", "demoSecretId": "signet/local/demo", "region": "us-east-1",
 *   "clientCacheTtlMs": 60000, "rotationSettleMs": 0, "gatewayUrl": "http://127.0.0.1:3000", "keySourceKeepDays": 7 }
 * ```
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { MAX_KEY_SOURCE_KEEP_DAYS } from '../lambda/core/defaults';
import { runningGatewayPid } from './home-lock';
import { writeFileAtomically } from './private-file';
import { LOCAL_ENV, type Env, type LocalPaths, localEndpoint, localPaths, signetHome } from './signet-home';

/** The file's fields. */
export interface LocalStateFile {
  readonly dynamoDbEndpoint: string;
  readonly secretsManagerEndpoint: string;
  readonly tableName: string;
  readonly demoSecretId: string;
  readonly region: string;
  /**
   * How long the gateway's authorizer caches a client record, in ms (its SIGNET_CLIENT_CACHE_TTL_MS):
   * `signet rotate` waits that long before it finishes, so the gateway knows the new key first.
   * Written once the handlers are loaded.
   */
  readonly clientCacheTtlMs?: number;
  /**
   * How long `signet rotate` must wait between registering a new key and making it AWSCURRENT,
   * in ms: 0 for `npm start`, whose authorizer forgets its cached client records the moment a
   * secret's AWSCURRENT moves in its stand-in. Absent: wait `clientCacheTtlMs`.
   */
  readonly rotationSettleMs?: number;
  /** Where the gateway listens (`http://127.0.0.1:<port>`): a CLI that cannot reach its default names it. Written once it listens. */
  readonly gatewayUrl?: string;
  /**
   * The gateway's keep bound of published keys, in days (its SIGNET_KEY_SOURCE_KEEP_DAYS): `signet rotate`
   * counts the operators that can still sign by it (`last_admin`), as the gateway does. Written once the handlers are loaded.
   */
  readonly keySourceKeepDays?: number;
  /**
   * `started`: the gateway runs this DynamoDB Local itself, and it answers only the home's access
   * key id (secrets-manager-credentials.json), which `signet rotate` then signs with; `given`: a
   * DynamoDB the user runs (SIGNET_DYNAMODB_ENDPOINT), signed with placeholder credentials as the
   * gateway does (a DynamoDB Local without -sharedDb keeps a database per access key id).
   */
  readonly dynamoDbOrigin?: 'started' | 'given';
}

const FIELDS: readonly Exclude<keyof LocalStateFile, OptionalField>[] = ['dynamoDbEndpoint', 'secretsManagerEndpoint', 'tableName', 'demoSecretId', 'region'];

/** The fields written only when known. */
type OptionalField = 'clientCacheTtlMs' | 'rotationSettleMs' | 'gatewayUrl' | 'keySourceKeepDays' | 'dynamoDbOrigin';

/** Writes the file (only these fields, in this order). */
export function writeLocalState(path: string, state: LocalStateFile): void {
  const ordered: Record<string, unknown> = Object.fromEntries(FIELDS.map((field) => [field, state[field]]));
  if (state.clientCacheTtlMs !== undefined) ordered.clientCacheTtlMs = state.clientCacheTtlMs;
  if (state.rotationSettleMs !== undefined) ordered.rotationSettleMs = state.rotationSettleMs;
  if (state.gatewayUrl !== undefined) ordered.gatewayUrl = state.gatewayUrl;
  if (state.keySourceKeepDays !== undefined) ordered.keySourceKeepDays = state.keySourceKeepDays;
  if (state.dynamoDbOrigin !== undefined) ordered.dynamoDbOrigin = state.dynamoDbOrigin;
  // Written aside and renamed in (mode 0600): a symbolic link left at the path is replaced, never written through.
  writeFileAtomically(path, `${JSON.stringify(ordered, null, 2)}\n`, 0o600);
}

/** Where the file and the running gateway's pid file are. */
export type LocalStatePaths = Pick<LocalPaths, 'localState' | 'pidFile'>;

/**
 * Reads the file, when the gateway that wrote it is still running.
 * @throws Error saying to run `npm start` when it is missing or incomplete, or its gateway is gone
 */
export function readLocalState(paths: LocalStatePaths): LocalStateFile {
  const path = paths.localState;
  if (!existsSync(path)) throw new Error(`${path} does not exist: start the local gateway first (\`npm start\`).`);
  if (runningGatewayPid(paths.pidFile) === undefined) {
    throw new Error(`${path} was left by a local gateway that is no longer running (no live process of yours in ${paths.pidFile}); the ports it names may now be anyone's. Start the gateway again (\`npm start\`).`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (cause) {
    throw new Error(`${path} is not valid JSON; restart the local gateway (\`npm start\`) to rewrite it.`, { cause });
  }
  const record = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const missing = FIELDS.filter((field) => typeof record[field] !== 'string' || record[field] === '');
  if (missing.length > 0) throw new Error(`${path} lacks ${missing.join(', ')}; restart the local gateway (\`npm start\`) to rewrite it.`);
  const ms = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
  return {
    ...(Object.fromEntries(FIELDS.map((field) => [field, record[field]])) as Omit<LocalStateFile, OptionalField>),
    ...(ms(record.clientCacheTtlMs) ? { clientCacheTtlMs: record.clientCacheTtlMs } : {}),
    ...(ms(record.rotationSettleMs) ? { rotationSettleMs: record.rotationSettleMs } : {}),
    ...(typeof record.gatewayUrl === 'string' && LOCAL_GATEWAY_URL.test(record.gatewayUrl) ? { gatewayUrl: record.gatewayUrl } : {}),
    ...(typeof record.keySourceKeepDays === 'number' && Number.isSafeInteger(record.keySourceKeepDays) && record.keySourceKeepDays >= 1 && record.keySourceKeepDays <= MAX_KEY_SOURCE_KEEP_DAYS ? { keySourceKeepDays: record.keySourceKeepDays } : {}),
    ...(record.dynamoDbOrigin === 'started' || record.dynamoDbOrigin === 'given' ? { dynamoDbOrigin: record.dynamoDbOrigin } : {}),
  };
}

/** A local gateway's URL as the file holds it. */
const LOCAL_GATEWAY_URL = /^http:\/\/127\.0\.0\.1:\d{1,5}$/;

/** The URL the gateway of this state file listens on, when it runs and the file says it; never throws. */
export function runningGatewayUrl(paths: LocalStatePaths): string | undefined {
  try {
    return readLocalState(paths).gatewayUrl;
  } catch {
    return undefined;
  }
}

/**
 * Where client commands go by default: `http://127.0.0.1:$PORT` when PORT is set, else the local
 * gateway of `$SIGNET_HOME` at the port it recorded in its local.json (one started with another
 * PORT), else `http://127.0.0.1:3000`.
 */
export function defaultEndpoint(env: Env = process.env): string {
  const port = env[LOCAL_ENV.port]?.trim();
  if (port !== undefined && port !== '') return localEndpoint(env);
  return runningGatewayUrl(localPaths(signetHome(env))) ?? localEndpoint(env);
}

/** Removes the file (when the gateway stops). */
export function removeLocalState(path: string): void {
  rmSync(path, { force: true });
}
