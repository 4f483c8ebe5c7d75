/**
 * Where SignetFunction bundles from: the lock file above Signet's package (the repository's own, or
 * the app's for an installed Signet), and esbuild beside it. Each missing piece stops the synth with
 * a sentence naming what to do, instead of CDK's own error or a silent switch to Docker.
 * (test/package/packed-library.test.ts covers the installed case end to end.)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PACKAGE_ROOT, assertEsbuildInstalled, bundlingLockFile } from '../../lib/signet-function';

const ROOT = resolve(__dirname, '..', '..');
let work: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'signet-bundling-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

/** An app folder with Signet installed in node_modules/signet; returns the package's folder. */
function appWithSignet(lockFiles: string[]): string {
  for (const name of lockFiles) writeFileSync(join(work, name), '');
  const pkg = join(work, 'node_modules', 'signet');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'package.json'), '{"name":"signet"}');
  return pkg;
}

test("from source, Signet's package is the repository and it bundles against the repository's lock file", () => {
  expect(PACKAGE_ROOT).toBe(ROOT);
  expect(bundlingLockFile()).toBe(join(ROOT, 'package-lock.json'));
});

test("installed, Signet bundles against the lock file of the app that installed it", () => {
  expect(bundlingLockFile(appWithSignet(['pnpm-lock.yaml']))).toBe(join(work, 'pnpm-lock.yaml'));
});

test('an app without a lock file, or with two, stops the synth with what to do', () => {
  const pkg = appWithSignet([]);
  expect(() => bundlingLockFile(pkg)).toThrow(/found none above .*node_modules\/signet .*npm install writes package-lock\.json/);
  writeFileSync(join(work, 'package-lock.json'), '');
  writeFileSync(join(work, 'yarn.lock'), '');
  expect(() => bundlingLockFile(pkg)).toThrow(/several lock files in .* \(package-lock\.json, yarn\.lock\).*keep one/);
});

test('esbuild is found beside the app or on the PATH; missing from both, the synth stops with the install command', () => {
  expect(() => assertEsbuildInstalled(ROOT, () => false)).not.toThrow();
  expect(() => assertEsbuildInstalled(work, () => true)).not.toThrow();
  expect(() => assertEsbuildInstalled(work, () => false)).toThrow(/found none in .* or on the PATH: .*npm install --save-dev esbuild@0\.28/);
});
