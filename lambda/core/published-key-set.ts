/**
 * Reading a published key set: a JWKS (RFC 7517 §5) behind a partner's `jwks_uri`, or a Web Bot
 * Auth key directory (draft-meunier-webbotauth-httpsig-directory §4: media type
 * `application/http-message-signatures-directory+json`, a JWKS with `keys`). The text becomes
 * keys Signet can verify with, each with its `kid`, RFC 7638 thumbprint, algorithm and
 * validity (`nbf`/`exp`), and every key it cannot use is listed with a stable reason.
 *
 * The document as a whole is refused when it is not JSON, not `{ "keys": [...] }`, lists more
 * than {@link MAX_PUBLISHED_KEYS} keys, or yields no usable key. Each key goes through the same
 * reader as a pasted key (./keys.ts: strength, small-order points, curve checks), after these:
 * no `oct`/HMAC keys, no private members, only algorithms Signet verifies, `use`/`key_ops` that
 * allow verifying, and not one of the keys whose private half is printed in an RFC
 * ({@link KNOWN_TEST_KEY_THUMBPRINTS}). Pure: the caller passes `nowS` to drop expired keys.
 */
import { MAX_PUBLISHED_KEYS, MIN_RSA_BITS } from './defaults';
import { bitLength } from './der';
import { ModulusVerdicts, PRIME_MODULUS } from './rsa-modulus';
import { isSignetError } from './errors';
import { canonicalJwkThumbprint, jwkThumbprint, thumbprintOfKey } from './jwk-thumbprint';
import { importPublicKey } from './keys';
import { JOSE_ALGORITHMS, type JsonWebKey } from './public-key-text';
import type { SignatureAlgorithm } from './algorithm-names';

/** One usable published key. */
export interface PublishedKey {
  /** The JWK's `kid`, when it has one. */
  readonly kid?: string;
  /** RFC 7638 SHA-256 thumbprint, base64url: the keyid Web Bot Auth agents sign with. */
  readonly thumbprint: string;
  /** SHA-256 of the SPKI DER, base64url: the fingerprint registered keys are known by. */
  readonly fingerprint: string;
  /** The canonical SPKI PEM, as the registry stores keys. */
  readonly spkiPem: string;
  /** The one algorithm the key verifies (the JWK's `alg`, or the key type's own). */
  readonly algorithm: SignatureAlgorithm;
  /** For people: "Ed25519", "RSA-2048", "ECDSA P-256". */
  readonly keyType: string;
  /** `nbf`: not valid before this time, unix seconds. */
  readonly notBeforeS?: number;
  /** `exp`: not valid from this time on, unix seconds. */
  readonly expiresS?: number;
}

/** Why one key of a set is not used. Stable: add, never rename. */
export const KEY_REFUSAL_CODES = [
  'not_an_object',
  'symmetric_key',
  'private_key_member',
  'unsupported_key_type',
  'unsupported_algorithm',
  'not_for_signatures',
  'invalid_public_key',
  'key_too_small',
  'weak_key',
  'known_test_key',
  'invalid_kid',
  'invalid_validity',
  'expired',
  'duplicate_key',
  'key_too_large',
  'too_many_new_rsa_keys',
] as const;
export type KeyRefusalCode = (typeof KEY_REFUSAL_CODES)[number];

/** A key of the set that is not used, and why. Never carries key material. */
export interface RefusedKey {
  /** Its position in `keys`, from 0. */
  readonly index: number;
  readonly kid?: string;
  readonly code: KeyRefusalCode;
  readonly message: string;
}

/** Why a whole key set is refused. Stable: add, never rename. */
export const KEY_SET_REFUSAL_CODES = ['invalid_json', 'not_a_key_set', 'too_many_keys', 'no_usable_key'] as const;
export type KeySetRefusalCode = (typeof KEY_SET_REFUSAL_CODES)[number];

/**
 * The outcome of reading a key set: its usable keys (at least one) and the refused ones, or why
 * none. `listed`, for a set read key by key (usable, or `no_usable_key`): the RFC 7638 thumbprint
 * of every public key it lists, usable or not, taken of its canonical members (so a leading zero
 * or padding does not make it another key), and undefined for an entry that names a public key
 * type but whose members cannot be read (it may be any key); entries no client can hold (`oct`,
 * other curves) are left out. A key the publisher no longer lists is known to be withdrawn even when nothing listed can be used.
 */
