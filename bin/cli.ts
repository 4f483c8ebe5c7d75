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
import { didYouMean } from './commands/did-you-mean';
import { Help, isGroup, renderGroupHelp, renderHelp, wantsHelp } from './commands/help';
import { printable, printableLines } from './commands/printable';
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

/**
 * The help for `signet help <words...>`, or an error line when the words name no command or
 * subcommand (with the nearest one): a mistyped subcommand never falls back to its group's help.
 */
export function helpFor(words: readonly string[]): { text: string } | { error: string } {
  const [name, sub, ...extra] = words;
  const command = name === undefined ? undefined : COMMANDS[name];
  if (command === undefined) return { error: unknownCommand(name ?? '') };
  const help = command.HELP;
  if (!isGroup(help)) return extra.length > 0 || sub !== undefined ? { error: `signet ${name} has no subcommands; run \`signet help ${name}\`.` } : { text: renderHelp(name, help) };
  if (sub === undefined) return { text: renderGroupHelp(name, help) };
  const subHelp = help.subcommands[sub];
  if (subHelp === undefined || extra.length > 0) return { error: unknownSubcommand(name, subHelp === undefined ? sub : extra[0], subHelp === undefined ? Object.keys(help.subcommands) : []) };
  return { text: renderHelp(`${name} ${sub}`, subHelp) };
}

/** `signet: unknown command "x".` with the nearest command, and where the list is. */
function unknownCommand(name: string): string {
  return `signet: unknown command "${name}".${didYouMean(name, Object.keys(COMMANDS))} Run \`signet --help\` for the commands.`;
}

/** `signet clients: unknown subcommand "x".` with the nearest one and the list. */
function unknownSubcommand(name: string, sub: string, subcommands: readonly string[]): string {
  const list = subcommands.length > 0 ? ` It takes: ${subcommands.join(', ')}.` : '';
  return `signet ${name}: unknown subcommand "${sub}".${didYouMean(sub, subcommands)}${list} Run \`signet ${name} --help\`.`;
}

/** One-line usage of a command, for usage errors. */
function usageLine(name: string, argv: readonly string[]): string {
  const help = COMMANDS[name].HELP;
  if (!isGroup(help)) return `Usage: signet ${help.usage}`;
  const sub = argv[0] === undefined ? undefined : help.subcommands[argv[0]];
  return sub !== undefined ? `Usage: signet ${sub.usage}` : `Usage: signet ${name} <${Object.keys(help.subcommands).join('|')}> ...  (signet ${name} --help)`;
}

/** Prints the help `words` ask for (exit 0), or says what they got wrong (exit 2). */
function printHelp(words: readonly string[]): number {
  const help = helpFor(words);
  if ('error' in help) {
    console.error(help.error);
    return 2;
  }
  console.log(help.text);
  return 0;
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
    return printHelp(rest);
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    console.error(unknownCommand(name));
    return 2;
  }
  const group = command.HELP;
  // `signet clients lst`: the nearest subcommand, before anything runs.
  if (isGroup(group) && rest[0] !== undefined && !rest[0].startsWith('-') && !(rest[0] in group.subcommands)) {
    console.error(unknownSubcommand(name, rest[0], Object.keys(group.subcommands)));
    return 2;
  }
  if (wantsHelp(rest)) {
    const words = [name, ...(isGroup(group) && rest[0] !== undefined && rest[0] in group.subcommands ? [rest[0]] : [])];
    return printHelp(words);
  }
  const help = command.HELP;
  const label = isGroup(help) && rest[0] !== undefined && rest[0] in help.subcommands ? `${name} ${rest[0]}` : name;
  try {
    return await command.run([...rest]);
  } catch (error) {
    // A message may quote what a server answered (a service's error name, a registry's sentence):
    // printed with what a terminal would act on escaped, as every other answer is.
    if (error instanceof UsageError) {
      console.error(`signet ${label}: ${printableLines(error.message)}\n${usageLine(name, rest)}`);
      return 2;
    }
    if (error instanceof SignetError) {
      console.error(`signet ${label}: ${printable(error.code)}: ${printableLines(error.message)}`);
      return 1;
    }
    console.error(`signet ${label}: ${printableLines(error instanceof Error ? error.message : String(error))}`);
    return 1;
  }
}
