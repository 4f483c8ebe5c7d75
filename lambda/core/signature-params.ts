/**
 * Reading one signature out of `Signature-Input` and `Signature` (RFC 9421 §4.1, §4.2):
 * the covered components, the signature parameters (§2.3) and the signature bytes.
 */
// Imported, not the global: Node defines globalThis.Buffer as a getter, which each read of the
// global calls (about 200 instructions on every request's signature decode).
import { Buffer } from 'node:buffer';
import { SIGNATURE_ALGORITHMS } from './algorithm-names';
import { DEFAULT_MAX_COVERED_COMPONENTS, MAX_SIGNATURE_HEADER_BYTES, SIGNATURE_LABEL } from './defaults';
import { fail } from './errors';
import type { ComponentId } from './types';
import { type Dictionary, InnerList, isDigit, isInnerList, isKeyChar, isKeyStart, parseDictionaryField, serializeItem, serializeParameters } from './structured-fields';

export type { ComponentId } from './types';

/** One signature's declared input. */
export interface SignatureInput {
  readonly label: string;
  readonly covered: readonly ComponentId[];
  /** `created`, unix seconds, when present and an integer. */
  readonly created?: number;
  readonly expires?: number;
  readonly keyid?: string;
  readonly alg?: string;
  readonly nonce?: string;
  readonly tag?: string;
  /** The `@signature-params` value: the canonical serialization of the inner list and its parameters. */
  readonly signatureParams: string;
}

/**
 * The components of a covered list already read, by the list's canonical text (`("@method" "date")`),
 * or undefined: a reader that has one (a Verifier keeps them) skips reading a list it has seen.
 * It must only answer with the components a reader gave for exactly that text.
 */
export type KnownCoveredLists = (listText: string) => readonly ComponentId[] | undefined;

/**
 * Parses the Signature-Input field and returns the member `label`.
 * @param maxComponents the most components the member may cover (see DEFAULT_MAX_COVERED_COMPONENTS)
 * @param knownLists covered lists read before (the result is the same with or without them)
 * @throws SignetError `malformed_signature_input`, `signature_label_missing`, `invalid_signature_input` (too many components)
 */
export function readSignatureInput(fieldValue: string, label: string, maxComponents: number = DEFAULT_MAX_COVERED_COMPONENTS, knownLists?: KnownCoveredLists): SignatureInput {
  return readCanonicalSignatureInput(fieldValue, label, maxComponents, knownLists) ?? parseSignatureInputMember(fieldValue, label, maxComponents);
}

/**
 * One pass over a Signature-Input member in canonical form (the usual signer's), or undefined when
 * the text is not in that form: then only the full parse ({@link parseSignatureInputField}) can
 * read it, and give the precise refusal.
 * @throws SignetError `malformed_signature_input` when the field is over the size limit
 */
export function readCanonicalSignatureInput(fieldValue: string, label: string, maxComponents: number, knownLists?: KnownCoveredLists): SignatureInput | undefined {
  guardSize(fieldValue, 'Signature-Input', 'malformed_signature_input');
  return canonicalSignatureInput(fieldValue, label, maxComponents, knownLists);
}

/**
 * The full RFC 8941 parse of a Signature-Input field: what every member is read from when the
 * field is not in canonical form. A request's SignatureSet makes it at most once.
 * @throws SignetError `malformed_signature_input`
 */
export function parseSignatureInputField(fieldValue: string): Dictionary {
  guardSize(fieldValue, 'Signature-Input', 'malformed_signature_input');
  return parseDictionaryField(fieldValue, 'malformed_signature_input', 'Signature-Input', 'sig=("@method" "@target-uri" "date");created=<unix seconds>;keyid="<clientId>";alg="rsa-v1_5-sha256"');
}

/**
 * The reference path of {@link readSignatureInput}: the full RFC 8941 parse, used for every text
 * not in canonical form (and by the tests that check the fast path agrees with it).
 */
