/**
 * Checking registry request bodies and query strings. Each function takes untrusted JSON and
 * returns canonical values, or throws a `SignetError` with a stable code and a sentence a person
 * can act on. Key material is never echoed: messages name the field, not its content.
 *
 * Order matters for one rule: private key material anywhere in a body (any field, any form:
 * lambda/core/keys.ts `scanForPrivateKey`) is reported first (`private_key_submitted`),
 * whatever else is wrong, because that key must be treated as exposed.
 */
import { DEFAULT_ROTATION_DAYS, MAX_REGISTRY_BODY_BYTES, REGISTRY_ADMIN_ROLE } from '../core/defaults';
import { SignetError, fail } from '../core/errors';
import { SIGNATURE_ALGORITHMS } from '../core/algorithms';
import { type JsonWebKey, importPublicKey, isFingerprint } from '../core/keys';
import { COVERAGE_PROFILES, type CoverageProfile, isCoverageProfile } from '../core/profiles';
import { scanForPrivateKey } from '../core/private-key-scan';
import { CompiledRoleCatalogue, validateRoles } from '../core/role-policy';
import { MAX_PUBLIC_KEY_CHARS, MAX_ROLES, parseClientName, parseClientRoles, parseNetworkWhitelist } from './client-fields';
import { type BodyFields, bodyFields } from './contract/body-fields';
import * as contract from './contract/schemas';
import type * as z from 'zod/mini';
import { isAccountId } from '../store/account-id';
import type { NewAccount, NewKey } from '../domain/store-types';
import type { KeySource } from '../domain/client-record';
import { MAX_PAGE_SIZE } from '../store/dynamo-table';

/** Largest `olderThanDays`. @default 36_500 */
export const MAX_AGE_DAYS = 36_500;

/** The body of a request, as its schema in the contract describes it. */
type BodyOf<S extends z.ZodMiniType> = z.infer<S>;

/** The public key as given, and the algorithm beside it: replaced by the key checked and imported. */
type WithKey<T> = Omit<T, 'publicKey' | 'algorithm'> & { readonly key: NewKey };

/** Where a client's keys are published, in place of a registered key. */
type WithSource<T> = Omit<T, 'jwksUri' | 'signatureAgent'> & { readonly keySource?: KeySource };

/** A validated create request: `POST /registry/clients`'s body with its key imported, or its key source. */
export type CreateRequest = Readonly<WithSource<Omit<WithKey<BodyOf<typeof contract.CreateClientRequest>>, 'key'> & { readonly key?: NewKey }>>;

/** A validated edit: only the fields given, the new key imported. */
export type PatchRequest = Readonly<WithSource<Omit<BodyOf<typeof contract.UpdateClientRequest>, 'publicKey' | 'algorithm'>> & { readonly key?: NewKey; readonly keyAlgorithmNamed?: boolean }>;

/** A validated account edit: only the fields given. */
export type PatchAccountRequest = Readonly<BodyOf<typeof contract.UpdateAccountRequest>>;

/** A validated key addition, its key imported (with its not-after, if given). */
export type AddKeyRequest = Readonly<Omit<WithKey<BodyOf<typeof contract.AddKeyRequest>>, 'notAfter'>>;

/** A request body parsed as a JSON object, not yet checked against its schema. */
export type JsonBody = Record<string, unknown>;

type Json = JsonBody;

/**
 * Parses a JSON body (already size-checked by {@link checkBodySize}).
 * @param required false for routes whose body may be empty (then `{}` is returned)
 */
export function parseJsonObject(body: string, required: boolean): Json {
  if (body.trim() === '') {
    if (!required) return {};
    fail('invalid_request', 'The request needs a JSON object body.');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    // Not JSON, but maybe a bare private key pasted as the whole body: still say so.
    refusePrivateKey(body);
    fail('invalid_request', 'The body is not valid JSON. Send a JSON object, e.g. {"name": "...", ...}.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    // An array or a string may carry a key just as well: it is judged before the shape.
    refusePrivateKey(parsed);
    fail('invalid_request', 'The body must be a JSON object.');
  }
  if (nestingDepth(parsed) > MAX_BODY_DEPTH) {
    refusePrivateKey(parsed);
    fail('invalid_request', `The body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep; no registry request needs more than a few.`);
  }
  return parsed as Json;
}

/**
 * The deepest nesting of objects and arrays a body may have. Far more than any request needs (a
 * JWK inside the body is three levels), and far less than what makes recursive code (such as
 * `JSON.stringify`) run out of stack.
 */
export const MAX_BODY_DEPTH = 32;

/** How deeply `value` nests objects and arrays (a scalar: 0), counted without recursion, so any depth is safe to measure. */
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [next, depth] = pending.pop() as [unknown, number];
    if (typeof next !== 'object' || next === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_BODY_DEPTH) return deepest;
    for (const member of Array.isArray(next) ? next : Object.values(next)) pending.push([member, depth + 1]);
  }
  return deepest;
}

