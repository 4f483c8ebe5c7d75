/**
 * Reads the SignetStack's properties from CDK context (`-c key=value` or cdk.json "context"), so
 * `npx cdk deploy -c apiType=rest -c adminPublicKeyFile=admin/public.pem` needs no code change.
 * Every problem is reported at once, naming the context key.
 */
import { COVERAGE_PROFILES, isCoverageProfile } from '../lambda/core/profile-names';
import * as fs from 'node:fs';
import { Duration } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { RoleCatalogue } from '../lambda/core/role-policy';
import type { SignetStackProps } from './signet-stack';

/** The context keys bin/app.ts reads, with what each sets (docs/deploy.md lists them too). */
export const CONTEXT_KEYS = [
  'stackName',
  'apiType',
  'adminPublicKey',
  'adminPublicKeyFile',
  'adminNetworkWhitelist',
  'publicBaseUrl',
  'replicaRegions',
  'tableName',
  'maxAgeS',
  'maxSkewS',
  'maxCoveredComponents',
  'allowLegacy',
  'profile',
  'replayProtection',
  'recordAuthFailures',
  'lastUsedRecordIntervalMs',
  'roleCatalogue',
  'clientCacheTtlMs',
  'staleIfErrorMs',
  'signingKeyClientIds',
  'rotationIntervalDays',
  'deniedAlarmThreshold',
  'alarmTopicArn',
  'restStageName',
  'clientPortal',
  'logRetention',
  'throttleRateLimit',
  'throttleBurstLimit',
  'authorizerReservedConcurrency',
  'webAclArn',
  'restCloudWatchRole',
] as const;

export type ContextKey = (typeof CONTEXT_KEYS)[number];

/** Default stack name. @default 'Signet' */
export const DEFAULT_STACK_NAME = 'Signet';

/**
 * The context keys that are Signet's to judge: plain identifiers such as `apiType`. Keys with a
 * `:`, `/`, `@` or `-` belong to the CDK and its tools (`aws:cdk:…`, `@aws-cdk/…` feature flags,
 * `cli-telemetry`, lookups cached in cdk.context.json) and are left alone.
 */
const SIGNET_STYLE_KEY = /^[A-Za-z][A-Za-z0-9]*$/;

