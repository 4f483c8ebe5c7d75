import { keySetMaxAgeS, retryAfterS } from '../../lambda/core/key-source-freshness';

describe('keySetMaxAgeS: Cache-Control max-age, clamped to [1 min, 24 h]', () => {
  it.each<[string | undefined, number | undefined]>([
    [undefined, undefined],
    ['public', undefined],
    ['max-age=300', 300],
    ['public, max-age=3600, must-revalidate', 3600],
    ['MAX-AGE=120', 120],
    ['max-age="600"', 600],
    ['max-age=5', 60],
    ['max-age=0', 60],
    ['no-cache', 60],
    ['no-store, max-age=3600', 60],
    ['max-age=604800', 86_400],
    ['max-age=99999999999999999', undefined],
    ['max-age=-5', undefined],
    ['max-age=abc', undefined],
  ])('%j → %j', (header, expected) => {
    expect(keySetMaxAgeS(header)).toBe(expected);
  });
});

describe('retryAfterS: Retry-After as seconds or an HTTP-date', () => {
  const nowS = 1_750_000_000;
  it.each<[string | undefined, number | undefined]>([
    [undefined, undefined],
    ['120', 120],
    [' 30 ', 30],
    [new Date((nowS + 90) * 1000).toUTCString(), 90],
    [new Date((nowS - 90) * 1000).toUTCString(), 0],
    ['999999', 86_400],
    ['soon', undefined],
    ['-1', undefined],
  ])('%j → %j', (header, expected) => {
    expect(retryAfterS(header, nowS)).toBe(expected);
  });
});
