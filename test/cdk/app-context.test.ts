/**
 * settingsFromContext: what `-c key=value` (strings) and cdk.json (JSON values) become.
 */
import { synthNotes } from '../../bin/synth-notes';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CONTEXT_KEYS, ContextKey, DEFAULT_STACK_NAME, settingsFromContext, unknownContextKeys } from '../../lib/app-context';
import { INFINITE_RETENTION, LOG_RETENTION_DAYS, SETTING_ROWS } from '../../lambda/settings';
import type { DeclaresEvery, SettingPropName } from '../../lib/setting-props';
import type { SignetStackProps } from '../../lib/signet-stack';

function settings(context: Partial<Record<ContextKey, unknown>>, files: Record<string, string> = {}) {
  return settingsFromContext(
    (key) => context[key],
    (path) => {
      if (!(path in files)) throw new Error('ENOENT');
      return files[path];
    },
  );
}

test('no context: stack "Signet" and every property left to its default', () => {
  const { stackName, props } = settings({});
  expect(stackName).toBe(DEFAULT_STACK_NAME);
  expect(Object.values(props).filter((v) => v !== undefined)).toEqual([]);
});

test('command-line strings are parsed: lists, booleans, numbers, durations', () => {
  const { stackName, props } = settings({
    stackName: 'SignetStaging',
    apiType: 'rest',
    replicaRegions: 'us-east-1, eu-west-1',
    signingKeyClientIds: 'c_AAAAAAAAAAAAAAAAAAAAAA',
    adminNetworkWhitelist: '203.0.113.0/24,2001:db8::/32',
    allowLegacy: 'true',
    profile: 'rfc9421',
    replayProtection: 'false',
    maxAgeS: '120',
    maxSkewS: '5',
    clientCacheTtlMs: '30000',
    staleIfErrorMs: '0',
    lastUsedRecordIntervalMs: '60000',
    rotationIntervalDays: '30',
    deniedAlarmThreshold: '50',
    publicBaseUrl: 'https://api.example.com/v1',
    roleCatalogue: '{"registry:admin":["* /registry/**"],"orders":["POST /orders"]}',
  });
  expect(stackName).toBe('SignetStaging');
  expect(props.apiType).toBe('rest');
  expect(props.replicaRegions).toEqual(['us-east-1', 'eu-west-1']);
  expect(props.signingKeyClientIds).toEqual(['c_AAAAAAAAAAAAAAAAAAAAAA']);
  expect(props.adminNetworkWhitelist).toEqual(['203.0.113.0/24', '2001:db8::/32']);
  expect(props.allowLegacy).toBe(true);
  expect(props.profile).toBe('rfc9421');
  expect(props.replayProtection).toBe(false);
  expect(props.maxAge?.toSeconds()).toBe(120);
  expect(props.maxSkew?.toSeconds()).toBe(5);
  expect(props.clientCacheTtl?.toMilliseconds()).toBe(30_000);
  expect(props.staleIfError?.toMilliseconds()).toBe(0);
  expect(props.lastUsedRecordInterval?.toMilliseconds()).toBe(60_000);
  expect(props.rotationInterval?.toDays()).toBe(Duration.days(30).toDays());
  expect(props.deniedAlarmThreshold).toBe(50);
  expect(props.publicBaseUrl).toBe('https://api.example.com/v1');
  expect(props.roleCatalogue).toEqual({ 'registry:admin': ['* /registry/**'], orders: ['POST /orders'] });
});

test('cdk.json JSON values are taken as they are', () => {
  const { props } = settings({
    replicaRegions: ['us-east-1'],
    recordAuthFailures: false,
    maxAgeS: 60,
    roleCatalogue: { 'registry:admin': ['* /registry/**'] },
  });
  expect(props.replicaRegions).toEqual(['us-east-1']);
  expect(props.recordAuthFailures).toBe(false);
  expect(props.maxAge?.toSeconds()).toBe(60);
  expect(props.roleCatalogue).toEqual({ 'registry:admin': ['* /registry/**'] });
});

test('adminPublicKeyFile is read from disk', () => {
  const { props } = settings({ adminPublicKeyFile: 'admin/public.pem' }, { 'admin/public.pem': '-----BEGIN PUBLIC KEY-----\n...' });
  expect(props.adminPublicKey).toBe('-----BEGIN PUBLIC KEY-----\n...');
});

