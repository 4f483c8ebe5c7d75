/**
 * The local gateway's stand-in for the deployed refresher's schedule: the same refresher
 * (lambda/key-sources/key-source-refresher.ts `refreshDue`) run in this process, soon after start
 * and then every interval. Its timers never keep the process alive (`unref`), a run never
 * overlaps the previous one, and `stop` clears them and waits for a run under way.
 *
 * The refresher writes the table itself, not through the registry handler, so after a run that
 * changed keys the authorizer is told to forget the records it holds (`onKeysChanged`): a key
 * added or removed at the source applies to the next request, as a registry write does.
 *
 * @example
 * const schedule = scheduleKeySourceRefresh({ refreshDue: () => refresher.refreshDue(), intervalMs: 15 * 60_000, onKeysChanged: forget, log: console.log });
 * await schedule.stop();
 */

/** What a run reports (the refresher's `RefreshRunSummary`, the fields read here). */
export interface RefreshRunCounts {
  readonly checked: number;
  readonly refreshed: number;
  readonly failed: number;
  readonly keysAdded: number;
  readonly keysRemoved: number;
}

/** A timer handle that can be unref'd, as Node's are. */
interface TimerHandle {
  unref(): unknown;
}

/** The timer functions the schedule uses (Node's by default; tests hand in their own). */
export interface Timers {
  setTimeout(callback: () => void, ms: number): TimerHandle;
  setInterval(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  clearInterval(handle: TimerHandle): void;
}

export interface KeySourceScheduleOptions {
  /** One run over the sources due now. */
  readonly refreshDue: () => Promise<RefreshRunCounts>;
  /** Between two runs, in ms (the deployed schedule's SIGNET_KEY_SOURCE_REFRESH_MINUTES). */
  readonly intervalMs: number;
  /** Before the first run, in ms: soon after start, once the gateway serves. @default FIRST_REFRESH_DELAY_MS */
  readonly firstRunMs?: number;
  /** Told after a run that added or removed keys. */
  readonly onKeysChanged: () => void;
  /** One line for a run that changed or failed something, or that could not run. */
  readonly log: (line: string) => void;
  /** @default Node's timers */
  readonly timers?: Timers;
}

/** How long after start the first run waits, in ms. */
export const FIRST_REFRESH_DELAY_MS = 2_000;

const NODE_TIMERS: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  setInterval: (callback, ms) => setInterval(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
};

/** A running schedule. */
export interface KeySourceSchedule {
  /** Runs once now (unless a run is under way: then waits for that one). */
  runNow(): Promise<void>;
  /** Clears the timers and waits for a run under way. Safe to call more than once. */
  stop(): Promise<void>;
}

export function scheduleKeySourceRefresh(options: KeySourceScheduleOptions): KeySourceSchedule {
  const timers = options.timers ?? NODE_TIMERS;
  let running: Promise<void> | undefined;
  let stopped = false;

  const runNow = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    running ??= run().finally(() => (running = undefined));
    return running;
  };

  async function run(): Promise<void> {
    let counts: RefreshRunCounts;
    try {
      counts = await options.refreshDue();
    } catch (error) {
      options.log(`key sources: the refresh could not run (${error instanceof Error ? error.message : String(error)}); it is tried again in ${Math.round(options.intervalMs / 1000)} s.`);
      return;
    }
    if (counts.keysAdded > 0 || counts.keysRemoved > 0) options.onKeysChanged();
    if (counts.keysAdded > 0 || counts.keysRemoved > 0 || counts.failed > 0) options.log(summaryLine(counts));
  }

  const first = timers.setTimeout(() => {
    void runNow();
  }, options.firstRunMs ?? FIRST_REFRESH_DELAY_MS);
  const every = timers.setInterval(() => {
    void runNow();
  }, options.intervalMs);
  first.unref();
  every.unref();

  return {
    runNow,
    stop: async () => {
      stopped = true;
      timers.clearTimeout(first);
      timers.clearInterval(every);
      await running;
    },
  };
}

/** `key sources: 2 checked, 1 refreshed (1 key added, 1 removed), 1 failed (see signet clients show)`. */
export function summaryLine(counts: RefreshRunCounts): string {
  const keys = (n: number, word: string) => `${n} ${n === 1 ? 'key' : 'keys'} ${word}`;
  const changed = counts.keysAdded > 0 || counts.keysRemoved > 0 ? ` (${keys(counts.keysAdded, 'added')}, ${counts.keysRemoved} removed)` : '';
  const failed = counts.failed > 0 ? `, ${counts.failed} failed: their keys are kept; \`signet clients show CLIENT_ID\` says why` : '';
  return `key sources: ${counts.checked} checked, ${counts.refreshed} refreshed${changed}${failed}`;
}
