/**
 * The one place Signet's Lambdas read the environment. Returns a frozen, typed config; each
 * value falls back to its named default in lambda/core/defaults.ts. A bad value fails the cold
 * start with a message naming the variable, never silently.
 */
import { COVERAGE_PROFILES, type CoverageProfile, DEFAULT_PROFILE, isCoverageProfile } from './core/profiles';
import {
  AUTH_FAILURE_RECORD_INTERVAL_MS,
  DEFAULT_ALLOW_LEGACY,
  DEFAULT_CLIENT_CACHE_TTL_MS,
  DEFAULT_MAX_AGE_S,
  DEFAULT_MAX_COVERED_COMPONENTS,
  DEFAULT_MAX_SKEW_S,
  DEFAULT_RSA_BITS,
  DEFAULT_ROTATION_GRACE_S,
  DEFAULT_STALE_IF_ERROR_MS,
  LAST_USED_RECORD_INTERVAL_MS,
  MAX_COVERED_COMPONENTS_LIMIT,
  MIN_COVERED_COMPONENTS_LIMIT,
  MIN_LAST_USED_RECORD_INTERVAL_MS,
} from './core/defaults';
import { publicBaseUrlProblem } from './adapters/target-uri';
import { RoleCatalogue, compileRoleCatalogue } from './core/role-policy';
import { DEFAULT_ROLE_CATALOGUE, ENV } from './config-env';

export interface SignetConfig {
  readonly tableName: string;
  readonly roleCatalogue: RoleCatalogue;
  /** Public base URL clients call (custom domain + base path), when the event cannot tell. */
  readonly publicBaseUrl?: string;
  readonly maxAgeS: number;
  readonly maxSkewS: number;
  /** The most components one signature may cover (more: `invalid_signature_input`). */
  readonly maxCoveredComponents: number;
  readonly allowLegacy: boolean;
  /** What signatures must cover unless a client's own `profile` says otherwise (lambda/core/profiles.ts). @default 'signet' */
  readonly profile: CoverageProfile;
  readonly replayProtection: boolean;
  readonly recordAuthFailures: boolean;
  /** The same refusal of one client is recorded at most once per this interval. */
  readonly authFailureRecordIntervalMs: number;
  /**
   * A (client, key) pair that verified a request is recorded as used at most once per this
   * interval per instance (the registry shows it as `lastUsedAt`); 0: not recorded.
   */
  readonly lastUsedRecordIntervalMs: number;
  readonly clientCacheTtlMs: number;
  readonly staleIfErrorMs: number;
  readonly rotationGraceS: number;
  readonly rotationKeyBits: number;
  readonly dynamoDbEndpoint?: string;
  readonly secretsManagerEndpoint?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Reads and checks the configuration from `env` (default: `process.env`). */
export function loadConfig(env: Env = process.env): SignetConfig {
  const tableName = env[ENV.tableName]?.trim();
  if (!tableName) throw new Error(`${ENV.tableName} is not set: it must name the Signet client table.`);
  return Object.freeze({
    tableName,
    roleCatalogue: readRoleCatalogue(env),
    publicBaseUrl: readBaseUrl(env),
    maxAgeS: readInt(env, ENV.maxAgeS, DEFAULT_MAX_AGE_S, 1),
    maxSkewS: readInt(env, ENV.maxSkewS, DEFAULT_MAX_SKEW_S, 0),
    maxCoveredComponents: readInt(env, ENV.maxCoveredComponents, DEFAULT_MAX_COVERED_COMPONENTS, MIN_COVERED_COMPONENTS_LIMIT, MAX_COVERED_COMPONENTS_LIMIT),
    allowLegacy: readBool(env, ENV.allowLegacy, DEFAULT_ALLOW_LEGACY),
    profile: readProfile(env),
    replayProtection: readBool(env, ENV.replayProtection, false),
    recordAuthFailures: readBool(env, ENV.recordAuthFailures, true),
    authFailureRecordIntervalMs: readInt(env, ENV.authFailureRecordIntervalMs, AUTH_FAILURE_RECORD_INTERVAL_MS, 0),
    lastUsedRecordIntervalMs: readLastUsedInterval(env),
    clientCacheTtlMs: readInt(env, ENV.clientCacheTtlMs, DEFAULT_CLIENT_CACHE_TTL_MS, 0),
    staleIfErrorMs: readInt(env, ENV.staleIfErrorMs, DEFAULT_STALE_IF_ERROR_MS, 0),
    rotationGraceS: readInt(env, ENV.rotationGraceS, DEFAULT_ROTATION_GRACE_S, 0),
    rotationKeyBits: readInt(env, ENV.rotationKeyBits, DEFAULT_RSA_BITS, 2048),
    dynamoDbEndpoint: env[ENV.dynamoDbEndpoint]?.trim() || undefined,
    secretsManagerEndpoint: env[ENV.secretsManagerEndpoint]?.trim() || undefined,
  });
}

function readInt(env: Env, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
    throw new Error(`${name} must be a whole number ${range}; got ${JSON.stringify(raw)}.`);
  }
  return Number(raw);
}

function readProfile(env: Env): CoverageProfile {
  const raw = env[ENV.profile]?.trim();
  if (raw === undefined || raw === '') return DEFAULT_PROFILE;
  if (!isCoverageProfile(raw)) throw new Error(`${ENV.profile} must be one of ${COVERAGE_PROFILES.join(', ')}; got ${JSON.stringify(raw.slice(0, 40))}.`);
  return raw;
}

/** 0 (off), or at least MIN_LAST_USED_RECORD_INTERVAL_MS: never a write per request. */
function readLastUsedInterval(env: Env): number {
  const value = readInt(env, ENV.lastUsedRecordIntervalMs, LAST_USED_RECORD_INTERVAL_MS, 0);
  if (value !== 0 && value < MIN_LAST_USED_RECORD_INTERVAL_MS) {
    throw new Error(`${ENV.lastUsedRecordIntervalMs} must be 0 (off) or at least ${MIN_LAST_USED_RECORD_INTERVAL_MS} ms; got ${value}.`);
  }
  return value;
}

function readBool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new Error(`${name} must be "true" or "false"; got ${JSON.stringify(raw)}.`);
}

function readRoleCatalogue(env: Env): RoleCatalogue {
  const raw = env[ENV.roleCatalogue]?.trim();
  if (!raw) return DEFAULT_ROLE_CATALOGUE;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (cause) {
    throw new Error(`${ENV.roleCatalogue} is not valid JSON: give {"role": ["METHOD /path-glob", ...]}.`, { cause });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${ENV.roleCatalogue} must be a JSON object {"role": ["METHOD /path-glob", ...]}.`);
  }
  compileRoleCatalogue(parsed as RoleCatalogue); // throws with every problem listed
  return parsed as RoleCatalogue;
}

function readBaseUrl(env: Env): string | undefined {
  const raw = env[ENV.publicBaseUrl]?.trim();
  if (!raw) return undefined;
  const problem = publicBaseUrlProblem(raw);
  if (problem !== undefined) throw new Error(`${ENV.publicBaseUrl}: ${problem}.`);
  return raw.replace(/\/+$/, '');
}
