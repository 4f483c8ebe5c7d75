/**
 * The authorizer's sampled allowed lines and batched decision metrics, alone (no DynamoDB): which
 * calls the even sample takes, when the counts are added to the metrics and when the entry's flush
 * writes them as an EMF line, on a clock the test moves.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { DecisionCounts, EvenSample } from '../../lambda/authorizer/decision-counts';
import { flushingMetrics } from '../../lambda/handlers/entry';
import { METRICS_NAMESPACE, SERVICE_NAMES } from '../../lambda/observability';
import { captureOutput } from './support';

const taken = (rate: number, calls: number): number[] => {
  const sample = new EvenSample(rate);
  return Array.from({ length: calls }, (_, i) => i + 1).filter(() => sample.take());
};

test('the even sample takes the first call, then one in 1/rate; 0 takes none and 1 takes all', () => {
  expect(taken(0.01, 1000)).toEqual([1, 101, 201, 301, 401, 501, 601, 701, 801, 901]);
  expect(taken(0.25, 10)).toEqual([1, 5, 9]);
  expect(taken(0.3, 100)).toHaveLength(30);
  expect(taken(0, 1000)).toEqual([]);
  expect(taken(1, 5)).toEqual([1, 2, 3, 4, 5]);
});

describe('decision counts', () => {
  /**
   * Counts on a clock the test moves, and `invoke`: one invocation as the Lambda entry runs it
   * (lambda/handlers/entry.ts): the decision is counted, then the entry publishes what was added.
   */
  const build = () => {
    const clock = { ms: 1_000_000 };
    const logger = new Logger({ serviceName: SERVICE_NAMES.authorizer, logLevel: 'INFO' });
    const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAMES.authorizer, logger });
    const counts = new DecisionCounts({ metrics, intervalMs: 60_000, nowMs: () => clock.ms });
    const invoke = flushingMetrics(metrics, async (decide: (counts: DecisionCounts) => void) => decide(counts));
    return { clock, counts, metrics, invoke };
  };
  const published = async (run: () => Promise<unknown>) => (await captureOutput(run)).lines.map((line) => JSON.parse(line) as Record<string, unknown>);

  test('the counts never publish themselves: a refusal adds them to the metrics and the entry writes them after the invocation', async () => {
    const { counts, metrics, invoke } = build();
    expect(await published(async () => counts.countDenied())).toEqual([]);
    expect(metrics.hasStoredMetrics()).toBe(true);
    expect(counts.pending()).toEqual({ allowed: 0, denied: 0, staleServed: 0 });
    expect(await published(() => invoke(() => undefined))).toEqual([expect.objectContaining({ Denied: 1, service: SERVICE_NAMES.authorizer })]);
    expect(metrics.hasStoredMetrics()).toBe(false);
  });

  test('a stale answer is published with the decision it served, not an interval later', async () => {
    const { counts, invoke } = build();
    const lines = await published(async () => {
      await invoke((c) => c.countAllowed());
      await invoke((c) => {
        c.countStaleServed();
        c.countAllowed();
      });
    });
    expect(lines).toEqual([expect.objectContaining({ Allowed: 2, StaleRecordServed: 1 })]);
    expect(counts.pending()).toEqual({ allowed: 0, denied: 0, staleServed: 0 });
  });

  test('nothing to add writes nothing (no empty-metrics warning); allowed counts wait one interval, the loss bound of a retired instance', async () => {
    const { counts, clock, invoke } = build();
    expect(await published(() => invoke((c) => c.addToMetrics()))).toEqual([]);
    const lines = await published(async () => {
      for (let i = 0; i < 1000; i++) await invoke((c) => c.countAllowed());
      clock.ms += 59_999;
      await invoke((c) => c.countAllowed());
    });
    expect(lines).toEqual([]);
    expect(counts.pending().allowed).toBe(1001); // what a retired instance would lose: under one interval's worth
    clock.ms += 1;
    expect(await published(() => invoke((c) => c.countAllowed()))).toEqual([expect.objectContaining({ Allowed: 1002, service: SERVICE_NAMES.authorizer })]);
  });

  test('counts added by an invocation that throws are still published when it ends', async () => {
    const { counts, invoke } = build();
    const lines = await published(async () => {
      await invoke((c) => c.countAllowed());
      await expect(invoke((c) => {
        c.countDenied();
        throw new Error('registry unreachable');
      })).rejects.toThrow('registry unreachable');
    });
    expect(lines).toEqual([expect.objectContaining({ Allowed: 1, Denied: 1 })]);
    expect(counts.pending()).toEqual({ allowed: 0, denied: 0, staleServed: 0 });
  });

  test('without a Metrics sink the counts are kept and cleared, never written', async () => {
    const counts = new DecisionCounts({ intervalMs: 60_000, nowMs: () => 0 });
    expect(await published(async () => { counts.countAllowed(); counts.countDenied(); })).toEqual([]);
    expect(counts.pending()).toEqual({ allowed: 0, denied: 0, staleServed: 0 });
  });
});
