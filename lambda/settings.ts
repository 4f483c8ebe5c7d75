/**
 * Every setting of Signet, written once: its environment variable (what the Lambdas read), its
 * config field and `-c` context key (the row's key), the construct prop that carries it, its
 * default, the rule that parses it and one sentence saying what it does. Everything else is
 * derived from {@link SETTINGS}: `loadConfig` (lambda/config.ts), the functions' environments
 * (lib/setting-props.ts), the constructs' checks of the props (the same rules, lib/setting-props.ts),
 * the CDK context keys (lib/app-context.ts), the configuration table of docs/configuration.md and
 * the stack properties of docs/deploy.md (lambda/settings-docs.ts, checked by test/docs/docs.test.ts).
 *
 * Adding a setting is one row here, then `npm run -s docs:settings`. A row with a `prop` and
 * `lambdas` reaches those functions through their constructs, and the compiler names the construct
 * (and, with `context`, SignetStackProps) until it declares the prop; the Lambdas read it as
 * `loadConfig().<key>`.
 *
 * No AWS SDK and no CDK here: the Lambdas bundle this module.
 */
import { publicBaseUrlProblem } from './adapters/target-uri';
import {
  ACCOUNT_ADMIN_ROLE,
  AUTH_FAILURE_RECORD_INTERVAL_MS,
  DEFAULT_ALLOW_LEGACY,
  DEFAULT_CLIENT_CACHE_TTL_MS,
  DEFAULT_MAX_AGE_S,
  DEFAULT_MAX_COVERED_COMPONENTS,
  DEFAULT_MAX_SKEW_S,
  DEFAULT_ROTATION_DAYS,
  DEFAULT_ROTATION_GRACE_S,
  DEFAULT_RSA_BITS,
  DEFAULT_STALE_IF_ERROR_MS,
  DEFAULT_KEY_SOURCE_KEEP_DAYS,
  DEFAULT_WEB_BOT_AUTH_MAX_VALIDITY_S,
  LAST_USED_RECORD_INTERVAL_MS,
  MAX_KEY_SOURCE_KEEP_DAYS,
  MAX_RSA_BITS,
  MIN_WEB_BOT_AUTH_MAX_VALIDITY_S,
  MAX_COVERED_COMPONENTS_LIMIT,
  MIN_COVERED_COMPONENTS_LIMIT,
  MIN_LAST_USED_RECORD_INTERVAL_MS,
  MIN_RSA_BITS,
  REGISTRY_ADMIN_ROLE,
} from './core/defaults';
import { COVERAGE_PROFILES, DEFAULT_PROFILE } from './core/profile-names';
import { ALLOWED_LOG_SAMPLE } from './observability';
import { type RoleCatalogue, compileRoleCatalogue } from './core/role-policy';

/**
 * The role catalogue used when none is configured: the registry's operators (`registry:admin`,
 * every registry route) and account admins (`account:admin`: the client routes, their own account
 * and the roles they may give; the registry scopes every answer to their account).
 */
export const DEFAULT_ROLE_CATALOGUE: RoleCatalogue = Object.freeze({
  [REGISTRY_ADMIN_ROLE]: ['* /registry/**'],
  [ACCOUNT_ADMIN_ROLE]: ['* /registry/clients', '* /registry/clients/**', 'GET /registry/accounts/*', 'GET /registry/accounts/*/audit', 'GET /registry/roles'],
});

/** Log retentions CloudWatch offers, in days (`logRetention`); test/cdk/app-context.test.ts holds it to the CDK's list. */
export const LOG_RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653] as const;

/** `logRetention`'s value for "keep forever" (the CDK's `RetentionDays.INFINITE`). */
export const INFINITE_RETENTION = 9999;

/** What a rule throws: the problem, without the setting's name (the reader puts the name in front). */
export class SettingProblem extends Error {
  override readonly name = 'SettingProblem';
}

/**
 * How a setting's raw value becomes its value. Raw values are environment strings (trimmed),
 * `-c key=value` strings, or JSON values from cdk.json; empty values never reach a rule.
 */
