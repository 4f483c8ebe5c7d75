/**
 * What an authorizer instance tells CloudWatch about its decisions besides their log lines, at a
 * cost that does not grow with the allowed traffic:
 *
 * - {@link DecisionCounts}: the `Allowed`, `Denied` and `StaleRecordServed` counts, added up in
 *   memory and published as ONE EMF line (Powertools Metrics) holding every count gathered since
 *   the last. Allowed decisions publish at most once per interval (the first decision after the
 *   interval has passed publishes); a refusal or a stale answer publishes at once, with the
 *   allowed count gathered so far, so the deny alarm sees every refusal without delay.
 *   Loss bound: an instance that is retired loses the allowed decisions counted since its last
 *   publish, which all arrived within one interval (a later one would have published them).
 *   The counts are published with the time of the publish, so an allowed count may land in the
 *   minute after the decisions it counts.
 * - {@link EvenSample}: which allowed decisions get a log line of their own: the first, then one
 *   in 1/rate, evenly spaced (no randomness: the same traffic logs the same lines).
 */
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import { AUTHORIZER_METRIC_NAMES } from '../observability';

export interface DecisionCountsOptions {
  /** Where the counts go; none: only counted. */
  readonly metrics?: Metrics;
  /** The longest an allowed count waits in memory while decisions keep coming, in ms. */
  readonly intervalMs: number;
  /** Clock in ms. */
  readonly nowMs: () => number;
}

export class DecisionCounts {
  private allowed = 0;
  private denied = 0;
  private staleServed = 0;
  /** When the allowed count is next published (by the first allowed decision at or after it). */
  private publishDueMs: number;

  constructor(private readonly options: DecisionCountsOptions) {
    this.publishDueMs = options.nowMs() + options.intervalMs;
  }

  /** Counts an allowed decision; publishes when the interval since the last publish has passed. */
  countAllowed(): void {
    this.allowed += 1;
    if (this.options.nowMs() >= this.publishDueMs) this.publish();
  }

  /** Counts a refusal and publishes every count at once. */
  countDenied(): void {
    this.denied += 1;
    this.publish();
  }

  /** Counts an answer from a stale record; published with the decision it served. */
  countStaleServed(): void {
    this.staleServed += 1;
    this.publishDueMs = Number.NEGATIVE_INFINITY;
  }

  /** The counts not yet published. */
  pending(): { readonly allowed: number; readonly denied: number; readonly staleServed: number } {
    return { allowed: this.allowed, denied: this.denied, staleServed: this.staleServed };
  }

  /** Publishes the counts gathered since the last publish as one EMF line (nothing when all are 0). */
  publish(): void {
    const { metrics, intervalMs, nowMs } = this.options;
    this.publishDueMs = nowMs() + intervalMs;
    if (this.allowed === 0 && this.denied === 0 && this.staleServed === 0) return;
    if (metrics !== undefined) {
      if (this.allowed > 0) metrics.addMetric(AUTHORIZER_METRIC_NAMES.allowed, MetricUnit.Count, this.allowed);
      if (this.denied > 0) metrics.addMetric(AUTHORIZER_METRIC_NAMES.denied, MetricUnit.Count, this.denied);
      if (this.staleServed > 0) metrics.addMetric(AUTHORIZER_METRIC_NAMES.staleServed, MetricUnit.Count, this.staleServed);
      metrics.publishStoredMetrics();
    }
    this.allowed = 0;
    this.denied = 0;
    this.staleServed = 0;
  }
}

/** Picks a `rate` share of the calls to {@link take}, evenly spaced: the first, then one in 1/rate. */
export class EvenSample {
  private credit: number;

  /** @param rate from 0 (never) to 1 (always) */
  constructor(private readonly rate: number) {
    this.credit = rate > 0 ? 1 : 0;
  }

  /** True for the calls in the sample. */
  take(): boolean {
    // The epsilon absorbs the rounding of repeated additions (100 × 0.01 is 0.9999999999999999).
    const taken = this.credit >= 1 - 1e-9;
    if (taken) this.credit -= 1;
    this.credit += this.rate;
    return taken;
  }
}