/** @throws SignetError `payload_too_large` for a body over {@link MAX_REGISTRY_BODY_BYTES} bytes. */
export function checkBodySize(bytes: number): void {
  if (bytes > MAX_REGISTRY_BODY_BYTES) {
    fail('payload_too_large', `The body has ${bytes} bytes; the registry accepts at most ${MAX_REGISTRY_BODY_BYTES}.`);
  }
}

/**
 * `POST /registry/clients`: `{name, networkWhitelist, publicKey, roles}`, all required, and an optional `accountId`.
 * @param knownRoles what an unknown role's refusal says of the roles there are (see parseClientRoles)
 */
export function parseCreateRequest(body: Json, roles: CompiledRoleCatalogue, knownRoles?: string): CreateRequest {
  refusePrivateKey(body);
  checkFields(body, CREATE_CLIENT);
  const given = ['publicKey', 'jwksUri', 'signatureAgent'].filter((f) => body[f] !== undefined && body[f] !== null);
  if (given.length !== 1) {
    fail(
      'invalid_request',
      given.length === 0
        ? 'Missing field(s): publicKey (the client\'s public key), or jwksUri / signatureAgent (where the client publishes its keys).'
        : `Give one of publicKey, jwksUri and signatureAgent, not ${given.join(' and ')}: a client has registered keys or a key source.`,
    );
  }
  if (body.algorithm !== undefined && body.publicKey === undefined) {
    fail('invalid_request', 'algorithm goes with publicKey: a key source\'s keys carry their own (the JWK alg).');
  }
  const keySource = parseKeySource(body);
  return conforming(contract.CreateClientRequest, body, {
    ...(body.accountId !== undefined ? { accountId: parseAccountId(body.accountId, 'accountId') } : {}),
    name: parseClientName(body.name),
    networkWhitelist: parseNetworkWhitelist(body.networkWhitelist),
    roles: parseClientRoles(body.roles, roles, knownRoles),
    ...(keySource === undefined ? { key: parsePublicKey(body.publicKey, body.algorithm) } : { keySource }),
    ...(body.profile !== undefined ? { profile: parseProfile(body.profile) } : {}),
  });
}

/**
 * `PATCH /registry/clients/{clientId}`: any of `name`, `networkWhitelist`, `roles`, `publicKey`
 * (replaces every key), plus `version` (or an If-Match header).
 * @param knownRoles what an unknown role's refusal says of the roles there are (see parseClientRoles)
 */
export function parsePatchRequest(body: Json, roles: CompiledRoleCatalogue, knownRoles?: string): PatchRequest {
  refusePrivateKey(body);
  checkFields(body, UPDATE_CLIENT);
  if (!['name', 'networkWhitelist', 'roles', 'publicKey', 'profile', 'jwksUri', 'signatureAgent'].some((f) => body[f] !== undefined)) {
    fail('invalid_request', 'Nothing to change: give at least one of name, networkWhitelist, roles, publicKey, profile, jwksUri, signatureAgent.');
  }
  if (body.algorithm !== undefined && body.publicKey === undefined) {
    fail('invalid_request', 'algorithm goes with publicKey: it says which algorithm that key signs with.');
  }
  const sources = ['publicKey', 'jwksUri', 'signatureAgent'].filter((f) => body[f] !== undefined);
  if (sources.length > 1) fail('invalid_request', `Give one of publicKey, jwksUri and signatureAgent, not ${sources.join(' and ')}: a client has registered keys or a key source.`);
  const keySource = parseKeySource(body);
  return conforming(contract.UpdateClientRequest, body, {
    ...(keySource !== undefined ? { keySource } : {}),
    ...(body.version !== undefined ? { version: parseVersion(body.version) } : {}),
    ...(body.name !== undefined ? { name: parseClientName(body.name) } : {}),
    ...(body.networkWhitelist !== undefined ? { networkWhitelist: parseNetworkWhitelist(body.networkWhitelist) } : {}),
    ...(body.roles !== undefined ? { roles: parseClientRoles(body.roles, roles, knownRoles) } : {}),
    ...(body.publicKey !== undefined ? { key: parsePublicKey(body.publicKey, body.algorithm), keyAlgorithmNamed: body.algorithm !== undefined } : {}),
    ...(body.profile !== undefined ? { profile: parseProfile(body.profile) } : {}),
  });
}

