/**
 * The client portal's script, bundled for the browser: the page's TypeScript (portal/*.ts) and
 * the parts of Signet's core it uses (portal/signet-core.ts names them) become one ES module,
 * `portal.js`, which index.html loads. One build, used by the deployed portal (ClientPortal bundles
 * it at synth next to the Lambda's copy of index.html and portal.css) and the local gateway (when
 * the portal is first opened); nothing generated is committed, so the page cannot drift from the core.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { BuildOptions } from 'esbuild';
import { PORTAL_SCRIPT_FILE } from '../lambda/portal/static-site';
import { PACKAGE_ROOT } from './package-root';

/** The page's entry: its script, with every module it imports. */
export const PORTAL_ENTRY = path.join(PACKAGE_ROOT, 'portal', 'portal.ts');

/** How it is built: one ES module for current browsers, minified, with no Node built-ins (esbuild refuses them for `browser`). */
export const PORTAL_BUILD_OPTIONS = {
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
 * Builds `entry` (by default the page's script, served as PORTAL_SCRIPT_FILE) and returns the
 * bundle's text (about 50 KB; ~100 ms). Uses the esbuild package the app (or Signet) has
 * installed, or else `esbuild` on the PATH: the same esbuild that bundles Signet's Lambda functions.
 * @throws Error naming what to install when there is no esbuild, or esbuild's own errors
 */
export function buildPortalScript(entry: string = PORTAL_ENTRY, projectRoot: string = process.cwd()): string {
  const esbuild = loadEsbuild(projectRoot);
  if (esbuild !== undefined) {
    const result = esbuild.buildSync({ ...PORTAL_BUILD_OPTIONS, entryPoints: [entry], write: false });
    return result.outputFiles[0].text;
  }
  const flags = [
    '--bundle',
    `--format=${PORTAL_BUILD_OPTIONS.format}`,
    `--platform=${PORTAL_BUILD_OPTIONS.platform}`,
    `--target=${PORTAL_BUILD_OPTIONS.target}`,
    '--minify',
    `--legal-comments=${PORTAL_BUILD_OPTIONS.legalComments}`,
    `--charset=${PORTAL_BUILD_OPTIONS.charset}`,
    `--log-level=${PORTAL_BUILD_OPTIONS.logLevel}`,
  ];
  const run = spawnSync('esbuild', [entry, ...flags], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (run.error !== undefined) {
    throw new Error(
      `Signet builds the client portal's ${PORTAL_SCRIPT_FILE} with esbuild and found none in ${projectRoot} or on the PATH: add it to your app (npm install --save-dev esbuild@0.28).`,
    );
  }
  if (run.status !== 0) throw new Error(`esbuild could not build the client portal's ${PORTAL_SCRIPT_FILE}:\n${run.stderr.trim()}`);
  return run.stdout;
}

/**
 * The page's script as a file, for a function's bundling to copy (ClientPortal). The file is named
 * by its content (`<tmpdir>/signet-portal-<uid>/<sha256>/portal.js`), so synths of the same page
 * share one and nothing piles up. What the deployed portal runs must be what was built: the file
 * lives in a directory only this user may write (another user of the machine could otherwise
 * create the path first and put a script of their own there), and one that does not hold exactly
 * the built text is written again.
 */
export function portalScriptFile(): string {
  const text = buildPortalScript();
  const dir = path.join(privateCacheDir(), createHash('sha256').update(text).digest('hex').slice(0, 16));
  const file = path.join(dir, PORTAL_SCRIPT_FILE);
  if (readIfExists(file) !== text) {
    // Written under a name of its own, then renamed: a synth copying the file never sees it half-written.
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, text);
    renameSync(partial, file);
  }
  return file;
}

/**
 * `<tmpdir>/signet-portal-<uid>`, made with mode 0700, when it is a directory (not a link) of this
 * user that nobody else may write; otherwise (someone else made it, or loosened it) a new directory
 * of its own.
 */
function privateCacheDir(): string {
  const uid = process.getuid?.();
  const dir = path.join(tmpdir(), `signet-portal-${uid ?? 'user'}`);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch {
    // there already: judged below
  }
  const stat = lstatSync(dir, { throwIfNoEntry: false });
  const ours = stat !== undefined && stat.isDirectory() && (uid === undefined || (stat.uid === uid && (stat.mode & 0o022) === 0));
  return ours ? dir : mkdtempSync(path.join(tmpdir(), 'signet-portal-'));
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
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