export function parseSignatureInputMember(fieldValue: string, label: string, maxComponents: number = DEFAULT_MAX_COVERED_COMPONENTS): SignatureInput {
  return signatureInputMember(parseSignatureInputField(fieldValue), label, maxComponents);
}

/**
 * Member `label` of a parsed Signature-Input field, read as {@link readSignatureInput} reads it.
 * @throws SignetError `signature_label_missing`, `malformed_signature_input`, `invalid_signature_input` (too many components)
 */
export function signatureInputMember(dict: Dictionary, label: string, maxComponents: number): SignatureInput {
  const member = dict.get(label);
  if (member === undefined) {
    fail('signature_label_missing', `Signature-Input has no "${label}" signature${labelsNote(dict.keys())}. Sign with the label ${label}=(...).`);
  }
  if (!isInnerList(member)) {
    fail('malformed_signature_input', `Signature-Input ${label} must be an inner list of components, e.g. ${label}=("@method" "@target-uri" "date");created=...`);
  }
  return toSignatureInput(label, member, maxComponents);
}

/** One signature named in Signature-Input: its label and the keyid it gives, if any. */
export interface SignatureMemberSummary {
  readonly label: string;
  readonly keyid?: string;
  /** How many components it covers (0 when it is not an inner list). */
  readonly components: number;
  /** Its `created` parameter, when it is an integer. */
  readonly created?: number;
}

/**
 * The signatures Signature-Input declares, in order, with their keyids and `created`: what a verifier that
 * accepts any label reads first to pick the signature it can check (RFC 9421 §3.2 leaves the
 * choice to it). A member that is not an inner list, or whose keyid is not a string, has no keyid.
 * @param maxMembers the most signatures read (each may cost a registry lookup)
 * @throws SignetError `malformed_signature_input`, `invalid_signature_input` (more than `maxMembers`)
 */
export function listSignatureMembers(fieldValue: string, maxMembers: number): SignatureMemberSummary[] {
  return signatureMembersOf(parseSignatureInputField(fieldValue), maxMembers);
}

/** {@link listSignatureMembers} of a parsed Signature-Input field. @throws SignetError `invalid_signature_input` (more than `maxMembers`) */
export function signatureMembersOf(dict: Dictionary, maxMembers: number): SignatureMemberSummary[] {
  if (dict.size > maxMembers) {
    fail('invalid_signature_input', `Signature-Input declares ${dict.size} signatures; Signet reads at most ${maxMembers}. Send only the signature(s) this API checks.`);
  }
  const members: SignatureMemberSummary[] = [];
  for (const [label, member] of dict) {
    const keyid = isInnerList(member) ? member[1].get('keyid') : undefined;
    const created = isInnerList(member) ? member[1].get('created') : undefined;
    const components = isInnerList(member) ? member[0].length : 0;
    members.push({
      label,
      components,
      ...(typeof keyid === 'string' ? { keyid } : {}),
      ...(typeof created === 'number' && Number.isInteger(created) ? { created } : {}),
    });
  }
  return members;
}

/**
 * Refuses a signature that covers more than `maxComponents` components: each one costs work
 * before the key is known, so the count bounds what a stranger's request can cost.
 * @throws SignetError `invalid_signature_input`
 */
export function checkComponentCount(label: string, count: number, maxComponents: number): void {
  if (count > maxComponents) {
    fail(
      'invalid_signature_input',
      `Signature-Input ${label} covers ${count} components; Signet verifies at most ${maxComponents} (SIGNET_MAX_COVERED_COMPONENTS). Cover only what the scheme needs: ("@method" "@target-uri" "content-digest" "date").`,
    );
  }
}

/**
 * Parses the Signature field and returns the signature bytes of member `label`.
 * @throws SignetError `malformed_signature`, `signature_label_missing`
 */
