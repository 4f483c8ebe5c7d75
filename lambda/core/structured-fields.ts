/**
 * Structured Field Values for HTTP (RFC 8941; RFC 9651's Date and Display String too): a strict
 * parser and the canonical serializer. Nothing else in Signet parses structured fields by hand.
 *
 * The parser follows the RFC 8941 §4.2 algorithms step by step over char codes (no regular
 * expressions, no per-character string building): leading SP is discarded, OWS (SP / HTAB) is
 * allowed only around the commas of lists and dictionaries, only SP inside inner lists and after
 * ";", a duplicate dictionary or parameter key keeps its first position and takes the last value,
 * and any character outside the grammar (including non-ASCII) fails the whole field.
 *
 * Values map to JavaScript as:
 *   Integer → `number` (15 digits at most); Decimal → {@link Decimal} (so `1.0` stays a decimal
 *   when re-serialized); String → `string`; Token → {@link Token}; Byte Sequence → `Uint8Array`
 *   (the parser returns a `Buffer` under Node, a `Uint8Array` in the browser: ./base64.ts); Boolean → `boolean`; Date → `Date` (whole seconds);
 *   Display String → {@link DisplayString}. Items are `[value, parameters]`, inner lists are
 *   `[items, parameters]`, parameters and dictionaries are `Map`s in field order.
 *
 * Byte sequences (§4.2.7): only the base64 alphabet of RFC 4648 §4 (no base64url, no whitespace).
 * Padding is optional, as the RFC asks parsers to tolerate its absence; when present it must be
 * complete ("=" only at the end, at most two, total length a multiple of 4), so `:aGVsbG8=:` and
 * `:aGVsbG8:` are the same bytes but `:aGVsbG8==:` is refused. Non-zero pad bits are tolerated
 * (§4.2.7 says parsers SHOULD NOT fail on them); the serializer always writes canonical padding.
 *
 * Why not the `structured-headers` package: it returns Decimals as plain numbers (so `1.0` would
 * re-serialize as `1` under RFC 9421 `;sf`), refuses a Date followed by anything, and parses the
 * fields that miss the fast paths 3-4x slower; figures in BENCHMARKS.md, "Why the structured-field
 * parser is hand-written" (bench/structured-fields-package.ts measures it again).
 */
import { decodeBase64, encodeBase64 } from './base64';
import { SignetErrorCode, fail } from './errors';

/** An RFC 8941 Token (§3.3.4), kept distinct from a String. */
export class Token {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** An RFC 8941 Decimal (§3.3.2). Plain non-integer `number`s also serialize as decimals. */
export class Decimal {
  constructor(readonly value: number) {}
  valueOf(): number {
    return this.value;
  }
}

/** An RFC 9651 Display String (§3.3.8): Unicode text, percent-encoded on the wire. */
export class DisplayString {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type BareItem = number | Decimal | string | Token | Uint8Array | boolean | Date | DisplayString;
export type Parameters = Map<string, BareItem>;
export type Item = [BareItem, Parameters];
export type InnerList = [Item[], Parameters];
/** A list or dictionary member: an item or an inner list. */
export type Member = Item | InnerList;
export type Dictionary = Map<string, Member>;
export type List = Member[];

/** A field value that is not valid RFC 8941 (or a value that cannot be serialized). */
export class StructuredFieldError extends Error {
  override readonly name = 'StructuredFieldError';
  constructor(
    message: string,
    /** Zero-based offset in the field value where parsing failed (-1 for serialization). */
    readonly offset: number,
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------------------------------------
// Character classes (ASCII only; anything >= 0x80 belongs to no class).

const KEY_START = 1; // lcalpha / "*"
const KEY_CHAR = 2; // lcalpha / DIGIT / "_" / "-" / "." / "*"
const TOKEN_START = 4; // ALPHA / "*"
const TOKEN_CHAR = 8; // tchar / ":" / "/"
const BASE64 = 16; // ALPHA / DIGIT / "+" / "/"
/** Each ASCII character's classes, as flags; built once when the module loads, read-only after. */
const CLASS: Readonly<Uint8Array> = (() => {
  const table = new Uint8Array(128);
  const add = (chars: string, flag: number) => {
    for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] |= flag;
  };
  const lower = 'abcdefghijklmnopqrstuvwxyz';
  const upper = lower.toUpperCase();
  const digits = '0123456789';
  add(lower + '*', KEY_START);
  add(lower + digits + '_-.*', KEY_CHAR);
  add(lower + upper + '*', TOKEN_START);
  add(lower + upper + digits + "!#$%&'*+-.^_`|~" + ':/', TOKEN_CHAR);
  add(lower + upper + digits + '+/', BASE64);
  return table;
})();

const HTAB = 0x09;
const SP = 0x20;
const DQUOTE = 0x22;
const PERCENT = 0x25;
const LPAREN = 0x28;
const RPAREN = 0x29;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const COLON = 0x3a;
const SEMICOLON = 0x3b;
const EQUALS = 0x3d;
const QUESTION = 0x3f;
const AT = 0x40;
const BACKSLASH = 0x5c;

const MAX_INTEGER = 999_999_999_999_999;
/** Up to this many base64 characters, checking each one is cheaper than re-encoding to compare. */
const SHORT_BASE64 = 96;

export function isDigit(c: number): boolean {
  return c >= DIGIT_0 && c <= DIGIT_9;
}

/** A character that may start a key (§3.1.2): lcalpha or "*". */
export function isKeyStart(c: number): boolean {
  return hasClass(c, KEY_START);
}

/** A character that may follow in a key: lcalpha, DIGIT, "_", "-", "." or "*". */
export function isKeyChar(c: number): boolean {
  return hasClass(c, KEY_CHAR);
}

function hasClass(c: number, flag: number): boolean {
  return c < 128 && (CLASS[c] & flag) !== 0;
}

// ---------------------------------------------------------------------------------------------
// Parsing (RFC 8941 §4.2)

/** One pass over one field value. `i` is the read position. */
class Parser {
  i = 0;
  readonly n: number;

