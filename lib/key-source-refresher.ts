/**
 * The key source refresher: a scheduled Lambda (lambda/handlers/refresh-key-sources.ts) that
 * fetches every published key source that is due (JWKS URIs, Web Bot Auth key directories) and
 * writes the keys into the clients' records, so the authorizer never fetches anything.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { FUNCTION_DIMENSION, KEY_SOURCE_REFRESH_METRIC_NAMES, METRICS_NAMESPACE, SERVICE_NAMES } from '../lambda/observability';
import { SETTINGS } from '../lambda/settings';
import { IClientRegistry } from './client-registry';
import type { SignatureAuthorizerProps } from './signature-authorizer';
import { settingPropProblem, settingsEnvironment } from './setting-props';
import { SignetFunction, type SignetFunctionProps } from './signet-function';

/** `POWERTOOLS_SERVICE_NAME` of the refresher, and the `service` dimension of its metrics. */
export const KEY_SOURCE_REFRESHER_SERVICE_NAME = SERVICE_NAMES.keySourceRefresher;

/**
 * Metrics the refresher emits once per run, 0 included (namespace {@link METRICS_NAMESPACE},
 * dimensions `service` and `function`, the function's name): `KeySourcesRefreshed`, `KeySourcesFailed`, `KeySourcesFailingOverAnHour`
 * (every source failing for over an hour, fetched in that run or not) and `KeySourcesDeferred`
 * (sources due that the run left for the next, out of time).
 */
export const KEY_SOURCE_REFRESH_METRICS = KEY_SOURCE_REFRESH_METRIC_NAMES;

/** Longest run of the refresher (each fetch has its own 5 s deadline); never longer than the interval. */
export const KEY_SOURCE_REFRESHER_TIMEOUT_S = 300;

/** The longest period a CloudWatch alarm may evaluate, in minutes (one day). */
const MAX_ALARM_PERIOD_MIN = 24 * 60;

/**
 * The refresher's schedule and directory rule. The registry API takes the same two (RegistryApiProps):
 * give both constructs the same values.
 */
export interface KeySourceSettings {
  /**
   * Minutes between two runs of the refresher (1 to 1440). Each run fetches the sources that are
   * due: a source's `Cache-Control: max-age` (1 minute to 24 hours) and its failure backoff set
   * when that is. The registry schedules a newly registered source by it too.
   * @default - SETTINGS.keySourceRefreshMinutes.default (15)
   */
  readonly keySourceRefreshMinutes?: number;
  /**
   * Use only the keys of a Web Bot Auth key directory that the directory response itself signs
   * (registration and refresher alike).
   * @default false
   */
  readonly requireSignedDirectories?: boolean;
}

/** `keySourceKeepDays`: give the authorizer's value (SignatureAuthorizer.keySourceKeepDays). */
export interface KeySourceRefresherProps extends KeySourceSettings, Pick<SignatureAuthorizerProps, 'keySourceKeepDays'>, Pick<SignetFunctionProps, 'logRetention'> {
  /** The client table whose key sources are refreshed. */
  readonly registry: IClientRegistry;
  /** @default 256 */
  readonly memorySizeMb?: number;
}

/**
 * The refresher function, an EventBridge rule that runs it every `keySourceRefreshMinutes`, and
 * the metric its alarm watches ({@link metricForAlarm}; SignetMonitoring makes the alarm).
 *
 * Least privilege: in the table, items of the partitions it reads and writes only (client
 * records and their audit entries, key ownership, thumbprint index and key source status items)
 * and a Query of the due-sources list; no Scan, no Secrets Manager. It runs outside any VPC: it
 * needs outbound HTTPS to the publishers (docs/deploy.md says so).
 *
 * @example
 * const refresher = new KeySourceRefresher(this, 'KeySourceRefresher', { registry, keySourceRefreshMinutes: 5 });
 */
export class KeySourceRefresher extends Construct {
  /** The refresher function. */
  readonly handler: lambda.IFunction;
  /** Its log group. */
  readonly logGroup: logs.ILogGroup;
  /** The rule that runs it. */
  readonly schedule: events.Rule;
  /** Minutes between two runs. */
  readonly refreshMinutes: number;

