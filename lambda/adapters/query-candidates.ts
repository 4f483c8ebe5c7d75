/**
 * Rebuilding a query string from REST (v1) events, which carry no raw query.
 *
 * `queryStringParameters` / `multiValueQueryStringParameters` arrive percent-decoded (`+` already
 * turned into a space, `%2B` into `+`) and without the client's parameter order. The original
 * bytes are therefore unknown; this module lists the spellings real clients produce, in a fixed
 * and bounded order:
 *
 * 1. the parameters in the order the event lists them, written by each encoder in
 *    {@link QUERY_ENCODERS} (form encoding first: URLSearchParams, Java, Python `params=`);
 * 2. for two or three distinct keys, the other key orders, with the first two encoders.
 *
 * Values of a repeated key stay in the order given. Every candidate decodes back to exactly the
 * parameters API Gateway reported, so none admits a request the backend would read differently.
 * What is never rebuilt: interleaved repeats (`a=1&b=2&a=3`), a key sent without `=`, a bare `?`,
 * spellings that encode unreserved characters (`%41`).
 */
import {
  ComponentEncoder,
  FORM_URLENCODED,
  FORM_URLENCODED_STRICT,
  RFC3986_STRICT,
  URI_COMPONENT,
  WHATWG_QUERY_MINIMAL,
} from './percent-encoding';

/** Encoders tried for keys and values, most common first. */
export const QUERY_ENCODERS: readonly ComponentEncoder[] = [
  FORM_URLENCODED,
  RFC3986_STRICT,
  FORM_URLENCODED_STRICT,
  URI_COMPONENT,
  WHATWG_QUERY_MINIMAL,
];

/** Key orders beyond the given one are tried only up to this many distinct keys (3! = 6 orders). */
const MAX_KEYS_FOR_REORDERING = 3;

type SingleValueQuery = Readonly<Record<string, string | undefined | null>> | null | undefined;
type MultiValueQuery = Readonly<Record<string, readonly (string | null)[] | undefined | null>> | null | undefined;

/** A key with its values, in the order the event gives them. */
export interface QueryParameter {
  readonly key: string;
  readonly values: readonly string[];
}

/**
 * The parameters of a v1 event: every value from `multiValueQueryStringParameters`, and keys
 * found only in `queryStringParameters` (which holds the last value of a repeated key).
 */
export function queryParametersOf(single: SingleValueQuery, multi: MultiValueQuery): QueryParameter[] {
  const out: QueryParameter[] = [];
  const seen = new Set<string>();
  for (const [key, values] of Object.entries(multi ?? {})) {
    if (!Array.isArray(values)) continue;
    const strings = values.filter((v): v is string => typeof v === 'string');
    if (strings.length === 0) continue;
    out.push({ key, values: strings });
    seen.add(key);
  }
  for (const [key, value] of Object.entries(single ?? {})) {
    if (typeof value !== 'string' || seen.has(key)) continue;
    out.push({ key, values: [value] });
  }
  return out;
}

/** Writes parameters as a query string (no leading `?`) with one encoder. */
export function serialiseQuery(parameters: readonly QueryParameter[], encoder: ComponentEncoder): string {
  const pairs: string[] = [];
  for (const { key, values } of parameters) {
    const encodedKey = encoder.encode(key);
    for (const value of values) pairs.push(`${encodedKey}=${encoder.encode(value)}`);
  }
  return pairs.join('&');
}

/**
 * The plausible query strings (no leading `?`), most likely first, without duplicates, at most
 * `limit`. `['']` when there are no parameters.
 */
export function queryCandidates(parameters: readonly QueryParameter[], limit: number): string[] {
  const out: string[] = [];
  for (const query of queryCandidateSequence(parameters)) {
    if (out.length >= limit) break;
    if (!out.includes(query)) out.push(query);
  }
  return out;
}

/**
 * The same spellings as {@link queryCandidates}, in the same order, each written only when the
 * reader asks for it (duplicates included): the authorizer writes the first, and the others only
 * if the key did not verify the first. `''` alone when there are no parameters.
 */
export function* queryCandidateSequence(parameters: readonly QueryParameter[]): Generator<string> {
  if (parameters.length === 0) {
    yield '';
    return;
  }
  for (const encoder of QUERY_ENCODERS) yield serialiseQuery(parameters, encoder);
  if (parameters.length <= MAX_KEYS_FOR_REORDERING) {
    for (const order of permutations(parameters).slice(1)) {
      for (const encoder of QUERY_ENCODERS.slice(0, 2)) yield serialiseQuery(order, encoder);
    }
  }
}

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [items.slice()];
  const out: T[][] = [];
  items.forEach((item, index) => {
    const rest = [...items.slice(0, index), ...items.slice(index + 1)];
    for (const tail of permutations(rest)) out.push([item, ...tail]);
  });
  return out;
}
