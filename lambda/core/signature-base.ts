/**
 * The signature base (RFC 9421 §2.5): one line per covered component, in the order the signer
 * declared them, `"<identifier>": <value>`, joined with LF, no trailing LF, ending with the
 * `"@signature-params"` line.
 *
 * Derived components (§2.2) supported: @method, @target-uri, @authority, @scheme,
 * @request-target, @path, @query, @query-param. HTTP fields (§2.1), with the `sf` and `key`
 * parameters for the fields Signet knows the type of. (`bs` needs the individual field lines,
 * which API Gateway has already joined, so it is refused.) Anything else is refused with
 * `unsupported_component`, never guessed.
 */
import { fail } from './errors';
import { Dictionary, parseDictionaryField, serializeDictionaryValue, serializeMemberValue } from './structured-fields';
import type { ComponentId, SignedRequest } from './types';

/**
 * Fields whose Structured Field type Signet knows: all are dictionaries. `signature-agent` (Web
 * Bot Auth) is one too, except in its legacy bare-String form, which is covered without `key`.
 */
const DICTIONARY_FIELDS: ReadonlySet<string> = new Set(['content-digest', 'repr-digest', 'signature-input', 'signature', 'want-content-digest', 'signature-agent']);

/**
 * Builds the signature base for `covered` over `req`.
 * @param signatureParams the `@signature-params` value (the serialized inner list with parameters)
 * @throws SignetError `absent_component` when a covered component is not in the request,
 *   `unsupported_component` for components or parameters Signet does not implement
 */
export function buildSignatureBase(req: SignedRequest, covered: readonly ComponentId[], signatureParams: string): string {
  return buildBaseWithHeads(req, covered, baseHeads(covered), signatureParams);
}

/**
 * The text of a base over `covered` that no request changes: what precedes each component's value
 * (its identifier, after a line break from the second line on), then what precedes the
 * `@signature-params` value. A verifier keeps them with each covered list it memoizes, so that a
 * base is its values joined into these: half the concatenations of building every line anew.
 */
export function baseHeads(covered: readonly ComponentId[]): readonly string[] {
  const heads = covered.map((component, i) => `${i === 0 ? '' : '\n'}${component.serialized}: `);
  heads.push(`${covered.length === 0 ? '' : '\n'}"@signature-params": `);
  // Read-only by its type, not frozen: V8 reads a frozen array's elements by a slower path, and
  // every base reads each of them.
  return heads;
}

/** {@link buildSignatureBase} with the {@link baseHeads} of `covered` already made. */
export function buildBaseWithHeads(req: SignedRequest, covered: readonly ComponentId[], heads: readonly string[], signatureParams: string): string {
  let base = '';
  const target = new TargetParts(req.targetUri, covered);
  for (let i = 0; i < covered.length; i++) {
    base += heads[i];
    base += componentValue(req, covered[i], target);
  }
  base += heads[covered.length];
  base += signatureParams;
  // A value with a line break would forge extra lines. Identifiers and @signature-params cannot
  // hold one (they are parsed Structured Field strings), so the base must have exactly one LF per
  // component and no CR; checking the whole base once is cheaper than checking every value.
  if (!hasOnlyItsOwnLineBreaks(base, covered.length)) {
    const broken = covered.find((component) => /[\r\n]/.test(componentValue(req, component, target)));
    fail('absent_component', `The value of ${broken?.serialized ?? 'a covered component'} contains a line break, which cannot be signed.`);
  }
  return base;
}

/**
 * What the components of one base read, each parsed at most once per base and only when a covered
 * component needs it: the target URI, its query (however many `@query-param` components are
 * covered, the query is read once) and dictionary header fields (however many `;key` members).
 */
class TargetParts {
  private parsedUrl: URL | undefined;
  private parsedQuery: ReadonlyMap<string, readonly string[]> | undefined;
  private parsedFields: Map<string, Dictionary> | undefined;

  constructor(
    private readonly targetUri: string,
    private readonly covered: readonly ComponentId[],
  ) {}

  get url(): URL {
    return (this.parsedUrl ??= parseTarget(this.targetUri));
  }

  /**
   * The values (as sent, not yet re-encoded) of every query parameter a covered `@query-param`
   * names, by form-encoded name (§2.2.8), in query order. Names nobody asked for are not kept.
   */
  get query(): ReadonlyMap<string, readonly string[]> {
    if (this.parsedQuery !== undefined) return this.parsedQuery;
    const wanted = new Map<string, string[]>();
    for (const { name, params } of this.covered) {
      const param = params.get('name');
      if (name === '@query-param' && typeof param === 'string') wanted.set(param, []);
    }
    for (const [key, value] of new URLSearchParams(this.url.search)) wanted.get(formEncode(key))?.push(value);
    return (this.parsedQuery = wanted);
  }

  /** A dictionary header field (`value`, already trimmed, of field `name`), parsed once however many of its members are covered. */
  dictionary(name: string, value: string): Dictionary {
    this.parsedFields ??= new Map();
    let dict = this.parsedFields.get(name);
    if (dict === undefined) {
      dict = parseDictionaryField(value, 'absent_component', name);
      this.parsedFields.set(name, dict);
    }
    return dict;
  }
}

