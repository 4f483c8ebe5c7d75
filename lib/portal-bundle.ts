/**
 * The client portal's share of the core, bundled for the browser: portal/signet-core.ts (the
 * core's errors, whitelist rules, signer, field rules and constants) becomes `signet-core.js`,
 * an ES module the page's own modules import. One build, used by the deployed portal (ClientPortal
 * bundles it at synth next to the Lambda's copy of portal/) and the local gateway (at start);
 * nothing generated is committed, so the page cannot drift from the core.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { BuildOptions } from 'esbuild';
import { PORTAL_CORE_FILE } from '../lambda/portal/static-site';
import { PACKAGE_ROOT } from './package-root';


/** The TypeScript entry the bundle is built from. */
export const PORTAL_CORE_ENTRY = path.join(PACKAGE_ROOT, 'portal', 'signet-core.ts');

/** How it is built: one ES module for current browsers, minified, with no Node built-ins (esbuild refuses them for `browser`). */
const BUILD = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'none',
  charset: 'utf8',
  logLevel: 'warning',
} as const satisfies BuildOptions;

/**
 * Builds the bundle and returns its text (about 20 KB; ~100 ms).
 * Uses the esbuild package the app (or Signet) has installed, or else `esbuild` on the PATH:
 * the same esbuild that bundles Signet's Lambda functions.
 * @throws Error naming what to install when there is no esbuild, or esbuild's own errors
 */
export function buildPortalCore(projectRoot: string = process.cwd()): string {
  const esbuild = loadEsbuild(projectRoot);
  if (esbuild !== undefined) {
    const result = esbuild.buildSync({ ...BUILD, entryPoints: [PORTAL_CORE_ENTRY], write: false });
    return result.outputFiles[0].text;
  }
  const flags = [
    '--bundle',
    `--format=${BUILD.format}`,
    `--platform=${BUILD.platform}`,
    `--target=${BUILD.target}`,
    '--minify',
    `--legal-comments=${BUILD.legalComments}`,
    `--charset=${BUILD.charset}`,
    `--log-level=${BUILD.logLevel}`,
  ];
  const run = spawnSync('esbuild', [PORTAL_CORE_ENTRY, ...flags], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (run.error !== undefined) {
    throw new Error(
      `Signet builds the client portal's ${PORTAL_CORE_FILE} with esbuild and found none in ${projectRoot} or on the PATH: add it to your app (npm install --save-dev esbuild@0.28).`,
    );
  }
  if (run.status !== 0) throw new Error(`esbuild could not build the client portal's ${PORTAL_CORE_FILE}:\n${run.stderr.trim()}`);
  return run.stdout;
}

function loadEsbuild(projectRoot: string): typeof import('esbuild') | undefined {
  for (const from of [projectRoot, PACKAGE_ROOT]) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional peer dependency, loaded only when the portal is built
      return require(require.resolve('esbuild', { paths: [from] })) as typeof import('esbuild');
    } catch {
      // not installed there
    }
  }
  return undefined;
}
