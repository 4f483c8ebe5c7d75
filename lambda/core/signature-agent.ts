/**
 * The `Signature-Agent` request field of Web Bot Auth (draft-meunier-webbotauth-httpsig-protocol,
 * "Signature-Agent"): where the agent's keys are published. A Structured Field dictionary whose members are
 * String items (`sig1="https://agent.example"`), one per signature label; or, as earlier drafts
 * sent it and agents still do, one bare String (`"https://agent.example"`), which stands for a
 * single member keyed to the label of the signature that covers it. The two are told apart by the
 * first character: a String begins with `"`, a dictionary key never does.
 *
 * A signature may name an agent only by covering it: the member keyed to its label, as
 * `"signature-agent";key="<label>"` (or the whole field); in the legacy form the bare
 * `"signature-agent"`. When the dictionary has no member for the label, the one member the
 * signature covers names its agent (the drafts' own examples sign member `agent2` under label
 * `sig2`). A present field that the signature does not cover, or covers ambiguously, is refused
 * (`signature_agent_mismatch`): nothing in it may be attributed to the signature.
 */
import { fail } from './errors';
import { type Dictionary, type Item, type Member, StructuredFieldError, isInnerList, parseDictionary, parseItem } from './structured-fields';
import type { ComponentId } from './types';

/** The field's name as covered components and header maps spell it. */
export const SIGNATURE_AGENT_FIELD = 'signature-agent';

/** The field as read: its members (label → URL), or the legacy single String. */
export type SignatureAgentField =
  | { readonly form: 'dictionary'; readonly members: ReadonlyMap<string, string> }
  | { readonly form: 'legacy'; readonly url: string };

/** The longest field value read, in characters: a few URLs. */
const MAX_FIELD_CHARS = 4_096;

/**
 * Reads a `Signature-Agent` value.
 * @throws SignetError `signature_agent_mismatch` when it is neither a dictionary of String items nor one String
 */
export function readSignatureAgentField(value: string): SignatureAgentField {
  const text = value.trim();
  if (text.length > MAX_FIELD_CHARS) fail('signature_agent_mismatch', `The Signature-Agent header is longer than ${MAX_FIELD_CHARS} characters; send one member per signature, e.g. sig1="https://agent.example".`);
  if (text.startsWith('"')) {
    let item: Item;
    try {
      item = parseItem(text);
    } catch (error) {
      if (!(error instanceof StructuredFieldError)) throw error;
      return malformed();
    }
    if (typeof item[0] !== 'string') return malformed();
    return { form: 'legacy', url: item[0] };
  }
  let dict: Dictionary;
  try {
    dict = parseDictionary(text);
  } catch (error) {
    if (!(error instanceof StructuredFieldError)) throw error;
    return malformed();
  }
  const members = new Map<string, string>();
  for (const [key, member] of dict) {
    const url = stringOf(member);
    if (url === undefined) {
      fail('signature_agent_mismatch', `Signature-Agent member "${key.slice(0, 40)}" is not a String; each member is a quoted URL, e.g. ${key.slice(0, 40)}="https://agent.example".`);
    }
    members.set(key, url);
  }
  return { form: 'dictionary', members };
}

/**
 * The agent URL a signature names: the `Signature-Agent` member it covers (see the top of this
 * file), or undefined when the request has no `Signature-Agent` field.
 * @param value the request's `Signature-Agent` value
 * @param covered the signature's covered components
 * @param label the signature's label
 * @throws SignetError `signature_agent_mismatch` when the field is present and the signature does not cover the member that names its agent
 */
export function signedSignatureAgent(value: string | undefined, covered: readonly ComponentId[], label: string): string | undefined {
  if (value === undefined) return undefined;
  const field = readSignatureAgentField(value);
  const components = covered.filter((c) => c.name === SIGNATURE_AGENT_FIELD);
  const coversWhole = components.some((c) => c.params.size === 0 || (c.params.size === 1 && c.params.has('sf')));
  if (field.form === 'legacy') {
    if (!coversWhole) {
      fail('signature_agent_mismatch', 'The request sends Signature-Agent but the signature does not cover it: cover "signature-agent" (better, send the dictionary form sig1="https://agent.example" and cover "signature-agent";key="sig1").');
    }
    return field.url;
  }
  const own = field.members.get(label);
  const coveredKeys = [...new Set(components.flatMap((c) => (typeof c.params.get('key') === 'string' ? [c.params.get('key') as string] : [])))];
  if (own !== undefined) {
    if (coversWhole || coveredKeys.includes(label)) return own;
    fail('signature_agent_mismatch', `Signature-Agent has a member for this signature (${label}) but the signature does not cover it: cover "signature-agent";key="${label}".`);
  }
  const named = coveredKeys.filter((key) => field.members.has(key));
  if (named.length === 1) return field.members.get(named[0]);
  // The whole field signed, with one member in it: that member is the one it names.
  if (named.length === 0 && coversWhole && field.members.size === 1) return [...field.members.values()][0];
  if (named.length > 1) {
    fail('signature_agent_mismatch', `The signature covers ${named.length} Signature-Agent members and none is keyed to its label ${label}: name one agent per signature, keyed to its label.`);
  }
  fail('signature_agent_mismatch', `The request sends Signature-Agent but the signature covers none of its members: add a member for this signature (${label}="https://agent.example") and cover "signature-agent";key="${label}".`);
}

function stringOf(member: Member): string | undefined {
  if (isInnerList(member)) return undefined;
  return typeof member[0] === 'string' ? member[0] : undefined;
}

function malformed(): never {
  fail('signature_agent_mismatch', 'The Signature-Agent header is not a Structured Field dictionary of quoted URLs, e.g. sig1="https://agent.example" (or the legacy single "https://agent.example").');
}
