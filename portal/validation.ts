/**
 * The client form's fields, checked by the registry's own rules (bundled from the core:
 * ./signet-core.ts, lambda/registry/client-fields.ts), with the same codes and sentences, so the
 * form says inline, next to the field, what the API would answer. The registry stays the
 * authority: anything it refuses is shown at the field too.
 */
import { checkPublicKey, looksLikePrivateKey } from './keys';
import { type KeySource, MAX_PUBLIC_KEY_CHARS, SignetError, fail, keySourceRequest, parseClientName, parseClientRoles, parseNetworkWhitelist } from './signet-core';

/**
 * Roles against the role catalogue's names (GET /registry/roles), as POST /registry/clients checks them.
 * @returns de-duplicated, in the order given
 */
export function validateRoles(roles: unknown, knownRoles: readonly string[]): string[] {
  return parseClientRoles(roles, { roleNames: new Set(knownRoles) });
}

/**
 * The synchronous part of the public key check, run on every keystroke: a private key is
 * refused on the spot, before anything else (the registry does the same).
 * @throws SignetError private_key_submitted, invalid_public_key
 */
export function screenPublicKey(text: string) {
  if (text.length > MAX_PUBLIC_KEY_CHARS) {
    fail('invalid_public_key', `publicKey is longer than ${MAX_PUBLIC_KEY_CHARS} characters; paste only the public key.`);
  }
  if (looksLikePrivateKey(text)) {
    fail(
      'private_key_submitted',
      'This is a private key. Paste only the public half (-----BEGIN PUBLIC KEY-----), and treat this private key as exposed: generate a new key pair.',
    );
  }
}

interface ClientFormValues {
  name: string;
  /** entries already added to the list */
  networkWhitelist: readonly string[];
  /** the Public Key box ('' keeps the current keys when editing) */
  publicKey: string;
  /** the roles ticked */
  roles: readonly string[];
  /** a published key source instead of the Public Key box (JWKS URL or Web Bot Auth directory) */
  source?: KeySource;
}

interface FormCheck {
  /** by field */
  errors: Partial<Record<'name' | 'networkWhitelist' | 'publicKey' | 'roles' | 'source', SignetError>>;
  /** the request body when there are no errors */
  body: Record<string, unknown>;
  /** what the registry will store, when checked here */
  key: { fingerprint: string; bits: number; } | undefined;
}

/**
 * Checks the whole form. For `create` every field is required (as POST /registry/clients);
 * for `edit` only changed fields go into the body (as PATCH), and an empty Public Key box keeps
 * the keys.
 */
export async function checkClientForm(
  values: ClientFormValues,
  options: {
    mode: 'create' | 'edit';
    knownRoles: readonly string[];
    current?: { name: string; networkWhitelist: readonly string[]; roles: readonly string[]; keySource?: KeySource };
    /** also accept http://127.0.0.1 and http://localhost sources (a portal served by the local gateway) */
    allowLocalHttp?: boolean;
  },
): Promise<FormCheck> {
  const errors: FormCheck['errors'] = {};
  const body: Record<string, unknown> = {};
  let key: FormCheck['key'];
  const attempt = (field: 'name' | 'networkWhitelist' | 'publicKey' | 'roles', check: () => unknown) => {
    try {
      return check();
    } catch (error) {
      if (!(error instanceof SignetError)) throw error;
      errors[field] = error;
      return undefined;
    }
  };
  // An edit that keeps the name sends none, so a name stored before a rule was tightened does not block it.
  const keptName = options.current !== undefined && values.name.trim() === options.current.name;
  const name = keptName ? options.current?.name : (attempt('name', () => parseClientName(values.name)) as string | undefined);
  const whitelist = (attempt('networkWhitelist', () => parseNetworkWhitelist(values.networkWhitelist)) as string[] | undefined);
  const roles = (attempt('roles', () => validateRoles(values.roles, options.knownRoles)) as string[] | undefined);
  const keyText = values.source === undefined ? values.publicKey : '';
  const source = values.source;
  if (source !== undefined) {
    const checked = keySourceRequest(source, options.allowLocalHttp === true);
    if (!checked.ok) errors.source = new SignetError('key_source_refused', checked.message);
  } else if (options.mode === 'create' || keyText.trim() !== '') {
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
  if (source !== undefined && errors.source === undefined && !sameSource(source, options.current?.keySource)) Object.assign(body, source);
  if (roles !== undefined && (current === undefined || !sameList(roles, current.roles))) body.roles = roles;
  return { errors, body, key };
}

function sameSource(a: KeySource, b: KeySource | undefined) {
  return b !== undefined && ('jwksUri' in a ? 'jwksUri' in b && a.jwksUri === b.jwksUri : 'signatureAgent' in b && a.signatureAgent === b.signatureAgent);
}

function sameList(a: readonly string[], b: readonly string[]) {
  return a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
}
