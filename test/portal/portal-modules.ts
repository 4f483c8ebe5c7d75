/**
 * Test support: runs code against the portal's browser modules (portal/*.js, plain ES modules)
 * in a child Node process, where they use Node's WebCrypto (globalThis.crypto.subtle) as they
 * use the browser's. Jest runs CommonJS, so the modules are not imported here; one child runs a
 * whole batch of cases and answers JSON.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const PORTAL_DIR = resolve(__dirname, '..', '..', 'portal');

/** The modules, as the child names them. */
const MODULES = {
  sig: 'http-signature.js',
  keys: 'keys.js',
  network: 'network.js',
  validation: 'validation.js',
  view: 'view-model.js',
  client: 'registry-client.js',
  errors: 'errors.js',
} as const;

/**
 * Runs `body` (the body of an async function of `input` and `m`, the modules by the names above)
 * in a fresh Node process and returns what it returns (JSON). A thrown error fails the call with
 * the child's stderr.
 */
export function runInPortal<T>(body: string, input: unknown = null): T {
  const imports = Object.entries(MODULES)
    .map(([name, file]) => `${name}: await import(${JSON.stringify(pathToFileURL(resolve(PORTAL_DIR, file)).href)})`)
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

/** Code for the child: runs `fn` and returns `{ value }` or `{ code, message }` for a PortalError. */
export const OUTCOME = `
  const outcome = async (fn) => {
    try { return { value: await fn() }; }
    catch (e) { if (e instanceof m.errors.PortalError) return { code: e.code, message: e.message }; throw e; }
  };
`;
