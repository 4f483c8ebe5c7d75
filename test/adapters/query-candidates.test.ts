import fc from 'fast-check';
import { FORM_URLENCODED, RFC3986_STRICT } from '../../lambda/adapters/percent-encoding';
import { queryCandidates, queryParametersOf, serialiseQuery } from '../../lambda/adapters/query-candidates';
import { MAX_TARGET_URI_CANDIDATES } from '../../lambda/adapters/target-uri';

// 'binary' yields any code point, never a lone surrogate (strings are well-formed).
const text = fc.string({ unit: 'binary', maxLength: 10 });
const key = fc.string({ unit: 'binary', minLength: 1, maxLength: 6 });

describe('queryParametersOf', () => {
  test('takes every value from the multi-value map, and keys only the single map has', () => {
    expect(queryParametersOf({ a: '2', b: 'x', c: 'only' }, { a: ['1', '2'], b: ['x'] })).toEqual([
      { key: 'a', values: ['1', '2'] },
      { key: 'b', values: ['x'] },
      { key: 'c', values: ['only'] },
    ]);
  });

  test.each([[null, null], [{}, {}], [undefined, undefined]])('no parameters for %p / %p', (single, multi) => {
    expect(queryParametersOf(single, multi)).toEqual([]);
    expect(queryCandidates(queryParametersOf(single, multi), MAX_TARGET_URI_CANDIDATES)).toEqual(['']);
  });

  test('skips values that are not strings', () => {
    expect(queryParametersOf({ a: null }, { b: [null, 'y'], c: null })).toEqual([{ key: 'b', values: ['y'] }]);
  });
});

describe('queryCandidates', () => {
  test('a simple query has one spelling per key order', () => {
    expect(queryCandidates([{ key: 'a', values: ['1'] }], MAX_TARGET_URI_CANDIDATES)).toEqual(['a=1']);
    expect(queryCandidates([{ key: 'a', values: ['1'] }, { key: 'b', values: ['2', '3'] }], MAX_TARGET_URI_CANDIDATES)).toEqual([
      'a=1&b=2&b=3',
      'b=2&b=3&a=1',
    ]);
  });

  test('three simple keys: all six orders fit in the bound', () => {
    const params = [{ key: 'a', values: ['1'] }, { key: 'b', values: ['2'] }, { key: 'c', values: ['3'] }];
    expect(new Set(queryCandidates(params, MAX_TARGET_URI_CANDIDATES))).toEqual(
      new Set(['a=1&b=2&c=3', 'a=1&c=3&b=2', 'b=2&a=1&c=3', 'b=2&c=3&a=1', 'c=3&a=1&b=2', 'c=3&b=2&a=1']),
    );
  });

  test('four or more keys: only the given order is tried', () => {
    const params = ['a', 'b', 'c', 'd'].map((k) => ({ key: k, values: ['1'] }));
    expect(queryCandidates(params, MAX_TARGET_URI_CANDIDATES)).toEqual(['a=1&b=1&c=1&d=1']);
  });

  test('the decoded + and space are told apart: + only ever as %2B, space as + or %20', () => {
    const candidates = queryCandidates([{ key: 'x', values: ['a+b c'] }], MAX_TARGET_URI_CANDIDATES);
    expect(candidates).toEqual(['x=a%2Bb+c', 'x=a%2Bb%20c']);
  });

  test('an empty value is written as key=', () => {
    expect(queryCandidates([{ key: 'empty', values: [''] }], MAX_TARGET_URI_CANDIDATES)).toEqual(['empty=']);
  });

  test('the limit is honoured', () => {
    const params = [{ key: 'q', values: ["it's *~ (1)"] }, { key: 'r', values: ['é'] }];
    expect(queryCandidates(params, 2)).toHaveLength(2);
    expect(queryCandidates(params, MAX_TARGET_URI_CANDIDATES).length).toBeLessThanOrEqual(MAX_TARGET_URI_CANDIDATES);
  });

  test('property: every candidate decodes, by API Gateway\'s rules, to the same parameters', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.record({ key, values: fc.array(text, { minLength: 1, maxLength: 3 }) }), { selector: (p) => p.key, minLength: 1, maxLength: 5 }), (params) => {
        const expected = params.flatMap((p) => p.values.map((v) => [p.key, v])).sort();
        const candidates = queryCandidates(params, MAX_TARGET_URI_CANDIDATES);
        expect(candidates.length).toBeGreaterThan(0);
        expect(candidates.length).toBeLessThanOrEqual(MAX_TARGET_URI_CANDIDATES);
        expect(new Set(candidates).size).toBe(candidates.length);
        for (const candidate of candidates) expect([...new URLSearchParams(candidate)].sort()).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  test('property: with two keys, a URLSearchParams or strict-RFC 3986 client is matched in either key order', () => {
    fc.assert(
      fc.property(fc.uniqueArray(key, { minLength: 2, maxLength: 2 }), text, text, ([a, b], v1, v2) => {
        const given = [{ key: a, values: [v1] }, { key: b, values: [v2] }];
        const candidates = queryCandidates(given, MAX_TARGET_URI_CANDIDATES);
        const swapped = [given[1], given[0]];
        for (const order of [given, swapped]) {
          expect(candidates).toContain(new URLSearchParams(order.map((p) => [p.key, p.values[0]])).toString());
          expect(candidates).toContain(order.map((p) => `${encodeURIComponentStrict(p.key)}=${encodeURIComponentStrict(p.values[0])}`).join('&'));
        }
      }),
      { numRuns: 300 },
    );
  });

  test('serialiseQuery writes repeated keys next to each other, in the given value order', () => {
    const params = [{ key: 'k', values: ['2', '1'] }, { key: 'a b', values: ['c'] }];
    expect(serialiseQuery(params, FORM_URLENCODED)).toBe('k=2&k=1&a+b=c');
    expect(serialiseQuery(params, RFC3986_STRICT)).toBe('k=2&k=1&a%20b=c');
  });
});

/** RFC 3986 unreserved-only encoding, independently of the code under test. */
function encodeURIComponentStrict(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