export type KeySetReading =
  | { readonly ok: true; readonly keys: readonly PublishedKey[]; readonly refused: readonly RefusedKey[]; readonly listed: readonly (string | undefined)[] }
  | { readonly ok: false; readonly code: KeySetRefusalCode; readonly message: string; readonly refused: readonly RefusedKey[]; readonly listed?: readonly (string | undefined)[] };

/**
 * Public keys whose private halves are printed in RFCs and drafts, by RFC 7638 thumbprint:
 * anyone can sign for them, so a published set listing one is a copied example, never a partner.
 * test/core/published-key-set.test.ts recomputes each from the RFC's text.
 */
export const KNOWN_TEST_KEY_THUMBPRINTS: ReadonlyMap<string, string> = new Map([
  ['BHj8s0GPnMEQtkaULIM-PLgEhLBbuGUQ1vMxmBWZzEo', 'RFC 9421 §B.1.1 test-key-rsa'],
  ['oD0HwocPBSfpNy5W3bpJeyFGY_IQ_YpqxSjQ3Yd-CLA', 'RFC 9421 §B.1.2 test-key-rsa-pss'],
  ['ydQXMtvbsOsZyFir-Y7A8t7fKEM1gbKPvyFkdpu4fvI', 'RFC 9421 §B.1.3 test-key-ecc-p256'],
  ['poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U', 'RFC 9421 §B.1.4 test-key-ed25519 (also the Web Bot Auth drafts\' example key)'],
  ['kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k', 'RFC 8037 §A.1 Ed25519 example key'],
  ['NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs', 'RFC 7517 §A.1 / RFC 7638 §3.1 RSA example key'],
]);

/** JWK members that hold private or secret material (RFC 7518 §6.2.2, §6.3.2, §6.4.1; RFC 8037 §2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

/** Printable ASCII without spaces, as much as a person needs to tell keys apart. */
const KID = /^[\x21-\x7e]{1,256}$/;

/** JOSE algorithm names that need a shared secret (RFC 7518 §3.2). */
const HMAC_ALGS = /^HS\d+$/;

/** Options of {@link readPublishedKeySet}. */
export interface KeySetOptions {
  /** The current time, unix seconds: keys whose `exp` has passed are refused (`expired`). @default - expiry not checked */
  readonly nowS?: number;
  /** The most keys the set may list. @default MAX_PUBLISHED_KEYS (20) */
  readonly maxKeys?: number;
  /**
   * The verdicts on RSA moduli judged before, kept by the caller across the sets it reads (a
   * refresher, a registry): a key a set lists again is not judged again. @default - the set's own
   */
  readonly modulusVerdicts?: ModulusVerdicts;
  /**
   * The most RSA moduli not judged before (not in `modulusVerdicts`) that this reading judges;
   * an RSA key past them is refused (`too_many_new_rsa_keys`) and judged at a later reading, since
   * the ones judged now are remembered. @default MAX_NEW_RSA_MODULI_PER_READING (4)
   */
  readonly maxNewRsaModuli?: number;
  /**
   * RFC 7638 thumbprints of the keys the reading is for already holds: judged when they were
   * taken, so not screened again nor counted against {@link maxNewRsaModuli} (a client's keys stay
   * however many there are, after a cold start emptied `modulusVerdicts`). @default - none
   */
  readonly heldThumbprints?: ReadonlySet<string>;
}

/**
 * How many RSA moduli new to Signet one reading of a set judges. Judging one costs a modular
 * exponentiation in JavaScript (90 to 150 ms at 4,096 bits) and OpenSSL's checks, on the thread
 * that also serves every other source's fetch: a publisher listing twenty new moduli at each
 * fetch would otherwise hold it for seconds. Honest sets add one or two keys at a time.
 */
export const MAX_NEW_RSA_MODULI_PER_READING = 4;

/**
 * Reads a published key set (the response body's text) into usable keys, with a reason for each
 * key left out. Never throws for bad input: the refusal is the result.
 * @example
 * const reading = readPublishedKeySet(body, { nowS });
 * if (!reading.ok) record(reading.code, reading.message); else store(reading.keys);
 */