  constructor(readonly s: string) {
    this.n = s.length;
  }

  /** §4.2 steps 4 and 5: only SP may follow the value. */
  end(): void {
    this.skipSP();
    if (this.i < this.n) this.fail('unexpected characters after the value');
  }

  fail(reason: string, at: number = this.i): never {
    throw new StructuredFieldError(`${reason} ${describeAt(this.s, at)}`, at);
  }

  skipSP(): void {
    while (this.s.charCodeAt(this.i) === SP) this.i++;
  }

  skipOWS(): void {
    for (;;) {
      const c = this.s.charCodeAt(this.i);
      if (c !== SP && c !== HTAB) return;
      this.i++;
    }
  }

  /** §4.2.1 */
  list(): List {
    const s = this.s;
    const members: List = [];
    while (this.i < this.n) {
      members.push(this.member());
      this.skipOWS();
      if (this.i >= this.n) return members;
      if (s.charCodeAt(this.i) !== COMMA) this.fail('expected "," between list members');
      this.i++;
      this.skipOWS();
      if (this.i >= this.n) this.fail('trailing "," after the last list member');
    }
    return members;
  }

  /** §4.2.2 */
  dictionary(): Dictionary {
    const s = this.s;
    const dict: Dictionary = new Map();
    while (this.i < this.n) {
      const key = this.key();
      let member: Member;
      if (s.charCodeAt(this.i) === EQUALS) {
        this.i++;
        member = this.member();
      } else {
        member = [true, this.parameters()];
      }
      dict.set(key, member);
      this.skipOWS();
      if (this.i >= this.n) return dict;
      if (s.charCodeAt(this.i) !== COMMA) this.fail('expected "," between dictionary members');
      this.i++;
      this.skipOWS();
      if (this.i >= this.n) this.fail('trailing "," after the last dictionary member');
    }
    return dict;
  }

  /** §4.2.1.1: an item or an inner list. */
  member(): Member {
    return this.s.charCodeAt(this.i) === LPAREN ? this.innerList() : this.item();
  }

  /** §4.2.1.2 */
  innerList(): InnerList {
    const s = this.s;
    const open = this.i;
    this.i++; // "("
    const items: Item[] = [];
    while (this.i < this.n) {
      this.skipSP();
      if (s.charCodeAt(this.i) === RPAREN) {
        this.i++;
        return [items, this.parameters()];
      }
      items.push(this.item());
      const c = s.charCodeAt(this.i);
      if (c !== SP && c !== RPAREN) {
        if (this.i >= this.n) break;
        this.fail('expected " " or ")" after an inner-list item');
      }
    }
    return this.fail('inner list is not closed with ")"', open);
  }

  /** §4.2.3 */
  item(): Item {
    return [this.bareItem(), this.parameters()];
  }

