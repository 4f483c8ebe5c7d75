/**
 * Argument helpers shared by the CLI commands: option parsing, header lines, request bodies,
 * and reading key files.
 */
import { readFileSync } from 'node:fs';
import { ParseArgsConfig, parseArgs } from 'node:util';
import { SignetError } from '../../lambda/core/errors';
import { looksLikePrivateKey } from '../../lambda/core/private-key-scan';
import { didYouMean } from './did-you-mean';

/** A mistake in how the command was called (exit code 2, usage printed). */
export class UsageError extends Error {}

export type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Parses `argv` strictly; unknown options are usage errors. Values that start with `-` are taken
 * as values: a key fingerprint or a cursor is base64url, and one in 64 starts with `-`
 * (`signet keys remove c_... -Xk3...`, `--fingerprint -Xk3...`), which node's parser alone would
 * read as an option.
 */
export function parse<T extends Options>(argv: string[], options: T): { values: Record<string, unknown>; positionals: string[] } {
  checkLongFlags(argv, options);
  try {
    const { values, positionals } = parseArgs({ args: withDashValues(argv, options), options, allowPositionals: true, strict: true });
    return { values: values as Record<string, unknown>, positionals };
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Every `--name` before `--` is a flag of the command: an unknown one is a usage error that names
 * the nearest flag (`--serch` → `--search`), not node's parser message.
 */
function checkLongFlags(argv: readonly string[], options: Options): void {
  const names = Object.keys(options).filter((name) => name.length > 1);
  const shortTakesValue = new Set(Object.values(options).flatMap((option) => (option.short !== undefined && option.type === 'string' ? [option.short] : [])));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') return;
    // A flag's value is never a flag, whatever it starts with (`-d --x`, `--cursor --x`).
    if (arg.length === 2 && arg.startsWith('-') && shortTakesValue.has(arg[1])) {
      i++;
      continue;
    }
    if (!arg.startsWith('--')) continue;
    const name = arg.slice(2).split('=')[0];
    if (name in options) {
      if (!arg.includes('=') && options[name].type === 'string') i++;
      continue;
    }
    throw new UsageError(`unknown flag --${name}.${didYouMean(name, names, (s) => `--${s}`)}`);
  }
}

/**
 * `argv` rewritten so node's parser reads what the user meant: a long option's value that starts
 * with `-` is attached (`--cursor=-x`), and an argument that starts with `-` but is no option of the
 * command (not `-h`, not a group of its short flags) goes after `--` as a positional, in order.
 */
function withDashValues(argv: readonly string[], options: Options): string[] {
  const shortNames = new Map(Object.entries(options).flatMap(([name, option]) => (option.short === undefined ? [] : [[option.short, name] as const])));
  const takesValue = (name: string | undefined) => name !== undefined && options[name]?.type === 'string';
  const flags: string[] = [];
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const next = argv[i + 1];
      if (!arg.includes('=') && takesValue(arg.slice(2)) && next !== undefined) {
        flags.push(`${arg}=${next}`);
        i++;
      } else {
        flags.push(arg);
      }
    } else if (arg.startsWith('-') && arg.length > 1 && (arg.length === 2 || [...arg.slice(1)].every((c) => shortNames.has(c)) || takesValue(shortNames.get(arg[1])))) {
      const next = argv[i + 1];
      if (arg.length === 2 && takesValue(shortNames.get(arg[1])) && next !== undefined) {
        // `-d -x`: the value attached (`-d-x`), as for a long option.
        flags.push(...(next.startsWith('-') ? [`${arg}${next}`] : [arg, next]));
        i++;
      } else {
        flags.push(arg);
      }
    } else {
      positionals.push(arg);
    }
  }
  return [...flags, '--', ...positionals];
}

export function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function optionalInt(values: Record<string, unknown>, name: string): number | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number of unix seconds`);
  return Number(value);
}

/** The request body from `--data STR`, `--data @FILE` or `--data-file FILE`, as bytes. */
export function readBody(values: Record<string, unknown>, dataName = 'data', fileName = 'data-file'): Buffer | undefined {
  const data = values[dataName];
  const file = values[fileName];
  if (data !== undefined && file !== undefined) throw new UsageError(`give --${dataName} or --${fileName}, not both`);
  if (typeof file === 'string') return readFile(file, `--${fileName}`);
  if (typeof data === 'string') return data.startsWith('@') ? readFile(data.slice(1), `--${dataName} @FILE`) : Buffer.from(data, 'utf8');
  return undefined;
}

/** `-H 'Name: value'` lines into a header map with lower-case names; repeated names joined with ", ". */
export function headerLines(lines: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of (lines as string[] | undefined) ?? []) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new UsageError(`header ${JSON.stringify(line.slice(0, 40))} must look like 'Name: value'`);
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return headers;
}

/** Canonical header names for printing (`content-digest` → `Content-Digest`). */
export function displayName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_, dash: string, ch: string) => dash + ch.toUpperCase());
}

/** A file named by a flag; a missing or unreadable file is a usage error naming the flag, not a stack trace. */
export function readFile(path: string, flag: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'cannot be read (permission denied)' : `cannot be read (${code ?? String(error)})`;
    throw new UsageError(`${flag} ${path} ${why}`);
  }
}

export function readText(path: string, flag = 'the file'): string {
  return readFile(path, flag).toString('utf8');
}

/**
 * The text of a public key file. A private key is refused HERE, before anything leaves the
 * machine: sent to a registry it would be exposed (the registry refuses it too, but too late).
 * @throws SignetError `private_key_submitted`
 */
export function readPublicKeyFile(path: string, flag = '--public-key'): string {
  const text = readText(path, flag);
  if (looksLikePrivateKey(text)) {
    throw new SignetError(
      'private_key_submitted',
      `${flag} ${path} holds a PRIVATE key; nothing was sent. Give the public half (public.pem, made by \`signet keygen\` beside the private key); keep the private key on the signer only.`,
    );
  }
  return text;
}
