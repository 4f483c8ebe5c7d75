/**
 * `createRefreshKeySourcesHandler(config, dependencies)`: the scheduled key source refresher built
 * from a checked configuration, like `createRegistry` and `createRotationFunction`. EventBridge
 * invokes it every `keySourceRefreshMinutes`; each run refreshes the sources that are due
 * (./key-source-refresher.ts), counts `KeySourcesRefreshed`, `KeySourcesFailed`,
 * `KeySourcesFailingOverAnHour` and `KeySourcesDeferred` (every run, 0 included, so silence means
 * the refresher is not running) and logs one summary line: counts only, never a key or a URL's
 * answer. A run has a time budget: the Lambda context's remaining time less
 * {@link RUN_MARGIN_MS}; the sources it could not reach in time stay due (`deferred`) and go first
 * next run, and the run still reports. A run that
 * fails as a whole (DynamoDB unreachable) is logged and rethrown, so the function's `Errors`
 * metric counts it; a source that fails is not a failed run.
 *
 * The Lambda entry (lambda/handlers/refresh-key-sources.ts) calls it with `loadConfig()` and
 * Powertools; tests call it with their own configuration, DynamoDB client, fetcher and clock.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SignetConfig } from '../config';
import type { KeySource } from '../core/key-source-url';
import { KEY_SOURCE_REFRESH_METRIC_NAMES } from '../observability';
import { createDocumentClient } from '../store/dynamodb-client';
import { DynamoKeySourceStore } from '../store/key-source-store';
import { type KeySourceFetch, fetchKeySource } from './fetch-key-source';
import { type RefreshRunSummary, createKeySourceRefresher } from './key-source-refresher';
import { ModulusVerdicts } from '../core/rsa-modulus';

/** What the handler needs from Powertools Logger. */
export interface RefreshLogger {
  info(message: string, ...attributes: Record<string, unknown>[]): void;
  error(message: string, ...attributes: Record<string, unknown>[]): void;
}

/** What the handler needs from Powertools Metrics (it counts; the Lambda entry publishes: lambda/handlers/entry.ts). */
export interface RefreshMetrics {
  addMetric(name: string, unit: 'Count', value: number): unknown;
}

export interface RefreshKeySourcesDependencies {
  readonly logger: RefreshLogger;
  /** Where the three counts go (the caller publishes them); none: not counted. */
  readonly metrics?: RefreshMetrics;
  /** @default one for `config.dynamoDbEndpoint` */
  readonly doc?: DynamoDBDocumentClient;
  /** @default fetchKeySource with its production options (https only, public addresses, system resolver) */
  readonly fetch?: (source: KeySource) => Promise<KeySourceFetch>;
  /** @default Date.now */
  readonly nowMs?: () => number;
}

/** What the handler reads of the Lambda context: the time left before the function's timeout. */
export interface RefreshContext {
  getRemainingTimeInMillis(): number;
}

/** Time kept at the end of a run for counting, metrics and the log line (the refresher starts no fetches in it). */
export const RUN_MARGIN_MS = 10_000;

/** One scheduled run: the EventBridge event is not read; the context (if any) sets the run's deadline. */
export type RefreshKeySourcesHandler = (event?: unknown, context?: RefreshContext) => Promise<RefreshRunSummary>;

export function createRefreshKeySourcesHandler(config: SignetConfig, dependencies: RefreshKeySourcesDependencies): RefreshKeySourcesHandler {
  const { logger, metrics } = dependencies;
  const nowMs = dependencies.nowMs ?? Date.now;
  const doc = dependencies.doc ?? createDocumentClient({ endpoint: config.dynamoDbEndpoint });
  // The verdicts on published RSA moduli, kept for as long as the function's environment lives.
  const modulusVerdicts = new ModulusVerdicts();
  const fetch = dependencies.fetch ?? ((source: KeySource, heldThumbprints?: ReadonlySet<string>) => fetchKeySource(source, { nowS: () => Math.floor(nowMs() / 1000), modulusVerdicts, heldThumbprints }));
  const refresher = createKeySourceRefresher({
    store: new DynamoKeySourceStore({ tableName: config.tableName, client: doc, keySourceKeepDays: config.keySourceKeepDays }),
    fetch,
    nowMs,
    refreshIntervalS: config.keySourceRefreshMinutes * 60,
    requireSignedDirectories: config.requireSignedDirectories,
  });

  return async (_event, context) => {
    const startedMs = nowMs();
    const deadlineMs = context === undefined ? undefined : startedMs + context.getRemainingTimeInMillis() - RUN_MARGIN_MS;
    let summary: RefreshRunSummary;
    try {
      summary = await refresher.refreshDue(deadlineMs === undefined ? {} : { deadlineMs });
    } catch (error) {
      logger.error('key source refresh run failed; every client keeps the keys it had, and the next run tries again', { reason: reasonOf(error) });
      throw error;
    }
    metrics?.addMetric(KEY_SOURCE_REFRESH_METRIC_NAMES.refreshed, 'Count', summary.refreshed + summary.unchanged);
    metrics?.addMetric(KEY_SOURCE_REFRESH_METRIC_NAMES.failed, 'Count', summary.failed);
    metrics?.addMetric(KEY_SOURCE_REFRESH_METRIC_NAMES.failingOverAnHour, 'Count', summary.failingOverAnHour);
    metrics?.addMetric(KEY_SOURCE_REFRESH_METRIC_NAMES.deferred, 'Count', summary.deferred);
    logger.info(
      `key sources refreshed: ${summary.checked} due, ${summary.refreshed} changed, ${summary.unchanged} unchanged, ${summary.failed} failed, ${summary.failingOverAnHour} failing for over an hour, ${summary.deferred} deferred to the next run`,
      { ...summary, durationMs: nowMs() - startedMs },
    );
    return summary;
  };
}

/** A failure as a log field: its name and message, bounded (never a stack with request data). */
function reasonOf(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.slice(0, 300);
}
