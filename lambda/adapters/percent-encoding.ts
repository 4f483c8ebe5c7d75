/**
 * The percent-encodings real clients use, as data, so the adapters can re-encode what API Gateway
 * decoded and offer the verifier the spellings a signer plausibly used.
 *
 * Each encoder keeps a set of ASCII characters as they are and writes every other character as
 * `%XX` of its UTF-8 bytes (upper-case hex, as RFC 3986 §2.1 recommends and WHATWG URL does).
 * A space is written as `%20` unless the encoder uses `+` (form encoding).
 */

/** One way of writing a path segment or a query key/value. */
export interface ComponentEncoder {
  /** A short name for logs and tests. */
  readonly name: string;
  encode(text: string): string;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Builds an encoder that keeps `keep` (ASCII only) and encodes everything else.
 * @param spaceAsPlus - write U+0020 as `+` (application/x-www-form-urlencoded)
 */
export function percentEncoder(name: string, keep: string, spaceAsPlus = false): ComponentEncoder {
  const kept = new Set(keep);
  // The ASCII characters kept, by code: text made only of them is returned as it is, without a
  // new string (the usual path segment, on every request).
  const keptAscii = new Uint8Array(128);
  for (const char of kept) if (char.charCodeAt(0) < 128) keptAscii[char.charCodeAt(0)] = 1;
  return {
    name,
    encode(text: string): string {
      let plain = 0;
      while (plain < text.length && keptAscii[text.charCodeAt(plain)] === 1) plain++;
      if (plain === text.length) return text;
      let out = text.slice(0, plain);
      for (const char of text.slice(plain)) {
        if (kept.has(char)) out += char;
        else if (char === ' ' && spaceAsPlus) out += '+';
        else out += utf8Percent(char);
      }
      return out;
    },
  };
}

/** `%XX` for each UTF-8 byte of one code point (a lone surrogate becomes U+FFFD, as TextEncoder does). */
function utf8Percent(char: string): string {
  let out = '';
  for (const byte of Buffer.from(char, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

/** Printable ASCII (U+0021-U+007E) minus `remove`. */
function printableAsciiExcept(remove: string): string {
  let out = '';
  for (let code = 0x21; code <= 0x7e; code += 1) {
    const char = String.fromCharCode(code);
    if (!remove.includes(char)) out += char;
  }
  return out;
}

/**
 * RFC 3986 §2.3 unreserved characters only (`A-Z a-z 0-9 - . _ ~`), space as `%20`.
 * What curl's `--data-urlencode`, AWS SigV4 canonical URIs and most "strict" encoders write.
 */
export const RFC3986_STRICT = percentEncoder('rfc3986', `${ALPHANUMERIC}-._~`);

/** JavaScript's `encodeURIComponent`: unreserved plus `! ' ( ) *`, space as `%20`. */
export const URI_COMPONENT = percentEncoder('uri-component', `${ALPHANUMERIC}-_.!~*'()`);

/**
 * WHATWG path segment, current spec: keeps printable ASCII except the path percent-encode set
 * (`" # < > ? \` { } ^`), and `%` (a literal `%` in a decoded path must have been sent as `%25`).
 * What `new URL(text)` does to a path a person typed.
 */
export const WHATWG_PATH_SEGMENT = percentEncoder('whatwg-path', printableAsciiExcept('"#<>?`{}^%/'));

/** WHATWG path segment as older URL parsers (Node 20's ada) apply it: like {@link WHATWG_PATH_SEGMENT} but `^` kept. */
export const WHATWG_PATH_SEGMENT_KEEP_CARET = percentEncoder('whatwg-path-caret', printableAsciiExcept('"#<>?`{}%/'));

/**
 * `application/x-www-form-urlencoded` as WHATWG `URLSearchParams` and Java's `URLEncoder` write it:
 * keeps `A-Z a-z 0-9 * - . _`, space as `+`.
 */
export const FORM_URLENCODED = percentEncoder('form', `${ALPHANUMERIC}*-._`, true);

/** Form encoding with the RFC 3986 unreserved set, as Python's `quote_plus` and Go's `url.QueryEscape` write it. */
export const FORM_URLENCODED_STRICT = percentEncoder('form-rfc3986', `${ALPHANUMERIC}-._~`, true);

/**
 * A query key or value as a person would type it into a URL that `new URL()` then serialises
 * (WHATWG special-query percent-encode set: space, `" # < > '`), plus the characters that would
 * change how the query parses back (`% & = +`).
 */
export const WHATWG_QUERY_MINIMAL = percentEncoder('whatwg-query', printableAsciiExcept(`"#<>'%&=+`));