test('every bad value is reported at once, naming its key', () => {
  let message = '';
  try {
    settings({
      apiType: 'graphql',
      allowLegacy: 'yes',
      profile: 'strict',
      maxAgeS: '-1',
      maxSkewS: '1.5',
      replicaRegions: '["us-east-1", 3]',
      roleCatalogue: '{not json',
      adminPublicKey: 'x',
      adminPublicKeyFile: 'y',
    });
  } catch (error) {
    message = (error as Error).message;
  }
  expect(message).toMatch(/^Invalid CDK context: /);
  for (const part of [
    'apiType must be http or rest; got "graphql"',
    'allowLegacy must be true or false; got "yes"',
    'profile must be one of signet, rfc9421, web-bot-auth; got "strict"',
    'maxAgeS must be a whole number >= 1; got "-1"',
    'maxSkewS must be a whole number >= 0; got "1.5"',
    'replicaRegions must be a comma-separated list or a JSON array of strings',
    'roleCatalogue must be JSON',
    'give adminPublicKey or adminPublicKeyFile, not both',
  ]) {
    expect(message).toContain(part);
  }
});

test('an unreadable adminPublicKeyFile is named', () => {
  expect(() => settings({ adminPublicKeyFile: 'missing.pem' })).toThrow('adminPublicKeyFile "missing.pem" cannot be read');
});

test('an unknown Signet-style key is an error naming it and the key it resembles; CDK and tool keys are left alone', () => {
  const given = ['apiTyp', 'maxAgeS', 'aws:cdk:version-reporting', '@aws-cdk/core:newStyleStackSynthesis', 'cli-telemetry', 'availability-zones:account=1:region=eu-west-1', 'frobnicate'];
  expect(unknownContextKeys(given)).toEqual(['apiTyp (did you mean apiType?)', 'frobnicate']);
  expect(() => settingsFromContext(() => undefined, undefined, given)).toThrow(/^Invalid CDK context: unknown context keys apiTyp \(did you mean apiType\?\), frobnicate; the keys are: stackName, apiType, /);
  expect(() => settingsFromContext(() => undefined, undefined, ['apiType', 'cli-telemetry'])).not.toThrow();
});

test('clientPortal and logRetention are settable by context', () => {
  expect(settings({ clientPortal: 'true', logRetention: '90' }).props).toMatchObject({ clientPortal: true, logRetention: RetentionDays.THREE_MONTHS });
  expect(settings({ clientPortal: false, logRetention: 'infinite' }).props).toMatchObject({ clientPortal: false, logRetention: RetentionDays.INFINITE });
  expect(() => settings({ logRetention: '12' })).toThrow(/logRetention must be a number of days CloudWatch offers \(1, 3, 5, 7, 14, 30, .*\) or infinite; got "12"/);
  expect(() => settings({ clientPortal: 'yes' })).toThrow('clientPortal must be true or false; got "yes"');
});

test('spend bounds, WAF and the REST CloudWatch role are settable by context', () => {
  const webAclArn = 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/signet/0f2e4c6a-1b3d-4e5f-8a9b-0c1d2e3f4a5b';
  expect(
    settings({ throttleRateLimit: '200', throttleBurstLimit: 400, authorizerReservedConcurrency: '50', webAclArn, restCloudWatchRole: 'false' }).props,
  ).toMatchObject({ throttleRateLimit: 200, throttleBurstLimit: 400, authorizerReservedConcurrency: 50, webAclArn, restCloudWatchRole: false });
  expect(() => settings({ throttleRateLimit: '0', authorizerReservedConcurrency: 'many' })).toThrow(
    /throttleRateLimit must be a number >= 1; got "0"; authorizerReservedConcurrency must be a whole number >= 1; got "many"/,
  );
  // API Gateway's steady rate is a number of requests per second, fractions allowed, by context as by prop.
  expect(settings({ throttleRateLimit: '2.5' }).props).toMatchObject({ throttleRateLimit: 2.5 });
});

