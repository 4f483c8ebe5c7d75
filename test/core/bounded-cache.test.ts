import fc from 'fast-check';
import { BoundedCache, BoundedMemo } from '../../lambda/core/bounded-cache';

describe('BoundedCache', () => {
  it('stores and returns values; misses are undefined', () => {
    const cache = new BoundedCache<string, number>(3);
    cache.set('a', 1);
    expect(cache.get('a')).toBe(1);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.size).toBe(1);
  });

  it('evicts the least recently USED entry (a get refreshes recency)', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
  });

  it('re-setting a key refreshes it and does not grow the cache', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 10);
    expect(cache.size).toBe(2);
    cache.set('c', 3);
    expect(cache.get('a')).toBe(10);
    expect(cache.get('b')).toBeUndefined();
  });

  it('expires entries at expiresAtMs (exclusive) against the caller-supplied clock', () => {
    const cache = new BoundedCache<string, string>(2);
    cache.set('k', 'v', 1_000);
    expect(cache.get('k', 999)).toBe('v');
    expect(cache.get('k', 1_000)).toBeUndefined();
    expect(cache.get('k', 5_000)).toBeUndefined();
  });

  it('peek returns an expired entry with its expiry (stale-if-error) without touching recency', () => {
    const cache = new BoundedCache<string, string>(2);
    cache.set('old', 'stale', 100);
    cache.set('new', 'fresh');
    expect(cache.get('old', 200)).toBeUndefined();
    expect(cache.peek('old')).toEqual({ value: 'stale', expiresAtMs: 100 });
    cache.set('third', 'x');
    // 'old' was least recently used (peek did not refresh it) so it was evicted.
    expect(cache.peek('old')).toBeUndefined();
    expect(cache.peek('new')?.value).toBe('fresh');
  });

  it('entries without expiry never expire', () => {
    const cache = new BoundedCache<string, number>(1);
    cache.set('k', 1);
    expect(cache.get('k', Number.MAX_SAFE_INTEGER)).toBe(1);
  });

  it('delete and clear remove entries', () => {
    const cache = new BoundedCache<string, number>(3);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(1);
    cache.clear();
    expect(cache.size).toBe(0);
    expect([...cache.peekAll()]).toEqual([]);
    cache.set('c', 3);
    expect([...cache.peekAll()]).toEqual([['c', { value: 3, expiresAtMs: Number.POSITIVE_INFINITY }]]);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses maxEntries %s', (maxEntries) => {
    expect(() => new BoundedCache(maxEntries)).toThrow(RangeError);
  });

  it('never holds more than maxEntries, and behaves like a reference LRU model, order included (property)', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), key: fc.nat(9), value: fc.integer() }),
      fc.record({ kind: fc.constant('get' as const), key: fc.nat(9) }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.nat(9) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(op, { maxLength: 60 }), (max, ops) => {
        const cache = new BoundedCache<number, number>(max);
        const model: [number, number][] = []; // oldest first
        for (const o of ops) {
          const at = model.findIndex(([k]) => k === o.key);
          if (o.kind === 'set') {
            if (at !== -1) model.splice(at, 1);
            model.push([o.key, o.value]);
            if (model.length > max) model.shift();
            cache.set(o.key, o.value);
          } else if (o.kind === 'get') {
            const expected = at === -1 ? undefined : model[at][1];
            if (at !== -1) model.push(model.splice(at, 1)[0]);
            expect(cache.get(o.key)).toBe(expected);
          } else {
            if (at !== -1) model.splice(at, 1);
            cache.delete(o.key);
          }
          expect(cache.size).toBe(model.length);
          expect(cache.size).toBeLessThanOrEqual(max);
          // peekAll walks the entries least recently used first, as the model orders them.
          expect([...cache.peekAll()].map(([key, entry]) => [key, entry.value])).toEqual(model);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('BoundedMemo', () => {
  it.each([0, 1, 3, -2, 2.5, Number.NaN])('refuses maxEntries %s (an even integer ≥ 2 is needed)', (maxEntries) => {
    expect(() => new BoundedMemo(maxEntries)).toThrow(RangeError);
  });

  it('returns what was set, and never holds more than maxEntries (property)', () => {
    const op = fc.oneof(fc.record({ set: fc.nat(40), value: fc.integer() }), fc.record({ get: fc.nat(40) }));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }).map((n) => n * 2), fc.array(op, { maxLength: 200 }), (max, ops) => {
        const memo = new BoundedMemo<number, number>(max);
        const latest = new Map<number, number>();
        for (const o of ops) {
          if ('set' in o) {
            memo.set(o.set, o.value);
            latest.set(o.set, o.value);
          } else {
            const got = memo.get(o.get);
            // A memo may forget, but never answers with a value that was not the latest one set.
            if (got !== undefined) expect(got).toBe(latest.get(o.get));
          }
          expect(memo.size).toBeLessThanOrEqual(max);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps an entry read at least once per maxEntries / 2 new entries, however many pass through', () => {
    const memo = new BoundedMemo<string, number>(8);
    memo.set('hot', 1);
    for (let i = 0; i < 1_000; i++) {
      memo.set(`cold-${i}`, i);
      if (i % 4 === 3) expect(memo.get('hot')).toBe(1);
    }
    expect(memo.size).toBeLessThanOrEqual(8);
  });

  it('keeps a round of up to maxEntries / 2 values read in turn (the verify memos\' pattern) without a miss', () => {
    const memo = new BoundedMemo<number, number>(8);
    for (let i = 0; i < 4; i++) memo.set(i, i);
    for (let round = 0; round < 50; round++) for (let i = 0; i < 4; i++) expect(memo.get(i)).toBe(i);
  });

  it('forgets an entry not read while maxEntries new ones arrive', () => {
    const memo = new BoundedMemo<string, number>(4);
    memo.set('once', 1);
    for (let i = 0; i < 4; i++) memo.set(`new-${i}`, i);
    expect(memo.get('once')).toBeUndefined();
  });
});
