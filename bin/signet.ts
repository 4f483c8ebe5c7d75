/**
 * The `signet` command line's entry point (see ./cli.ts for the commands). Run it as
 * `npx signet ...` or `npm run -s signet -- ...` from the repo root, with no build step.
 *
 * Output piped into a reader that stops early (`signet request ... | head -1`) closes the pipe:
 * the write fails with EPIPE, which here ends the process quietly, as `cat` would, instead of
 * printing a stack trace.
 */
import { printWarningsOnOneLine } from '../local/node-warnings';
import { main } from './cli';
import { printableLines } from './commands/printable';

for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

// Warnings on one line; the pinned AWS SDK's notice about its future releases not at all (why: ../local/node-warnings.ts).
printWarningsOnOneLine('signet');

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`signet: ${printableLines(error instanceof Error ? error.message : String(error))}`);
    process.exitCode = 1;
  },
);