export function readPublishedKeySet(text: string, options: KeySetOptions = {}): KeySetReading {
  const maxKeys = options.maxKeys ?? MAX_PUBLISHED_KEYS;
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return setRefusal('invalid_json', 'The key set is not valid JSON. Publish a JWKS: {"keys": [ {"kty": ...}, ... ]}.');
  }
  const keys = typeof document === 'object' && document !== null && !Array.isArray(document) ? (document as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(keys)) {
    return setRefusal('not_a_key_set', 'The JSON is not a key set: it needs a "keys" array of JWKs (RFC 7517 §5).');
  }
  if (keys.length > maxKeys) {
    return setRefusal('too_many_keys', `The key set lists ${keys.length} keys; at most ${maxKeys} are read. Publish only the keys in use.`);
  }
  const usable: PublishedKey[] = [];
  const refused: RefusedKey[] = [];
  // The keys whose material was judged (imported, or refused as weak), by canonical thumbprint (see readPublishedKey).
  const imported = new Set<string>();
  const verdicts = options.modulusVerdicts ?? new ModulusVerdicts(maxKeys);
  const limit = options.maxNewRsaModuli ?? MAX_NEW_RSA_MODULI_PER_READING;
  const newModuli: NewModuli = { limit, left: limit, held: options.heldThumbprints };
  const listed = keys.flatMap((jwk: unknown) => {
    const thumbprint = canonicalThumbprint(jwk);
    return thumbprint === NOT_A_PUBLIC_KEY ? [] : [thumbprint];
  });
  keys.forEach((jwk: unknown, index) => {
    const given = typeof jwk === 'object' && jwk !== null ? (jwk as JsonWebKey).kid : undefined;
    const kid = typeof given === 'string' && KID.test(given) ? given : undefined;
    const outcome = readPublishedKey(jwk, options.nowS, imported, index, verdicts, newModuli);
    if ('code' in outcome) {
      refused.push({ index, ...(kid === undefined ? {} : { kid }), ...outcome });
    } else if (usable.some((other) => other.thumbprint === outcome.thumbprint)) {
      refused.push({ index, ...(kid === undefined ? {} : { kid }), code: 'duplicate_key', message: `Key ${index} is the same key as one listed before it; it is read once.` });
    } else {
      usable.push(outcome);
    }
  });
  if (usable.length === 0) {
    const why = refused.slice(0, 3).map((key) => `key ${key.index}: ${key.code}`).join('; ');
    return { ok: false, code: 'no_usable_key', message: keys.length === 0 ? 'The key set lists no keys.' : `The key set has no key Signet can verify with (${why}${refused.length > 3 ? '; ...' : ''}).`, refused, listed };
  }
  return { ok: true, keys: usable, refused, listed };
}

/** A key written other than its library exports it: its thumbprint would not name it. */
const NOT_CANONICAL: KeyOutcome = {
  code: 'invalid_public_key',
  message: 'Its members are not in canonical form (a leading zero byte in n, x or y), so its thumbprint would not name it. Publish the JWK as your library exports it.',
};

/** Whether the JWK's members, as written, are the canonical ones (its RFC 7638 thumbprint is `canonical`). */
function spelledCanonically(jwk: JsonWebKey, canonical: string): boolean {
  try {
    return jwkThumbprint(jwk) === canonical;
  } catch {
    return false;
  }
}

/** What {@link canonicalThumbprint} answers for an entry that names no public key type (`oct`, none). */
const NOT_A_PUBLIC_KEY = Symbol('not a public key');

/**
 * The RFC 7638 thumbprint of a JWK's key whatever spelling its members use (canonicalJwkThumbprint),
 * for the key types Signet holds (RSA; EC on P-256 or P-384; OKP Ed25519): undefined when such an
 * entry's members cannot be read as a key; {@link NOT_A_PUBLIC_KEY} for other types and curves, which no client holds.
 */
function canonicalThumbprint(jwk: unknown): string | undefined | typeof NOT_A_PUBLIC_KEY {
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) return NOT_A_PUBLIC_KEY;
  const { kty, crv } = jwk as JsonWebKey;
  if (!(kty === 'RSA' || (kty === 'EC' && (crv === 'P-256' || crv === 'P-384')) || (kty === 'OKP' && crv === 'Ed25519'))) return NOT_A_PUBLIC_KEY;
  return canonicalJwkThumbprint(jwk as JsonWebKey);
}

