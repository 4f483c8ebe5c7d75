/**
 * Test support: runs `npm start`'s entry point (local/main.ts) as a child process, exactly as a
 * developer does, with a temporary SIGNET_HOME and a free port, and stops it with a signal.
 *
 * The child is `node -r tsx/cjs local/main.ts` (what `tsx local/main.ts` runs, in one process),
 * so the pid we signal is the gateway itself. By default the gateway keeps its table on the test
 * run's DynamoDB Local (test/support/dynamodb.ts), given through SIGNET_DYNAMODB_ENDPOINT as a
 * user gives one they run, in a table named after its SIGNET_HOME: no JVM of its own per start.
 * A test of the gateway's own DynamoDB Local asks for `dynamoDb: 'own'`; that emulator's pid is
 * read from the ready output, to check that stopping leaves no emulator behind.
 *
 * Also: signing helpers for the tests (a client directory's identity, a core-signed fetch).
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { KeyObject, createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { signRequest } from '../../lambda/core/sign';
import { hasClientKey, writeKeyFiles } from '../../local/client-dir';
import { LOCAL_ENV, localPaths } from '../../local/signet-home';
import { type TestDynamoDb, startTestDynamoDb } from '../support/dynamodb';
import { nextTestKey } from '../support/test-keys';

export const REPO_ROOT = resolve(__dirname, '..', '..');

/** How long the gateway may take to print `ready` (DynamoDB Local is a JVM). */
export const GATEWAY_START_TIMEOUT_MS = 120_000;

