/**
 * The registry's refusals in the form's words. The registry speaks to API callers (`name must be
 * 1 to 128 characters.`, `networkWhitelist must hold 1 to 100 entries; use ["0.0.0.0"] …`); the
 * page speaks to someone filling in a form ("Enter a name", "Add at least one address, or
 * 0.0.0.0 for everyone"). The rule stays the registry's (./validation.ts checks by it, and the
 * stable code goes with the field, `data-code`); only the sentence changes, chosen by the field,
 * the code and what the field holds. A refusal with no form wording keeps the registry's
 * sentence, which already speaks of the value (e.g. a whitelist entry that is not an address).
 */
import { MAX_NAME_CHARS, MAX_ROLES, MAX_WHITELIST_ENTRIES } from './signet-core';

/** The form's fields that the registry refuses by name. */
export type FormField = 'name' | 'networkWhitelist' | 'publicKey' | 'roles';

/** What the field holds when the refusal is shown (the words depend on it). */
export interface FieldValue {
  /** the name box's text */
  name?: string;
  /** the whitelist's entries */
  networkWhitelist?: readonly string[];
  /** the public key box's text */
  publicKey?: string;
  /** the roles ticked, and those the signer may give */
  roles?: { readonly chosen: readonly string[]; readonly known: readonly string[] };
}

/**
 * The sentence the form shows for a refusal of `field` (by the page's own check or by the
 * registry).
 * @param refusal the registry's code and sentence
 */
export function formWords(field: FormField, refusal: { readonly code: string; readonly message: string }, value: FieldValue): string {
  switch (field) {
    case 'name': {
      const name = (value.name ?? '').trim();
      if (refusal.code !== 'invalid_request') return refusal.message;
      if (name === '') return 'Enter a name.';
      if (name.length > MAX_NAME_CHARS) return `Shorten the name to ${MAX_NAME_CHARS} characters or fewer (it has ${name.length}).`;
      if (/[\u0000-\u001f\u007f]/.test(name)) return 'Remove the line break or tab from the name: it must be one line of text.';
      return refusal.message;
    }
    case 'networkWhitelist': {
      const entries = value.networkWhitelist ?? [];
      if (refusal.code !== 'invalid_network') return refusal.message;
      if (entries.length === 0) return 'Add at least one address, or 0.0.0.0 for everyone.';
      if (entries.length >= MAX_WHITELIST_ENTRIES) return `The list is full: at most ${MAX_WHITELIST_ENTRIES} addresses or ranges. Use wider ranges, or 0.0.0.0 for everyone.`;
      return refusal.message;
    }
    case 'publicKey': {
      const text = value.publicKey ?? '';
      if (refusal.code === 'invalid_public_key' && text.trim() === '') return "Paste the partner's public key (public.pem), or generate a key pair below.";
      return refusal.message;
    }
    case 'roles': {
      const chosen = value.roles?.chosen ?? [];
      const known = value.roles?.known ?? [];
      if (refusal.code !== 'unknown_role') return refusal.message;
      if (chosen.length === 0) return 'Choose at least one role.';
      if (chosen.length > MAX_ROLES) return `Choose at most ${MAX_ROLES} roles.`;
      const unknown = chosen.filter((role) => !known.includes(role));
      if (unknown.length > 0) return `${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not a role you may give: untick ${unknown.length > 1 ? 'them' : 'it'}, or ask the API owner.`;
      return refusal.message;
    }
  }
}

