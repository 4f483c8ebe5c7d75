/**
 * `npm run bench`: every benchmark, figures printed (never asserted in tests) and written into
 * the measured regions of BENCHMARKS.md at the repository root (its prose stays as written).
 * Sections are modules under bench/; each returns its figures and the lines it prints. A failing section is reported and the others still run; the
 * exit code is then 1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './authorizer-handler-loader';
import { measureAuthorizerLatency, printAuthorizerLatency } from './authorizer-latency';
import { BenchResults, SECTION_TITLES, renderBenchmarksMd } from './benchmarks-md';
import { measureColdInit, printColdInit } from './cold-init';
import { measureGatewayThroughput, printGatewayThroughput } from './gateway-throughput';
import { measureHostileInput, printHostileInput } from './hostile-input';
import { measureKeyChecks, printKeyChecks } from './key-checks';
import { measureKeySourceRefresh, printKeySourceRefresh } from './key-source-refresh';
import { describeMachine, machineLine } from './machine';
import { measureMemoryFlat, printMemoryFlat } from './memory-flat';
import { measureRegistrySearch, printRegistrySearch } from './registry-search';
import { measureVerifyStepsAndAllocation, measureVerifyThroughput, printVerifySteps, printVerifyThroughput } from './verify-throughput';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

async function main(): Promise<void> {
  // The AWS SDK warns that Node 20 is old (Lambda runs 22); keep the output to figures.
  process.removeAllListeners('warning');
  const started = Date.now();
  const machine = describeMachine();
  const results: Mutable<BenchResults> = { machine, startedAt: new Date(started), durationS: 0, failures: {}, printed: [] };
  const failures: Record<string, string> = {};
  const printed: { title: string; lines: string[] }[] = [];
  console.log(`machine: ${machineLine(machine)}`);

  const section = async <T>(title: string, measure: () => Promise<T> | T, print: (r: T) => string[]): Promise<T | undefined> => {
    console.log(`\n== ${title} ==`);
    const t0 = Date.now();
    try {
      const result = await measure();
      const lines = print(result);
      for (const line of lines) console.log(line);
      console.log(`(${((Date.now() - t0) / 1000).toFixed(0)} s)`);
      printed.push({ title, lines });
      return result;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      console.log(`FAILED: ${message}`);
      failures[title] = message;
      return undefined;
    }
  };

  results.steps = await section(SECTION_TITLES.verifySteps, () => measureVerifyStepsAndAllocation(), printVerifySteps);
  results.verify = await section(SECTION_TITLES.verifyThroughput, () => measureVerifyThroughput(), printVerifyThroughput);
  results.authorizer = await section(SECTION_TITLES.authorizer, () => measureAuthorizerLatency(), printAuthorizerLatency);
  results.coldInit = await section(SECTION_TITLES.coldInit, () => measureColdInit(), printColdInit);
  results.gateway = await section(SECTION_TITLES.gateway, () => measureGatewayThroughput(), printGatewayThroughput);
  results.memory = await section(SECTION_TITLES.memory, () => measureMemoryFlat(), printMemoryFlat);
  results.hostile = await section(SECTION_TITLES.hostile, () => measureHostileInput(), printHostileInput);
  await section(SECTION_TITLES.keyChecks, () => measureKeyChecks(), printKeyChecks);
  await section(SECTION_TITLES.registrySearch, () => measureRegistrySearch(), printRegistrySearch);
  await section(SECTION_TITLES.keySourceRefresh, () => measureKeySourceRefresh(), printKeySourceRefresh);

  results.durationS = (Date.now() - started) / 1000;
  results.failures = failures;
  results.printed = printed;
  const file = path.join(REPO_ROOT, 'BENCHMARKS.md');
  fs.writeFileSync(file, renderBenchmarksMd(results, fs.readFileSync(file, 'utf8')));
  console.log(`\nwrote ${path.relative(process.cwd(), file) || file} (${Math.round(results.durationS)} s in all)`);
  if (Object.keys(failures).length > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
