/**
 * Names under which Signet's Lambdas log and emit metrics. The handlers use them at run time and
 * the CDK constructs use them for `POWERTOOLS_SERVICE_NAME`, alarms and dashboards, so the two
 * cannot drift apart.
 */

/** CloudWatch namespace of every metric Signet emits through Powertools Metrics. */
export const METRICS_NAMESPACE = 'Signet';

/**
 * The metric dimension naming the function that emitted (its Lambda name, unique in the account and
 * region): beside `service`, it keeps two deployments in one account apart, so that one stack's
 * refusals or its live refresher never count in another's alarms. Absent outside Lambda.
 */
export const FUNCTION_DIMENSION = 'function';

/** `service` of each function: the key in every log line and the `service` metric dimension. */
export const SERVICE_NAMES = {
  authorizer: 'signet-authorizer',
  registry: 'signet-registry',
  rotation: 'signet-rotation',
  echo: 'signet-echo',
  portal: 'signet-portal',
  adminBootstrap: 'signet-admin-bootstrap',
  keySourceRefresher: 'signet-key-source-refresher',
} as const;

/** Metric names the authorizer emits (namespace `Signet`); lib/signature-authorizer.ts alarms on them. */
export const AUTHORIZER_METRIC_NAMES = { allowed: 'Allowed', denied: 'Denied', staleServed: 'StaleRecordServed' } as const;

/**
 * Metric names the key source refresher emits once per run, 0 included (namespace `Signet`, unit
 * Count): sources fetched successfully, sources whose fetch failed, and sources failing for more
 * than an hour, which lib/key-source-refresher.ts alarms on.
 */
export const KEY_SOURCE_REFRESH_METRIC_NAMES = {
  refreshed: 'KeySourcesRefreshed',
  failed: 'KeySourcesFailed',
  failingOverAnHour: 'KeySourcesFailingOverAnHour',
  deferred: 'KeySourcesDeferred',
} as const;

/**
 * The share of allowed requests the authorizer logs with a line of their own (setting
 * `SIGNET_ALLOWED_LOG_SAMPLE`): one in a hundred, so an allowed request costs under 100 bytes of
 * log ingestion on average; refusals are always logged. @default 0.01
 */
export const ALLOWED_LOG_SAMPLE = 0.01;

/**
 * How often an authorizer instance hands its `Allowed` count to its metrics (every count gathered
 * since the last; the entry publishes them as one EMF line after that invocation), in ms:
 * CloudWatch's standard resolution, so nothing finer is lost. A refusal or a stale answer hands
 * them over at once. @default 60_000
 */
export const AUTHORIZER_METRICS_INTERVAL_MS = 60_000;
