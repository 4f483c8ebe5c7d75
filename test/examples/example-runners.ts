/**
 * How the tests run each partner example in examples/, and what each needs on the machine
 * (test/support/prerequisites.ts decides whether a test may skip when it is missing).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { PrerequisiteId } from '../../scripts/prerequisites.cjs';

export const EXAMPLES_DIR = resolve(__dirname, '..', '..', 'examples');

export interface ExampleRunner {
  /** Test label, e.g. `curl + openssl (examples/sign.sh)`. */
  readonly label: string;
  /** The command and its leading arguments; the example's own arguments follow. */
  readonly command: readonly string[];
  /** The prerequisite (scripts/prerequisites.cjs) it needs to sign and to send, if any. */
  readonly needs: PrerequisiteId | undefined;
}

let goBinary: string | undefined;

/**
 * The Go example's command: built once per test process, because `go run` adds its own
 * "exit status 1" line to the example's one-line errors. Where the build fails, `go run`, so that
 * the test shows the compiler's message.
 */
function goCommand(): readonly string[] {
  const source = join(EXAMPLES_DIR, 'sign.go');
  if (goBinary === undefined) {
    if (spawnSync('go', ['version'], { stdio: 'ignore', timeout: 30_000 }).status !== 0) return ['go', 'run', source];
    const out = join(mkdtempSync(join(tmpdir(), 'signet-go-example-')), 'sign');
    const build = spawnSync('go', ['build', '-o', out, source], { stdio: 'ignore', timeout: 300_000 });
    if (build.status !== 0) return ['go', 'run', source];
    goBinary = out;
  }
  return [goBinary];
}

let javaClasses: string | undefined;

/**
 * The Java example's command: compiled once per test process with `javac`, then run from its
 * class. `java Sign.java`, as docs/signing-examples.md runs it, compiles the source in memory on
 * every run: about 1.3 s of CPU each time, against 0.15 s for the compiled class. Where `javac`
 * fails, `java Sign.java`, so that the test shows the compiler's message.
 */
function javaCommand(): readonly string[] {
  const source = join(EXAMPLES_DIR, 'Sign.java');
  if (javaClasses === undefined) {
    const out = mkdtempSync(join(tmpdir(), 'signet-java-example-'));
    const build = spawnSync('javac', ['-d', out, source], { stdio: 'ignore', timeout: 300_000 });
    if (build.status !== 0) return ['java', source];
    javaClasses = out;
  }
  return ['java', '-cp', javaClasses, 'Sign'];
}

/** Every example, and the tool it runs on. */
export function exampleRunners(): readonly ExampleRunner[] {
  return [
    { label: 'curl + openssl (examples/sign.sh)', command: ['sh', join(EXAMPLES_DIR, 'sign.sh')], needs: 'openssl' },
    { label: 'Python cryptography (examples/sign.py)', command: ['python3', join(EXAMPLES_DIR, 'sign.py')], needs: 'python' },
    { label: 'Java SHA256withRSA (examples/Sign.java)', command: javaCommand(), needs: 'java' },
    { label: 'Node.js node:crypto (examples/sign.mjs)', command: [process.execPath, join(EXAMPLES_DIR, 'sign.mjs')], needs: undefined },
    { label: 'Go crypto/rsa (examples/sign.go)', command: goCommand(), needs: 'go' },
  ];
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
