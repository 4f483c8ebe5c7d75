import fc from 'fast-check';
import {
  FORM_URLENCODED,
  FORM_URLENCODED_STRICT,
  RFC3986_STRICT,
  URI_COMPONENT,
  WHATWG_PATH_SEGMENT,
  WHATWG_PATH_SEGMENT_KEEP_CARET,
  WHATWG_QUERY_MINIMAL,
} from '../../lambda/adapters/percent-encoding';

// 'binary' yields any code point, never a lone surrogate.
const anyText = fc.string({ unit: 'binary', maxLength: 16 });

describe('percent encoders match the libraries they stand for', () => {
  test('URI_COMPONENT is encodeURIComponent', () => {
    fc.assert(fc.property(anyText, (s) => expect(URI_COMPONENT.encode(s)).toBe(encodeURIComponent(s))), { numRuns: 500 });
  });

  test('FORM_URLENCODED is URLSearchParams', () => {
    fc.assert(
      fc.property(anyText, (s) => expect(FORM_URLENCODED.encode(s)).toBe(new URLSearchParams([[s, '']]).toString().slice(0, -1))),
      { numRuns: 500 },
    );
  });

  test('RFC3986_STRICT leaves only unreserved characters and round-trips', () => {
    fc.assert(
      fc.property(anyText, (s) => {
        const encoded = RFC3986_STRICT.encode(s);
        expect(encoded).toMatch(/^(?:[A-Za-z0-9\-._~]|%[0-9A-F]{2})*$/);
        expect(decodeURIComponent(encoded)).toBe(s);
      }),
      { numRuns: 500 },
    );
  });

  test('FORM_URLENCODED_STRICT is Python quote_plus: unreserved kept, space as +', () => {
    expect(FORM_URLENCODED_STRICT.encode("a b~*'")).toBe('a+b~%2A%27');
  });

  test('WHATWG path encoders reproduce this Node version\'s URL pathname setter', () => {
    fc.assert(
      fc.property(anyText.filter((s) => !/[/\\%]/.test(s) && s !== '.' && s !== '..' && s !== ''), (segment) => {
        const url = new URL('https://h.example/');
        url.pathname = `/${segment}`;
        if (decodeURIComponent(url.pathname) !== `/${segment}`) return; // the parser rewrote the text itself
        expect([`/${WHATWG_PATH_SEGMENT.encode(segment)}`, `/${WHATWG_PATH_SEGMENT_KEEP_CARET.encode(segment)}`]).toContain(url.pathname);
      }),
      { numRuns: 500 },
    );
  });

  test('WHATWG_QUERY_MINIMAL output is left alone by the URL parser and decodes back', () => {
    fc.assert(
      fc.property(anyText, anyText, (key, value) => {
        const query = `${WHATWG_QUERY_MINIMAL.encode(key)}=${WHATWG_QUERY_MINIMAL.encode(value)}`;
        expect(new URL(`https://h.example/?${query}`).search).toBe(query === '' ? '' : `?${query}`);
        expect([...new URLSearchParams(query)]).toEqual([[key, value]]);
      }),
      { numRuns: 500 },
    );
  });

  test('hex digits are upper-case, multi-byte characters are UTF-8', () => {
    expect(RFC3986_STRICT.encode('λ世')).toBe('%CE%BB%E4%B8%96');
    expect(RFC3986_STRICT.encode('😀')).toBe('%F0%9F%98%80');
  });
});
