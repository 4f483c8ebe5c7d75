/**
 * The `signet` command line, as a function (bin/signet.ts runs it; tests call it in-process).
 * Each command lives in bin/commands/<name>.ts and exports `run(argv): Promise<number>` (the exit
 * code) and `HELP` (its flags, defaults and examples; see ./commands/help.ts).
 *
 * Every failure ends as one line on stderr and an exit code, never a stack trace: 2 for a usage
 * mistake (with the usage line), 1 for a refusal or an error the user can act on.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SignetError } from '../lambda/core/errors';
import { UsageError } from './commands/args';
import * as accounts from './commands/accounts';
import * as clients from './commands/clients';
import * as explain from './commands/explain';
import { Help, isGroup, renderGroupHelp, renderHelp, wantsHelp } from './commands/help';
import * as keygen from './commands/keygen';
import * as keys from './commands/keys';
import * as request from './commands/request';
import * as rotate from './commands/rotate';
import * as sign from './commands/sign';
import * as verify from './commands/verify';

interface Command {
  readonly HELP: Help;
  run(argv: string[]): Promise<number>;
}

/** Every command, in the order `signet --help` lists them. */
export const COMMANDS: Readonly<Record<string, Command>> = { keygen, sign, verify, explain, request, clients, keys, accounts, rotate };

/** `signet --help`. */
export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  return [
    'Usage: signet <command> [flags]',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(width)}  ${command.HELP.summary}`),
    '',
    'Run `signet <command> --help` (or `signet help <command>`) for its flags, defaults and an example;',
    '`signet --version` for the version.',
  ].join('\n');
}

/**
 * The version of the installed package: from the nearest package.json above this file (the
 * repository's when run from source, the package's when run compiled from dist/bin/).
 */
export function packageVersion(from: string = __dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/** The help for `signet help <words...>`, or undefined when the words name no command. */
export function helpFor(words: readonly string[]): string | undefined {
  const [name, sub] = words;
  const command = name === undefined ? undefined : COMMANDS[name];
  if (command === undefined) return undefined;
  const help = command.HELP;
  if (!isGroup(help)) return renderHelp(name, help);
  const subHelp = sub === undefined ? undefined : help.subcommands[sub];
  return subHelp === undefined ? renderGroupHelp(name, help) : renderHelp(`${name} ${sub}`, subHelp);
}

/** One-line usage of a command, for usage errors. */
function usageLine(name: string, argv: readonly string[]): string {
  const help = COMMANDS[name].HELP;
  if (!isGroup(help)) return `Usage: signet ${help.usage}`;
  const sub = argv[0] === undefined ? undefined : help.subcommands[argv[0]];
  return sub !== undefined ? `Usage: signet ${sub.usage}` : `Usage: signet ${name} <${Object.keys(help.subcommands).join('|')}> ...  (signet ${name} --help)`;
}

/** Runs the CLI; resolves with the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    console.log(usage());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version') {
    console.log(packageVersion());
    return 0;
  }
  if (name === 'help') {
    if (rest.length === 0) {
      console.log(usage());
      return 0;
    }
    const text = helpFor(rest);
    if (text === undefined) {
      console.error(`signet: unknown command "${rest[0]}"\n\n${usage()}`);
      return 2;
    }
    console.log(text);
    return 0;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    console.error(`signet: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  if (wantsHelp(rest)) {
    console.log(helpFor([name, ...rest.filter((arg) => !arg.startsWith('-'))])!);
    return 0;
  }
  const help = command.HELP;
  const label = isGroup(help) && rest[0] !== undefined && rest[0] in help.subcommands ? `${name} ${rest[0]}` : name;
  try {
    return await command.run([...rest]);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`signet ${label}: ${error.message}\n${usageLine(name, rest)}`);
      return 2;
    }
    if (error instanceof SignetError) {
      console.error(`signet ${label}: ${error.code}: ${error.message}`);
      return 1;
    }
    console.error(`signet ${label}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
