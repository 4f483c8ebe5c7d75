/**
 * Reads the SignetStack's properties from CDK context (`-c key=value` or cdk.json "context"), so
 * `npx cdk deploy -c apiType=rest -c adminPublicKeyFile=admin/public.pem` needs no code change.
 * Every problem is reported at once, naming the context key.
 */
import * as fs from 'node:fs';
import { Duration } from 'aws-cdk-lib';
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
  'replayProtection',
  'recordAuthFailures',
  'roleCatalogue',
  'clientCacheTtlMs',
  'staleIfErrorMs',
  'signingKeyClientIds',
  'rotationIntervalDays',
  'deniedAlarmThreshold',
  'alarmTopicArn',
  'restStageName',
] as const;

export type ContextKey = (typeof CONTEXT_KEYS)[number];

/** Default stack name. @default 'Signet' */
export const DEFAULT_STACK_NAME = 'Signet';

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
 * @throws Error listing every bad context value
 */
export function settingsFromContext(read: ContextReader, readFile: (path: string) => string = (p) => fs.readFileSync(p, 'utf8')): AppSettings {
  const problems: string[] = [];
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
    replayProtection: bool('replayProtection'),
    recordAuthFailures: bool('recordAuthFailures'),
    roleCatalogue,
    clientCacheTtl: millis('clientCacheTtlMs'),
    staleIfError: millis('staleIfErrorMs'),
    signingKeyClientIds: list('signingKeyClientIds'),
    rotationInterval: rotationDays === undefined ? undefined : Duration.days(rotationDays),
    deniedAlarmThreshold: wholeNumber('deniedAlarmThreshold', 1),
    alarmTopicArn: text('alarmTopicArn'),
    restStageName: text('restStageName'),
  };
  const stackName = text('stackName') ?? DEFAULT_STACK_NAME;
  if (problems.length > 0) throw new Error(`Invalid CDK context: ${problems.join('; ')}.`);
  return { stackName, props };
}