export interface GatewayProcess {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** The DynamoDB Local the gateway started (`dynamoDb: 'own'`); undefined on the run's emulator. */
  readonly dynamoDbPid: number | undefined;
  /** Everything the gateway printed so far (stdout and stderr). */
  output(): string;
  /** Sends `signal` and resolves with the exit code once the process is gone. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The environment the child runs with: this process's without any SIGNET_* variable, then SIGNET_HOME and PORT. */
export function gatewayEnv(home: string, port: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SIGNET_')));
  return { ...inherited, SIGNET_HOME: home, PORT: String(port), ...extra };
}

export interface GatewayStartOptions {
  /** @default 0: a port the system picks */
  readonly port?: number;
  /** More environment for the gateway (after SIGNET_HOME, PORT and the DynamoDB variables). */
  readonly env?: Record<string, string>;
  /**
   * Give the admin and demo clients keys from the test key pool (test/support/test-keys.ts) before
   * the first start, as if an earlier start had made them, instead of having the gateway generate
   * two RSA keys; for tests that are not about the first start.
   * @default false
   */
  readonly seedKeys?: boolean;
  /**
   * `run`: the test run's DynamoDB Local through SIGNET_DYNAMODB_ENDPOINT, with SIGNET_TABLE_NAME
   * a table named after `home` (a restart on the same home finds it; other homes never see it);
   * `own`: the gateway starts DynamoDB Local itself, as a plain `npm start` does.
   * @default 'run'
   */
  readonly dynamoDb?: 'run' | 'own';
}

/** The table a gateway on the run's emulator keeps its clients in: one per SIGNET_HOME. */
export function gatewayTableName(home: string): string {
  return `signet-gateway-${createHash('sha256').update(home).digest('hex').slice(0, 16)}`;
}

/** Starts the gateway and resolves once it printed `ready: <url>`. */
export async function startGatewayProcess(home: string, options: GatewayStartOptions = {}): Promise<GatewayProcess> {
  if (options.seedKeys === true) {
    const { adminDir, demoDir } = localPaths(home);
    for (const dir of [adminDir, demoDir]) if (!hasClientKey(dir)) writeKeyFiles(dir, nextTestKey());
  }
  // The run's emulator answers before the gateway is pointed at it (the global setup does not wait for it).
  const runDynamoDb: TestDynamoDb | undefined = (options.dynamoDb ?? 'run') === 'run' ? await startTestDynamoDb() : undefined;
  const dynamoDbEnv: Record<string, string> = runDynamoDb === undefined ? {} : { [LOCAL_ENV.dynamoDbEndpoint]: runDynamoDb.endpoint, [LOCAL_ENV.tableName]: gatewayTableName(home) };
  // PORT=0 by default: the gateway binds a port the system picks. A port found free here first could be
  // taken by another process (a test worker's emulator, say) before the gateway binds it.
  const port = options.port ?? 0;
  const child = spawn(process.execPath, ['--no-warnings', '-r', 'tsx/cjs', 'local/main.ts'], {
    cwd: REPO_ROOT,
    env: gatewayEnv(home, port, { ...dynamoDbEnv, ...options.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  // The handle on the run's emulator is released once the gateway is gone (the tables stay: a restart on this home finds its own).
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code))).then(async (code) => {
    await runDynamoDb?.stop();
    return code;
  });

  const ready = await new Promise<boolean>((resolveReady) => {
    const timer = setTimeout(() => resolveReady(false), GATEWAY_START_TIMEOUT_MS);
    const check = (): void => {
      if (/ready: http:\/\/\S+/.test(output)) {
        clearTimeout(timer);
        resolveReady(true);
      }
    };
    child.stdout?.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      resolveReady(/ready: http:\/\/\S+/.test(output));
    });
  });
  if (!ready) {
    child.kill('SIGKILL');
    throw new Error(`the gateway did not become ready:\n${output}`);
  }
  const url = /ready: (http:\/\/\S+)/.exec(output)![1];
  const boundPort = Number(new URL(url).port);
  const ownPid = /DynamoDB Local pid (\d+)/.exec(output)?.[1];
  const dynamoDbPid = ownPid === undefined ? undefined : Number(ownPid);
  return {
    url,
    port: boundPort,
    pid: child.pid as number,
    dynamoDbPid,
    output: () => output,
    stop: (signal = 'SIGTERM') => stopChild(child, exited, signal),
  };
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>, signal: NodeJS.Signals): Promise<number | null> {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

/** True while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Waits (bounded) until the pid is gone; returns whether it is. */
export async function waitUntilGone(pid: number, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/** Who signs in a test. */
export interface TestSigner {
  readonly clientId: string;
  readonly privateKey: KeyObject;
}

export interface SignedSend {
  readonly method?: string;
  /** The body that is signed (Content-Digest). */
  readonly body?: string;
  /** The body actually sent, when it must differ from the signed one. @default body */
  readonly sentBody?: string;
  /** `created`, unix seconds. @default now */
  readonly created?: number;
  readonly headers?: Record<string, string>;
}

/** Signs with the core and sends with fetch; returns status, the x-signet-error header and the parsed JSON body. */
export async function sendSigned(
  signer: TestSigner,
  url: string,
  send: SignedSend = {},
): Promise<{ status: number; code: string | null; body: Record<string, unknown>; headers: Headers }> {
  const method = send.method ?? (send.body !== undefined ? 'POST' : 'GET');
  const { headers } = signRequest({
    method,
    url,
    body: send.body,
    keyId: signer.clientId,
    privateKey: signer.privateKey,
    created: send.created ?? Math.floor(Date.now() / 1000),
  });
  const sentBody = send.sentBody ?? send.body;
  const response = await fetch(url, {
    method,
    headers: { ...(sentBody !== undefined ? { 'content-type': 'application/json' } : {}), ...(send.headers ?? {}), ...headers },
    body: sentBody,
  });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status: response.status, code: response.headers.get('x-signet-error'), body, headers: response.headers };
}

/** Runs the `signet` CLI (bin/signet.ts) synchronously, as a user would. */
export function runSignet(args: readonly string[], env: NodeJS.ProcessEnv, input?: string): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['--no-warnings', '-r', 'tsx/cjs', 'bin/signet.ts', ...args], {
    cwd: REPO_ROOT,
    env,
    input,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
