/**
 * `npm run bench`: every benchmark, figures printed (never asserted in tests).
 * Sections are added as modules under bench/; each returns the lines it prints.
 */
import { measureVerifyThroughput, printVerifyThroughput } from './verify-throughput';

async function main(): Promise<void> {
  console.log('== Verify throughput (same requests, one process) ==');
  for (const line of printVerifyThroughput(await measureVerifyThroughput())) console.log(line);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