/**
 * The largest RSA key a published set may hold, in bits. Signet verifies each of the client's
 * requests with it, and judges its modulus once per fetch: an RSA-8192 key costs about 16 times
 * an RSA-2048 one to verify (BENCHMARKS.md), and a published set is written by someone else. A
 * key registered with the registry may be larger (MAX_RSA_BITS).
 */
export const MAX_PUBLISHED_RSA_BITS = 4096;

function setRefusal(code: KeySetRefusalCode, message: string): KeySetReading {
  return { ok: false, code, message, refused: [] };
}

type KeyOutcome = PublishedKey | { code: KeyRefusalCode; message: string };

/** What a reading may still judge of RSA moduli new to it, and the keys exempt (held already). */
interface NewModuli {
  readonly limit: number;
  left: number;
  readonly held: ReadonlySet<string> | undefined;
}

/**
 * One JWK of the set, judged in a fixed order so that each key gets its most telling reason. A key
 * whose members, read canonically, were imported before (`imported`) is a duplicate, found before
 * it is judged: judging an RSA modulus costs a primality test, which a set listing one key twenty
 * times, or spelling it twenty ways, must not make Signet pay twenty times.
 */
function readPublishedKey(value: unknown, nowS: number | undefined, imported: Set<string>, index: number, verdicts: ModulusVerdicts, newModuli: NewModuli): KeyOutcome {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return refusal('not_an_object', 'This entry is not a JWK object.');
  const jwk = value as JsonWebKey;
  if (jwk.kty === 'oct' || (typeof jwk.alg === 'string' && HMAC_ALGS.test(jwk.alg))) {
    return refusal('symmetric_key', 'This is a shared-secret (oct / HMAC) key; Signet verifies only public keys.');
  }
  const privateMember = PRIVATE_MEMBERS.find((name) => Object.prototype.hasOwnProperty.call(jwk, name));
  if (privateMember !== undefined) {
    return refusal('private_key_member', `This JWK carries the private member "${privateMember}": it was published with its private key, which must be treated as exposed. Publish public keys only.`);
  }
  if (jwk.kid !== undefined && (typeof jwk.kid !== 'string' || !KID.test(jwk.kid))) {
    return refusal('invalid_kid', 'Its "kid" is not a string of 1 to 256 printable characters without spaces.');
  }
  if (jwk.alg !== undefined && !(typeof jwk.alg === 'string' && Object.prototype.hasOwnProperty.call(JOSE_ALGORITHMS, jwk.alg))) {
    return refusal('unsupported_algorithm', `Its alg ${JSON.stringify(String(jwk.alg).slice(0, 20))} is not one Signet verifies (${Object.keys(JOSE_ALGORITHMS).join(', ')}).`);
  }
  if ((jwk.use !== undefined && jwk.use !== 'sig') || (jwk.key_ops !== undefined && !(Array.isArray(jwk.key_ops) && jwk.key_ops.includes('verify')))) {
    return refusal('not_for_signatures', 'Its "use" or "key_ops" says it is not for verifying signatures (use "sig", or key_ops with "verify").');
  }
  const validity = readValidity(jwk, nowS);
  if ('code' in validity) return validity;
  const rsaBits = jwk.kty === 'RSA' && typeof jwk.n === 'string' ? modulusBits(jwk.n) : 0;
  if (rsaBits > MAX_PUBLISHED_RSA_BITS) {
    return refusal('key_too_large', `This RSA key has ${rsaBits} bits; a published key may have at most ${MAX_PUBLISHED_RSA_BITS}. Publish a 2048- to 4096-bit RSA key, or an EC or Ed25519 key.`);
  }
  // A key whose material was judged before (imported, or refused for what it is) is a duplicate.
  // Another spelling of it is refused as not canonical before anything is judged, and recorded as nothing.
  const canonical = canonicalThumbprint(jwk);
  if (typeof canonical === 'string') {
    if (imported.has(canonical)) return refusal('duplicate_key', `Key ${index} is the same key as one listed before it; it is read once.`);
    if (!spelledCanonically(jwk, canonical)) return NOT_CANONICAL;
  }
  const judged = () => typeof canonical === 'string' && imported.add(canonical);
  // A prime modulus costs OpenSSL's primality check seconds: a set must not make Signet pay it per
  // key and per fetch. A modulus new to Signet is screened by one round in JavaScript first, at most
  // a few per reading, and every verdict is kept (rsa-modulus.ts); the import below reads it from `verdicts`.
  const modulus = rsaBits >= MIN_RSA_BITS ? BigInt(`0x${Buffer.from(jwk.n as string, 'base64url').toString('hex')}`) : undefined;
  const held = typeof canonical === 'string' && newModuli.held?.has(canonical) === true;
  if (modulus !== undefined && !held && !verdicts.has(modulus)) {
    if (newModuli.left <= 0) {
      return refusal(
        'too_many_new_rsa_keys',
        `The set lists more RSA keys new to this API than it checks in one fetch (${newModuli.limit}); this one is checked at a later fetch. Publish a few new RSA keys at a time, or EC or Ed25519 keys.`,
      );
    }
    newModuli.left -= 1;
  }
  const weakness = modulus === undefined ? undefined : held ? verdicts.weakness(modulus) : verdicts.screenedWeakness(modulus);
  if (weakness === PRIME_MODULUS) {
    judged();
    return refusal('weak_key', `The RSA key's modulus ${PRIME_MODULUS}. Generate a new key pair.`);
  }
  let info;
  try {
    info = importPublicKey(jwk, undefined, verdicts);
    judged();
  } catch (error) {
    if (!isSignetError(error)) throw error;
    if (error.code === 'weak_key' || error.code === 'key_too_small') judged();
    const code: KeyRefusalCode = error.code === 'key_too_small' || error.code === 'weak_key' || error.code === 'unsupported_key_type' ? error.code : error.code === 'private_key_submitted' ? 'private_key_member' : 'invalid_public_key';
    return refusal(code === 'unsupported_key_type' && jwk.alg !== undefined ? 'unsupported_algorithm' : code, error.message);
  }
  const thumbprint = thumbprintOfKey(info.key);
  if (jwkThumbprint(jwk) !== thumbprint) return NOT_CANONICAL;
  const known = KNOWN_TEST_KEY_THUMBPRINTS.get(thumbprint);
  if (known !== undefined) {
    return refusal('known_test_key', `This is the ${known}, whose private key is published: anyone can sign with it. Generate a key pair of your own.`);
  }
  return {
    ...(typeof jwk.kid === 'string' ? { kid: jwk.kid } : {}),
    thumbprint,
    fingerprint: info.fingerprint,
    spkiPem: info.spkiPem,
    algorithm: info.algorithm,
    keyType: info.keyType,
    ...validity,
  };
}