export interface Rule<T> {
  /** The value; throws a {@link SettingProblem} ("must be …; got …") when it is not one. */
  parse(raw: unknown): T;
  /** The value as an environment variable holds it. @default String(value) */
  format?(value: T): string;
}

/** The Lambda functions the constructs build, by what they run. */
export type SignetLambda = 'authorizer' | 'registry' | 'rotation' | 'bootstrap' | 'refresher';

/** One row of the settings table. Its key is the config field and, with `context`, the `-c` key. */
export interface Setting<T = unknown> {
  /** The environment variable the Lambdas read it from. Without one the setting is deploy-only. */
  readonly env?: string;
  /** Settable with `-c <key>=…` (or cdk.json). Without it the setting is not a stack property. */
  readonly context?: true;
  /** The construct prop (and stack prop, with `context`) that carries it; a Duration when `unit` is set. */
  readonly prop?: string;
  /** The unit of the number, when the prop is a Duration. */
  readonly unit?: 's' | 'ms' | 'days';
  /** The functions whose environment the constructs set it in (from `prop`). */
  readonly lambdas?: readonly SignetLambda[];
  readonly rule: Rule<T>;
  /** The value when none is given. */
  readonly default?: T;
  /** What happens when it is not given, when there is no default value (docs). */
  readonly unset?: string;
  /** The Lambdas refuse to start without it. */
  readonly required?: true;
  /** One sentence: what it does (docs/configuration.md shows it). */
  readonly doc: string;
}

function got(raw: unknown): string {
  return JSON.stringify(typeof raw === 'string' ? raw.slice(0, 200) : raw);
}