export function readSignatureValue(fieldValue: string, label: string): Buffer {
  return readCanonicalSignatureValue(fieldValue, label) ?? parseSignatureMember(fieldValue, label);
}

/**
 * The bytes of a Signature field that holds only member `label`, in canonical form, or undefined:
 * then only the full parse ({@link parseSignatureField}) can read it.
 * @throws SignetError `malformed_signature` when the field is over the size limit
 */
export function readCanonicalSignatureValue(fieldValue: string, label: string): Buffer | undefined {
  guardSize(fieldValue, 'Signature', 'malformed_signature');
  return canonicalSignatureValue(fieldValue, label);
}

/**
 * The full RFC 8941 parse of a Signature field. A request's SignatureSet makes it at most once.
 * @throws SignetError `malformed_signature`
 */
export function parseSignatureField(fieldValue: string): Dictionary {
  guardSize(fieldValue, 'Signature', 'malformed_signature');
  return parseDictionaryField(fieldValue, 'malformed_signature', 'Signature', 'sig=:<base64 signature>:');
}

/** The reference path of {@link readSignatureValue}: the full RFC 8941 parse. */
export function parseSignatureMember(fieldValue: string, label: string): Buffer {
  return signatureValueMember(parseSignatureField(fieldValue), label);
}

/** The signature bytes of member `label` of a parsed Signature field. @throws SignetError `signature_label_missing`, `malformed_signature` */
export function signatureValueMember(dict: Dictionary, label: string): Buffer {
  const member = dict.get(label);
  if (member === undefined) {
    fail('signature_label_missing', `Signature has no "${label}" value${labelsNote(dict.keys())}. Send Signature: ${label}=:<base64>:.`);
  }
  const value = member[0];
  if (isInnerList(member) || !(value instanceof Uint8Array)) {
    fail('malformed_signature', `Signature ${label} must be a byte sequence: ${label}=:<base64 signature>:.`);
  }
  if (value.byteLength === 0) fail('malformed_signature', `Signature ${label} is empty.`);
  return Buffer.isBuffer(value) ? value : Buffer.from(value);
}

function toSignatureInput(label: string, member: InnerList, maxComponents: number): SignatureInput {
  const [items, params] = member;
  checkComponentCount(label, items.length, maxComponents);
  const covered: ComponentId[] = [];
  const seen = new Set<string>();
  for (const [name, itemParams] of items) {
    if (typeof name !== 'string') {
      fail('malformed_signature_input', `Signature-Input ${label}: every covered component must be a quoted string such as "@method".`);
    }
    if (name !== name.toLowerCase()) {
      fail('malformed_signature_input', `Signature-Input ${label}: component ${JSON.stringify(name)} must be lower case (RFC 9421 §2.1).`);
    }
    const serialized = serializeItem([name, itemParams]);
    if (seen.has(serialized)) {
      fail('malformed_signature_input', `Signature-Input ${label}: component ${serialized} is listed twice (RFC 9421 §2.5).`);
    }
    seen.add(serialized);
    covered.push({ name: asConstant(name, KNOWN_COMPONENT_NAMES), params: itemParams, serialized });
  }
  const created = integerParam(params.get('created'), 'created', label);
  const expires = integerParam(params.get('expires'), 'expires', label);
  return {
    label,
    covered,
    created,
    expires,
    keyid: stringParam(params.get('keyid'), 'keyid', label),
    alg: stringParam(params.get('alg'), 'alg', label),
    nonce: stringParam(params.get('nonce'), 'nonce', label),
    tag: stringParam(params.get('tag'), 'tag', label),
    // §2.3: the inner list serialized canonically; its items are the identifiers built above.
    signatureParams: `(${covered.map((c) => c.serialized).join(' ')})${serializeParameters(params)}`,
  };
}

function integerParam(value: unknown, name: string, label: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    fail('malformed_signature_input', `Signature-Input ${label}: ${name} must be an integer (unix seconds), e.g. ${name}=1700000000.`);
  }
  return value;
}

