/**
 * Reading one signature out of `Signature-Input` and `Signature` (RFC 9421 §4.1, §4.2):
 * the covered components, the signature parameters (§2.3) and the signature bytes.
 */
import { MAX_SIGNATURE_HEADER_BYTES } from './defaults';
import { fail } from './errors';
import { InnerList, isInnerList, parseDictionaryField, serializeItem, serializeParameters } from './structured-fields';

/** One covered component identifier (RFC 9421 §2): a name, and its parameters (e.g. `name` for @query-param). */
export interface ComponentId {
  /** Lower-case field name, or a derived component name starting with `@`. */
  readonly name: string;
  readonly params: ReadonlyMap<string, unknown>;
  /** The identifier as it appears in the base: `"name"` plus serialized parameters. */
  readonly serialized: string;
}

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

/** Every label present in a Signature-Input value (for messages). */
export type Labels = readonly string[];

/**
 * Parses the Signature-Input field and returns the member `label`.
 * @throws SignetError `malformed_signature_input`, `signature_label_missing`
 */
export function readSignatureInput(fieldValue: string, label: string): SignatureInput {
  guardSize(fieldValue, 'Signature-Input', 'malformed_signature_input');
  const dict = parseDictionaryField(fieldValue, 'malformed_signature_input', 'Signature-Input', `${label}=("@method" "@target-uri" "date");created=<unix seconds>;keyid="<clientId>";alg="rsa-v1_5-sha256"`);
  const member = dict.get(label);
  if (member === undefined) {
    fail('signature_label_missing', `Signature-Input has no "${label}" signature${labelsNote(dict.keys())}. Sign with the label ${label}=(...).`);
  }
  if (!isInnerList(member)) {
    fail('malformed_signature_input', `Signature-Input ${label} must be an inner list of components, e.g. ${label}=("@method" "@target-uri" "date");created=...`);
  }
  return toSignatureInput(label, member);
}

/**
 * Parses the Signature field and returns the signature bytes of member `label`.
 * @throws SignetError `malformed_signature`, `signature_label_missing`
 */
export function readSignatureValue(fieldValue: string, label: string): Buffer {
  guardSize(fieldValue, 'Signature', 'malformed_signature');
  const dict = parseDictionaryField(fieldValue, 'malformed_signature', 'Signature', `${label}=:<base64 signature>:`);
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

function toSignatureInput(label: string, member: InnerList): SignatureInput {
  const [items, params] = member;
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
    covered.push({ name, params: itemParams, serialized });
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
