import { ACCOUNT_ADMIN_ROLE, REGISTRY_ADMIN_ROLE } from './core/defaults';

/** Re-exported for the modules that took it from here. */
export { ACCOUNT_ADMIN_ROLE };

/**
 * Names of the environment variables Signet's Lambdas read. The CDK constructs that set them and
 * `lambda/config.ts` that reads them both import these constants, so the two cannot drift apart.
 */
export const ENV = {
  tableName: 'SIGNET_TABLE_NAME',
  roleCatalogue: 'SIGNET_ROLE_CATALOGUE',
  publicBaseUrl: 'SIGNET_PUBLIC_BASE_URL',
  maxAgeS: 'SIGNET_MAX_AGE_S',
  maxSkewS: 'SIGNET_MAX_SKEW_S',
  maxCoveredComponents: 'SIGNET_MAX_COVERED_COMPONENTS',
  allowLegacy: 'SIGNET_ALLOW_LEGACY',
  profile: 'SIGNET_PROFILE',
  replayProtection: 'SIGNET_REPLAY_PROTECTION',
  recordAuthFailures: 'SIGNET_RECORD_AUTH_FAILURES',
  authFailureRecordIntervalMs: 'SIGNET_AUTH_FAILURE_RECORD_INTERVAL_MS',
  lastUsedRecordIntervalMs: 'SIGNET_LAST_USED_RECORD_INTERVAL_MS',
  clientCacheTtlMs: 'SIGNET_CLIENT_CACHE_TTL_MS',
  staleIfErrorMs: 'SIGNET_STALE_IF_ERROR_MS',
  rotationGraceS: 'SIGNET_ROTATION_GRACE_S',
  rotationKeyBits: 'SIGNET_ROTATION_KEY_BITS',
  /** Only for local runs and tests: DynamoDB Local's endpoint. */
  dynamoDbEndpoint: 'SIGNET_DYNAMODB_ENDPOINT',
  /** Only for local runs and tests: the Secrets Manager stand-in's endpoint. */
  secretsManagerEndpoint: 'SIGNET_SECRETSMANAGER_ENDPOINT',
} as const;

/**
 * The role catalogue used when none is configured: the registry's operators (`registry:admin`,
 * every registry route) and account admins (`account:admin`: the client routes, their own account
 * and the roles they may give; the registry scopes every answer to their account).
 */
export const DEFAULT_ROLE_CATALOGUE: Readonly<Record<string, readonly string[]>> = Object.freeze({
  [REGISTRY_ADMIN_ROLE]: ['* /registry/**'],
  [ACCOUNT_ADMIN_ROLE]: ['* /registry/clients', '* /registry/clients/**', 'GET /registry/accounts/*', 'GET /registry/accounts/*/audit', 'GET /registry/roles'],
});