function stringParam(value: unknown, name: string, label: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    fail('malformed_signature_input', `Signature-Input ${label}: ${name} must be a quoted string, e.g. ${name}="...".`);
  }
  return value;
}

function guardSize(value: string, field: string, code: 'malformed_signature_input' | 'malformed_signature'): void {
  if (value.length > MAX_SIGNATURE_HEADER_BYTES) {
    fail(code, `${field} is ${value.length} bytes; Signet reads at most ${MAX_SIGNATURE_HEADER_BYTES}. Send only the signature(s) you need.`);
  }
}

function labelsNote(labels: Iterable<string>): string {
  const list = [...labels].slice(0, 5).map((l) => JSON.stringify(l.slice(0, 32)));
  return list.length === 0 ? '' : ` (labels found: ${list.join(', ')})`;
}

// --- Fast paths for fields already in canonical form -------------------------------------------
//
// Almost every signer sends exactly one member, serialized canonically (RFC 8941 §4.1), e.g.
// sig=("@method" "@target-uri" "date");created=1;keyid="c_x";alg="rsa-v1_5-sha256". For such
// text the full parser's result is known without building dictionaries: the components are the
// quoted names, the parameters are the `;key=value` pairs, and the @signature-params value (the
// re-serialization) is the text after `label=`. The readers admit only characters whose
// serialization is themselves (no escapes, no leading zeros, lower-case names). Anything else,
// and anything the checks below would refuse, goes through the full parser, which gives the
// precise error; test/core/signature-params-fast-path.test.ts checks both paths agree.

const NO_PARAMS: ReadonlyMap<string, unknown> = new Map();

/** Parameters RFC 9421 does not define that the one-pass reader takes (besides its six, each once); more go to the full parser. */
const FAST_PATH_MAX_PARAMETERS = 8;

/**
 * The parameters of Signet's signers, `;created=<n>;keyid="<id>";alg="<name>"`, in canonical
 * form: an integer of 1 to 15 digits without a leading zero, Strings of the characters that
 * serialize as themselves (printable ASCII but `"` and `\`). Whatever else follows the list is
 * read by the loop below it.
 */
const SIGNET_PARAMETERS = /^;created=(0|[1-9][0-9]{0,14});keyid="([\x20\x21\x23-\x5b\x5d-\x7e]*)";alg="([\x20\x21\x23-\x5b\x5d-\x7e]*)"$/;

/** An RFC 8941 key: lcalpha or "*", then lcalpha, DIGIT, "_", "-", ".", "*". */
const KEY = /^[a-z*][a-z0-9_.*-]*$/;

/** Characters a component name may have for its quoted form to be its own serialization (lower case). */
function isNameChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || isDigit(c) || c === 0x40 || c === 0x5f || c === 0x2d || c === 0x2e;
}

/** Printable ASCII that a String serializes as itself (no `"` and no `\`). */
function isPlainStringChar(c: number): boolean {
  return c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c;
}

/**
 * Reads `label=("name" ...);key=value...` in one pass over the text, or returns undefined as soon
 * as anything is not in the canonical form described above (or would be refused: duplicate
 * components or parameters, an integer parameter given as a string, or the reverse).
 */
