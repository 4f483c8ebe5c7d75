/**
 * Test support: runs code against the portal's browser modules (portal/*.js, plain ES modules,
 * and signet-core.js, the core bundled for the browser exactly as the gateway and the deployed
 * portal serve it) in a child Node process, where they use Node's WebCrypto as they use the
 * browser's. Jest runs CommonJS, so the modules are not imported here; one child runs a whole
 * batch of cases and answers JSON. The modules run from a temporary folder holding the page's
 * modules and the bundle, as a browser sees them.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PORTAL_CORE_FILE } from '../../lambda/portal/static-site';
import { buildPortalCore } from '../../lib/portal-bundle';

export const PORTAL_DIR = resolve(__dirname, '..', '..', 'portal');

/** The modules, as the child names them. */
const MODULES = {
  core: PORTAL_CORE_FILE,
  keys: 'keys.js',
  validation: 'validation.js',
  view: 'view-model.js',
  client: 'registry-client.js',
} as const;

let servedDir: string | undefined;

/** The page's modules and the core bundle in one folder, built once per test file. */
function served(): string {
  if (servedDir !== undefined) return servedDir;
  const dir = mkdtempSync(join(tmpdir(), 'signet-portal-modules-'));
  for (const name of readdirSync(PORTAL_DIR)) if (name.endsWith('.js') || name === 'package.json') copyFileSync(join(PORTAL_DIR, name), join(dir, name));
  writeFileSync(join(dir, PORTAL_CORE_FILE), buildPortalCore());
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  servedDir = dir;
  return dir;
}

/**
 * Runs `body` (the body of an async function of `input` and `m`, the modules by the names above)
 * in a fresh Node process and returns what it returns (JSON). A thrown error fails the call with
 * the child's stderr.
 */
export function runInPortal<T>(body: string, input: unknown = null): T {
  const dir = served();
  const imports = Object.entries(MODULES)
    .map(([name, file]) => `${name}: await import(${JSON.stringify(pathToFileURL(join(dir, file)).href)})`)
    .join(',\n');
  const script = `
    const m = {\n${imports}\n};
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
