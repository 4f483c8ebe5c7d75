/**
 * A size-bounded, least-recently-used map with optional per-entry expiry.
 *
 * Every cache in Signet is one of these, so memory stays flat however many distinct clients or
 * keys pass through a warm Lambda. It has no clock of its own: callers pass `nowMs`.
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAtMs: number }>();

  /** @param maxEntries the most entries kept; the least recently used is evicted first. */
  constructor(readonly maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`maxEntries must be a positive integer, got ${maxEntries}`);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value if present and not expired at `nowMs`; a hit becomes the most recently used. */
  get(key: K, nowMs = 0): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAtMs <= nowMs) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** The entry even when expired (for stale-if-error), with its expiry; does not touch recency. */
  peek(key: K): { value: V; expiresAtMs: number } | undefined {
    return this.entries.get(key);
  }

  /** Stores `value`, expiring at `expiresAtMs` (default: never), evicting the oldest if full. */
  set(key: K, value: V, expiresAtMs = Number.POSITIVE_INFINITY): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAtMs });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