  /** §4.2.3.2 */
  parameters(): Parameters {
    const s = this.s;
    const params: Parameters = new Map();
    while (s.charCodeAt(this.i) === SEMICOLON) {
      this.i++;
      this.skipSP();
      const key = this.key();
      let value: BareItem = true;
      if (s.charCodeAt(this.i) === EQUALS) {
        this.i++;
        value = this.bareItem();
      }
      params.set(key, value);
    }
    return params;
  }

  /** §4.2.3.3 */
  key(): string {
    const s = this.s;
    const start = this.i;
    if (!hasClass(s.charCodeAt(start), KEY_START)) this.fail('expected a key (a lower-case letter or "*")');
    let i = start + 1;
    while (i < this.n && hasClass(s.charCodeAt(i), KEY_CHAR)) i++;
    this.i = i;
    return s.slice(start, i);
  }

  /** §4.2.3.1 (plus RFC 9651 §4.2.3.1's "@" Date and "%" Display String). */
  bareItem(): BareItem {
    const c = this.s.charCodeAt(this.i);
    if (c === MINUS || isDigit(c)) return this.number();
    if (c === DQUOTE) return this.string();
    if (hasClass(c, TOKEN_START)) return this.token();
    if (c === COLON) return this.byteSequence();
    if (c === QUESTION) return this.boolean();
    if (c === AT) return this.date();
    if (c === PERCENT) return this.displayString();
    return this.fail(this.i >= this.n ? 'expected a value, found the end of the field' : 'expected a value (number, "string", token, :bytes:, ?boolean)');
  }

  /** §4.2.4: Integer (at most 15 digits) or Decimal (at most 12 integer and 3 fractional digits). */
  number(): number | Decimal {
    const s = this.s;
    const begin = this.i;
    let i = begin;
    const negative = s.charCodeAt(i) === MINUS;
    if (negative) i++;
    const start = i;
    if (!isDigit(s.charCodeAt(i))) this.fail('expected a digit', i);
    let value = 0;
    let c = 0;
    while (i < this.n) {
      c = s.charCodeAt(i);
      if (!isDigit(c)) break;
      value = value * 10 + (c - DIGIT_0);
      i++;
      if (i - start > 15) this.fail('integer has more than 15 digits', begin);
    }
    if (i >= this.n || c !== DOT) {
      this.i = i;
      return value === 0 ? 0 : negative ? -value : value;
    }
    if (i - start > 12) this.fail('decimal has more than 12 integer digits', begin);
    const dot = i;
    i++;
    while (i < this.n && isDigit(s.charCodeAt(i))) i++;
    const fraction = i - dot - 1;
    if (fraction === 0) this.fail('decimal ends with "."', dot);
    if (fraction > 3) this.fail('decimal has more than 3 fractional digits', begin);
    this.i = i;
    const decimal = Number(s.slice(start, i));
    return new Decimal(decimal === 0 ? 0 : negative ? -decimal : decimal);
  }

  /** §4.2.5 */
  string(): string {
    const s = this.s;
    const open = this.i;
    let i = open + 1;
    let start = i;
    let out = '';
    while (i < this.n) {
      const c = s.charCodeAt(i);
      if (c === DQUOTE) {
        this.i = i + 1;
        return out === '' ? s.slice(start, i) : out + s.slice(start, i);
      }
      if (c === BACKSLASH) {
        const next = s.charCodeAt(i + 1);
        if (next !== DQUOTE && next !== BACKSLASH) this.fail('a "\\" in a string must escape " or \\', i);
        out += s.slice(start, i);
        start = i + 1; // keep the escaped character
        i += 2;
        continue;
      }
      if (c < SP || c > 0x7e) this.fail('string contains a character outside printable ASCII', i);
      i++;
    }
    return this.fail('string is not closed with \'"\'', open);
  }

  /** §4.2.6 */
  token(): Token {
    const s = this.s;
    const start = this.i;
    let i = start + 1;
    while (i < this.n && hasClass(s.charCodeAt(i), TOKEN_CHAR)) i++;
    this.i = i;
    return new Token(s.slice(start, i));
  }

  /**
   * §4.2.7; see the file header for the padding rule. Returns a Buffer under Node.
   * Long values (signatures) take a fast path: a value that re-encodes to itself is canonical
   * base64, since the encoder writes only the alphabet and exact padding. Short values, and
   * long ones that are not canonical, are checked character by character.
   */
  byteSequence(): Uint8Array {
    const s = this.s;
    const open = this.i;
    const start = open + 1;
    const close = s.indexOf(':', start);
    if (close < 0) this.fail('byte sequence is not closed with ":"', open);
    const b64 = s.slice(start, close);
    const bytes = decodeBase64(b64);
    if (close - start <= SHORT_BASE64 || encodeBase64(bytes) !== b64) this.checkBase64(start, close);
    this.i = close + 1;
    return bytes;
  }