/** `POST /registry/accounts`: `{name, roleCeiling}`, both required (the ceiling may be empty). */
export function parseCreateAccountRequest(body: Json, roles: CompiledRoleCatalogue): NewAccount {
  refusePrivateKey(body);
  checkFields(body, CREATE_ACCOUNT);
  return conforming(contract.CreateAccountRequest, body, { name: parseClientName(body.name), roleCeiling: parseRoleCeiling(body.roleCeiling, roles) });
}

/** `PATCH /registry/accounts/{accountId}`: any of `name`, `roleCeiling`, plus `version` (or If-Match). */
export function parsePatchAccountRequest(body: Json, roles: CompiledRoleCatalogue): PatchAccountRequest {
  refusePrivateKey(body);
  checkFields(body, UPDATE_ACCOUNT);
  if (body.name === undefined && body.roleCeiling === undefined) {
    fail('invalid_request', 'Nothing to change: give name and/or roleCeiling.');
  }
  return conforming(contract.UpdateAccountRequest, body, {
    ...(body.version !== undefined ? { version: parseVersion(body.version, 0) } : {}),
    ...(body.name !== undefined ? { name: parseClientName(body.name) } : {}),
    ...(body.roleCeiling !== undefined ? { roleCeiling: parseRoleCeiling(body.roleCeiling, roles) } : {}),
  });
}

/**
 * An account id given in a body field or the `?account=` query parameter.
 * @throws SignetError `invalid_request` for anything that cannot be an account id
 */
export function parseAccountId(value: unknown, field: string): string {
  if (!isAccountId(value)) {
    fail('invalid_request', `${field} must be an account id as the registry gave it (acct_default, or acct_ followed by 22 characters); list accounts with GET /registry/accounts.`);
  }
  return value;
}

/** `POST /registry/clients/{clientId}/keys`: `{publicKey, notAfter?, version?}`. */
export function parseAddKeyRequest(body: Json): AddKeyRequest {
  refusePrivateKey(body);
  checkFields(body, ADD_KEY);
  const key = parsePublicKey(body.publicKey, body.algorithm);
  return conforming(contract.AddKeyRequest, body, {
    ...(body.version !== undefined ? { version: parseVersion(body.version) } : {}),
    key: body.notAfter === undefined ? key : { ...key, notAfter: parseInstant(body.notAfter, 'notAfter') },
  });
}

/** Bodies that may only carry a version (disable, enable, key removal). */
export function parseVersionOnly(body: Json): number | undefined {
  refusePrivateKey(body);
  checkFields(body, VERSION_ONLY);
  return conforming(contract.VersionRequest, body, body.version === undefined ? undefined : parseVersion(body.version));
}

/**
 * The version an edit was planned from: the body's `version` and/or the If-Match header
 * (`"3"`, `W/"3"` or `3`). When both are given they must agree.
 * @param minimum the lowest version there is: 1 for clients, 0 for accounts
 */
export function expectedVersion(bodyVersion: number | undefined, ifMatch: string | undefined, minimum = 1): number | undefined {
  let headerVersion: number | undefined;
  if (ifMatch !== undefined && ifMatch.trim() !== '' && ifMatch.trim() !== '*') {
    const match = /^(?:W\/)?"?(\d{1,15})"?$/.exec(ifMatch.trim());
    if (!match) fail('invalid_request', 'If-Match must carry the version from the ETag of the client, e.g. If-Match: "3".');
    headerVersion = parseVersion(Number(match[1]), minimum);
  }
  if (bodyVersion !== undefined && headerVersion !== undefined && bodyVersion !== headerVersion) {
    fail('invalid_request', `The body says version ${bodyVersion} but If-Match says ${headerVersion}; send one version.`);
  }
  return bodyVersion ?? headerVersion;
}

