/**
 * Loads the deployed authorizer handler (lambda/handlers/authorizer.ts) the way Lambda does:
 * environment first, then the module, whose scope builds the config, the DynamoDB client and the
 * runtime once. Each call gives a fresh module instance, so one process can hold a warm-cache
 * instance and a cache-less one side by side.
 *
 * DynamoDB calls are counted on the handler's own SDK client: before the handler module loads,
 * the cached `lambda/store/dynamodb-client` module is swapped for one whose
 * `createDocumentClient` adds a counting middleware (step `initialize`, one count per command,
 * retries not included) to the client it returns. Nothing in lambda/ changes for this.
 */
import path from 'node:path';

/** Root of the repository. */
export const REPO_ROOT = path.resolve(__dirname, '..');

export type AuthorizerModule = typeof import('../lambda/handlers/authorizer');

/** Commands sent by one loaded handler, by name. */
export class CommandCounter {
  readonly byName = new Map<string, number>();
  total = 0;
  record(name: string): void {
    this.total += 1;
    this.byName.set(name, (this.byName.get(name) ?? 0) + 1);
  }
  /** Read commands only (GetItem, Query, BatchGetItem, Scan). */
  get reads(): number {
    let n = 0;
    for (const [name, count] of this.byName) if (/^(GetItem|Query|BatchGetItem|Scan)/.test(name)) n += count;
    return n;
  }
}

/** Drops every cached module under lambda/, so the next require builds a fresh handler. */
function forgetLambdaModules(): void {
  const lambdaDir = path.join(REPO_ROOT, 'lambda') + path.sep;
  for (const id of Object.keys(require.cache)) if (id.startsWith(lambdaDir)) delete require.cache[id];
}

/**
 * Requires a fresh authorizer handler with `env` set while its module scope runs (the environment
 * is restored afterwards), counting its DynamoDB commands into the returned counter.
 */
export function loadAuthorizerHandler(env: Record<string, string>): { handler: AuthorizerModule; commands: CommandCounter } {
  const commands = new CommandCounter();
  const saved = new Map(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  try {
    forgetLambdaModules();
    const clientModulePath = require.resolve('../lambda/store/dynamodb-client');
    const original = require(clientModulePath) as typeof import('../lambda/store/dynamodb-client');
    const counted: typeof original = {
      ...original,
      createDocumentClient: (options) => {
        const doc = original.createDocumentClient(options);
        doc.middlewareStack.add(
          (next, context) => async (args) => {
            commands.record(String(context.commandName));
            return next(args);
          },
          { step: 'initialize', name: 'signetBenchCountCommands' },
        );
        return doc;
      },
    };
    require.cache[clientModulePath]!.exports = counted;
    const handler = require('../lambda/handlers/authorizer') as AuthorizerModule;
    return { handler, commands };
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/**
 * Runs `fn` with process.stdout/stderr writes swallowed (and counted, in UTF-8 bytes, as CloudWatch
 * Logs ingests them): the handler writes its log lines and EMF metrics as in Lambda, and the
 * benchmark must pay for formatting them without flooding the terminal. `fn` is given the bytes
 * written so far, to measure a stretch of calls.
 */
export async function withSilencedOutput<T>(fn: (bytesWrittenSoFar: () => number) => Promise<T>): Promise<{ result: T; bytesWritten: number }> {
  let bytesWritten = 0;
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((s) => s.write);
  for (const stream of streams) {
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      bytesWritten += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
      const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      callback?.();
      return true;
    }) as typeof stream.write;
  }
  try {
    return { result: await fn(() => bytesWritten), bytesWritten };
  } finally {
    streams.forEach((s, i) => (s.write = originals[i]));
  }
}
