/**
 * Text that came from a server, made safe to print for a person. A registry record or an HTTP
 * answer can hold whatever a caller put in it (a refused request's path is the caller's own), and
 * a terminal acts on some characters instead of showing them: ESC and the other C0 controls start
 * sequences that retitle the window, clear the screen or rewrite what is already printed; DEL and
 * the C1 controls (U+0080 to U+009F: U+009B alone is a CSI) do the same on some terminals; the bidi
 * overrides and isolates (U+202A to U+202E, U+2066 to U+2069) and the direction marks (U+061C,
 * U+200E, U+200F) reorder what is around them; the line and paragraph separators (U+2028, U+2029)
 * break a line where none is shown. Each of
 * these is shown as its JSON escape (`\u001b`), so the operator sees it is there and nothing acts.
 *
 * `--json` output stays JSON that parses back to the same answer: JSON.stringify already escapes
 * the C0 controls, and {@link printableJson} escapes the rest the same way.
 */

/** Every such character, tab and line ends included: a field printed on one line stays there. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** The same, line feeds kept: text meant to span lines. */
const UNPRINTABLE_BUT_LF = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** What JSON.stringify leaves as it is and a terminal acts on: DEL, the C1 controls, the bidi controls and marks, the line separators (only ever inside strings). */
const UNPRINTABLE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

const escape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** One field (a path, a name, a message, a status text) with every character a terminal acts on shown as `\uXXXX`. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, escape);
}

/** Text of several lines (an answer that is not JSON): as {@link printable}, but line feeds are kept. */
export function printableLines(text: string): string {
  return text.replace(UNPRINTABLE_BUT_LF, escape);
}

/** A parsed JSON value with every string in it, object keys included, made {@link printable}. */
export function printableStrings(value: unknown): unknown {
  if (typeof value === 'string') return printable(value);
  if (Array.isArray(value)) return value.map(printableStrings);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [printable(key), printableStrings(item)]));
  return value;
}

/** A value as indented JSON for a person's terminal: the same JSON, with what a terminal acts on written as `\uXXXX`; a string answer (not JSON) {@link printableLines}. */
export function printableJson(value: unknown): string {
  return typeof value === 'string' ? printableLines(value) : JSON.stringify(value, null, 2).replace(UNPRINTABLE_IN_JSON, escape);
}