/** Query parameters, checked against the names a route accepts. */
export function onlyQueryParameters(query: Readonly<Record<string, string>>, allowed: readonly string[]): void {
  const unknown = Object.keys(query).filter((name) => !allowed.includes(name));
  if (unknown.length > 0) {
    fail(
      'invalid_request',
      `Unknown query parameter(s): ${unknown.map(shortName).join(', ')}. ${allowed.length > 0 ? `This route accepts: ${allowed.join(', ')}.` : 'This route takes none.'}`,
    );
  }
}

/** `?limit=`: 1..MAX_PAGE_SIZE, or undefined for the default. */
export function parseLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,4}$/.test(value) || Number(value) < 1 || Number(value) > MAX_PAGE_SIZE) {
    fail('invalid_request', `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}.`);
  }
  return Number(value);
}

/** `?olderThanDays=`: 0..MAX_AGE_DAYS. @default DEFAULT_ROTATION_DAYS (90) */
export function parseOlderThanDays(value: string | undefined): number {
  if (value === undefined) return DEFAULT_ROTATION_DAYS;
  if (!/^\d{1,5}$/.test(value) || Number(value) > MAX_AGE_DAYS) {
    fail('invalid_request', `olderThanDays must be a whole number of days from 0 to ${MAX_AGE_DAYS}.`);
  }
  return Number(value);
}

/** `?fingerprint=`: the 43-character base64url SHA-256 of the key's SPKI. */
export function parseFingerprint(value: string): string {
  if (!isFingerprint(value)) {
    fail('invalid_request', 'fingerprint must be the 43-character base64url SHA-256 of the key (as `signet keygen` prints it).');
  }
  return value;
}

/**
 * `?publicKey=`: a public key in any accepted format. Query strings turn an unescaped `+` into a
 * space; base64 never contains spaces, so they are turned back (PEM header lines are kept).
 */
export function parseQueryPublicKey(value: string): NewKey {
  const repaired = value.replace(/(-----[A-Z0-9 ]+-----)|( )/g, (_all: string, label: string | undefined) => (label ? label : '+'));
  return parsePublicKey(repaired);
}

// ------------------------------------------------------------------ fields

/**
 * An account's role ceiling: 0 to MAX_ROLES catalogue roles, never `registry:admin` (that role
 * is only ever given by the API owner's operators).
 */
function parseRoleCeiling(value: unknown, catalogue: CompiledRoleCatalogue): string[] {
  if (!Array.isArray(value) || value.length > MAX_ROLES) {
    fail('unknown_role', `roleCeiling must be a list of at most ${MAX_ROLES} role names (it may be empty). Known roles: ${[...catalogue.roleNames].sort().join(', ')}.`);
  }
  const roles = validateRoles(value, catalogue);
  if (roles.includes(REGISTRY_ADMIN_ROLE)) {
    fail('role_not_allowed', `${REGISTRY_ADMIN_ROLE} cannot be in an account's role ceiling: only the API owner's operators hold it. Give it to a client directly instead.`);
  }
  return roles;
}

/**
 * `publicKey` (SPKI PEM or DER text, or a JWK as an object or its JSON text) and the `algorithm`
 * declared beside it, if any (needed only for rsa-pss-sha512).
 */
function parsePublicKey(value: unknown, algorithm?: unknown): NewKey {
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  if (typeof value !== 'string' && !isObject) {
    fail('invalid_public_key', 'publicKey must be the SPKI PEM (-----BEGIN PUBLIC KEY-----) of your key pair as a string, or its JWK.');
  }
  const length = typeof value === 'string' ? value.length : JSON.stringify(value).length;
  if (length > MAX_PUBLIC_KEY_CHARS) {
    fail('invalid_public_key', `publicKey is longer than ${MAX_PUBLIC_KEY_CHARS} characters; paste only the public key.`);
  }
  if (algorithm !== undefined && typeof algorithm !== 'string') {
    fail('unsupported_key_type', `algorithm must be a string: one of ${SIGNATURE_ALGORITHMS.join(', ')}.`);
  }
  const info = importPublicKey(value as string | JsonWebKey, algorithm);
  return { fingerprint: info.fingerprint, spkiPem: info.spkiPem, algorithm: info.algorithm };
}

