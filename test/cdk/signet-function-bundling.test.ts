/**
 * Where SignetFunction bundles from: the lock file above Signet's package (the repository's own, or
 * the app's for an installed Signet), and esbuild beside it. Each missing piece stops the synth with
 * a sentence naming what to do, instead of CDK's own error or a silent switch to Docker.
 * (test/package/packed-library.test.ts covers the installed case end to end.) And what the bundles
 * leave to the Lambda runtime: the AWS SDK, whose version each function checks at init.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';
import { DEPLOYED_ESBUILD_OPTIONS } from '../../bench/cold-init';
import { MIN_RUNTIME_SDK_VERSION, RUNTIME_SDK_PACKAGES, assertRuntimeSdk, runtimeSdkVersions } from '../../lambda/runtime-sdk';
import { EXTERNAL_MODULES, LAMBDA_ENTRIES, PACKAGE_ROOT, assertEsbuildInstalled, bundlingLockFile } from '../../lib/signet-function';

const ROOT = resolve(__dirname, '..', '..');
let work: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'signet-bundling-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

/** An app folder with Signet installed in node_modules/@signet-gateway/signet; returns the package's folder. */
function appWithSignet(lockFiles: string[]): string {
  for (const name of lockFiles) writeFileSync(join(work, name), '');
  const pkg = join(work, 'node_modules', '@signet-gateway', 'signet');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'package.json'), '{"name":"@signet-gateway/signet"}');
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
  expect(() => bundlingLockFile(pkg)).toThrow(/found none above .*node_modules\/@signet-gateway\/signet .*npm install writes package-lock\.json/);
  writeFileSync(join(work, 'package-lock.json'), '');
  writeFileSync(join(work, 'yarn.lock'), '');
  expect(() => bundlingLockFile(pkg)).toThrow(/several lock files in .* \(package-lock\.json, yarn\.lock\).*keep one/);
});

test('esbuild is found beside the app or on the PATH; missing from both, the synth stops with the install command', () => {
  expect(() => assertEsbuildInstalled(ROOT, () => false)).not.toThrow();
  expect(() => assertEsbuildInstalled(work, () => true)).not.toThrow();
  expect(() => assertEsbuildInstalled(work, () => false)).toThrow(/found none in .* or on the PATH: .*npm install --save-dev esbuild@0\.28/);
});

describe('the AWS SDK the functions run', () => {
  /** Each Lambda entry bundled as SignetFunction bundles it: the sources inlined, and what stays an external require. */
  function bundle(file: string): { inputs: string[]; externals: string[] } {
    const result = buildSync({
      entryPoints: [join(ROOT, file)],
      outfile: join(work, 'index.js'),
      bundle: true,
      platform: 'node',
      target: 'node22',
      format: 'cjs',
      external: [...EXTERNAL_MODULES],
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const externals = Object.values(result.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path));
    return { inputs: Object.keys(result.metafile.inputs), externals: [...new Set(externals)].filter((p) => !p.startsWith('node:') && !isBuiltin(p)).sort() };
  }

  test('every bundle leaves the SDK to the runtime (no @aws-sdk or @smithy code inlined, one copy runs) and reads the version of the copy it runs', () => {
    expect([...EXTERNAL_MODULES]).toEqual(['@aws-sdk/*']);
    expect(DEPLOYED_ESBUILD_OPTIONS.external).toEqual([...EXTERNAL_MODULES]); // the cold-init benchmark measures the same bundles
    const files = [...new Set(Object.values(LAMBDA_ENTRIES).map((e) => e.file))];
    const allowed = new Set(RUNTIME_SDK_PACKAGES.flatMap((pkg) => [pkg, `${pkg}/package.json`]));
    const checked: string[] = [];
    for (const file of files) {
      const { inputs, externals } = bundle(file);
      expect([file, inputs.filter((input) => /node_modules\/@(aws-sdk|smithy)\//.test(input))]).toEqual([file, []]);
      expect([file, externals.filter((e) => !allowed.has(e))]).toEqual([file, []]);
      if (externals.includes('@aws-sdk/client-dynamodb')) {
        expect([file, externals]).toEqual([file, expect.arrayContaining(RUNTIME_SDK_PACKAGES.map((pkg) => `${pkg}/package.json`))]);
        checked.push(file);
      }
    }
    // The functions that talk to AWS: authorizer, registry, rotation, admin bootstrap, key source refresher.
    expect(checked).toHaveLength(5);
  });

  test(`an SDK older than ${MIN_RUNTIME_SDK_VERSION} (e.g. from a layer) stops the function at init with a sentence; the pinned one passes`, () => {
    const installed = runtimeSdkVersions();
    expect(installed).toEqual(Object.fromEntries(RUNTIME_SDK_PACKAGES.map((pkg) => [pkg, pinned(pkg)])));
    expect(() => assertRuntimeSdk(installed)).not.toThrow();
    expect(() => assertRuntimeSdk({ ...installed, '@aws-sdk/client-dynamodb': MIN_RUNTIME_SDK_VERSION })).not.toThrow();
    expect(() => assertRuntimeSdk({ ...installed, '@aws-sdk/client-dynamodb': '3.520.9', '@aws-sdk/lib-dynamodb': 'unreadable' })).toThrow(
      `Signet needs the AWS SDK for JavaScript ${MIN_RUNTIME_SDK_VERSION} or later, and this function loads @aws-sdk/client-dynamodb 3.520.9, @aws-sdk/lib-dynamodb unreadable. ` +
        'The SDK comes from the Lambda runtime, or from a layer that ships its own: use the nodejs22.x runtime Signet deploys, and remove the layer or update its SDK.',
    );
    expect(() => assertRuntimeSdk({ '@aws-sdk/client-dynamodb': '2.1692.0' })).toThrow(/loads @aws-sdk\/client-dynamodb 2\.1692\.0\./);
  });
});

/** The version package.json pins for an SDK package (what the tests run against). */
function pinned(pkg: string): string {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string>; dependencies?: Record<string, string> };
  return String(manifest.devDependencies?.[pkg] ?? manifest.dependencies?.[pkg]);
}
