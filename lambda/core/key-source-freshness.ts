/**
 * How long a fetched key set may be used before it is fetched again (`Cache-Control: max-age`,
 * RFC 9111 §5.2.2.1, bounded to [{@link MIN_KEY_SOURCE_MAX_AGE_S}, {@link MAX_KEY_SOURCE_MAX_AGE_S}])
 * and how long to wait after a refusal (`Retry-After`, RFC 9110 §10.2.3). Pure: `nowS` is given.
 */
import { MAX_KEY_SOURCE_MAX_AGE_S, MIN_KEY_SOURCE_MAX_AGE_S } from './defaults';
import { parseHttpDate } from './http-date';

/**
 * The seconds a key set may be used for, from the response's Cache-Control: `max-age` clamped to
 * [60 s, 24 h]; `no-cache`/`no-store` (or `max-age=0`) is the minimum. Undefined when the header
 * says nothing about age: the refresher's own interval applies.
 */
export function keySetMaxAgeS(cacheControl: string | undefined): number | undefined {
  if (cacheControl === undefined) return undefined;
  const directives = cacheControl.toLowerCase().split(',').map((part) => part.trim());
  if (directives.some((d) => d === 'no-cache' || d === 'no-store')) return MIN_KEY_SOURCE_MAX_AGE_S;
  const maxAge = directives.map((d) => /^max-age\s*=\s*"?(\d{1,12})"?$/.exec(d)).find((m) => m !== null);
  if (maxAge === undefined || maxAge === null) return undefined;
  return Math.min(MAX_KEY_SOURCE_MAX_AGE_S, Math.max(MIN_KEY_SOURCE_MAX_AGE_S, Number(maxAge[1])));
}

/**
 * The seconds to wait before asking again, from a Retry-After of delay-seconds or an HTTP-date
 * (relative to `nowS`), at most {@link MAX_KEY_SOURCE_MAX_AGE_S}; undefined when absent or unreadable.
 */
export function retryAfterS(retryAfter: string | undefined, nowS: number): number | undefined {
  if (retryAfter === undefined) return undefined;
  const text = retryAfter.trim();
  const seconds = /^\d{1,12}$/.test(text) ? Number(text) : (() => {
    const at = parseHttpDate(text);
    return at === undefined ? undefined : Math.max(0, Math.ceil(at - nowS));
  })();
  return seconds === undefined ? undefined : Math.min(seconds, MAX_KEY_SOURCE_MAX_AGE_S);
}
