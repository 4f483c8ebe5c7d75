/**
 * `npm start`'s gateway (local/main.ts) as a child process for the benchmarks: its own temporary
 * SIGNET_HOME, a free port, the environment `npm start` would have. Its output (an access line and
 * a JSON log line per request) is drained and only the tail kept, for error messages.
 */
import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readClientDir, type ClientDir } from '../local/client-dir';
import { REPO_ROOT } from './authorizer-handler-loader';

/** How long the gateway may take to print `ready` (it starts DynamoDB Local, a JVM). */
const START_TIMEOUT_MS = 180_000;
const TAIL_CHARS = 4_000;

export interface GatewayChild {
  readonly url: string;
  readonly pid: number;
  readonly home: string;
  readonly demo: ClientDir;
  readonly admin: ClientDir;
  /** The last few KB the gateway printed. */
  tail(): string;
  /** SIGTERM (the gateway stops DynamoDB Local too), then removes the temporary home. */
  stop(): Promise<void>;
}

export async function startGatewayChild(): Promise<GatewayChild> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-bench-home-'));
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('SIGNET_')));
  const child = spawn(process.execPath, ['--no-warnings', '-r', 'tsx/cjs', 'local/main.ts'], {
    cwd: REPO_ROOT,
    env: { ...inherited, SIGNET_HOME: home, PORT: '0' }, // 0: the gateway binds a port the system picks
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (chunk: Buffer): void => {
    tail = (tail + chunk.toString('utf8')).slice(-TAIL_CHARS);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const url = await new Promise<string | undefined>((resolve) => {
    let seen = '';
    const timer = setTimeout(() => resolve(undefined), START_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString('utf8');
      const m = /ready: (http:\/\/\S+)/.exec(seen);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        resolve(m[1]);
      }
    };
    child.stdout!.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
    fs.rmSync(home, { recursive: true, force: true });
  };
  if (url === undefined) {
    await stop();
    throw new Error(`the local gateway did not become ready:\n${tail}`);
  }
  return {
    url,
    pid: (child as ChildProcess).pid as number,
    home,
    demo: readClientDir(path.join(home, 'demo')),
    admin: readClientDir(path.join(home, 'admin')),
    tail: () => tail,
    stop,
  };
}
