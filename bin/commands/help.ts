/**
 * Help text for every command and subcommand, rendered from the same option table the command
 * parses with: a flag the command accepts but this text does not describe is an error (and the
 * help test fails), so the help cannot fall behind the code.
 */
import { Options } from './args';

/** What one flag means. */
export interface FlagHelp {
  /** One line: what it does. */
  readonly meaning: string;
  /** Placeholder for its value in the usage (`DIR`, `URL`). @default 'VALUE' */
  readonly value?: string;
  /** The default when it is not the option's own `default` (e.g. `$SIGNET_HOME/admin`). */
  readonly default?: string;
}

/** Help for one command or subcommand. */
export interface CommandHelp {
  /** One line: what the command does. */
  readonly summary: string;
  /** The synopsis after `signet `, e.g. `keygen --out DIR [--bits N] [--force]`. */
  readonly usage: string;
  /** The options the command parses (the same object it gives to parse()). */
  readonly options: Options;
  /** A description of every key of `options`. */
  readonly flags: Readonly<Record<string, FlagHelp>>;
  /** Positional arguments: name → meaning. */
  readonly arguments?: Readonly<Record<string, string>>;
  /** Paragraphs shown after the flags. */
  readonly notes?: readonly string[];
  /** At least one complete command line, without the leading `signet `. */
  readonly examples: readonly string[];
}

/** A command made of subcommands (`clients`, `keys`, `accounts`). */
export interface GroupHelp {
  readonly summary: string;
  readonly subcommands: Readonly<Record<string, CommandHelp>>;
}

export type Help = CommandHelp | GroupHelp;

export function isGroup(help: Help): help is GroupHelp {
  return 'subcommands' in help;
}

/** True when `argv` asks for help (`--help` or `-h` before any `--`). */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}

/** The help of `signet <name> [subcommand]`. @throws Error when a flag has no description */
export function renderHelp(name: string, help: CommandHelp): string {
  const lines = [`signet ${name}: ${help.summary}`, '', `Usage: signet ${help.usage}`];
  if (help.arguments !== undefined && Object.keys(help.arguments).length > 0) {
    lines.push('', 'Arguments:', ...aligned(Object.entries(help.arguments)));
  }
  const rows: Array<[string, string]> = Object.entries(help.options).map(([key, option]) => {
    const flag = help.flags[key];
    if (flag === undefined) throw new Error(`signet ${name}: the flag --${key} has no help text`);
    const value = option.type === 'string' ? ` ${flag.value ?? 'VALUE'}` : '';
    const label = key.length === 1 ? `-${key}${value}` : `${option.short !== undefined ? `-${option.short}, ` : '    '}--${key}${value}`;
    const fallback = flag.default ?? (typeof option.default === 'string' ? option.default : undefined);
    return [`${label}${option.multiple === true ? '...' : ''}`, `${flag.meaning}${fallback !== undefined ? ` (default: ${fallback})` : ''}`];
  });
  rows.push(['-h, --help', 'show this help']);
  lines.push('', 'Flags:', ...aligned(rows));
  for (const note of help.notes ?? []) lines.push('', ...wrap(note, 96));
  lines.push('', help.examples.length > 1 ? 'Examples:' : 'Example:', ...help.examples.map((e) => `  signet ${e}`));
  return lines.join('\n');
}

/** The help of a group: its subcommands, one line each. */
export function renderGroupHelp(name: string, help: GroupHelp): string {
  const rows: Array<[string, string]> = Object.entries(help.subcommands).map(([sub, h]) => [sub, h.summary]);
  return [
    `signet ${name}: ${help.summary}`,
    '',
    `Usage: signet ${name} <${Object.keys(help.subcommands).join('|')}> [flags]`,
    '',
    'Subcommands:',
    ...aligned(rows),
    '',
    `Run \`signet ${name} <subcommand> --help\` (or \`signet help ${name} <subcommand>\`) for its flags and an example.`,
  ].join('\n');
}

function aligned(rows: ReadonlyArray<readonly [string, string]>): string[] {
  const width = Math.min(34, Math.max(...rows.map(([left]) => left.length)));
  return rows.map(([left, right]) => (left.length > width ? `  ${left}\n  ${' '.repeat(width)}  ${right}` : `  ${left.padEnd(width)}  ${right}`));
}

function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      out.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') out.push(line);
  return out;
}
