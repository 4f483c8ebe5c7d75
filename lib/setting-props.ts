/**
 * The CDK side of the settings table (lambda/settings.ts): a setting's prop value as a number of
 * its unit and back, and a function's environment built from the props it is given.
 */
import { Duration, Token } from 'aws-cdk-lib';
import { SETTINGS, SETTING_ROWS, type Setting, SettingProblem, type SignetLambda, formatSetting } from '../lambda/settings';

type Settings = typeof SETTINGS;

/** The props that carry the settings the table passes to `lambda`; `'stack'`: the context settings' props. */
export type SettingPropName<Where extends SignetLambda | 'stack'> = {
  [K in keyof Settings]: Settings[K] extends { prop: infer P extends string }
    ? Where extends 'stack'
      ? Settings[K] extends { context: true } ? P : never
      : Settings[K] extends { lambdas: readonly (infer L)[] } ? (Where extends L ? P : never) : never
    : never;
}[keyof Settings];

/** Nothing when `Props` declares every prop in `Names`; else a required field naming the missing ones (a compile error). */
export type DeclaresEvery<Props, Names extends string> = [Exclude<Names, keyof Props>] extends [never] ? unknown : { undeclaredSettingProps: Exclude<Names, keyof Props> };

/** A context or environment number as the prop it becomes: a Duration when the setting has a unit. */
export function propValue(row: Setting, value: unknown): unknown {
  if (row.unit === undefined || typeof value !== 'number') return value;
  return row.unit === 's' ? Duration.seconds(value) : row.unit === 'ms' ? Duration.millis(value) : Duration.days(value);
}

/** A prop as the number of its setting's unit (the inverse of {@link propValue}). */
function settingValue(row: Setting, value: unknown): unknown {
  if (row.unit === undefined || !(value instanceof Duration)) return value;
  return row.unit === 's' ? value.toSeconds() : row.unit === 'ms' ? value.toMilliseconds() : value.toDays();
}

/**
 * The environment of `lambda`: every setting the table passes to it, from `props` (by prop name)
 * or else its default; a setting with neither is left out (the function applies its own rule).
 * `props` must name every prop the table passes to `lambda` (a compile error names the missing ones),
 * so a setting added to the table cannot be forgotten by its construct.
 * @example settingsEnvironment('rotation', { tableName: table.tableName, grace: Duration.hours(1) })
 */
export function settingsEnvironment<L extends SignetLambda, P extends object>(lambda: L, props: P & DeclaresEvery<P, SettingPropName<L>>): Record<string, string> {
  const given = props as Readonly<Record<string, unknown>>;
  const environment: Record<string, string> = {};
  for (const row of SETTING_ROWS) {
    if (row.env === undefined || row.prop === undefined || !row.lambdas?.includes(lambda)) continue;
    const value = given[row.prop] !== undefined ? settingValue(row, given[row.prop]) : row.default;
    if (value !== undefined) environment[row.env] = formatSetting(row, value);
  }
  return environment;
}

/** The words a message gives a setting's unit. */
const UNIT_WORDS: Readonly<Record<NonNullable<Setting['unit']>, string>> = { s: 'seconds', ms: 'milliseconds', days: 'days' };

/** A Duration as a number of `unit`, fractions kept so the rule can refuse them. */
function durationIn(value: Duration, unit: NonNullable<Setting['unit']>): number {
  return unit === 's' ? value.toSeconds({ integral: false }) : unit === 'ms' ? value.toMilliseconds({ integral: false }) : value.toDays({ integral: false });
}

/**
 * What is wrong with a construct prop that carries a setting, by the rule of its row (the bound is
 * written there once): `"<prop> must be …; got …"`, or undefined when it is fine, not given or a
 * token. A Duration is checked as a number of the setting's unit, and the message says which.
 * @example settingPropProblem('keySourceRefreshMinutes', 0) // 'keySourceRefreshMinutes must be a whole number from 1 to 1440; got 0'
 * @example settingPropProblem('maxAgeS', Duration.millis(1500)) // 'maxAge in seconds must be a whole number >= 1; got 1.5 (1 second 500 millis)'
 */
export function settingPropProblem<K extends keyof Settings>(key: K, value: unknown): string | undefined {
  if (value === undefined || Token.isUnresolved(value) || (value instanceof Duration && value.isUnresolved())) return undefined;
  const row = SETTINGS[key] as Setting;
  const name = row.prop ?? key;
  const duration = row.unit !== undefined && value instanceof Duration ? { unit: row.unit, value } : undefined;
  try {
    row.rule.parse(duration === undefined ? value : durationIn(duration.value, duration.unit));
    return undefined;
  } catch (error) {
    if (!(error instanceof SettingProblem)) throw error;
    if (duration === undefined) return `${name} ${error.message}`;
    return `${name} in ${UNIT_WORDS[duration.unit]} ${error.message} (${duration.value.toHumanString()})`;
  }
}

/**
 * The problems of every prop in `props` that carries a setting the table passes to `lambda`, and
 * of the `also` settings (deploy-only ones the construct takes), each by its row's rule, in table order.
 * @example settingPropsProblems('authorizer', props, ['apiType'])
 */
export function settingPropsProblems(lambda: SignetLambda, props: object, also: readonly (keyof Settings)[] = []): string[] {
  const given = props as Readonly<Record<string, unknown>>;
  const problems: string[] = [];
  for (const row of SETTING_ROWS) {
    if (row.prop === undefined || !(row.lambdas?.includes(lambda) === true || also.includes(row.key))) continue;
    const problem = settingPropProblem(row.key, given[row.prop]);
    if (problem !== undefined) problems.push(problem);
  }
  return problems;
}
