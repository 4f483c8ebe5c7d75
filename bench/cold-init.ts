/**
 * Cold init: every Lambda entry (lib/signet-function.ts LAMBDA_ENTRIES) bundled by esbuild with
 * the options SignetFunction gives NodejsFunction, then imported in fresh `node` processes.
 *
 * What is measured is what would be deployed. SignetFunction sets `externalModules: ['@aws-sdk/*']`
 * (NodejsFunction's own default for Node.js 18+ too): the AWS SDK v3 is not in the bundle, Lambda's
 * Node.js 22 runtime provides it. So:
 *   - the bundle size is the deployed index.js (the source map is shipped beside it and listed apart);
 *   - the import time includes loading the external SDK packages, resolved here from the
 *     repository's node_modules through NODE_PATH, as the runtime resolves them from its own
 *     /var/runtime/node_modules;
 *   - the size of a self-contained bundle (SDK inlined) is printed for reference only.
 * Each import runs in a new process with the function's environment (NODE_OPTIONS
 * --enable-source-maps, POWERTOOLS_*, SIGNET_TABLE_NAME), like a new execution environment.
 * The median of N runs is reported, wall and CPU. Not measured: Lambda's own runtime bootstrap
 * and the download of the code package.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSync, type BuildOptions } from 'esbuild';
import { ENV } from '../lambda/config-env';
import { REPO_ROOT } from './authorizer-handler-loader';
import { median } from './percentiles';

/** The esbuild options SignetFunction passes through NodejsFunction (lib/signet-function.ts `bundling`). */
export const DEPLOYED_ESBUILD_OPTIONS: BuildOptions = Object.freeze({
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  external: ['@aws-sdk/*'], // lib/signet-function.ts EXTERNAL_MODULES (not imported: it loads aws-cdk-lib)
  logLevel: 'error',
});

/**
 * Folders some functions read next to their bundle, copied there as SignetFunction's `assets`
 * prop does at deploy time (lib/client-portal.ts ships `portal/`).
 */
const ENTRY_ASSET_DIRS: Readonly<Record<string, string>> = { 'lambda/handlers/portal.ts': 'portal' };

/** An entry that could not be measured (e.g. it needs files the bench does not know to ship). */
export interface EntryFailure {
  readonly file: string;
  readonly names: readonly string[];
  readonly reason: string;
}

export interface EntryColdInit {
  /** Handler file, relative to the repository. */
  readonly file: string;
  /** LAMBDA_ENTRIES names using this file. */
  readonly names: readonly string[];
  readonly bundleBytes: number;
  readonly sourceMapBytes: number;
  /** Size with the AWS SDK bundled in as well (not deployed; reference). */
  readonly selfContainedBytes: number;
  readonly importWallMs: number;
  readonly importCpuMs: number;
  /** Import of the self-contained bundle (SDK inlined, minified), timed in turns with the deployed one. */
  readonly selfContainedImportWallMs: number;
  readonly selfContainedImportCpuMs: number;
  readonly runs: number;
}

/** Where the authorizer's import time goes: the external SDK packages first, then the bundle. */
export interface ImportBreakdown {
  readonly parts: readonly { readonly name: string; readonly cpuMs: number }[];
}

export interface ColdInit {
  readonly entries: readonly EntryColdInit[];
  readonly failures: readonly EntryFailure[];
  readonly authorizerBreakdown?: ImportBreakdown;
  /** Runs per entry. */
  readonly runs: number;
}

/** The function's environment at import time (values only need to be well-formed). */
function functionEnvironment(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    NODE_PATH: path.join(REPO_ROOT, 'node_modules'),
    NODE_OPTIONS: '--enable-source-maps',
    AWS_REGION: 'eu-west-1',
    AWS_LAMBDA_FUNCTION_NAME: 'signet-bench',
    POWERTOOLS_SERVICE_NAME: 'signet-bench',
    POWERTOOLS_METRICS_NAMESPACE: 'Signet',
    POWERTOOLS_LOG_LEVEL: 'INFO',
    [ENV.tableName]: 'signet-clients',
  };
}

/** CPU ms of each require, in order, in one fresh process (median over `runs` processes). */
function importBreakdown(modules: readonly string[], runs: number, cwd: string): ImportBreakdown {
  const script = [
    'const out = [];',
    `for (const m of ${JSON.stringify(modules)}) { const c = process.cpuUsage(); require(m); const u = process.cpuUsage(c); out.push((u.user + u.system) / 1e3); }`,
    'process.stdout.write(JSON.stringify(out));',
  ].join('\n');
  const samples: number[][] = [];
  for (let i = 0; i < runs; i++) {
    samples.push(JSON.parse(execFileSync(process.execPath, ['--no-warnings', '-e', script], { env: functionEnvironment(), cwd, encoding: 'utf8' })) as number[]);
  }
  return { parts: modules.map((name, i) => ({ name, cpuMs: median(samples.map((s) => s[i])) })) };
}