/** A whole number from `min` (to `max`), given as digits or as a JSON number. */
export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER): Rule<number> {
  return {
    parse(raw) {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
      if (!Number.isInteger(n) || n < min || n > max) {
        throw new SettingProblem(`must be a whole number ${max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`}; got ${got(raw)}`);
      }
      return n;
    },
  };
}

/** A number from `min`, fractions allowed, given as a decimal or as a JSON number. */
export function numberFrom(min: number): Rule<number> {
  return {
    parse(raw) {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^(\d+(\.\d*)?|\.\d+)$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
      if (!Number.isFinite(n) || n < min) throw new SettingProblem(`must be a number >= ${min}; got ${got(raw)}`);
      return n;
    },
  };
}

/** `true` or `false`, as text (any case) or as a JSON boolean. */
export const flag: Rule<boolean> = {
  parse(raw) {
    const text = typeof raw === 'string' ? raw.trim().toLowerCase() : raw;
    if (text === true || text === 'true') return true;
    if (text === false || text === 'false') return false;
    throw new SettingProblem(`must be true or false; got ${got(raw)}`);
  },
};

/** One of a few words; `wording` says how the message lists them. */
export function oneOf<T extends string>(values: readonly T[], wording: 'one of' | 'or' = 'one of'): Rule<T> {
  const choices = wording === 'or' ? values.join(' or ') : `one of ${values.join(', ')}`;
  return {
    parse(raw) {
      const text = typeof raw === 'string' ? raw.trim() : raw;
      if (!(values as readonly unknown[]).includes(text)) throw new SettingProblem(`must be ${choices}; got ${JSON.stringify(typeof raw === 'string' ? raw.slice(0, 40) : raw)}`);
      return text as T;
    },
  };
}

/** Any text. */
export const text: Rule<string> = {
  parse(raw) {
    if (typeof raw !== 'string') throw new SettingProblem('must be a string');
    return raw;
  },
};

/** A list: a comma-separated string, a JSON array in a string, or a JSON array of strings. */
export const list: Rule<readonly string[]> = {
  parse(raw) {
    const isList = (v: unknown): v is string[] => Array.isArray(v) && v.every((item) => typeof item === 'string');
    if (isList(raw)) return raw;
    if (typeof raw === 'string') {
      const trimmed = raw.trim();
      if (!trimmed.startsWith('[')) return trimmed.split(',').map((v) => v.trim()).filter((v) => v !== '');
      try {
        const parsed = JSON.parse(trimmed) as unknown;
        if (isList(parsed)) return parsed;
      } catch {
        // refused below
      }
    }
    throw new SettingProblem(`must be a comma-separated list or a JSON array of strings; got ${got(raw)}`);
  },
  format: (value) => JSON.stringify(value),
};

/** A role catalogue, as JSON text or a JSON object, checked as the registry compiles it. */
export const roleCatalogue: Rule<RoleCatalogue> = {
  parse(raw) {
    let parsed = raw;
    if (typeof raw === 'string') {
      try {
        parsed = JSON.parse(raw) as unknown;
      } catch {
        throw new SettingProblem('must be JSON like {"registry:admin": ["* /registry/**"], "orders": ["POST /orders"]}');
      }
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new SettingProblem('must be a JSON object like {"registry:admin": ["* /registry/**"], "orders": ["POST /orders"]}');
    }
    try {
      compileRoleCatalogue(parsed as RoleCatalogue); // throws with every problem listed
    } catch (error) {
      throw new SettingProblem(`is not usable: ${(error as Error).message}`);
    }
    return parsed as RoleCatalogue;
  },
  format: (value) => JSON.stringify(value),
};

/** The URL clients call up to the base path, by the same rule synth and run time apply; no trailing `/`. */
export const baseUrl: Rule<string> = {
  parse(raw) {
    const url = text.parse(raw).trim();
    const problem = publicBaseUrlProblem(url);
    if (problem !== undefined) throw new SettingProblem(`is not usable: ${problem}`);
    return url.replace(/\/+$/, '');
  },
};

/** 0 (off), or at least MIN_LAST_USED_RECORD_INTERVAL_MS: never a write per request. */
const lastUsedInterval: Rule<number> = {
  parse(raw) {
    const value = wholeNumber(0).parse(raw);
    if (value !== 0 && value < MIN_LAST_USED_RECORD_INTERVAL_MS) throw new SettingProblem(`must be 0 (off) or at least ${MIN_LAST_USED_RECORD_INTERVAL_MS} ms; got ${value}`);
    return value;
  },
};

/** The longest rotation interval Secrets Manager schedules, in days. */
export const MAX_ROTATION_DAYS = 1000;

/** The RSA size of a rotated key: a multiple of 8 the registry accepts (MIN_RSA_BITS to MAX_RSA_BITS). */
const rsaKeyBits: Rule<number> = {
  parse(raw) {
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
    if (!Number.isInteger(n) || n < MIN_RSA_BITS || n > MAX_RSA_BITS || n % 8 !== 0) {
      throw new SettingProblem(`must be a multiple of 8 from ${MIN_RSA_BITS} to ${MAX_RSA_BITS}; got ${got(raw)}`);
    }
    return n;
  },
};

/** A fraction from 0 to 1, as a decimal number (`0.01`) or a JSON number. */
const fraction: Rule<number> = {
  parse(raw) {
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^(\d+(\.\d*)?|\.\d+)$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
    if (!(n >= 0 && n <= 1)) throw new SettingProblem(`must be a number from 0 to 1, e.g. 0.01 for one in a hundred; got ${got(raw)}`);
    return n;
  },
};

/** Days CloudWatch keeps logs: one of {@link LOG_RETENTION_DAYS}, or `infinite`. */
const retentionDays: Rule<number> = {
  parse(raw) {
    const days = typeof raw === 'number' ? raw : typeof raw === 'string' ? (raw.trim().toLowerCase() === 'infinite' ? INFINITE_RETENTION : Number(raw.trim())) : NaN;
    if (days === INFINITE_RETENTION || (LOG_RETENTION_DAYS as readonly number[]).includes(days)) return days;
    throw new SettingProblem(`must be a number of days CloudWatch offers (${LOG_RETENTION_DAYS.join(', ')}) or infinite; got ${got(raw)}`);
  },
};

/** Checks one row's types (its default against its rule) while keeping its literal shape. */
function setting<T, const S extends Setting<T>>(row: S & Setting<T>): S {
  return row;
}

const ALL_LAMBDAS = ['authorizer', 'registry', 'rotation', 'bootstrap', 'refresher'] as const;

/**
 * The settings table. Order matters only for messages and docs: deploy settings as
 * docs/deploy.md lists them, then the runtime-only ones.
 */
export const SETTINGS = {
  stackName: setting({ context: true, rule: text, default: 'Signet', doc: 'the name of the CloudFormation stack' }),
  apiType: setting({ context: true, prop: 'apiType', rule: oneOf(['http', 'rest'] as const, 'or'), default: 'http', doc: 'the front door: an HTTP API (payload 2.0) or a REST API' }),
  adminPublicKey: setting({ context: true, prop: 'adminPublicKey', rule: text, unset: 'none: no admin is registered', doc: 'the public key (SPKI PEM) of the first `registry:admin` client, registered at deploy time' }),
  adminPublicKeyFile: setting({ context: true, rule: text, unset: 'none', doc: 'a file holding `adminPublicKey`, read at synth' }),
  adminNetworkWhitelist: setting({ context: true, prop: 'adminNetworkWhitelist', rule: list, unset: 'everyone (a signature is still required)', doc: 'the networks the bootstrapped admin may call from' }),
  adminKeyFingerprint: setting({
    env: 'SIGNET_ADMIN_KEY_FINGERPRINT',
    prop: 'adminKeyFingerprint',
    lambdas: ['bootstrap'],
    rule: text,
    unset: 'none: the bootstrap registers no key',
    doc: "the SHA-256 fingerprint of the only key the admin bootstrap registers, set at synth from `adminPublicKey`: an invocation naming another key (not CloudFormation's) is refused",
  }),
  publicBaseUrl: setting({
    env: 'SIGNET_PUBLIC_BASE_URL',
    context: true,
    prop: 'publicBaseUrl',
    lambdas: ['authorizer', 'registry'],
    rule: baseUrl,
    unset: 'none: rebuilt from `Host` and the stage',
    doc: 'the URL clients call up to the base path, e.g. `https://api.example.com/v1`',
  }),
  replicaRegions: setting({ context: true, prop: 'replicaRegions', rule: list, unset: 'none: one region', doc: 'regions to replicate the registry table to (a DynamoDB global table)' }),
  tableName: setting({
    env: 'SIGNET_TABLE_NAME',
    context: true,
    prop: 'tableName',
    lambdas: ALL_LAMBDAS,
    rule: text,
    required: true,
    unset: 'required (deploy: generated by CloudFormation)',
    doc: 'the client registry table',
  }),
  roleCatalogue: setting({
    env: 'SIGNET_ROLE_CATALOGUE',
    context: true,
    prop: 'roleCatalogue',
    lambdas: ['authorizer', 'registry'],
    rule: roleCatalogue,
    default: DEFAULT_ROLE_CATALOGUE,
    doc: 'JSON: role → `METHOD /path-glob` routes (`*` one segment, `**` any); the stack adds `demo` on `/api/*`',
  }),
  maxAgeS: setting({ env: 'SIGNET_MAX_AGE_S', context: true, prop: 'maxAge', unit: 's', lambdas: ['authorizer'], rule: wholeNumber(1), default: DEFAULT_MAX_AGE_S, doc: 'how old `created` and `Date` may be' }),
  maxSkewS: setting({
    env: 'SIGNET_MAX_SKEW_S',
    context: true,
    prop: 'maxSkew',
    unit: 's',
    lambdas: ['authorizer'],
    rule: wholeNumber(0),
    default: DEFAULT_MAX_SKEW_S,
    doc: 'clock skew tolerated (future `created`, `Date` vs `created`)',
  }),
  maxCoveredComponents: setting({
    env: 'SIGNET_MAX_COVERED_COMPONENTS',
    context: true,
    prop: 'maxCoveredComponents',
    lambdas: ['authorizer'],
    rule: wholeNumber(MIN_COVERED_COMPONENTS_LIMIT, MAX_COVERED_COMPONENTS_LIMIT),
    default: DEFAULT_MAX_COVERED_COMPONENTS,
    doc: 'the most components one signature may cover (4 to 64); more are refused with `invalid_signature_input` before any registry read, which bounds what a stranger\'s request costs',
  }),
  allowLegacy: setting({ env: 'SIGNET_ALLOW_LEGACY', context: true, prop: 'allowLegacy', lambdas: ['authorizer'], rule: flag, default: DEFAULT_ALLOW_LEGACY, doc: 'accept signatures that do not cover `date` (weaker)' }),
  profile: setting({
    env: 'SIGNET_PROFILE',
    context: true,
    prop: 'profile',
    lambdas: ['authorizer'],
    rule: oneOf(COVERAGE_PROFILES),
    default: DEFAULT_PROFILE,
    doc: 'what signatures must cover for clients without a `profile` of their own: `signet`, `rfc9421` or `web-bot-auth` ([Profiles](scheme.md#profiles-the-default-scheme-or-any-rfc-9421-signer))',
  }),
  webBotAuthMaxValidityS: setting({
    env: 'SIGNET_WEB_BOT_AUTH_MAX_VALIDITY_S',
    context: true,
    prop: 'webBotAuthMaxValidityS',
    lambdas: ['authorizer'],
    rule: wholeNumber(MIN_WEB_BOT_AUTH_MAX_VALIDITY_S, DEFAULT_WEB_BOT_AUTH_MAX_VALIDITY_S),
    default: DEFAULT_WEB_BOT_AUTH_MAX_VALIDITY_S,
    doc: 'under the `web-bot-auth` profile, the longest a signature may be valid (`expires` − `created`, 60 to 86400 s); longer ones are refused with `invalid_signature_input` ([Web Bot Auth](web-bot-auth.md))',
  }),
  replayProtection: setting({
    env: 'SIGNET_REPLAY_PROTECTION',
    context: true,
    prop: 'replayProtection',
    lambdas: ['authorizer'],
    rule: flag,
    default: false,
    doc: 'refuse an exact replay within the window (one conditional write per request)',
  }),
  recordAuthFailures: setting({
    env: 'SIGNET_RECORD_AUTH_FAILURES',
    context: true,
    prop: 'recordAuthFailures',
    lambdas: ['authorizer'],
    rule: flag,
    default: true,
    doc: 'keep, per client, the last 20 refusals its own keys signed and hourly counts of the others for `.../auth-failures`',
  }),
  lastUsedRecordIntervalMs: setting({
    env: 'SIGNET_LAST_USED_RECORD_INTERVAL_MS',
    context: true,
    prop: 'lastUsedRecordInterval',
    unit: 'ms',
    lambdas: ['authorizer'],
    rule: lastUsedInterval,
    default: LAST_USED_RECORD_INTERVAL_MS,
    doc: "each authorizer instance records that a client's key verified a request (the registry's `lastUsedAt`) at most once per client and key per this interval: no read, no write per request, and the request does not wait for the write (`0`: off; otherwise at least `1000`)",
  }),
  allowedLogSample: setting({
    env: 'SIGNET_ALLOWED_LOG_SAMPLE',
    prop: 'allowedLogSample',
    lambdas: ['authorizer'],
    rule: fraction,
    default: ALLOWED_LOG_SAMPLE,
    doc:
      'the share of allowed requests the authorizer logs with a line of their own (clientId, key fingerprint, method, path, latency), ' +
      'evenly spaced: the first, then one in 1/this; every refusal is logged whatever it says, and the `Allowed` metric counts every ' +
      'allowed request (`1`: a line per allowed request; `0`: none)',
  }),
  clientCacheTtlMs: setting({
    env: 'SIGNET_CLIENT_CACHE_TTL_MS',
    context: true,
    prop: 'clientCacheTtl',
    unit: 'ms',
    lambdas: ['authorizer', 'registry', 'rotation'],
    rule: wholeNumber(0),
    default: DEFAULT_CLIENT_CACHE_TTL_MS,
    doc: 'how long the authorizer keeps a client record in memory (the registry reports it on writes as `x-signet-authorizer-cache-ttl`; a rotation waits it out)',
  }),
  staleIfErrorMs: setting({
    env: 'SIGNET_STALE_IF_ERROR_MS',
    context: true,
    prop: 'staleIfError',
    unit: 'ms',
    lambdas: ['authorizer'],
    rule: wholeNumber(0),
    default: DEFAULT_STALE_IF_ERROR_MS,
    doc: 'how long a cached record may be served while DynamoDB fails (then fail closed)',
  }),
  keySourceRefreshMinutes: setting({
    env: 'SIGNET_KEY_SOURCE_REFRESH_MINUTES',
    context: true,
    prop: 'keySourceRefreshMinutes',
    lambdas: ['registry', 'refresher'],
    rule: wholeNumber(1, 1440),
    default: 15,
    doc: "minutes between two runs of the key source refresher, and how often it fetches a client's key source (`jwksUri` / `signatureAgent`) that gives no `Cache-Control: max-age` (a max-age moves the next fetch between 1 minute and 24 hours); also the cap of the backoff after failures",
  }),
  keySourceKeepDays: setting({
    env: 'SIGNET_KEY_SOURCE_KEEP_DAYS',
    context: true,
    prop: 'keySourceKeepDays',
    lambdas: ALL_LAMBDAS,
    rule: wholeNumber(1, MAX_KEY_SOURCE_KEEP_DAYS),
    default: DEFAULT_KEY_SOURCE_KEEP_DAYS,
    doc: "how long a client's published keys keep verifying after the last successful fetch of its key source (1 to 90 days); past it the client's requests are refused with `key_expired` until a fetch succeeds, and an operator with no key that still verifies does not count for `last_admin`",
  }),
  requireSignedDirectories: setting({
    env: 'SIGNET_REQUIRE_SIGNED_DIRECTORIES',
    context: true,
    prop: 'requireSignedDirectories',
    lambdas: ['registry', 'refresher'],
    rule: flag,
    default: false,
    doc: "use only the keys of a Web Bot Auth key directory that signs its answer with them (tag `http-message-signatures-directory`); a signed directory's keys without a valid signature are ignored either way",
  }),
  signingKeyClientIds: setting({ context: true, prop: 'signingKeyClientIds', rule: list, unset: 'none', doc: 'clients whose private key Signet keeps in Secrets Manager and rotates' }),
  rotationIntervalDays: setting({
    context: true,
    prop: 'rotationInterval',
    unit: 'days',
    rule: wholeNumber(1, MAX_ROTATION_DAYS),
    default: DEFAULT_ROTATION_DAYS,
    doc: `days between scheduled key rotations (1 to ${MAX_ROTATION_DAYS}, Secrets Manager's limit)`,
  }),
  deniedAlarmThreshold: setting({ context: true, prop: 'deniedAlarmThreshold', rule: wholeNumber(1), default: 100, doc: 'how many refusals in 5 minutes count as a spike' }),
  alarmTopicArn: setting({ context: true, prop: 'alarmTopicArn', rule: text, unset: 'none: alarms only change state', doc: 'an SNS topic that receives every alarm' }),
  restStageName: setting({ context: true, prop: 'restStageName', rule: text, default: 'prod', doc: 'the REST API stage, part of every URL clients sign' }),
  clientPortal: setting({ context: true, prop: 'clientPortal', rule: flag, default: false, doc: 'serve the client portal at `<ApiUrl>portal/`' }),
  logRetention: setting({ context: true, prop: 'logRetention', rule: retentionDays, default: 30, doc: 'days every log group is kept (`infinite`: forever)' }),
  throttleRateLimit: setting({ context: true, prop: 'throttleRateLimit', rule: numberFrom(1), default: 500, doc: 'requests per second the stage accepts before answering 429' }),
  throttleBurstLimit: setting({ context: true, prop: 'throttleBurstLimit', rule: wholeNumber(1), default: 1000, doc: 'requests the stage accepts at once above the rate' }),
  authorizerReservedConcurrency: setting({
    context: true,
    prop: 'authorizerReservedConcurrency',
    rule: wholeNumber(1),
    unset: "none: the account's unreserved concurrency",
    doc: 'concurrent executions reserved for (and capping) the authorizer',
  }),
  webAclArn: setting({ context: true, prop: 'webAclArn', rule: text, unset: 'none', doc: 'REST: a regional AWS WAF web ACL to associate with the stage' }),
  restCloudWatchRole: setting({ context: true, prop: 'restCloudWatchRole', rule: flag, default: true, doc: "REST: create API Gateway's account-level CloudWatch role (`false` leaves the account's alone)" }),
  disableExecuteApiEndpoint: setting({
    context: true,
    prop: 'disableExecuteApiEndpoint',
    rule: flag,
    default: false,
    doc:
      "turn off API Gateway's own `execute-api` URL, so that the API is reached only through its custom domain: with `publicBaseUrl`, " +
      'a request signed for the public URL verifies at the `execute-api` URL too, past whatever stands in front of the domain ' +
      '(keep it on when your own CloudFront or proxy forwards to that URL)',
  }),
  authFailureRecordIntervalMs: setting({
    env: 'SIGNET_AUTH_FAILURE_RECORD_INTERVAL_MS',
    rule: wholeNumber(0),
    default: AUTH_FAILURE_RECORD_INTERVAL_MS,
    doc: 'the same refusal of one client is stored at most once per this interval, so a flood costs at most one write a second per authorizer instance; counts that arrive in between are added up in memory and written with the next one (`0`: record every refusal)',
  }),
  rotationGraceS: setting({
    env: 'SIGNET_ROTATION_GRACE_S',
    prop: 'grace',
    unit: 's',
    lambdas: ['rotation'],
    rule: wholeNumber(0),
    default: DEFAULT_ROTATION_GRACE_S,
    doc: 'how long the previous key keeps verifying after a rotation',
  }),
  rotationKeyBits: setting({
    env: 'SIGNET_ROTATION_KEY_BITS',
    prop: 'keyBits',
    lambdas: ['rotation'],
    rule: rsaKeyBits,
    default: DEFAULT_RSA_BITS,
    doc: `RSA size of rotated RSA keys, a multiple of 8 from ${MIN_RSA_BITS} to ${MAX_RSA_BITS} (a rotated Ed25519 or ECDSA key stays of its type)`,
  }),
  dynamoDbEndpoint: setting({
    env: 'SIGNET_DYNAMODB_ENDPOINT',
    rule: text,
    unset: 'none (AWS)',
    doc: 'local runs and tests only: DynamoDB Local; set before `npm start`, a DynamoDB you already run, used instead of starting one ([local gateway](local-gateway.md#on-a-dynamodb-you-already-run))',
  }),
  secretsManagerEndpoint: setting({ env: 'SIGNET_SECRETSMANAGER_ENDPOINT', rule: text, unset: 'none (AWS)', doc: 'local runs and tests only: the Secrets Manager stand-in' }),
};

type Settings = typeof SETTINGS;

/** The settings the Lambdas read: those with an environment variable. */
export type RuntimeSettingKey = { [K in keyof Settings]: Settings[K] extends { env: string } ? K : never }[keyof Settings];

/** The settings a deployment gives as `-c` context keys. */
export type ContextKey = { [K in keyof Settings]: Settings[K] extends { context: true } ? K : never }[keyof Settings];

/** The value a setting's rule produces. */
export type SettingValue<K extends keyof Settings> = Settings[K]['rule'] extends Rule<infer T> ? T : never;

/** The rows, each with its key. */
export const SETTING_ROWS: ReadonlyArray<Setting & { readonly key: keyof Settings }> = (Object.keys(SETTINGS) as (keyof Settings)[]).map((key) => ({
  key,
  ...(SETTINGS[key] as Setting),
}));

/** The environment variable names, by setting (`ENV.staleIfErrorMs` is `SIGNET_STALE_IF_ERROR_MS`). */
export const ENV = Object.freeze(Object.fromEntries(SETTING_ROWS.filter((row) => row.env !== undefined).map((row) => [row.key, row.env]))) as {
  readonly [K in RuntimeSettingKey]: Settings[K]['env'];
};

/** The `-c` context keys, in table order. */
export const CONTEXT_KEYS = SETTING_ROWS.filter((row) => row.context === true).map((row) => row.key) as readonly ContextKey[];

/** A setting's value as its environment variable holds it. */
export function formatSetting(row: Setting, value: unknown): string {
  return row.rule.format !== undefined ? row.rule.format(value as never) : String(value);
}
