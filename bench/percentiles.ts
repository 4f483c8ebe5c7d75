/**
 * Latency summaries for the benchmarks: nearest-rank percentiles over raw samples (no histogram
 * buckets, so a p99 is a real observed value).
 */

/** p50 / p90 / p99 / max of a set of samples, in the samples' unit. */
export interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** Nearest-rank percentile (`p` in 0..100) of samples sorted ascending. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Summarises samples (any order). */
export function summarize(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.length === 0 ? Number.NaN : sum / sorted.length,
  };
}

/** `p50 0.123 ms, p99 0.456 ms` with `digits` decimals. */
export function formatSummary(s: LatencySummary, unit = 'ms', digits = 3): string {
  return `p50 ${s.p50.toFixed(digits)} ${unit}, p90 ${s.p90.toFixed(digits)} ${unit}, p99 ${s.p99.toFixed(digits)} ${unit}, max ${s.max.toFixed(digits)} ${unit} (n=${s.count})`;
}

/** The median of a few values (e.g. repeated cold starts). */
export function median(values: readonly number[]): number {
  return percentile([...values].sort((a, b) => a - b), 50);
}