function canonicalSignatureInput(text: string, label: string, maxComponents: number, knownLists: KnownCoveredLists | undefined): SignatureInput | undefined {
  const n = text.length;
  if (!text.startsWith(label) || text.charCodeAt(label.length) !== 0x3d /* = */ || text.charCodeAt(label.length + 1) !== 0x28 /* ( */ || (label !== SIGNATURE_LABEL && !KEY.test(label))) {
    return undefined;
  }
  let i = label.length + 2;
  // A list seen before is known by its text up to the first ")": canonical names hold none, and a
  // known text is a whole canonical list, so reading the components again would give the same ones.
  const close = knownLists === undefined ? -1 : text.indexOf(')', i);
  const known = close < 0 ? undefined : knownLists?.(text.slice(label.length + 1, close + 1));
  let covered: readonly ComponentId[];
  if (known !== undefined && known.length <= maxComponents) {
    covered = known;
    i = close;
  } else {
    const read: ComponentId[] = [];
    covered = read;
    if (text.charCodeAt(i) !== 0x29 /* ) */) {
      for (;;) {
        if (text.charCodeAt(i) !== 0x22 /* " */) return undefined;
        const open = i++;
        while (isNameChar(text.charCodeAt(i))) i++;
        if (i === open + 1 || text.charCodeAt(i) !== 0x22) return undefined;
        const serialized = text.slice(open, ++i);
        // Past the cap the full parser gives the refusal (and the duplicate scan stays short).
        if (read.length === maxComponents) return undefined;
        for (const c of read) if (c.serialized === serialized) return undefined;
        read.push({ name: asConstant(serialized.slice(1, -1), KNOWN_COMPONENT_NAMES), params: NO_PARAMS, serialized });
        const next = text.charCodeAt(i);
        if (next === 0x29) break;
        if (next !== 0x20 /* SP */) return undefined;
        i++;
      }
    }
  }
  i++;
  // Signet's signers send three parameters, in this order: one native match reads them.
  const signet = SIGNET_PARAMETERS.exec(text.slice(i));
  if (signet !== null) {
    return { label, covered, created: Number(signet[1]), expires: undefined, keyid: signet[2], alg: asConstant(signet[3], SIGNATURE_ALGORITHMS), nonce: undefined, tag: undefined, signatureParams: text.slice(label.length + 1) };
  }
  // The parameters go into locals, not an object keyed by name: a keyed store per parameter cost
  // more than reading it. A parameter RFC 9421 defines is told by its name in place (no copy of
  // it), and read at most once (a bit each in `seen`); another is kept by name for the duplicate check.
  let created: number | undefined;
  let expires: number | undefined;
  let keyid: string | undefined;
  let alg: string | undefined;
  let nonce: string | undefined;
  let tag: string | undefined;
  let seen = 0;
  let others: string[] | undefined;
  while (i < n) {
    if (text.charCodeAt(i) !== 0x3b /* ; */) return undefined;
    const keyStart = ++i;
    if (!isKeyStart(text.charCodeAt(i))) return undefined;
    while (isKeyChar(text.charCodeAt(i))) i++;
    const param = definedParameter(text, keyStart, i);
    if (text.charCodeAt(i++) !== 0x3d /* = */) return undefined;
    if (param !== 0) {
      if ((seen & param) !== 0) return undefined;
      seen |= param;
    } else {
      // Past a handful of other parameters the full parser (linear) reads the rest: the duplicate scan stays short.
      const key = text.slice(keyStart, i - 1);
      others ??= [];
      if (others.length === FAST_PATH_MAX_PARAMETERS || others.includes(key)) return undefined;
      others.push(key);
    }
    if (text.charCodeAt(i) === 0x22) {
      const start = ++i;
      while (isPlainStringChar(text.charCodeAt(i))) i++;
      if (text.charCodeAt(i) !== 0x22) return undefined;
      const value = text.slice(start, i++);
      switch (param) {
        case CREATED:
        case EXPIRES:
          return undefined;
        case KEYID:
          keyid = value;
          break;
        case ALG:
          // A name Signet verifies is kept as its constant: every later comparison with it is then by identity.
          alg = asConstant(value, SIGNATURE_ALGORITHMS);
          break;
        case NONCE:
          nonce = value;
          break;
        case TAG:
          tag = value;
          break;
      }
    } else {
      // 0, or an optional minus and 1 to 15 digits without a leading zero: exact as a double, summed as read.
      const start = i;
      if (text.charCodeAt(i) === 0x2d /* - */) i++;
      const digitsStart = i;
      let value = 0;
      for (let c = text.charCodeAt(i); isDigit(c); c = text.charCodeAt(++i)) value = value * 10 + (c - 0x30);
      const digits = i - digitsStart;
      if (digits === 0 || digits > 15 || (text.charCodeAt(digitsStart) === 0x30 && (digits > 1 || digitsStart > start))) return undefined;
      if (digitsStart > start) value = -value;
      switch (param) {
        case KEYID:
        case ALG:
        case NONCE:
        case TAG:
          return undefined;
        case CREATED:
          created = value;
          break;
        case EXPIRES:
          expires = value;
          break;
      }
    }
  }
  return { label, covered, created, expires, keyid, alg, nonce, tag, signatureParams: text.slice(label.length + 1) };
}

