// @ts-check
/**
 * The client form's fields, checked by the registry's own rules (bundled from the core:
 * ./signet-core.js, lambda/registry/client-fields.ts), with the same codes and sentences, so the
 * form says inline, next to the field, what the API would answer. The registry stays the
 * authority: anything it refuses is shown at the field too.
 */
import { checkPublicKey, looksLikePrivateKey } from './keys.js';
import { MAX_PUBLIC_KEY_CHARS, SignetError, fail, parseClientName, parseClientRoles, parseNetworkWhitelist } from './signet-core.js';

/**
 * Roles against the role catalogue's names (GET /registry/roles), as POST /registry/clients checks them.
 * @param {unknown} roles
 * @param {readonly string[]} knownRoles
 * @returns {string[]} de-duplicated, in the order given
 */
export function validateRoles(roles, knownRoles) {
  return parseClientRoles(roles, { roleNames: new Set(knownRoles) });
}

/**
 * The synchronous part of the public key check, run on every keystroke: a private key is
 * refused on the spot, before anything else (the registry does the same).
 * @param {string} text
 * @throws SignetError private_key_submitted, invalid_public_key
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
 * @property {Partial<Record<'name' | 'networkWhitelist' | 'publicKey' | 'roles', SignetError>>} errors by field
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
      if (!(error instanceof SignetError)) throw error;
      errors[field] = error;
      return undefined;
    }
  };
  const name = /** @type {string | undefined} */ (attempt('name', () => parseClientName(values.name)));
  const whitelist = /** @type {string[] | undefined} */ (attempt('networkWhitelist', () => parseNetworkWhitelist(values.networkWhitelist)));
  const roles = /** @type {string[] | undefined} */ (attempt('roles', () => validateRoles(values.roles, options.knownRoles)));
  const keyText = values.publicKey;
  if (options.mode === 'create' || keyText.trim() !== '') {
    try {
      screenPublicKey(keyText);
      key = await checkPublicKey(keyText);
    } catch (error) {
      if (!(error instanceof SignetError)) throw error;
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