/** Import time of `bundle` in a fresh node process: [wall ms, CPU ms]. */
function importOnce(bundle: string): [number, number] {
  const script = [
    'const c = process.cpuUsage(); const t = process.hrtime.bigint();',
    `require(${JSON.stringify(bundle)});`,
    'const u = process.cpuUsage(c);',
    'process.stdout.write(JSON.stringify([Number(process.hrtime.bigint() - t) / 1e6, (u.user + u.system) / 1e3]));',
  ].join('\n');
  const out = execFileSync(process.execPath, ['--no-warnings', '-e', script], { env: functionEnvironment(), cwd: path.dirname(bundle), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return JSON.parse(out) as [number, number];
}

export async function measureColdInit(options: { runs?: number; outDir?: string } = {}): Promise<ColdInit> {
  const runs = options.runs ?? 7;
  // Loaded here, not at the top: aws-cdk-lib takes seconds to load and only this section needs it.
  const { LAMBDA_ENTRIES } = require('../lib/signet-function') as typeof import('../lib/signet-function');
  const byFile = new Map<string, string[]>();
  for (const [name, entry] of Object.entries(LAMBDA_ENTRIES)) byFile.set(entry.file, [...(byFile.get(entry.file) ?? []), name]);

  const outDir = options.outDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'signet-bench-bundles-'));
  const entries: EntryColdInit[] = [];
  const failures: EntryFailure[] = [];
  let authorizerBreakdown: ImportBreakdown | undefined;
  try {
    for (const [file, names] of byFile) {
      try {
        const measured = measureEntry(file, names, outDir, runs);
        entries.push(measured.entry);
        if (file === 'lambda/handlers/authorizer.ts') {
          authorizerBreakdown = importBreakdown(['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', measured.bundle], runs, path.dirname(measured.bundle));
        }
      } catch (error) {
        const text = error instanceof Error ? `${error.message}\n${String((error as { stderr?: unknown }).stderr ?? '')}` : String(error);
        const reason = text.split('\n').find((line) => /Error|error:/.test(line)) ?? text.split('\n')[0];
        failures.push({ file, names, reason: reason.trim().slice(0, 300) });
      }
    }
  } finally {
    if (options.outDir === undefined) fs.rmSync(outDir, { recursive: true, force: true });
  }
  return { entries, failures, runs, authorizerBreakdown };
}

/** Bundles one entry as deployed (assets included) and times its import `runs` times. */
function measureEntry(file: string, names: readonly string[], outDir: string, runs: number): { entry: EntryColdInit; bundle: string } {
  const slug = path.basename(file, '.ts');
  const deployed = path.join(outDir, slug, 'index.js');
  const full = path.join(outDir, `${slug}-self-contained`, 'index.js');
  buildSync({ ...DEPLOYED_ESBUILD_OPTIONS, entryPoints: [path.join(REPO_ROOT, file)], outfile: deployed });
  buildSync({ ...DEPLOYED_ESBUILD_OPTIONS, external: [], entryPoints: [path.join(REPO_ROOT, file)], outfile: full });
  const assets = ENTRY_ASSET_DIRS[file];
  if (assets !== undefined) fs.cpSync(path.join(REPO_ROOT, assets), path.join(path.dirname(deployed), assets), { recursive: true });
  const walls: number[] = [];
  const cpus: number[] = [];
  const fullWalls: number[] = [];
  const fullCpus: number[] = [];
  importOnce(deployed); // the first runs also warm the page cache
  importOnce(full);
  // In turns, so both see the same machine load.
  for (let i = 0; i < runs; i++) {
    const [wall, cpu] = importOnce(deployed);
    walls.push(wall);
    cpus.push(cpu);
    const [fullWall, fullCpu] = importOnce(full);
    fullWalls.push(fullWall);
    fullCpus.push(fullCpu);
  }
  const entry: EntryColdInit = {
    file,
    names,
    bundleBytes: fs.statSync(deployed).size,
    sourceMapBytes: fs.statSync(`${deployed}.map`).size,
    selfContainedBytes: fs.statSync(full).size,
    importWallMs: median(walls),
    importCpuMs: median(cpus),
    selfContainedImportWallMs: median(fullWalls),
    selfContainedImportCpuMs: median(fullCpus),
    runs,
  };
  return { entry, bundle: deployed };
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KB`;

export function printColdInit(r: ColdInit): string[] {
  const breakdown = r.authorizerBreakdown
    ? [`authorizer import, CPU by part (median, in this order in one process): ${r.authorizerBreakdown.parts.map((p) => `${p.name.startsWith('/') ? 'the bundle itself' : p.name} ${p.cpuMs.toFixed(1)} ms`).join(', ')}`]
    : [];
  return [...r.entries.map(
    (e) =>
      `${e.names.join(' + ')} (${e.file}): bundle ${kb(e.bundleBytes)} (+ ${kb(e.sourceMapBytes)} source map; ${kb(e.selfContainedBytes)} with the SDK inlined), ` +
      `import median of ${e.runs}: ${e.importWallMs.toFixed(1)} ms wall, ${e.importCpuMs.toFixed(1)} ms CPU; ` +
      `with the SDK inlined ${e.selfContainedImportWallMs.toFixed(1)} ms wall, ${e.selfContainedImportCpuMs.toFixed(1)} ms CPU`,
  ), ...r.failures.map((f) => `${f.names.join(' + ')} (${f.file}): not measured: ${f.reason}`), ...breakdown];
}

if (require.main === module) {
  measureColdInit().then((r) => console.log(printColdInit(r).join('\n')));
}
