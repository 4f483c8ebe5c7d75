/**
 * What an authorizer instance tells CloudWatch about its decisions besides their log lines, at a
 * cost that does not grow with the allowed traffic:
 *
 * - {@link DecisionCounts}: the `Allowed`, `Denied` and `StaleRecordServed` counts, added up in
 *   memory and added to the function's Powertools Metrics all together, as the counts gathered
 *   since the last addition. Allowed decisions are added at most once per interval (the first
 *   decision after the interval has passed adds them); a refusal or a stale answer adds them at
 *   once, with the allowed count gathered so far, so the deny alarm sees every refusal without
 *   delay. The counts never publish: the Lambda entry does (`flushingMetrics`,
 *   lambda/handlers/entry.ts), after the invocation that added them, as ONE EMF line; an
 *   invocation that added nothing writes nothing. A warm allowed request thus adds nothing and
 *   writes nothing most of the time.
 *   Loss bound: what was added is published when its invocation ends (returned or thrown). An
 *   instance that is retired loses only the allowed decisions counted since the last addition,
 *   which all arrived within one interval (a later one would have added them).
 *   The counts are published with the time of the invocation that added them, so an allowed
 *   count may land in the minute after the decisions it counts.
 * - {@link EvenSample}: which allowed decisions get a log line of their own: the first, then one
 *   in 1/rate, evenly spaced (no randomness: the same traffic logs the same lines).
 */
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import { AUTHORIZER_METRIC_NAMES } from '../observability';

export interface DecisionCountsOptions {
  /** Where the counts are added (the entry publishes them); none: only counted. */
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
  /** When the allowed count is next added (by the first allowed decision at or after it). */
  private addDueMs: number;

  constructor(private readonly options: DecisionCountsOptions) {
    this.addDueMs = options.nowMs() + options.intervalMs;
  }

  /** Counts an allowed decision; adds the counts to the metrics when the interval since the last addition has passed. */
  countAllowed(): void {
    this.allowed += 1;
    if (this.options.nowMs() >= this.addDueMs) this.addToMetrics();
  }

  /** Counts a refusal and adds every count to the metrics at once. */
  countDenied(): void {
    this.denied += 1;
    this.addToMetrics();
  }

  /** Counts an answer from a stale record; added with the decision it served. */
  countStaleServed(): void {
    this.staleServed += 1;
    this.addDueMs = Number.NEGATIVE_INFINITY;
  }

  /** The counts not yet added to the metrics: what a retired instance would lose. */
  pending(): { readonly allowed: number; readonly denied: number; readonly staleServed: number } {
    return { allowed: this.allowed, denied: this.denied, staleServed: this.staleServed };
  }

  /**
   * Adds the counts gathered since the last addition to the metrics (nothing when all are 0) and
   * starts the interval again. Publishing them is the entry's job, after the invocation.
   */
  addToMetrics(): void {
    const { metrics, intervalMs, nowMs } = this.options;
    this.addDueMs = nowMs() + intervalMs;
    if (this.allowed === 0 && this.denied === 0 && this.staleServed === 0) return;
    if (metrics !== undefined) {
      if (this.allowed > 0) metrics.addMetric(AUTHORIZER_METRIC_NAMES.allowed, MetricUnit.Count, this.allowed);
      if (this.denied > 0) metrics.addMetric(AUTHORIZER_METRIC_NAMES.denied, MetricUnit.Count, this.denied);
      if (this.staleServed > 0) metrics.addMetric(AUTHORIZER_METRIC_NAMES.staleServed, MetricUnit.Count, this.staleServed);
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
