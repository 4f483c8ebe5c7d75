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

  /** Every entry, expired ones too, least recently used first; does not touch recency. Do not set while iterating. */
  peekAll(): IterableIterator<[K, { value: V; expiresAtMs: number }]> {
    return this.entries.entries();
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}

/**
 * A size-bounded memo for pure results (parsed header values), where a hit must cost one lookup.
 *
 * BoundedCache keeps exact recency, so every hit re-inserts its entry; on the verify path, where
 * every request reads two memos, those moves were measurable. This memo keeps two generations
 * instead: new entries and hits from the older generation go into the young one; when the young
 * one holds `maxEntries / 2`, it becomes the old one and the previous old one is dropped. A hit in
 * the young generation changes nothing. An entry read at least once per `maxEntries / 2`
 * insertions is never dropped; at most `maxEntries` entries are held.
 */
export class BoundedMemo<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private readonly generationSize: number;

  /** @param maxEntries the most entries kept (an even number of at least 2). */
  constructor(readonly maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 2 || maxEntries % 2 !== 0) {
      throw new RangeError(`maxEntries must be an even integer of at least 2, got ${maxEntries}`);
    }
    this.generationSize = maxEntries / 2;
  }

  get size(): number {
    return this.young.size + this.old.size;
  }

  get(key: K): V | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const older = this.old.get(key);
    if (older !== undefined) {
      this.old.delete(key);
      this.add(key, older);
    }
    return older;
  }

  set(key: K, value: V): void {
    this.old.delete(key);
    this.add(key, value);
  }

  private add(key: K, value: V): void {
    if (this.young.size >= this.generationSize && !this.young.has(key)) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }
}