  /** The RFC 4648 §4 alphabet, and padding that is absent or complete. */
  checkBase64(start: number, end: number): void {
    const s = this.s;
    let firstPad = -1;
    for (let i = start; i < end; i++) {
      const c = s.charCodeAt(i);
      if (c === EQUALS) {
        if (firstPad < 0) firstPad = i;
      } else if (firstPad >= 0 || !hasClass(c, BASE64)) {
        this.fail(firstPad >= 0 ? 'base64 has characters after its "=" padding' : 'byte sequence contains a character outside the base64 alphabet', i);
      }
    }
    const length = end - start;
    const pad = firstPad < 0 ? 0 : end - firstPad;
    if (pad > 2 || (pad > 0 && length % 4 !== 0) || (length - pad) % 4 === 1) {
      this.fail('byte sequence is not valid base64 (bad length or padding)', start);
    }
  }

  /** §4.2.8 */
  boolean(): boolean {
    const c = this.s.charCodeAt(this.i + 1);
    if (c !== 0x31 && c !== 0x30) this.fail('a boolean is ?1 or ?0');
    this.i += 2;
    return c === 0x31;
  }

  /** RFC 9651 §4.2.9: "@" and an integer number of seconds. */
  date(): Date {
    const at = this.i;
    this.i++;
    const seconds = this.number();
    if (typeof seconds !== 'number') this.fail('a date must be an integer number of seconds', at);
    return new Date(seconds * 1000);
  }

