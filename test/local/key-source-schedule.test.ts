/**
 * The local gateway's key source schedule: the refresher runs soon after start and then every
 * interval on timers that never keep the process alive; runs never overlap; a run that changed
 * keys makes the authorizer forget its cached records; a failing or throwing run is said in one
 * line and never stops the schedule; stop clears the timers and waits for a run under way.
 * The timers are handed in (no real waiting).
 */
import { type RefreshRunCounts, type Timers, scheduleKeySourceRefresh, summaryLine } from '../../local/key-source-schedule';

interface FakeTimer {
  readonly kind: 'timeout' | 'interval';
  readonly ms: number;
  readonly fire: () => void;
  unrefed: boolean;
  cleared: boolean;
}

function fakeTimers(): Timers & { list: FakeTimer[] } {
  const list: FakeTimer[] = [];
  const make = (kind: FakeTimer['kind']) => (fire: () => void, ms: number) => {
    const timer: FakeTimer = { kind, ms, fire, unrefed: false, cleared: false };
    list.push(timer);
    return { unref: () => (timer.unrefed = true), timer };
  };
  const clear = (handle: unknown) => void ((handle as { timer: FakeTimer }).timer.cleared = true);
  return { list, setTimeout: make('timeout'), setInterval: make('interval'), clearTimeout: clear, clearInterval: clear };
}

const NOTHING: RefreshRunCounts = { checked: 2, refreshed: 2, failed: 0, keysAdded: 0, keysRemoved: 0 };

function setup(refreshDue: () => Promise<RefreshRunCounts>) {
  const timers = fakeTimers();
  const lines: string[] = [];
  let forgets = 0;
  const schedule = scheduleKeySourceRefresh({ refreshDue, intervalMs: 900_000, firstRunMs: 2_000, onKeysChanged: () => forgets++, log: (l) => lines.push(l), timers });
  return { schedule, timers, lines, forgets: () => forgets };
}

test('a first run soon after start, then one every interval, on timers that do not keep the process alive', async () => {
  let runs = 0;
  const { schedule, timers } = setup(async () => (runs++, NOTHING));
  expect(timers.list.map((t) => [t.kind, t.ms, t.unrefed])).toEqual([
    ['timeout', 2_000, true],
    ['interval', 900_000, true],
  ]);
  timers.list[0].fire();
  await schedule.runNow(); // the run the timer started, not a second one
  expect(runs).toBe(1);
  timers.list[1].fire();
  await schedule.runNow();
  expect(runs).toBe(2);
  await schedule.stop();
});

test('a run that added or removed keys makes the authorizer forget its cached clients and says so; an unchanged run is silent', async () => {
  const results: RefreshRunCounts[] = [NOTHING, { checked: 1, refreshed: 1, failed: 0, keysAdded: 1, keysRemoved: 1 }];
  const { schedule, lines, forgets } = setup(async () => results.shift()!);
  await schedule.runNow();
  expect([forgets(), lines]).toEqual([0, []]);
  await schedule.runNow();
  expect(forgets()).toBe(1);
  expect(lines).toEqual(['key sources: 1 checked, 1 refreshed (1 key added, 1 removed)']);
  await schedule.stop();
});

test('a failed source is said with where to read why; a run that throws is said and the schedule goes on', async () => {
  const results: Array<RefreshRunCounts | Error> = [{ checked: 3, refreshed: 2, failed: 1, keysAdded: 0, keysRemoved: 0 }, new Error('DynamoDB Local is gone'), NOTHING];
  let runs = 0;
  const { schedule, lines } = setup(async () => {
    runs++;
    const next = results.shift()!;
    if (next instanceof Error) throw next;
    return next;
  });
  await schedule.runNow();
  await expect(schedule.runNow()).resolves.toBeUndefined();
  await schedule.runNow();
  expect(runs).toBe(3);
  expect(lines).toEqual([
    'key sources: 3 checked, 2 refreshed, 1 failed: their keys are kept; `signet clients show CLIENT_ID` says why',
    'key sources: the refresh could not run (DynamoDB Local is gone); it is tried again in 900 s.',
  ]);
  await schedule.stop();
});

test('runs never overlap, and stop clears the timers, waits for the run under way and runs nothing after', async () => {
  let release: (counts: RefreshRunCounts) => void = () => undefined;
  let runs = 0;
  const { schedule, timers } = setup(() => {
    runs++;
    return new Promise<RefreshRunCounts>((resolve) => (release = resolve));
  });
  const first = schedule.runNow();
  timers.list[1].fire();
  expect(schedule.runNow()).toBe(first);
  expect(runs).toBe(1);
  let stopped = false;
  const stopping = schedule.stop().then(() => (stopped = true));
  await Promise.resolve();
  expect(stopped).toBe(false);
  release(NOTHING);
  await stopping;
  expect(timers.list.every((t) => t.cleared)).toBe(true);
  await schedule.runNow();
  timers.list[1].fire();
  expect(runs).toBe(1);
});

test('the summary counts keys in words', () => {
  expect(summaryLine({ checked: 1, refreshed: 1, failed: 0, keysAdded: 2, keysRemoved: 0 })).toBe('key sources: 1 checked, 1 refreshed (2 keys added, 0 removed)');
});
