/**
 * Argument helpers shared by the CLI commands: option parsing, header lines, request bodies,
 * and reading key files.
 */
import { readFileSync } from 'node:fs';
import { ParseArgsConfig, parseArgs } from 'node:util';

/** A mistake in how the command was called (exit code 2, usage printed). */
export class UsageError extends Error {}

export type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses `argv` strictly; unknown options are usage errors. */
export function parse<T extends Options>(argv: string[], options: T): { values: Record<string, unknown>; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: values as Record<string, unknown>, positionals };
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
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
  if (typeof file === 'string') return readFileSync(file);
  if (typeof data === 'string') return data.startsWith('@') ? readFileSync(data.slice(1)) : Buffer.from(data, 'utf8');
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

export function readText(path: string): string {
  return readFileSync(path, 'utf8');
}