  constructor(scope: Construct, id: string, props: KeySourceRefresherProps) {
    super(scope, id);
    const problems = [
      settingPropProblem('keySourceRefreshMinutes', props.keySourceRefreshMinutes),
      settingPropProblem('keySourceKeepDays', props.keySourceKeepDays),
    ].filter((p): p is string => p !== undefined);
    if (problems.length > 0) throw new Error(`${this.node.path}: invalid KeySourceRefresher props: ${problems.join('; ')}.`);
    this.refreshMinutes = props.keySourceRefreshMinutes ?? SETTINGS.keySourceRefreshMinutes.default;

    const fn = new SignetFunction(this, 'Function', {
      entry: 'keySourceRefresher',
      serviceName: KEY_SOURCE_REFRESHER_SERVICE_NAME,
      description: `Signet: refreshes published key sources (JWKS URIs, Web Bot Auth directories) every ${this.refreshMinutes} min`,
      memorySizeMb: props.memorySizeMb ?? 256,
      // A run that outlives the interval would overlap the next one.
      timeout: Duration.seconds(Math.min(KEY_SOURCE_REFRESHER_TIMEOUT_S, this.refreshMinutes * 60)),
      logRetention: props.logRetention,
      environment: settingsEnvironment('refresher', {
        tableName: props.registry.table.tableName,
        keySourceRefreshMinutes: this.refreshMinutes,
        keySourceKeepDays: props.keySourceKeepDays,
        requireSignedDirectories: props.requireSignedDirectories,
      }),
    });
    this.handler = fn.function;
    this.logGroup = fn.logGroup;
    props.registry.grantRefreshKeySources(fn.role);

    // A failed run is not retried by Lambda: the next scheduled run is the retry, and each source's
    // own backoff decides when it is fetched again. A run still queued when the next is due is dropped.
    fn.function.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.seconds(Math.min(6 * 3600, Math.max(60, this.refreshMinutes * 60))) });
    this.schedule = new events.Rule(this, 'Schedule', {
      description: `Signet: runs the key source refresher every ${this.refreshMinutes} min`,
      schedule: events.Schedule.rate(Duration.minutes(this.refreshMinutes)),
      targets: [new targets.LambdaFunction(fn.function, { retryAttempts: 2 })],
    });
  }

  /** `KeySourcesFailingOverAnHour`: sources whose fetch has failed for more than an hour (Maximum per period, one interval by default). */
  metricFailingOverAnHour(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric(KEY_SOURCE_REFRESH_METRICS.failingOverAnHour, { statistic: cloudwatch.Stats.MAXIMUM, ...props });
  }

  /** `KeySourcesRefreshed`: sources fetched successfully (Sum per period). */
  metricRefreshed(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric(KEY_SOURCE_REFRESH_METRICS.refreshed, { statistic: cloudwatch.Stats.SUM, ...props });
  }

  /** `KeySourcesFailed`: fetches that failed (Sum per period). */
  metricFailed(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric(KEY_SOURCE_REFRESH_METRICS.failed, { statistic: cloudwatch.Stats.SUM, ...props });
  }

  /**
   * `KeySourcesDeferred`: sources due that a run left for the next because its time ran out
   * (Maximum per period). Above 0 run after run: more sources than one run can fetch in its
   * timeout (a shorter interval does not help; fewer, faster sources or a longer interval do).
   */
  metricDeferred(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric(KEY_SOURCE_REFRESH_METRICS.deferred, { statistic: cloudwatch.Stats.MAXIMUM, ...props });
  }

  /**
   * What the `KeySourcesFailing` alarm watches: the most sources failing for over an hour that any
   * run reported in {@link alarmPeriod}. The refresher reports it after every run that completed,
   * 0 included, so a period without a datapoint means no run completed (not scheduled, erroring,
   * timing out): the alarm treats missing data as breaching.
   */
  metricForAlarm(): cloudwatch.Metric {
    return this.metricFailingOverAnHour({ period: this.alarmPeriod });
  }

  /**
   * The alarm's period: two intervals, so it always holds a run of a live refresher (runs start
   * on a schedule, not on the period's boundaries; every run counts every failing source, due or
   * not); at most one day, what an alarm may look at.
   */
  get alarmPeriod(): Duration {
    return Duration.minutes(Math.min(2 * this.refreshMinutes, MAX_ALARM_PERIOD_MIN));
  }

  private metric(metricName: string, props: cloudwatch.MetricOptions): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensionsMap: { service: KEY_SOURCE_REFRESHER_SERVICE_NAME, [FUNCTION_DIMENSION]: this.handler.functionName },
      period: Duration.minutes(this.refreshMinutes),
      ...props,
    });
  }
}
