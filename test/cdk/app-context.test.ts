/**
 * settingsFromContext: what `-c key=value` (strings) and cdk.json (JSON values) become.
 */
import { Duration } from 'aws-cdk-lib';
import { ContextKey, DEFAULT_STACK_NAME, settingsFromContext } from '../../lib/app-context';

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
    replayProtection: 'false',
    maxAgeS: '120',
    maxSkewS: '5',
    clientCacheTtlMs: '30000',
    staleIfErrorMs: '0',
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
  expect(props.replayProtection).toBe(false);
  expect(props.maxAge?.toSeconds()).toBe(120);
  expect(props.maxSkew?.toSeconds()).toBe(5);
  expect(props.clientCacheTtl?.toMilliseconds()).toBe(30_000);
  expect(props.staleIfError?.toMilliseconds()).toBe(0);
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