/** The bits of a base64url modulus, from its bytes, before any key is built of it (leading zero bytes not counted). */
function modulusBits(n: string): number {
  const bytes = Buffer.from(n, 'base64url');
  let first = 0;
  while (first < bytes.length && bytes[first] === 0) first++;
  return first === bytes.length ? 0 : bitLength(bytes.subarray(first));
}

/** `nbf` and `exp` (NumericDate, RFC 7519 §2), whole seconds; `exp` after `nbf`, and not passed at `nowS`. */
function readValidity(jwk: JsonWebKey, nowS: number | undefined): { notBeforeS?: number; expiresS?: number } | { code: KeyRefusalCode; message: string } {
  const read = (name: 'nbf' | 'exp'): number | undefined | null => {
    const value = jwk[name];
    if (value === undefined) return undefined;
    return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : null;
  };
  const notBeforeS = read('nbf');
  const expiresS = read('exp');
  if (notBeforeS === null || expiresS === null) return refusal('invalid_validity', 'Its "nbf" or "exp" is not a number of seconds since 1970.');
  if (notBeforeS !== undefined && expiresS !== undefined && expiresS <= notBeforeS) {
    return refusal('invalid_validity', 'Its "exp" is not after its "nbf": it is never valid.');
  }
  if (expiresS !== undefined && nowS !== undefined && expiresS <= nowS) {
    return refusal('expired', `It expired at ${new Date(expiresS * 1000).toISOString()} ("exp").`);
  }
  return { ...(notBeforeS === undefined ? {} : { notBeforeS }), ...(expiresS === undefined ? {} : { expiresS }) };
}

function refusal(code: KeyRefusalCode, message: string): { code: KeyRefusalCode; message: string } {
  return { code, message };
}
