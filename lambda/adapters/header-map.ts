/**
 * Header fields from API Gateway events, as the core wants them: lower-cased names, one string
 * per field (RFC 9421 §2.1 matches names case-insensitively).
 *
 * - HTTP API already lower-cases names and joins a repeated field with `,` (no space). That join
 *   cannot be undone (values may contain commas), so it is kept as delivered; a signer that
 *   covers a repeated field signs `a, b` and will not verify. HTTP API also moves `Cookie` into
 *   `cookies[]`; it is put back as one `cookie` field joined with `; ` (RFC 6265 §5.4).
 * - REST keeps the client's name case; `headers` holds only the last value of a repeated field,
 *   `multiValueHeaders` holds all of them. Values are taken from `multiValueHeaders` and joined
 *   with `, ` (RFC 9110 §5.3; `; ` for `cookie`), falling back to `headers`.
 *
 * The maps have no prototype, so a field named `constructor` or `__proto__` is just a field.
 */
import type { HeaderMap } from '../core/types';

type SingleValueHeaders = Readonly<Record<string, string | undefined | null>> | null | undefined;
type MultiValueHeaders = Readonly<Record<string, readonly (string | null)[] | undefined | null>> | null | undefined;

function emptyMap(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

function separatorFor(name: string, http: boolean): string {
  if (name === 'cookie') return '; ';
  return http ? ',' : ', ';
}

/** Headers of an HTTP API (payload 2.0) event, with `cookies[]` folded back into `cookie`. */
export function headersFromHttpApi(headers: SingleValueHeaders, cookies: readonly string[] | null | undefined): HeaderMap {
  const out = emptyMap();
  if (headers !== null && headers !== undefined) {
    for (const name of Object.keys(headers)) {
      const value = headers[name];
      if (typeof value !== 'string') continue;
      const key = name.toLowerCase();
      out[key] = key in out ? `${out[key]}${separatorFor(key, true)}${value}` : value;
    }
  }
  if (cookies === null || cookies === undefined || cookies.length === 0 || 'cookie' in out) return out;
  const cookieList = cookies.filter((c): c is string => typeof c === 'string' && c !== '');
  if (cookieList.length > 0) out.cookie = cookieList.join('; ');
  return out;
}

/** Headers of a REST (v1) event: every value of a repeated field, from `multiValueHeaders` first. */
export function headersFromRestApi(headers: SingleValueHeaders, multiValueHeaders: MultiValueHeaders): HeaderMap {
  const out = emptyMap();
  for (const [name, values] of Object.entries(multiValueHeaders ?? {})) {
    if (!Array.isArray(values)) continue;
    const strings = values.filter((v): v is string => typeof v === 'string');
    if (strings.length === 0) continue;
    const key = name.toLowerCase();
    const joined = strings.join(separatorFor(key, false));
    out[key] = key in out ? `${out[key]}${separatorFor(key, false)}${joined}` : joined;
  }
  const fromMulti = new Set(Object.keys(out));
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (typeof value !== 'string') continue;
    const key = name.toLowerCase();
    if (fromMulti.has(key)) continue;
    out[key] = key in out ? `${out[key]}${separatorFor(key, false)}${value}` : value;
  }
  return out;
}

