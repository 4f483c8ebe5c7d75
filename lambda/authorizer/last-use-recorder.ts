/**
 * Records, off the authorizer's hot path, that a client's key verified a request ("last used",
 * shown by the registry as `lastUsedAt`).
 *
 * - Only allowed decisions are noted; no DynamoDB read, ever.
 * - At most one write per (client, key) per interval per instance: the pairs written lately are
 *   remembered in a bounded in-memory cache (the least recently used pair is forgotten first, so
 *   memory stays flat; a forgotten pair may be written again before its interval is over).
 * - The write is started, not awaited: the decision is answered at once. A write that fails is
 *   logged (clientId, key fingerprint and the storage error: no signature, base or key) and not
 *   retried before the interval is over, so a struggling table gets no more writes than a healthy
 *   one; it never changes a decision. In Lambda, a write still running when the answer is
 *   returned finishes when the instance next runs (or is lost with the instance: the registry then
 *   shows an older time, until the next write).
 * - At most {@link MAX_WRITES_IN_FLIGHT} writes run at once; a pair that finds no room is noted
 *   again on its next request.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { BoundedCache } from '../core/bounded-cache';
import { DEFAULT_CLIENT_CACHE_MAX_ENTRIES } from '../core/defaults';
import type { KeyUseRecorder } from '../domain/authorizer-ports';

/** The most last-use writes one instance runs at once. @default 16 */
export const MAX_WRITES_IN_FLIGHT = 16;

export interface LastUseRecorderOptions {
  readonly store: KeyUseRecorder;
  /** At most one write per (client, key) per this many ms; must be > 0. */
  readonly intervalMs: number;
  readonly nowMs: () => number;
  readonly logger: Pick<Logger, 'warn'>;
}

export class LastUseRecorder {
  /** `clientId fingerprint` → written (or being written) within the interval. */
  private readonly recent = new BoundedCache<string, true>(DEFAULT_CLIENT_CACHE_MAX_ENTRIES);
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly options: LastUseRecorderOptions) {
    if (!(options.intervalMs > 0)) throw new RangeError('LastUseRecorder needs an interval above 0 ms.');
  }

  /** Notes that `fingerprint` verified a request of `clientId` now; starts the write when one is due, without waiting for it. */
  note(clientId: string, fingerprint: string): void {
    const key = `${clientId} ${fingerprint}`;
    const now = this.options.nowMs();
    if (this.recent.get(key, now) !== undefined || this.inFlight.size >= MAX_WRITES_IN_FLIGHT) return;
    this.recent.set(key, true, now + this.options.intervalMs);
    const write: Promise<void> = this.options.store
      .recordKeyUse(clientId, fingerprint)
      .then(
        () => undefined,
        (error: unknown) => this.options.logger.warn("could not record the key's last use", { clientId, keyFingerprint: fingerprint, error }),
      )
      .finally(() => this.inFlight.delete(write));
    this.inFlight.add(write);
  }

  /** Resolves once every write started so far has ended (tests, and anyone who must not leave one running). */
  async settled(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }
}
