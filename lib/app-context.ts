/**
 * Reads the SignetStack's properties from CDK context (`-c key=value` or cdk.json "context"), so
 * `npx cdk deploy -c apiType=rest -c adminPublicKeyFile=admin/public.pem` needs no code change.
 * Every problem is reported at once, naming the context key.
 */
import * as fs from 'node:fs';
import { CONTEXT_KEYS, type ContextKey, SETTINGS, SETTING_ROWS, SettingProblem } from '../lambda/settings';
import { propValue } from './setting-props';
import type { SignetStackProps } from './signet-stack';

/** The context keys bin/app.ts reads: the settings of lambda/settings.ts marked `context` (docs/deploy.md lists them). */
export { CONTEXT_KEYS, type ContextKey };

/** Default stack name. @default 'Signet' */
export const DEFAULT_STACK_NAME = SETTINGS.stackName.default;

/**
 * The context keys that are Signet's to judge: plain identifiers such as `apiType`. Keys with a
 * `:`, `/`, `@` or `-` belong to the CDK and its tools (`aws:cdk:…`, `@aws-cdk/…` feature flags,
 * `cli-telemetry`, lookups cached in cdk.context.json) and are left alone.
 */
const SIGNET_STYLE_KEY = /^[A-Za-z][A-Za-z0-9]*$/;

/**
 * The given context keys Signet does not know, each with the known key it most resembles.
 * @example unknownContextKeys(['apiTyp', 'aws:cdk:version-reporting']) // ['apiTyp (did you mean apiType?)']
 */
export function unknownContextKeys(given: readonly string[]): string[] {
  return given
    .filter((key) => SIGNET_STYLE_KEY.test(key) && !(CONTEXT_KEYS as readonly string[]).includes(key))
    .map((key) => {
      const nearest = [...CONTEXT_KEYS].sort((a, b) => distance(key, a) - distance(key, b))[0];
      return distance(key, nearest) <= Math.max(2, Math.floor(key.length / 3)) ? `${key} (did you mean ${nearest}?)` : key;
    });
}

/** Levenshtein distance, case-insensitive (a wrong capital is a typo too). */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let row = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const next = [i];
    for (let j = 1; j <= y.length; j++) next.push(Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1)));
    row = next;
  }
  return row[y.length];
}

/** Looks a context key up (the CDK's `node.tryGetContext`). */
export type ContextReader = (key: ContextKey) => unknown;

export interface AppSettings {
  readonly stackName: string;
  readonly props: SignetStackProps;
}

/**
 * Builds the stack name and props from context values. Context given on the command line arrives
 * as strings; cdk.json may hold JSON values: both are accepted.
 * @param readFile reads `adminPublicKeyFile` (default: fs.readFileSync as UTF-8)
 * @param givenKeys every context key given (the CDK's `node.getAllContext()`): a Signet-style key
 *   that is not in {@link CONTEXT_KEYS} is an error naming it, so a typo is not silently ignored
 * @throws Error listing every bad context value
 */
export function settingsFromContext(
  read: ContextReader,
  readFile: (path: string) => string = (p) => fs.readFileSync(p, 'utf8'),
  givenKeys: readonly string[] = [],
): AppSettings {
  const problems: string[] = [];
  const unknown = unknownContextKeys(givenKeys);
  if (unknown.length > 0) problems.push(`unknown context key${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; the keys are: ${CONTEXT_KEYS.join(', ')}`);

  const values = new Map<ContextKey, unknown>();
  for (const row of SETTING_ROWS) {
    if (row.context !== true) continue;
    const key = row.key as ContextKey;
    const raw = read(key);
    if (raw === undefined || raw === null || raw === '') continue;
    try {
      values.set(key, row.rule.parse(raw));
    } catch (error) {
      if (!(error instanceof SettingProblem)) throw error;
      problems.push(`${key} ${error.message}`);
    }
  }

  const keyFile = values.get('adminPublicKeyFile') as string | undefined;
  if (keyFile !== undefined && values.has('adminPublicKey')) {
    problems.push('give adminPublicKey or adminPublicKeyFile, not both');
  } else if (keyFile !== undefined) {
    try {
      values.set('adminPublicKey', readFile(keyFile));
    } catch {
      problems.push(`adminPublicKeyFile ${JSON.stringify(keyFile)} cannot be read`);
    }
  }

  const props: Record<string, unknown> = {};
  for (const row of SETTING_ROWS) {
    if (row.prop !== undefined && values.has(row.key as ContextKey)) props[row.prop] = propValue(row, values.get(row.key as ContextKey));
  }
  if (problems.length > 0) throw new Error(`Invalid CDK context: ${problems.join('; ')}.`);
  return { stackName: (values.get('stackName') as string | undefined) ?? DEFAULT_STACK_NAME, props: props as SignetStackProps };
}