/** `jwksUri` or `signatureAgent` (at most one: the callers check), as a key source; its URL is judged when it is fetched. */
function parseKeySource(body: Json): KeySource | undefined {
  for (const field of ['jwksUri', 'signatureAgent'] as const) {
    const value = body[field];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_KEY_SOURCE_URL_CHARS) {
      fail(
        'invalid_request',
        field === 'jwksUri'
          ? `jwksUri must be the https URL of a JWKS (at most ${MAX_KEY_SOURCE_URL_CHARS} characters), e.g. https://keys.partner.example/jwks.json.`
          : `signatureAgent must be the https origin of a Web Bot Auth agent (at most ${MAX_KEY_SOURCE_URL_CHARS} characters), e.g. https://agent.example.`,
      );
    }
    return field === 'jwksUri' ? { jwksUri: value.trim() } : { signatureAgent: value.trim() };
  }
  return undefined;
}

/** Longest `jwksUri` / `signatureAgent`, in characters. */
export const MAX_KEY_SOURCE_URL_CHARS = 2048;

/** A client's coverage profile: `signet`, `rfc9421` or `web-bot-auth` (lambda/core/profiles.ts). */
function parseProfile(value: unknown): CoverageProfile {
  if (!isCoverageProfile(value)) {
    fail('invalid_request', `profile must be one of ${COVERAGE_PROFILES.join(', ')}: signet (the default scheme), rfc9421 (what any RFC 9421 signer sends, e.g. curl --httpsig) or web-bot-auth (what Web Bot Auth agents send).`);
  }
  return value;
}

/** @param minimum 1 for clients; 0 for accounts (the built-in default account is at version 0) */
function parseVersion(value: unknown, minimum = 1): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum) {
    fail('invalid_request', `version must be the whole number from the ${minimum === 0 ? 'account' : 'client record'} you edited (${minimum} or more).`);
  }
  return value;
}

function parseInstant(value: unknown, field: string): string {
  const ms = typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms)) fail('invalid_request', `${field} must be an ISO-8601 instant with a time zone, e.g. 2030-01-31T12:00:00Z.`);
  return new Date(ms).toISOString();
}

// ------------------------------------------------------------------ shape

/**
 * Every field of the body, checked for private key material before anything else; a body with
 * more key-like runs than one scan parses is refused rather than guessed at (fail closed).
 */
function refusePrivateKey(body: unknown): void {
  const scan = scanForPrivateKey(body);
  if (scan === 'private_key') throw privateKeySubmitted();
  if (scan === 'too_many_candidates') {
    fail(
      'too_many_key_candidates',
      'The body holds more runs of Base64 or hex shaped like key material than the registry checks for private keys in one request. Send only the fields this route takes, with one public key.',
    );
  }
}

function privateKeySubmitted(): SignetError {
  return new SignetError(
    'private_key_submitted',
    'This is a private key. Paste only the public half (-----BEGIN PUBLIC KEY-----), and treat this private key as exposed: generate a new key pair.',
  );
}

/** Each request body's fields, from its schema in the contract. */
const CREATE_CLIENT = bodyFields(contract.CreateClientRequest);
const UPDATE_CLIENT = bodyFields(contract.UpdateClientRequest);
const CREATE_ACCOUNT = bodyFields(contract.CreateAccountRequest);
const UPDATE_ACCOUNT = bodyFields(contract.UpdateAccountRequest);
const ADD_KEY = bodyFields(contract.AddKeyRequest);
const VERSION_ONLY = bodyFields(contract.VersionRequest);

/** Only the fields the contract lists for the body, and every field it requires. */
function checkFields(body: Json, fields: BodyFields): void {
  const unknown = Object.keys(body).filter((name) => !fields.allowed.includes(name));
  if (unknown.length > 0) {
    fail('invalid_request', `Unknown field(s): ${unknown.map(shortName).join(', ')}. This route accepts: ${fields.allowed.join(', ')}.`);
  }
  const missing = fields.required.filter((name) => body[name] === undefined || body[name] === null);
  if (missing.length > 0) fail('invalid_request', `Missing field(s): ${missing.join(', ')}.`);
}

/**
 * `value` (what the field checks made of `body`), once `body` is also what its schema in the
 * contract says: the field checks word each problem they know; this catches whatever else the
 * contract refuses, so the registry never accepts a body docs/openapi/registry.json rules out.
 */
function conforming<T>(schema: z.ZodMiniType, body: Json, value: T): T {
  const result = schema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue.path.length === 0 ? 'The body' : issue.path.map(String).join('.');
    fail('invalid_request', `${field} does not match the registry's contract (docs/openapi/registry.json, ${issue.code.replace(/_/g, ' ')}); see the route's request schema there.`);
  }
  return value;
}

/** A field name as it may appear in a message: short and quoted. */
function shortName(name: string): string {
  return JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);
}
