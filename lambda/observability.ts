/**
 * Names under which Signet's Lambdas log and emit metrics. The handlers use them at run time and
 * the CDK constructs use them for `POWERTOOLS_SERVICE_NAME`, alarms and dashboards, so the two
 * cannot drift apart.
 */

/** CloudWatch namespace of every metric Signet emits through Powertools Metrics. */
export const METRICS_NAMESPACE = 'Signet';

/** `service` of each function: the key in every log line and the `service` metric dimension. */
export const SERVICE_NAMES = {
  authorizer: 'signet-authorizer',
  registry: 'signet-registry',
  rotation: 'signet-rotation',
  echo: 'signet-echo',
  portal: 'signet-portal',
  adminBootstrap: 'signet-admin-bootstrap',
} as const;

/** Metric names the authorizer emits (namespace `Signet`); lib/signature-authorizer.ts alarms on them. */
export const AUTHORIZER_METRIC_NAMES = { allowed: 'Allowed', denied: 'Denied', staleServed: 'StaleRecordServed' } as const;