/** Log retentions a `logRetention` context value may name, in days (CloudWatch's own list). */
const RETENTION_DAYS = Object.values(logs.RetentionDays).filter((v): v is number => typeof v === 'number' && v !== logs.RetentionDays.INFINITE);

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
  const text = (key: ContextKey): string | undefined => {
    const value = read(key);
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') {
      problems.push(`${key} must be a string`);
      return undefined;
    }
    return value;
  };
  const bool = (key: ContextKey): boolean | undefined => {
    const value = read(key);
    if (value === undefined || value === null || value === '') return undefined;
    if (value === true || value === 'true') return true;
    if (value === false || value === 'false') return false;
    problems.push(`${key} must be true or false; got ${JSON.stringify(value)}`);
    return undefined;
  };
  const wholeNumber = (key: ContextKey, min: number): number | undefined => {
    const value = read(key);
    if (value === undefined || value === null || value === '') return undefined;
    const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : NaN;
    if (!Number.isInteger(n) || n < min) {
      problems.push(`${key} must be a whole number >= ${min}; got ${JSON.stringify(value)}`);
      return undefined;
    }
    return n;
  };
  const list = (key: ContextKey): string[] | undefined => {
    const value = read(key);
    if (value === undefined || value === null || value === '') return undefined;
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
    if (typeof value === 'string') {
      const trimmed = value.trim();
      if (trimmed.startsWith('[')) {
        try {
          const parsed = JSON.parse(trimmed) as unknown;
          if (Array.isArray(parsed) && parsed.every((v) => typeof v === 'string')) return parsed as string[];
        } catch {
          // reported below
        }
      } else {
        return trimmed.split(',').map((v) => v.trim()).filter((v) => v !== '');
      }
    }
    problems.push(`${key} must be a comma-separated list or a JSON array of strings; got ${JSON.stringify(value)}`);
    return undefined;
  };

  const apiType = text('apiType');
  if (apiType !== undefined && apiType !== 'http' && apiType !== 'rest') problems.push(`apiType must be http or rest; got ${JSON.stringify(apiType)}`);

  let adminPublicKey = text('adminPublicKey');
  const adminPublicKeyFile = text('adminPublicKeyFile');
  if (adminPublicKey !== undefined && adminPublicKeyFile !== undefined) {
    problems.push('give adminPublicKey or adminPublicKeyFile, not both');
  } else if (adminPublicKeyFile !== undefined) {
    try {
      adminPublicKey = readFile(adminPublicKeyFile);
    } catch {
      problems.push(`adminPublicKeyFile ${JSON.stringify(adminPublicKeyFile)} cannot be read`);
    }
  }

  let roleCatalogue: RoleCatalogue | undefined;
  const rawCatalogue = read('roleCatalogue');
  if (typeof rawCatalogue === 'string' && rawCatalogue !== '') {
    try {
      roleCatalogue = JSON.parse(rawCatalogue) as RoleCatalogue;
    } catch {
      problems.push('roleCatalogue must be JSON like {"registry:admin": ["* /registry/**"], "orders": ["POST /orders"]}');
    }
  } else if (rawCatalogue !== undefined && rawCatalogue !== null && rawCatalogue !== '') {
    roleCatalogue = rawCatalogue as RoleCatalogue;
  }

  const seconds = (key: ContextKey, min: number): Duration | undefined => {
    const n = wholeNumber(key, min);
    return n === undefined ? undefined : Duration.seconds(n);
  };
  const millis = (key: ContextKey): Duration | undefined => {
    const n = wholeNumber(key, 0);
    return n === undefined ? undefined : Duration.millis(n);
  };
  const rotationDays = wholeNumber('rotationIntervalDays', 1);
  const profileText = text('profile');
  if (profileText !== undefined && !isCoverageProfile(profileText)) problems.push(`profile must be one of ${COVERAGE_PROFILES.join(', ')}; got ${JSON.stringify(profileText)}`);

  let logRetention: logs.RetentionDays | undefined;
  const rawRetention = read('logRetention');
  if (rawRetention !== undefined && rawRetention !== null && rawRetention !== '') {
    const days = typeof rawRetention === 'number' ? rawRetention : typeof rawRetention === 'string' ? (rawRetention.trim().toLowerCase() === 'infinite' ? logs.RetentionDays.INFINITE : Number(rawRetention.trim())) : NaN;
    if (days === logs.RetentionDays.INFINITE || RETENTION_DAYS.includes(days)) logRetention = days as logs.RetentionDays;
    else problems.push(`logRetention must be a number of days CloudWatch offers (${RETENTION_DAYS.join(', ')}) or infinite; got ${JSON.stringify(rawRetention)}`);
  }

  const props: SignetStackProps = {
    apiType: apiType as SignetStackProps['apiType'],
    adminPublicKey,
    adminNetworkWhitelist: list('adminNetworkWhitelist'),
    publicBaseUrl: text('publicBaseUrl'),
    replicaRegions: list('replicaRegions'),
    tableName: text('tableName'),
    maxAge: seconds('maxAgeS', 1),
    maxSkew: seconds('maxSkewS', 0),
    maxCoveredComponents: wholeNumber('maxCoveredComponents', 4),
    allowLegacy: bool('allowLegacy'),
    profile: profileText !== undefined && isCoverageProfile(profileText) ? profileText : undefined,
    replayProtection: bool('replayProtection'),
    recordAuthFailures: bool('recordAuthFailures'),
    lastUsedRecordInterval: millis('lastUsedRecordIntervalMs'),
    roleCatalogue,
    clientCacheTtl: millis('clientCacheTtlMs'),
    staleIfError: millis('staleIfErrorMs'),
    signingKeyClientIds: list('signingKeyClientIds'),
    rotationInterval: rotationDays === undefined ? undefined : Duration.days(rotationDays),
    deniedAlarmThreshold: wholeNumber('deniedAlarmThreshold', 1),
    alarmTopicArn: text('alarmTopicArn'),
    restStageName: text('restStageName'),
    clientPortal: bool('clientPortal'),
    logRetention,
    throttleRateLimit: wholeNumber('throttleRateLimit', 1),
    throttleBurstLimit: wholeNumber('throttleBurstLimit', 1),
    authorizerReservedConcurrency: wholeNumber('authorizerReservedConcurrency', 1),
    webAclArn: text('webAclArn'),
    restCloudWatchRole: bool('restCloudWatchRole'),
  };
  const stackName = text('stackName') ?? DEFAULT_STACK_NAME;
  if (problems.length > 0) throw new Error(`Invalid CDK context: ${problems.join('; ')}.`);
  return { stackName, props };
}
