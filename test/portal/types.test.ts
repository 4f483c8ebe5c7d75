/**
 * The portal's modules are plain JavaScript with JSDoc types (`// @ts-check`): they must
 * type-check under TypeScript's strict mode with the DOM library, as the repository's TypeScript
 * does (tsconfig.json covers only .ts files, so this test is what checks them). Their import of
 * ./signet-core.js resolves to portal/signet-core.ts, so the core modules the page uses are
 * checked here too, with the DOM library and without Node's types: they must need nothing of Node.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PORTAL_DIR } from './portal-modules';

const modules = readdirSync(PORTAL_DIR).filter((name) => name.endsWith('.js'));

test('every module opts in to type checking', () => {
  expect(modules.sort()).toEqual(['key-store.js', 'keys.js', 'portal.js', 'registry-client.js', 'validation.js', 'view-model.js']);
  for (const name of modules) expect([name, readFileSync(join(PORTAL_DIR, name), 'utf8').startsWith('// @ts-check\n')]).toEqual([name, true]);
});

test('the modules type-check (strict, DOM, ES2022)', () => {
  const tsc = require.resolve('typescript/bin/tsc');
  const args = ['--ignoreConfig', '--noEmit', '--allowJs', '--checkJs', '--strict', '--target', 'es2022', '--module', 'es2022', '--moduleResolution', 'bundler', '--lib', 'es2022,dom,dom.iterable', '--skipLibCheck'];
  const result = spawnSync(process.execPath, [tsc, ...args, ...modules.map((m) => join(PORTAL_DIR, m))], { encoding: 'utf8', timeout: 120_000 });
  expect(result.stdout + result.stderr).toBe('');
  expect(result.status).toBe(0);
});
