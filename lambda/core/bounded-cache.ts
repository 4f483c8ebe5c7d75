/**
 * A size-bounded, least-recently-used map with optional per-entry expiry.
 *
 * Every cache in Signet is one of these, so memory stays flat however many distinct clients or
 * keys pass through a warm Lambda. It has no clock of its own: callers pass `nowMs`.
 *
 * Recency is a list through the entries (oldest to newest), so a hit moves two links and leaves
 * the Map alone: deleting and re-inserting the key on every hit, as a Map ordered by insertion
 * would need, makes the Map rebuild its table every few hits. The authorizer reads two of these
 * caches on every request, and those tables, live when a young-generation GC ran, were about half
 * of what its warm path promoted to the old generation (see BENCHMARKS.md).
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, CacheNode<K, V>>();
  private oldest: CacheNode<K, V> | undefined;
  private newest: CacheNode<K, V> | undefined;

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
    const node = this.entries.get(key);
    if (node === undefined) return undefined;
    if (node.entry.expiresAtMs <= nowMs) return undefined;
    this.makeNewest(node);
    return node.entry.value;
  }

  /** The entry even when expired (for stale-if-error), with its expiry; does not touch recency. */
  peek(key: K): { value: V; expiresAtMs: number } | undefined {
    return this.entries.get(key)?.entry;
  }

  /** Stores `value`, expiring at `expiresAtMs` (default: never), evicting the oldest if full. */
  set(key: K, value: V, expiresAtMs = Number.POSITIVE_INFINITY): void {
    const entry = { value, expiresAtMs };
    const known = this.entries.get(key);
    if (known !== undefined) {
      known.entry = entry;
      this.makeNewest(known);
      return;
    }
    const node: CacheNode<K, V> = { key, entry, older: undefined, newer: undefined };
    this.append(node);
    this.entries.set(key, node);
    if (this.entries.size > this.maxEntries && this.oldest !== undefined) this.delete(this.oldest.key);
  }

  /** Every entry, expired ones too, least recently used first; does not touch recency. Do not set while iterating. */
  *peekAll(): IterableIterator<[K, { value: V; expiresAtMs: number }]> {
    for (let node = this.oldest; node !== undefined; node = node.newer) yield [node.key, node.entry];
  }

  delete(key: K): void {
    const node = this.entries.get(key);
    if (node === undefined) return;
    this.entries.delete(key);
    this.unlink(node);
  }

  clear(): void {
    this.entries.clear();
    this.oldest = undefined;
    this.newest = undefined;
  }

  private makeNewest(node: CacheNode<K, V>): void {
    if (node === this.newest) return;
    this.unlink(node);
    this.append(node);
  }

  /** Links `node` (in no list) in as the newest entry. */
  private append(node: CacheNode<K, V>): void {
    node.older = this.newest;
    if (this.newest === undefined) this.oldest = node;
    else this.newest.newer = node;
    this.newest = node;
  }

  private unlink(node: CacheNode<K, V>): void {
    if (node.older === undefined) this.oldest = node.newer;
    else node.older.newer = node.newer;
    if (node.newer === undefined) this.newest = node.older;
    else node.newer.older = node.older;
    node.older = undefined;
    node.newer = undefined;
  }
}

/** One entry of a BoundedCache and its place in the recency list. */
interface CacheNode<K, V> {
  readonly key: K;
  entry: { value: V; expiresAtMs: number };
  /** The entry used just before this one (undefined for the oldest). */
  older: CacheNode<K, V> | undefined;
  /** The entry used just after this one (undefined for the newest). */
  newer: CacheNode<K, V> | undefined;
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
