/**
 * How the tests run each partner example in examples/, and whether this machine can: an example
 * whose language or library is missing is skipped with the reason in the test's name, never faked;
 * except a `required` one (Go), whose tests then FAIL with how to install it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const EXAMPLES_DIR = resolve(__dirname, '..', '..', 'examples');

export interface ExampleRunner {
  /** Test label, e.g. `curl + openssl (examples/sign.sh)`. */
  readonly label: string;
  /** The command and its leading arguments; the example's own arguments follow. */
  readonly command: readonly string[];
  /** Why it cannot run here (printing headers), or undefined. */
  readonly unavailable: string | undefined;
  /** Why `--send` cannot run here, or undefined. */
  readonly cannotSend: string | undefined;
  /** When unavailable, fail (with `unavailable` as the message) instead of skipping. */
  readonly required?: boolean;
}

function works(command: string, args: readonly string[]): boolean {
  const result = spawnSync(command, args, { stdio: 'ignore', timeout: 30_000 });
  return result.error === undefined && result.status === 0;
}

function shellRunner(): ExampleRunner {
  const missing = ['sh', 'openssl'].filter((tool) => !works(tool, tool === 'sh' ? ['-c', 'exit 0'] : ['version']));
  return {
    label: 'curl + openssl (examples/sign.sh)',
    command: ['sh', join(EXAMPLES_DIR, 'sign.sh')],
    unavailable: missing.length > 0 ? `${missing.join(' and ')} not installed` : undefined,
    cannotSend: works('curl', ['--version']) ? undefined : 'curl not installed',
  };
}

function pythonRunner(): ExampleRunner {
  let unavailable: string | undefined;
  if (!works('python3', ['--version'])) unavailable = 'python3 not installed';
  else if (!works('python3', ['-c', 'import cryptography'])) unavailable = 'the Python package `cryptography` is not installed (pip install cryptography)';
  return { label: 'Python cryptography (examples/sign.py)', command: ['python3', join(EXAMPLES_DIR, 'sign.py')], unavailable, cannotSend: unavailable };
}

function javaRunner(): ExampleRunner {
  // `java File.java` (the source launcher) needs Java 11 or newer.
  const version = spawnSync('java', ['-version'], { encoding: 'utf8', timeout: 30_000 });
  const major = Number(/version "(?:1\.)?(\d+)/.exec(`${version.stderr ?? ''}${version.stdout ?? ''}`)?.[1] ?? 0);
  const unavailable = version.error !== undefined || version.status !== 0 ? 'java not installed' : major < 11 ? `java ${major} is older than 11` : undefined;
  return { label: 'Java SHA256withRSA (examples/Sign.java)', command: ['java', join(EXAMPLES_DIR, 'Sign.java')], unavailable, cannotSend: unavailable };
}

function nodeRunner(): ExampleRunner {
  return { label: 'Node.js node:crypto (examples/sign.mjs)', command: [process.execPath, join(EXAMPLES_DIR, 'sign.mjs')], unavailable: undefined, cannotSend: undefined };
}

/** How to get Go, for the failure message when it is missing. */
export const GO_INSTALL_HINT = 'install Go 1.19 or newer (Debian/Ubuntu: `sudo apt-get install golang`; elsewhere https://go.dev/dl/) so that `go` is on the PATH';

let goBinary: { path?: string; problem?: string } | undefined;

/**
 * The Go example, built once per test process: `go run` would add its own "exit status 1" line
 * to the example's one-line errors. Go is required: without it these tests fail with the hint.
 */
function goRunner(): ExampleRunner {
  if (goBinary === undefined) {
    const version = spawnSync('go', ['version'], { encoding: 'utf8', timeout: 30_000 });
    if (version.error !== undefined || version.status !== 0) {
      goBinary = { problem: `go is not installed: ${GO_INSTALL_HINT}` };
    } else {
      const out = join(mkdtempSync(join(tmpdir(), 'signet-go-example-')), 'sign');
      const build = spawnSync('go', ['build', '-o', out, join(EXAMPLES_DIR, 'sign.go')], { encoding: 'utf8', timeout: 300_000 });
      goBinary = build.status === 0 ? { path: out } : { problem: `go build examples/sign.go failed: ${(build.stderr ?? String(build.error)).trim().slice(0, 500)}` };
    }
  }
  const { path, problem } = goBinary;
  return { label: 'Go crypto/rsa (examples/sign.go)', command: [path ?? 'go'], unavailable: problem, cannotSend: problem, required: true };
}

/** Every example, with what this machine can do. */
export function exampleRunners(): readonly ExampleRunner[] {
  return [shellRunner(), pythonRunner(), javaRunner(), nodeRunner(), goRunner()];
}

/**
 * The test function for an example: `test` when it can run; `test.skip` when it cannot (the
 * reason goes in the name); for a required example that cannot run, a test that fails saying why.
 */
export function exampleTest(runner: ExampleRunner, available: string | undefined = runner.unavailable): { run: typeof test; suffix: string } {
  if (available === undefined) return { run: test, suffix: '' };
  if (runner.required === true) {
    const failing = ((name: string) =>
      test(name, () => {
        throw new Error(`${runner.label} cannot run: ${available}`);
      })) as unknown as typeof test;
    return { run: failing, suffix: '' };
  }
  return { run: test.skip, suffix: ` (skipped: ${available})` };
}

/** Runs an example; `args` are `[--send] KEY_FILE CLIENT_ID METHOD URL [BODY_FILE]`. */
export function runExample(runner: ExampleRunner, args: readonly string[]): { code: number | null; stdout: string; stderr: string } {
  const [command, ...lead] = runner.command;
  const result = spawnSync(command, [...lead, ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? String(result.error ?? '') };
}

/** `Name: value` lines → lower-case names. */
export function headerLinesToMap(stdout: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const colon = line.indexOf(': ');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 2);
  }
  return headers;
}
