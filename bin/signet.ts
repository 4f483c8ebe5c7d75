/**
 * The `signet` command line's entry point (see ./cli.ts for the commands). Run it as
 * `npx signet ...` or `npm run -s signet -- ...` from the repo root, with no build step.
 *
 * Output piped into a reader that stops early (`signet request ... | head -1`) closes the pipe:
 * the write fails with EPIPE, which here ends the process quietly, as `cat` would, instead of
 * printing a stack trace.
 */
import { main } from './cli';

for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

// The AWS SDK warns, on every run, about Node versions it will stop supporting next year: that
// is for whoever installs Node, not for someone rotating a key. Other warnings print on one line.
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (!`${warning.name} ${warning.message}`.includes('NodeVersionSupportWarning')) process.stderr.write(`signet: ${warning.name}: ${warning.message.split('\n')[0]}\n`);
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`signet: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
