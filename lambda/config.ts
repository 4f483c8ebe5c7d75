/**
 * The one place Signet's Lambdas read the environment. Returns a frozen, typed config with one
 * field per runtime setting of the table in lambda/settings.ts, each parsed by its rule or set to
 * its default there. A bad value fails the cold start with a message naming the variable, never
 * silently.
 */
import { type RuntimeSettingKey, SETTINGS, SETTING_ROWS, type Setting, type SettingValue, SettingProblem } from './settings';

type Settings = typeof SETTINGS;

/** Every runtime setting: required ones and ones with a default always hold a value. */
export type SignetConfig = {
  readonly [K in RuntimeSettingKey]: Settings[K] extends { default: unknown } | { required: true } ? SettingValue<K> : SettingValue<K> | undefined;
};

type Env = Readonly<Record<string, string | undefined>>;

/** Reads and checks the configuration from `env` (default: `process.env`). */
export function loadConfig(env: Env = process.env): SignetConfig {
  const config: Record<string, unknown> = {};
  for (const row of SETTING_ROWS) {
    if (row.env !== undefined) config[row.key] = readSetting(env, row.env, row);
  }
  return Object.freeze(config) as SignetConfig;
}

/** One setting from `env`: its rule's value, else its default; an unset required one is an error. */
function readSetting(env: Env, name: string, row: Setting): unknown {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') {
    if (row.required === true) throw new Error(`${name} is not set: it must name ${row.doc}.`);
    return row.default;
  }
  try {
    return row.rule.parse(raw);
  } catch (error) {
    if (error instanceof SettingProblem) throw new Error(`${name} ${error.message}.`, { cause: error });
    throw error;
  }
}
