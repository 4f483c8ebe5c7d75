/**
 * The page is TypeScript (portal/*.ts) and runs in a browser: it must type-check under strict mode
 * with the DOM library and without Node's types, so neither the page nor the core modules it
 * bundles can lean on anything of Node (`npm run build` checks it too, but with Node's types).
 * No hand-written JavaScript is left in the portal: its script is the bundle (lib/portal-bundle.ts).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PORTAL_DIR } from './portal-modules';

test('the portal holds its page, its stylesheet and TypeScript, and no JavaScript', () => {
  const files = readdirSync(PORTAL_DIR).sort();
  expect(files.filter((name) => /\.(c|m)?js$/.test(name))).toEqual([]);
  expect(files).toEqual([
    'account-dialog.ts',
    'account-scope.ts',
    'audit-panel.ts',
    'client-form.ts',
    'client-list.ts',
    'confirm.ts',
    'dialogs.ts',
    'dom.ts',
    'failures-panel.ts',
    'form-words.ts',
    'index.html',
    'key-box.ts',
    'key-generation.ts',
    'key-panel.ts',
    'key-source-panel.ts',
    'key-source-view.ts',
    'key-store.ts',
    'keys.ts',
    'page-state.ts',
    'portal.css',
    'portal.ts',
    'registry-client.ts',
    'sign-in.ts',
    'signet-core.ts',
    'toasts.ts',
    'validation.ts',
    'view-model.ts',
  ]);
});

test('the page and the core it bundles type-check with the DOM library and no Node types (strict, ES2022)', () => {
  const tsc = require.resolve('typescript/bin/tsc');
  const args = ['--ignoreConfig', '--noEmit', '--strict', '--target', 'es2022', '--module', 'es2022', '--moduleResolution', 'bundler', '--lib', 'es2022,dom,dom.iterable', '--skipLibCheck'];
  const result = spawnSync(process.execPath, [tsc, ...args, join(PORTAL_DIR, 'portal.ts'), join(PORTAL_DIR, 'signet-core.ts')], { encoding: 'utf8', timeout: 120_000 });
  expect(result.stdout + result.stderr).toBe('');
  expect(result.status).toBe(0);
});