  /** RFC 9651 §4.2.10: %"..." with lower-case %xx escapes of UTF-8 bytes. */
  displayString(): DisplayString {
    const s = this.s;
    const open = this.i;
    if (s.charCodeAt(open + 1) !== DQUOTE) this.fail('a display string starts with %"');
    const bytes: number[] = [];
    let i = open + 2;
    while (i < this.n) {
      const c = s.charCodeAt(i);
      if (c === DQUOTE) {
        this.i = i + 1;
        try {
          return new DisplayString(UTF8.decode(Uint8Array.from(bytes)));
        } catch {
          return this.fail('display string is not valid UTF-8', open);
        }
      }
      if (c < SP || c > 0x7e) this.fail('display string contains a character outside printable ASCII', i);
      if (c === PERCENT) {
        const hi = lowerHex(s.charCodeAt(i + 1));
        const lo = lowerHex(s.charCodeAt(i + 2));
        if (hi < 0 || lo < 0) this.fail('"%" in a display string must be followed by two lower-case hex digits', i);
        bytes.push((hi << 4) | lo);
        i += 3;
      } else {
        bytes.push(c);
        i++;
      }
    }
    return this.fail('display string is not closed with \'"\'', open);
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function lowerHex(c: number): number {
  if (c >= DIGIT_0 && c <= DIGIT_9) return c - DIGIT_0;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  return -1;
}

/** Where parsing stopped, without echoing the field (it may carry signatures): position and one character. */
function describeAt(s: string, at: number): string {
  if (at >= s.length) return `(at the end, character ${at + 1})`;
  const c = s.charCodeAt(at);
  const shown = c > SP && c < 0x7f && c !== DQUOTE && c !== BACKSLASH ? `"${s[at]}"` : `0x${c.toString(16).padStart(2, '0')}`;
  return `(character ${at + 1}: ${shown})`;
}

/**
 * Parses a Dictionary field value (RFC 8941 §4.2.2). Several field lines must be joined with ", "
 * first (§4.2 step 1 of "Parsing Structured Fields").
 * @throws StructuredFieldError
 */
export function parseDictionary(value: string): Dictionary {
  const p = new Parser(value);
  p.skipSP();
  const dict = p.dictionary();
  p.end();
  return dict;
}

/** Parses a List field value (RFC 8941 §4.2.1). @throws StructuredFieldError */
export function parseList(value: string): List {
  const p = new Parser(value);
  p.skipSP();
  const list = p.list();
  p.end();
  return list;
}

/** Parses an Item field value (RFC 8941 §4.2.3). @throws StructuredFieldError */
export function parseItem(value: string): Item {
  const p = new Parser(value);
  p.skipSP();
  const item = p.item();
  p.end();
  return item;
}

/**
 * Parses a dictionary field (RFC 8941 §3.2), turning a malformed value into a Signet rejection.
 * The message names the field and where parsing stopped; it never echoes the value.
 * @param code the rejection code to use when the value is not a valid dictionary
 * @param fieldName the header's name, for the message
 * @param example what a valid value looks like, for the message (@default comma-separated key=value members)
 * @throws SignetError `code`
 * @example parseDictionaryField(header, 'malformed_digest', 'Content-Digest', 'sha-256=:<base64>:')
 */
export function parseDictionaryField(value: string, code: SignetErrorCode, fieldName: string, example?: string): Dictionary {
  try {
    return parseDictionary(value);
  } catch (cause) {
    if (!(cause instanceof StructuredFieldError)) throw cause;
    const advice = example === undefined ? `Send ${fieldName} as comma-separated key=value members` : `Send ${fieldName} like ${example}`;
    return fail(code, `${fieldName} is not a valid RFC 8941 dictionary: ${cause.message}. ${advice}.`, { cause });
  }
}

// ---------------------------------------------------------------------------------------------
// Serialization (RFC 8941 §4.1): canonical form, or a StructuredFieldError for values that have none.

function serializationError(reason: string): never {
  throw new StructuredFieldError(`cannot serialize: ${reason}`, -1);
}

/** True when the member is an inner list. */
export function isInnerList(member: Member): member is InnerList {
  return Array.isArray(member[0]);
}

/** §4.1.2 */
export function serializeDictionary(dict: ReadonlyMap<string, Member>): string {
  let out = '';
  for (const [key, member] of dict) {
    if (out !== '') out += ', ';
    out += serializeKey(key);
    if (member[0] === true) {
      out += serializeParameters(member[1]);
    } else {
      out += '=';
      out += serializeMember(member);
    }
  }
  return out;
}

/** §4.1.1 */
export function serializeList(list: readonly Member[]): string {
  let out = '';
  for (let i = 0; i < list.length; i++) {
    if (i > 0) out += ', ';
    out += serializeMember(list[i]);
  }
  return out;
}

/** One item or inner list (a list or dictionary member's value). */
export function serializeMember(member: Member): string {
  return isInnerList(member) ? serializeInnerList(member) : serializeItem(member);
}

/** §4.1.1.1: `(item item ...)` and the list's parameters. This is RFC 9421's `@signature-params` value. */
export function serializeInnerList(list: readonly [readonly Item[], ReadonlyMap<string, BareItem>]): string {
  const items = list[0];
  let out = '(';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ' ';
    out += serializeItem(items[i]);
  }
  return out + ')' + serializeParameters(list[1]);
}

/** §4.1.3 */
export function serializeItem(item: readonly [BareItem, ReadonlyMap<string, BareItem>]): string {
  return serializeBareItem(item[0]) + serializeParameters(item[1]);
}

/** §4.1.1.2 */
export function serializeParameters(params: ReadonlyMap<string, BareItem>): string {
  if (params.size === 0) return '';
  let out = '';
  for (const [key, value] of params) {
    out += ';';
    out += serializeKey(key);
    if (value !== true) {
      out += '=';
      out += serializeBareItem(value);
    }
  }
  return out;
}

/** §4.1.1.3 */
export function serializeKey(key: string): string {
  if (typeof key !== 'string' || !hasClass(key.charCodeAt(0), KEY_START)) serializationError('a key must start with a lower-case letter or "*"');
  for (let i = 1; i < key.length; i++) {
    if (!hasClass(key.charCodeAt(i), KEY_CHAR)) serializationError('a key may hold only a-z, 0-9, "_", "-", "." and "*"');
  }
  return key;
}

/** §4.1.3.1 */
export function serializeBareItem(value: BareItem): string {
  switch (typeof value) {
    case 'number':
      return Number.isInteger(value) ? serializeInteger(value) : serializeDecimal(value);
    case 'string':
      return serializeString(value);
    case 'boolean':
      return value ? '?1' : '?0';
    case 'object':
      if (value instanceof Token) return serializeToken(value.value);
      if (value instanceof Decimal) return serializeDecimal(value.value);
      if (value instanceof Uint8Array) return `:${encodeBase64(value)}:`;
      if (value instanceof Date) return serializeDate(value);
      if (value instanceof DisplayString) return serializeDisplayString(value.value);
      break;
    default:
      break;
  }
  return serializationError('not a structured field value');
}

/** §4.1.4 */
function serializeInteger(value: number): string {
  if (value > MAX_INTEGER || value < -MAX_INTEGER) serializationError('an integer has at most 15 digits');
  return value === 0 ? '0' : String(value);
}

/**
 * §4.1.5: rounded to 3 fractional digits (half to even, on the decimal digits the number is
 * written with), at most 12 integer digits, at least one fractional digit.
 */
function serializeDecimal(value: number): string {
  if (!Number.isFinite(value)) serializationError('a decimal must be finite');
  const magnitude = Math.abs(value);
  if (magnitude >= 1e12) serializationError('a decimal has at most 12 integer digits');
  // String() gives the shortest digits that round-trip; below 1e-6 it switches to exponent form,
  // and anything that small rounds to 0 anyway.
  const text = magnitude < 1e-6 ? '0' : String(magnitude);
  const dot = text.indexOf('.');
  let integer = dot < 0 ? text : text.slice(0, dot);
  let fraction = dot < 0 ? '' : text.slice(dot + 1);
  if (fraction.length > 3) {
    const rest = fraction.slice(3);
    fraction = fraction.slice(0, 3);
    const first = rest.charCodeAt(0) - DIGIT_0;
    const beyondHalf = first > 5 || (first === 5 && /[1-9]/.test(rest.slice(1)));
    const half = first === 5 && !beyondHalf;
    const lastDigit = (integer + fraction).charCodeAt(integer.length + 2) - DIGIT_0;
    if (beyondHalf || (half && lastDigit % 2 === 1)) {
      const digits = incrementDigits(integer + fraction);
      integer = digits.slice(0, digits.length - 3);
      fraction = digits.slice(digits.length - 3);
    }
  }
  if (integer.length > 12) serializationError('a decimal has at most 12 integer digits');
  fraction = fraction.replace(/0+$/, '');
  const body = `${integer}.${fraction === '' ? '0' : fraction}`;
  return value < 0 && body !== '0.0' ? `-${body}` : body;
}

function incrementDigits(digits: string): string {
  const chars = digits.split('');
  let i = chars.length - 1;
  while (i >= 0 && chars[i] === '9') chars[i--] = '0';
  if (i < 0) return `1${chars.join('')}`;
  chars[i] = String.fromCharCode(chars[i].charCodeAt(0) + 1);
  return chars.join('');
}

/** §4.1.6 */
function serializeString(value: string): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < SP || c > 0x7e) serializationError('a string may hold only printable ASCII (use a display string for other text)');
    if (c === DQUOTE || c === BACKSLASH) {
      out += value.slice(start, i) + '\\';
      start = i; // the escaped character goes out with the next slice
    }
  }
  return out === '"' ? `"${value}"` : `${out}${value.slice(start)}"`;
}

/** §4.1.7 */
function serializeToken(value: string): string {
  if (typeof value !== 'string' || !hasClass(value.charCodeAt(0), TOKEN_START)) serializationError('a token must start with a letter or "*"');
  for (let i = 1; i < value.length; i++) {
    if (!hasClass(value.charCodeAt(i), TOKEN_CHAR)) serializationError('a token holds only tchar, ":" and "/"');
  }
  return value;
}

/** RFC 9651 §4.1.10 */
function serializeDate(value: Date): string {
  const ms = value.getTime();
  if (!Number.isFinite(ms) || ms % 1000 !== 0) serializationError('a date must be a whole number of seconds');
  return `@${serializeInteger(ms / 1000)}`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** RFC 9651 §4.1.11 */
function serializeDisplayString(value: string): string {
  if (LONE_SURROGATE.test(value)) serializationError('a display string must be well-formed Unicode');
  const bytes = new TextEncoder().encode(value);
  let out = '%"';
  for (const byte of bytes) {
    out += byte === PERCENT || byte === DQUOTE || byte < SP || byte > 0x7e ? `%${byte.toString(16).padStart(2, '0')}` : String.fromCharCode(byte);
  }
  return `${out}"`;
}

// ---------------------------------------------------------------------------------------------
// The names the rest of the core already uses.

/** The canonical serialization of an inner list with its parameters (RFC 8941 §4.1.1.1). */
export function serializeInnerListValue(list: InnerList): string {
  return serializeInnerList(list);
}

/** The canonical serialization of a whole dictionary (RFC 8941 §4.1.2). */
export function serializeDictionaryValue(dict: Dictionary): string {
  return serializeDictionary(dict);
}

/** The canonical serialization of one item or inner list (a dictionary member's value). */
export function serializeMemberValue(member: Member): string {
  return serializeMember(member);
}
