/**
 * Test support: runs code against the portal's modules (portal/*.ts, with the core they use),
 * bundled for the browser exactly as the page's script is (lib/portal-bundle.ts options), in a
 * child Node process where they use Node's WebCrypto as they use the browser's. One child runs a
 * whole batch of cases and answers JSON.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';
import { PORTAL_BUILD_OPTIONS } from '../../lib/portal-bundle';

export const PORTAL_DIR = resolve(__dirname, '..', '..', 'portal');

/** The modules, as the child names them. */
const MODULES = {
  core: 'signet-core',
  keys: 'keys',
  generation: 'key-generation',
  validation: 'validation',
  formWords: 'form-words',
  view: 'view-model',
  client: 'registry-client',
} as const;

let bundlePath: string | undefined;

/** One ES module exporting each page module as a namespace, built once per test file. */
function bundle(): string {
  if (bundlePath !== undefined) return bundlePath;
  const dir = mkdtempSync(join(tmpdir(), 'signet-portal-modules-'));
  const contents = Object.entries(MODULES)
    .map(([name, file]) => `export * as ${name} from './${file}';`)
    .join('\n');
  const result = buildSync({ ...PORTAL_BUILD_OPTIONS, minify: false, stdin: { contents, resolveDir: PORTAL_DIR, loader: 'ts' }, write: false });
  bundlePath = join(dir, 'portal-modules.mjs');
  writeFileSync(bundlePath, result.outputFiles[0].text);
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return bundlePath;
}

/**
 * Runs `body` (the body of an async function of `input` and `m`, the modules by the names above)
 * in a fresh Node process and returns what it returns (JSON). A thrown error fails the call with
 * the child's stderr.
 */
export function runInPortal<T>(body: string, input: unknown = null): T {
  const script = `
    const m = await import(${JSON.stringify(pathToFileURL(bundle()).href)});
    let text = '';
    for await (const chunk of process.stdin) text += chunk;
    const input = JSON.parse(text);
    const run = async (input, m) => {\n${body}\n};
    const out = await run(input, m);
    process.stdout.write(JSON.stringify(out === undefined ? null : out));
  `;
  const result = spawnSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', script], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 120_000,
  });
  if (result.status !== 0) throw new Error(`portal module run failed (${String(result.status)}):\n${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** Code for the child: runs `fn` and returns `{ value }` or `{ code, message }` for a SignetError. */
export const OUTCOME = `
  const outcome = async (fn) => {
    try { return { value: await fn() }; }
    catch (e) { if (e instanceof m.core.SignetError) return { code: e.code, message: e.message }; throw e; }
  };
`;
