// @ts-check
/**
 * The client form's fields, checked as lambda/registry/validation.ts checks the request body,
 * with the same codes and sentences, so the form says inline, next to the field, what the API
 * would answer. The registry stays the authority: anything it refuses is shown at the field too.
 */
import { PortalError, fail } from './errors.js';
import { checkPublicKey, looksLikePrivateKey } from './keys.js';
import { normaliseNetworkEntry } from './network.js';

/** Longest client name (MAX_NAME_CHARS). */
export const MAX_NAME_CHARS = 128;
/** Most whitelist entries (MAX_WHITELIST_ENTRIES). */
export const MAX_WHITELIST_ENTRIES = 100;
/** Most roles (MAX_ROLES). */
export const MAX_ROLES = 50;
/** Longest public key text (MAX_PUBLIC_KEY_CHARS). */
export const MAX_PUBLIC_KEY_CHARS = 16_384;

/**
 * @param {unknown} value
 * @returns {string} the trimmed name
 */
export function validateName(value) {
  if (typeof value !== 'string') fail('invalid_request', 'name must be a string.');
  const name = value.trim();
  if (name === '' || name.length > MAX_NAME_CHARS) fail('invalid_request', `name must be 1 to ${MAX_NAME_CHARS} characters.`);
  if (/[\u0000-\u001f\u007f]/.test(name)) fail('invalid_request', 'name must not contain control characters (line breaks, tabs, ...).');
  return name;
}

/**
 * The whole whitelist: 1..100 entries, each canonical, duplicates dropped.
 * @param {readonly unknown[]} entries
 * @returns {string[]}
 */
export function validateWhitelist(entries) {
  if (entries.length === 0 || entries.length > MAX_WHITELIST_ENTRIES) {
    fail('invalid_network', `networkWhitelist must hold 1 to ${MAX_WHITELIST_ENTRIES} entries; use ["0.0.0.0"] to allow everyone.`);
  }
  return [...new Set(entries.map((entry) => normaliseNetworkEntry(entry)))];
}

/**
 * Roles against the role catalogue's names (GET /registry/roles).
 * @param {readonly unknown[]} roles
 * @param {readonly string[]} knownRoles
 * @returns {string[]} de-duplicated, in the order given
 */
export function validateRoles(roles, knownRoles) {
  const known = [...knownRoles].sort().join(', ');
  if (roles.length === 0 || roles.length > MAX_ROLES) {
    fail('unknown_role', `roles must be a list of 1 to ${MAX_ROLES} role names. Known roles: ${known}.`);
  }
  if (roles.some((r) => typeof r !== 'string')) fail('unknown_role', 'roles must be a list of role names.');
  const names = /** @type {string[]} */ (roles);
  const unknown = names.filter((r) => !knownRoles.includes(r));
  if (unknown.length > 0) {
    fail('unknown_role', `Unknown role(s): ${unknown.map((r) => JSON.stringify(r.slice(0, 64))).join(', ')}. Known roles: ${known}.`);
  }
  return [...new Set(names)];
}

/**
 * The synchronous part of the public key check, run on every keystroke: a private key is
 * refused on the spot, before anything else (the registry does the same).
 * @param {string} text
 * @throws PortalError private_key_submitted, invalid_public_key
 */
export function screenPublicKey(text) {
  if (text.length > MAX_PUBLIC_KEY_CHARS) {
    fail('invalid_public_key', `publicKey is longer than ${MAX_PUBLIC_KEY_CHARS} characters; paste only the public key PEM.`);
  }
  if (looksLikePrivateKey(text)) {
    fail(
      'private_key_submitted',
      'This is a private key. Paste only the public half (-----BEGIN PUBLIC KEY-----), and treat this private key as exposed: generate a new key pair.',
    );
  }
}

/**
 * @typedef {object} ClientFormValues
 * @property {string} name
 * @property {readonly string[]} networkWhitelist entries already added to the list
 * @property {string} publicKey the Public Key box ('' keeps the current keys when editing)
 * @property {readonly string[]} roles the roles ticked
 */

/**
 * @typedef {object} FormCheck
 * @property {Partial<Record<'name' | 'networkWhitelist' | 'publicKey' | 'roles', PortalError>>} errors by field
 * @property {Record<string, unknown>} body the request body when there are no errors
 * @property {{ fingerprint: string, bits: number } | undefined} key what the registry will store, when checked here
 */

/**
 * Checks the whole form. For `create` every field is required (as POST /registry/clients);
 * for `edit` only changed fields go into the body (as PATCH), and an empty Public Key box keeps
 * the keys.
 * @param {ClientFormValues} values
 * @param {{ mode: 'create' | 'edit', knownRoles: readonly string[], current?: { name: string, networkWhitelist: readonly string[], roles: readonly string[] } }} options
 * @returns {Promise<FormCheck>}
 */
export async function checkClientForm(values, options) {
  /** @type {FormCheck['errors']} */
  const errors = {};
  /** @type {Record<string, unknown>} */
  const body = {};
  /** @type {FormCheck['key']} */
  let key;
  /**
   * @param {'name' | 'networkWhitelist' | 'publicKey' | 'roles'} field
   * @param {() => unknown} check
   */
  const attempt = (field, check) => {
    try {
      return check();
    } catch (error) {
      if (!(error instanceof PortalError)) throw error;
      errors[field] = error;
      return undefined;
    }
  };
  const name = /** @type {string | undefined} */ (attempt('name', () => validateName(values.name)));
  const whitelist = /** @type {string[] | undefined} */ (attempt('networkWhitelist', () => validateWhitelist(values.networkWhitelist)));
  const roles = /** @type {string[] | undefined} */ (attempt('roles', () => validateRoles(values.roles, options.knownRoles)));
  const keyText = values.publicKey;
  if (options.mode === 'create' || keyText.trim() !== '') {
    try {
      screenPublicKey(keyText);
      key = await checkPublicKey(keyText);
    } catch (error) {
      if (!(error instanceof PortalError)) throw error;
      errors.publicKey = error;
    }
  }
  const current = options.current;
  if (name !== undefined && (current === undefined || name !== current.name)) body.name = name;
  if (whitelist !== undefined && (current === undefined || !sameList(whitelist, current.networkWhitelist))) body.networkWhitelist = whitelist;
  if (keyText.trim() !== '' && errors.publicKey === undefined) body.publicKey = keyText;
  if (roles !== undefined && (current === undefined || !sameList(roles, current.roles))) body.roles = roles;
  return { errors, body, key };
}

/**
 * @param {readonly string[]} a
 * @param {readonly string[]} b
 */
function sameList(a, b) {
  return a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
}
