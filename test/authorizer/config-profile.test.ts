/**
 * loadConfig reads every runtime setting of lambda/settings.ts through its rule, and the CDK
 * context reads the same rows: SIGNET_PROFILE (the deployment's coverage profile), the defaults,
 * and bad values refused at a cold start and at synth alike, naming the variable or the key.
 */
import { loadConfig } from '../../lambda/config';
import { ENV } from '../../lambda/config-env';
import { SETTINGS, SETTING_ROWS } from '../../lambda/settings';
import { settingsFromContext } from '../../lib/app-context';

const base = { [ENV.tableName]: 'signet-test' };

test('defaults to signet; takes rfc9421 and web-bot-auth; refuses anything else, naming the choices', () => {
  expect(loadConfig(base).profile).toBe('signet');
  expect(loadConfig({ ...base, [ENV.profile]: ' rfc9421 ' }).profile).toBe('rfc9421');
  expect(loadConfig({ ...base, [ENV.profile]: 'web-bot-auth' }).profile).toBe('web-bot-auth');
  expect(() => loadConfig({ ...base, [ENV.profile]: 'RFC9421' })).toThrow('SIGNET_PROFILE must be one of signet, rfc9421, web-bot-auth; got "RFC9421".');
});

test('the web-bot-auth validity bound and the published keys\' keep bound: defaults, lower values, and values out of range refused', () => {
  expect(loadConfig(base)).toMatchObject({ webBotAuthMaxValidityS: 86_400, keySourceKeepDays: 7 });
  expect(loadConfig({ ...base, [ENV.webBotAuthMaxValidityS]: '300', [ENV.keySourceKeepDays]: '1' })).toMatchObject({ webBotAuthMaxValidityS: 300, keySourceKeepDays: 1 });
  expect(() => loadConfig({ ...base, [ENV.webBotAuthMaxValidityS]: '86401' })).toThrow('SIGNET_WEB_BOT_AUTH_MAX_VALIDITY_S must be a whole number from 60 to 86400; got "86401".');
  expect(() => loadConfig({ ...base, [ENV.keySourceKeepDays]: '91' })).toThrow('SIGNET_KEY_SOURCE_KEEP_DAYS must be a whole number from 1 to 90; got "91".');
});

test('the rotated RSA size: a multiple of 8 the registry accepts, refused at the cold start otherwise (as the construct refuses it)', () => {
  expect(loadConfig({ ...base, [ENV.rotationKeyBits]: '3072' }).rotationKeyBits).toBe(3072);
  for (const bits of ['1024', '16384', '3001']) {
    expect(() => loadConfig({ ...base, [ENV.rotationKeyBits]: bits })).toThrow(`SIGNET_ROTATION_KEY_BITS must be a multiple of 8 from 2048 to 8192; got "${bits}".`);
  }
});

test('with only the table named, every runtime setting holds its default from the settings table', () => {
  const config = loadConfig(base);
  const runtime = SETTING_ROWS.filter((row) => row.env !== undefined);
  expect(Object.keys(config).sort()).toEqual(runtime.map((row) => row.key).sort());
  for (const row of runtime) {
    if (row.key !== 'tableName') expect({ key: row.key, value: config[row.key as keyof typeof config] }).toEqual({ key: row.key, value: row.default });
  }
  expect(config).toMatchObject({ maxAgeS: 300, staleIfErrorMs: 900_000, recordAuthFailures: true, replayProtection: false, publicBaseUrl: undefined });
  expect(Object.isFrozen(config)).toBe(true);
});

test('values are parsed by their rule: trimmed numbers, booleans in any case, the base URL without its trailing slash', () => {
  const config = loadConfig({
    ...base,
    [ENV.staleIfErrorMs]: ' 0 ',
    [ENV.replayProtection]: 'TRUE',
    [ENV.publicBaseUrl]: 'https://api.example.com/v1/',
    [ENV.roleCatalogue]: '{"registry:admin":["* /registry/**"]}',
  });
  expect(config).toMatchObject({ staleIfErrorMs: 0, replayProtection: true, publicBaseUrl: 'https://api.example.com/v1', roleCatalogue: { 'registry:admin': ['* /registry/**'] } });
});

test('a missing table or a bad value fails the cold start naming the variable', () => {
  expect(() => loadConfig({})).toThrow('SIGNET_TABLE_NAME is not set: it must name the client registry table.');
  expect(() => loadConfig({ ...base, [ENV.staleIfErrorMs]: '15m' })).toThrow('SIGNET_STALE_IF_ERROR_MS must be a whole number >= 0; got "15m".');
  expect(() => loadConfig({ ...base, [ENV.allowLegacy]: 'yes' })).toThrow('SIGNET_ALLOW_LEGACY must be true or false; got "yes".');
  expect(() => loadConfig({ ...base, [ENV.allowedLogSample]: '1%' })).toThrow('SIGNET_ALLOWED_LOG_SAMPLE must be a number from 0 to 1, e.g. 0.01 for one in a hundred; got "1%".');
  expect(() => loadConfig({ ...base, [ENV.allowedLogSample]: '2' })).toThrow(/^SIGNET_ALLOWED_LOG_SAMPLE must be a number from 0 to 1/);
  expect([loadConfig(base).allowedLogSample, loadConfig({ ...base, [ENV.allowedLogSample]: '.5' }).allowedLogSample, loadConfig({ ...base, [ENV.allowedLogSample]: '0' }).allowedLogSample]).toEqual([0.01, 0.5, 0]);
  expect(() => loadConfig({ ...base, [ENV.roleCatalogue]: '{not json' })).toThrow(/^SIGNET_ROLE_CATALOGUE must be JSON like /);
  expect(() => loadConfig({ ...base, [ENV.roleCatalogue]: '["* /registry/**"]' })).toThrow(/^SIGNET_ROLE_CATALOGUE must be a JSON object/);
  expect(() => loadConfig({ ...base, [ENV.roleCatalogue]: '{"orders":["/orders"]}' })).toThrow(/^SIGNET_ROLE_CATALOGUE is not usable: Invalid role catalogue: /);
});

test('synth refuses what a cold start would refuse, by the same rule, naming the context key', () => {
  const bad: Record<string, string> = { maxCoveredComponents: '65', lastUsedRecordIntervalMs: '500', publicBaseUrl: 'https://user:pw@api.example.com/v1', roleCatalogue: '{"orders":["/orders"]}' };
  let synth = '';
  try {
    settingsFromContext((key) => bad[key]);
  } catch (error) {
    synth = (error as Error).message;
  }
  for (const [key, value] of Object.entries(bad)) {
    const env = SETTINGS[key as keyof typeof SETTINGS] as { env: string };
    let coldStart = '';
    try {
      loadConfig({ ...base, [env.env]: value });
    } catch (error) {
      coldStart = (error as Error).message;
    }
    const problem = coldStart.slice(env.env.length + 1, -1);
    expect({ key, problem: problem.length > 10, synth: synth.includes(`${key} ${problem}`) }).toEqual({ key, problem: true, synth: true });
  }
});
