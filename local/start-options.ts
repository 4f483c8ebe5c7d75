/** What `npm start -- ...` takes: `--verbose` (or `-v`), which adds the handlers' JSON log lines. */

/** The options, or the sentence saying what is wrong with the arguments. */
export function startOptions(argv: readonly string[]): { verbose: boolean } | { error: string } {
  const unknown = argv.find((arg) => arg !== '--verbose' && arg !== '-v');
  if (unknown !== undefined) {
    return { error: `npm start takes only --verbose (print the handlers' JSON log lines too, e.g. npm start -- --verbose); got ${JSON.stringify(unknown.slice(0, 40))}.` };
  }
  return { verbose: argv.length > 0 };
}