test('the stack properties of docs/deploy.md are the context settings: every key in its table and its short list, and no property the settings table lacks', () => {
  const root = resolve(__dirname, '..', '..');
  const deploy = readFileSync(join(root, 'docs', 'deploy.md'), 'utf8');
  const table = deploy.slice(deploy.indexOf('## Stack properties'), deploy.indexOf('## Outputs'));
  const properties = deploy.slice(deploy.indexOf('- **Properties**'), deploy.indexOf('- **Outputs**'));
  for (const key of CONTEXT_KEYS) {
    expect({ key, inDeployTable: table.includes(`\`${key}\``), inShortList: properties.includes(`\`${key}\``) }).toEqual({ key, inDeployTable: true, inShortList: true });
  }
  // The first name of each row is the property (or, for a context-only setting, the key).
  const listed = table.split('\n').filter((line) => line.startsWith('| `')).map((line) => /^\| `([^`]+)`/.exec(line)?.[1]);
  const names = new Set(SETTING_ROWS.filter((row) => row.context === true).flatMap((row) => [row.key, row.prop]));
  expect(listed.filter((name) => !names.has(name))).toEqual([]);
});

test('every context setting has its prop on SignetStackProps (checked by the compiler), and logRetention offers the CDK\'s retentions', () => {
  // Compiles only while SignetStackProps declares the prop of every context setting.
  const declared: DeclaresEvery<SignetStackProps, SettingPropName<'stack'>> = {};
  expect(declared).toEqual({});
  const cdkDays = Object.values(RetentionDays).filter((v): v is number => typeof v === 'number' && v !== RetentionDays.INFINITE);
  expect([...LOG_RETENTION_DAYS].sort((a, b) => a - b)).toEqual(cdkDays.sort((a, b) => a - b));
  expect(INFINITE_RETENTION).toBe(RetentionDays.INFINITE);
});

test('the CDK app itself: a bad context value ends the synth with one line, no stack trace', () => {
  const result = spawnSync(process.execPath, ['--no-warnings', '-r', 'tsx/cjs', 'bin/app.ts'], {
    cwd: resolve(__dirname, '..', '..'),
    env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify({ apiTyp: 'rest', maxAgeS: 'abc', 'cli-telemetry': false }), CDK_OUTDIR: mkdtempSync(join(tmpdir(), 'signet-cdk-out-')) },
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(result.status).toBe(1);
  expect(result.stderr).toMatch(/^signet: Invalid CDK context: unknown context key apiTyp \(did you mean apiType\?\);.* maxAgeS must be a whole number >= 1; got "abc"\. \(check the -c context values; docs\/deploy\.md lists them\)\n$/);
});

test('the CDK app itself: a synth without an admin key says the stack will have no registry admin, gives the deploy line with one, and the next steps', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'signet-cdk-out-'));
  const result = spawnSync(process.execPath, ['--no-warnings', '-r', 'tsx/cjs', 'bin/app.ts'], {
    cwd: resolve(__dirname, '..', '..'),
    // No asset bundling (the CDK's own switch, as `cdk list` uses): the app, cdk-nag and the notes run, esbuild does not.
    // Nor the CDK's built-in template validation (`cdk synth --no-validation`), about 4 s of CPU: signet-stack-http.test.ts validates the stacks.
    env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify({ 'aws:cdk:bundling-stacks': [], apiType: 'rest' }), CDK_OUTDIR: outdir, CDK_VALIDATION: 'false' },
    encoding: 'utf8',
    timeout: 180_000,
  });
  expect(result.status).toBe(0);
  expect(result.stderr).toContain('warning: no admin key given (adminPublicKey or adminPublicKeyFile): the stack "Signet" will have no registry admin, so nobody can call its registry API to register a partner.');
  expect(result.stderr).toContain('npm run -s signet -- keygen --out prod-admin && npx cdk deploy -c apiType=rest -c adminPublicKeyFile=prod-admin/public.pem');
  expect(result.stderr).toContain(`Synthesized the stack "Signet" into ${outdir}/. Next steps (docs/deploy.md):\n  1. npx cdk bootstrap`);
  expect(result.stderr).toMatch(/\n {2}3\. write the AdminClientId output into prod-admin\/client-id, then register the first partner .*\n {5}npm run -s signet -- clients create --endpoint <ApiUrl> --admin prod-admin /);
});

test('with an admin key the notes give no warning, and the deploy line repeats the context the synth was given', () => {
  const notes = synthNotes({ stackName: 'Prod', hasAdmin: true, context: { adminPublicKeyFile: 'keys/admin.pem', apiType: 'http', profile: 'rfc9421', 'aws:cdk:version-reporting': true } });
  expect(notes.join('\n')).not.toContain('warning');
  expect(notes).toContain('  2. npx cdk deploy -c adminPublicKeyFile=keys/admin.pem -c apiType=http -c profile=rfc9421');
  expect(notes[0]).toBe('Synthesized the stack "Prod" into cdk.out/. Next steps (docs/deploy.md):');
  expect(notes).toContain('  3. write the AdminClientId output into keys/client-id, then register the first partner (docs/partners.md):');
});