/** The parameters RFC 9421 §2.3 defines, one bit each (see {@link definedParameter}). */
const CREATED = 1;
const EXPIRES = 2;
const KEYID = 4;
const ALG = 8;
const NONCE = 16;
const TAG = 32;

/** Which parameter RFC 9421 defines `text.slice(start, end)` names (one of the bits above), or 0 for another name. */
function definedParameter(text: string, start: number, end: number): number {
  switch (end - start) {
    case 7:
      return text.startsWith('created', start) ? CREATED : text.startsWith('expires', start) ? EXPIRES : 0;
    case 5:
      return text.startsWith('keyid', start) ? KEYID : text.startsWith('nonce', start) ? NONCE : 0;
    case 3:
      return text.startsWith('alg', start) ? ALG : text.startsWith('tag', start) ? TAG : 0;
    default:
      return 0;
  }
}

/**
 * The derived components Signet computes and the fields signers usually cover. A name read from a
 * request is swapped for its constant here, once per parsed list: every base built after that looks
 * the header up and compares the name with V8's one copy of the literal, which costs less than
 * with a copy cut from the request (a keyed lookup by a copy first has to find V8's).
 */
const KNOWN_COMPONENT_NAMES: readonly string[] = [
  '@method',
  '@target-uri',
  '@authority',
  '@scheme',
  '@request-target',
  '@path',
  '@query',
  '@query-param',
  'content-digest',
  'content-type',
  'content-length',
  'date',
  'x-date',
  'host',
  'signature-agent',
];

/** `name` as the constant of `constants` it equals (the literal itself, see KNOWN_COMPONENT_NAMES), else `name` itself. */
function asConstant(name: string, constants: readonly string[]): string {
  for (const known of constants) if (known === name) return known;
  return name;
}

function canonicalSignatureValue(fieldValue: string, label: string): Buffer | undefined {
  const start = label.length + 2;
  const end = fieldValue.length - 1;
  if (end - start < 4 || !fieldValue.startsWith(label) || fieldValue.charCodeAt(label.length) !== 0x3d /* = */) return undefined;
  if (fieldValue.charCodeAt(start - 1) !== 0x3a /* : */ || fieldValue.charCodeAt(end) !== 0x3a) return undefined;
  // Node's decoder is lenient: it skips characters outside the alphabet (so the output comes out
  // shorter than the length implies) and also reads base64url's "-" and "_". Text of a multiple
  // of four characters that decodes to exactly its implied length and holds neither "-" nor "_"
  // is therefore all alphabet, with padding only at the end: what the full parser accepts, with
  // the same bytes. Anything else goes to the full parser. Two native scans and one decode cost
  // less than a tenth of checking the characters one by one in JavaScript.
  const text = fieldValue.slice(start, end);
  if (text.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(text, 'base64');
  const padding = text.charCodeAt(text.length - 1) !== 0x3d ? 0 : text.charCodeAt(text.length - 2) !== 0x3d ? 1 : 2;
  return bytes.length === (text.length / 4) * 3 - padding && text.indexOf('-') < 0 && text.indexOf('_') < 0 ? bytes : undefined;
}