function hasOnlyItsOwnLineBreaks(base: string, lines: number): boolean {
  if (base.indexOf('\r') !== -1) return false;
  let at = -1;
  for (let n = 0; n <= lines; n++) {
    at = base.indexOf('\n', at + 1);
    if (at === -1) return n === lines;
  }
  return false;
}

/** The value of one component (`@query-param` needs exactly one occurrence of its parameter). */
function componentValue(req: SignedRequest, component: ComponentId, target: TargetParts): string {
  const { name, params } = component;
  if (name.charCodeAt(0) === 0x40 /* @ */) return derivedValue(req, component, target);
  // Parameters are rare (none in the profile): skip the Map walks when there are none.
  if (params.size > 0) {
    for (const key of params.keys()) {
      if (key !== 'sf' && key !== 'key') {
        fail('unsupported_component', `Component ${component.serialized}: the parameter "${key}" is not supported by Signet.`);
      }
    }
  }
  const raw = req.headers[name];
  if (raw === undefined) {
    fail('absent_component', `The signature covers "${name}" but the request has no ${name} header. Send the header or stop covering it.`);
  }
  // RFC 9421 §2.1: strip leading and trailing whitespace, which in HTTP is SP and HTAB only (RFC 9110 §5.6.3).
  const value = trimOws(raw);
  if (params.size > 0 && (params.has('sf') || params.has('key'))) {
    if (!DICTIONARY_FIELDS.has(name)) {
      fail('unsupported_component', `Component ${component.serialized}: Signet does not know the structured type of "${name}".`);
    }
    const dict = target.dictionary(name, value);
    const key = params.get('key');
    if (key === undefined) return serializeDictionaryValue(dict);
    const member = typeof key === 'string' ? dict.get(key) : undefined;
    if (member === undefined) {
      fail('absent_component', `Component ${component.serialized}: the ${name} header has no member ${JSON.stringify(String(key))}.`);
    }
    return serializeMemberValue(member);
  }
  return value;
}

function derivedValue(req: SignedRequest, component: ComponentId, target: TargetParts): string {
  const { name, params } = component;
  const allowed = name === '@query-param' ? 1 : 0;
  if (params.size > allowed || (allowed === 1 && !params.has('name'))) {
    fail('unsupported_component', `Component ${component.serialized}: these parameters are not supported on ${name}.`);
  }
  switch (name) {
    case '@method':
      return req.method;
    case '@target-uri':
      return req.targetUri;
    case '@authority':
      return target.url.host;
    case '@scheme':
      return target.url.protocol.slice(0, -1);
    case '@request-target':
      // WHATWG URL drops the "?" of an empty query; the request line keeps it (§2.2.5).
      return target.url.pathname + (target.url.search === '' && hasEmptyQuery(req.targetUri) ? '?' : target.url.search);
    case '@path':
      return target.url.pathname || '/';
    case '@query':
      return target.url.search === '' ? '?' : target.url.search;
    case '@query-param':
      return queryParam(target, component);
    default:
      return fail('unsupported_component', `Component "${name}" is not a request component Signet supports.`);
  }
}

/** §2.2.8: the named parameter's value, form-decoded then percent-encoded again. One occurrence only. */
function queryParam(target: TargetParts, component: ComponentId): string {
  const wanted = component.params.get('name');
  if (typeof wanted !== 'string') {
    fail('unsupported_component', `Component ${component.serialized}: name must be a string.`);
  }
  const values = target.query.get(wanted) ?? [];
  if (values.length !== 1) {
    fail('absent_component', `Component ${component.serialized}: the query has ${values.length} parameters named ${JSON.stringify(wanted.slice(0, 64))}; exactly one is needed.`);
  }
  return formEncode(values[0]);
}

const FORM_SAFE = /^[A-Za-z0-9*\-._]*$/;

/** Percent-encodes everything outside the application/x-www-form-urlencoded safe set, space as %20. */
function formEncode(text: string): string {
  if (FORM_SAFE.test(text)) return text;
  let out = '';
  for (const byte of new TextEncoder().encode(text)) {
    const ch = String.fromCharCode(byte);
    out += /[A-Za-z0-9*\-._]/.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** `value` without leading and trailing SP / HTAB (HTTP's OWS, RFC 9110 §5.6.3), in one linear scan. */
export function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && (value.charCodeAt(start) === 0x20 || value.charCodeAt(start) === 0x09)) start++;
  while (end > start && (value.charCodeAt(end - 1) === 0x20 || value.charCodeAt(end - 1) === 0x09)) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/** True when the URL ends its path with a bare "?" (an empty query), fragment aside. */
function hasEmptyQuery(targetUri: string): boolean {
  const withoutFragment = targetUri.split('#', 1)[0];
  return withoutFragment.endsWith('?') && withoutFragment.indexOf('?') === withoutFragment.length - 1;
}

function parseTarget(targetUri: string): URL {
  try {
    return new URL(targetUri);
  } catch (cause) {
    fail('absent_component', 'The request URL could not be parsed, so its URL components cannot be signed.', { cause });
  }
}

