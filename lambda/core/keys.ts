/**
 * Key formats: turning the text people paste into RSA `KeyObject`s, once, and naming them.
 *
 * Accepted public keys: SPKI PEM (`BEGIN PUBLIC KEY`), PKCS#1 PEM (`BEGIN RSA PUBLIC KEY`), and
 * bare Base64 DER of either. Accepted private keys: private.pkcs8.b64's form (PKCS#8 DER in Base64, PEM
 * header/footer and all whitespace removed), PKCS#8 PEM and PKCS#1 PEM. RSA only, at least
 * {@link MIN_RSA_BITS} bits, public exponent 65537 and a modulus nobody can factor easily
 * ({@link checkRsaKeyStrength}).
 *
 * Private material offered where a public key belongs is refused with `private_key_submitted`;
 * no message here ever echoes the input.
 */
import { KeyObject, createHash, createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { BoundedCache } from './bounded-cache';
import { DEFAULT_KEY_CACHE_MAX_ENTRIES, DEFAULT_RSA_BITS, MIN_RSA_BITS } from './defaults';
import { SignetError, fail } from './errors';
import { modulusWeakness } from './rsa-modulus';

/** A verified, imported public key. */
export interface PublicKeyInfo {
  readonly key: KeyObject;
  /** SHA-256 of the SPKI DER, base64url without padding (43 characters, URL-safe). */
  readonly fingerprint: string;
  /** The canonical SPKI PEM, what the registry stores. */
  readonly spkiPem: string;
  readonly bits: number;
}

/** An imported private key with its public half. */
export interface PrivateKeyInfo {
  readonly key: KeyObject;
  readonly publicKey: KeyObject;
  /** Fingerprint of the public half (see {@link PublicKeyInfo.fingerprint}). */
  readonly fingerprint: string;
  /** As private.pkcs8.b64 holds it: PKCS#8 DER, Base64, no header/footer, no whitespace. */
  readonly pkcs8Base64: string;
  readonly bits: number;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/;
const BASE64_BODY = /^[A-Za-z0-9+/]+={0,2}$/;
const BASE64URL_BODY = /^[A-Za-z0-9_-]+$/;

/** A private key's PEM header, of any kind: PKCS#8, PKCS#1 RSA, SEC1 EC, DSA, OpenSSH, encrypted PKCS#8. */
const PRIVATE_PEM_HEADER = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;
/** PEM armour lines, removed before the Base64 between and around them is judged. */
const PEM_ARMOUR = /-----(?:BEGIN|END) [A-Z0-9 ]*-----/g;
/** What separates Base64 runs: anything outside the Base64 and base64url alphabets, and `=` (padding ends a run; `KEY=MII…` starts one). */
const NOT_BASE64 = /[^A-Za-z0-9+/_-]+/;
/** Escapes a key pasted into JSON or code carries instead of line breaks (`\n`, `\r`, `\t`)… */
const ESCAPED_BREAKS = /\\[nrt]/g;
/** …and for `/` (`\/`, as some JSON writers do). */
const ESCAPED_SLASH = /\\\//g;
/**
 * A JWK's private member `d` beside its `kty`, in any JSON-like text: double, single or no
 * quotes around names and values (`{"d":"…"}`, `{'d': '…'}`, `{d: '…'}`).
 */
const JWK_PRIVATE_MEMBER = /(?:^|[^A-Za-z0-9_$])["']?d["']?\s*[:=]\s*["'][A-Za-z0-9_-]{8,}/;
const JWK_KTY_MEMBER = /(?:^|[^A-Za-z0-9_$])["']?kty["']?\s*[:=]/;
/** OpenSSH's private key format (`openssh-key-v1\0` in Base64) and PuTTY's, even without their armour. */
const OTHER_PRIVATE_FORMATS = /b3BlbnNzaC1rZXktdjEA|PuTTY-User-Key-File-\d|Private-Lines:\s*\d/;
/** A run of hex that starts a DER SEQUENCE: `30…`, bytes optionally separated by `:` or one space (openssl's dumps). */
const HEX_DER_RUN = /(?<![0-9a-fA-F])30(?:[:\s]?[0-9a-fA-F]{2}){39,}/g;
/** The smallest private key DER judged (an Ed25519 PKCS#8 is 48 bytes). */
const MIN_PRIVATE_DER_BYTES = 40;
/** The largest (a 16384-bit RSA PKCS#8 is about 9.4 KB). */
const MAX_PRIVATE_DER_BYTES = 16_384;
/**
 * Most DER candidates parsed in one scan (one text, or one whole body): bounds the work a long
 * body of Base64 or hex decoys can cause (each parse attempt costs up to a few tenths of a
 * millisecond). A scan that would need more does not guess: it says so
 * (`too_many_candidates`), and callers refuse the input.
 */
const MAX_DER_CANDIDATES = 64;

/** The parse attempts a scan has left. */
interface ScanBudget {
  candidates: number;
}

/**
 * What a scan for private key material found: some, none, or more key-like runs than one scan
 * parses ({@link MAX_DER_CANDIDATES}) — then it cannot tell, and the input must be refused.
 */
export type PrivateKeyScan = 'private_key' | 'none' | 'too_many_candidates';

/** Thrown inside a scan when its budget runs out. */
const OUT_OF_BUDGET = Symbol('out of budget');

/**
 * True when the text holds private key material anywhere in it, in any form Signet recognises,
 * or holds too many key-like runs to tell (fail closed):
 * - a PEM private key block of any kind (`-----BEGIN … PRIVATE KEY-----`), OpenSSH's or PuTTY's
 *   format;
 * - Base64 (or base64url) of a PKCS#8, PKCS#1 or SEC1 private key DER, whether inside a PEM block
 *   whose label was edited, bare, after a public key, after `KEY=` or among other words, on one
 *   line, wrapped, or with its line breaks written as `\n` escapes;
 * - hex of such a DER (`3082…`, also `30:82:…`);
 * - a JWK with a private member `d` beside its `kty`, however quoted.
 * The whole text is judged, not its first key: a public PEM followed by a private key is private.
 */
export function looksLikePrivateKey(text: string): boolean {
  return scanForPrivateKey(text) !== 'none';
}

/**
 * True when any string anywhere in a JSON value holds private key material (see
 * {@link scanForPrivateKey}), or when the value is too full of key-like runs to tell.
 */
export function holdsPrivateKeyMaterial(value: unknown): boolean {
  return scanForPrivateKey(value) !== 'none';
}

/**
 * Looks for private key material in any JSON value: a string, or every string at any depth of
 * arrays and objects (member names too), and objects that are private JWKs (a `kty` and a `d`).
 * For request bodies: every field is judged, not only `publicKey`. One parse budget for the whole
 * value; iterative, so a deeply nested body cannot exhaust the stack.
 */
export function scanForPrivateKey(value: unknown): PrivateKeyScan {
  const budget: ScanBudget = { candidates: MAX_DER_CANDIDATES };
  const pending: unknown[] = [value];
  try {
    while (pending.length > 0) {
      const next = pending.pop();
      if (typeof next === 'string') {
        if (textHoldsPrivateKey(next, budget)) return 'private_key';
      } else if (Array.isArray(next)) {
        pending.push(...next);
      } else if (typeof next === 'object' && next !== null) {
        if ('kty' in next && 'd' in next) return 'private_key';
        for (const [name, member] of Object.entries(next)) pending.push(name, member);
      }
    }
  } catch (error) {
    if (error === OUT_OF_BUDGET) return 'too_many_candidates';
    throw error;
  }
  return 'none';
}

function textHoldsPrivateKey(text: string, budget: ScanBudget): boolean {
  if (PRIVATE_PEM_HEADER.test(text) || OTHER_PRIVATE_FORMATS.test(text)) return true;
  if (JWK_KTY_MEMBER.test(text) && JWK_PRIVATE_MEMBER.test(text)) return true;
  const plain = text.replace(PEM_ARMOUR, ' ').replace(ESCAPED_BREAKS, ' ').replace(ESCAPED_SLASH, '/');
  return holdsPrivateDer(plain, budget) || holdsPrivateHexDer(plain, budget);
}

/** Spends one parse attempt; out of budget, ends the scan (see {@link OUT_OF_BUDGET}). */
function spend(budget: ScanBudget): void {
  if (budget.candidates <= 0) throw OUT_OF_BUDGET;
  budget.candidates--;
}

/**
 * True when a run of Base64 in the text decodes to a private key DER. Runs are the text's tokens
 * (split on anything outside the Base64 alphabets); a DER may span tokens (a wrapped PEM body),
 * so each token that starts a DER SEQUENCE is joined with the tokens after it up to the length
 * its header declares, and parsed as exactly that many bytes.
 */
function holdsPrivateDer(text: string, budget: ScanBudget): boolean {
  const tokens = text.split(NOT_BASE64).filter((token) => token !== '');
  for (let i = 0; i < tokens.length; i++) {
    const head = tokens[i].length >= 12 && tokens[i][0] === 'M' ? Buffer.from(toStandardBase64(tokens[i].slice(0, 12)), 'base64') : undefined;
    const declared = head === undefined ? undefined : declaredDerBytes(head);
    if (declared === undefined) continue;
    spend(budget);
    const needed = Math.ceil((declared * 4) / 3); // the characters that carry `declared` bytes, padding not needed
    let joined = '';
    for (let j = i; j < tokens.length && joined.length < needed; j++) joined += tokens[j];
    if (joined.length < needed) continue;
    const der = Buffer.from(toStandardBase64(joined.slice(0, needed)), 'base64');
    if (der.length >= declared && isPrivateDer(der.subarray(0, declared))) return true;
  }
  return false;
}

/** True when a run of hex in the text (`3082…`, `30:82:…`) is a private key DER. */
function holdsPrivateHexDer(text: string, budget: ScanBudget): boolean {
  for (const match of text.matchAll(HEX_DER_RUN)) {
    const hex = match[0].replace(/[:\s]/g, '');
    const declared = declaredDerBytes(Buffer.from(hex.slice(0, 24), 'hex'));
    if (declared === undefined || hex.length < declared * 2) continue;
    spend(budget);
    if (isPrivateDer(Buffer.from(hex.slice(0, declared * 2), 'hex'))) return true;
  }
  return false;
}

/**
 * The total length a DER SEQUENCE header declares, when the bytes start one of a plausible size
 * whose first element is what every private key format starts with: the version INTEGER 0
 * (PKCS#8, PKCS#1) or 1 (SEC1), or a SEQUENCE (encrypted PKCS#8). Cheap, so decoys rarely cost a
 * parse. `head`: the first 9 bytes or more.
 */
function declaredDerBytes(head: Buffer): number | undefined {
  if (head[0] !== 0x30) return undefined;
  let total: number;
  let at: number;
  if (head[1] < 0x80) {
    total = 2 + head[1];
    at = 2;
  } else {
    const octets = head[1] & 0x7f;
    if (octets < 1 || octets > 3) return undefined;
    let length = 0;
    for (let k = 0; k < octets; k++) length = length * 256 + head[2 + k];
    total = 2 + octets + length;
    at = 2 + octets;
  }
  const versionOrSequence = head[at] === 0x30 || (head[at] === 0x02 && head[at + 1] === 0x01 && head[at + 2] <= 1);
  return versionOrSequence && total >= MIN_PRIVATE_DER_BYTES && total <= MAX_PRIVATE_DER_BYTES ? total : undefined;
}

function toStandardBase64(text: string): string {
  return text.replace(/-/g, '+').replace(/_/g, '/');
}

/**
 * Imports a public key from any accepted format.
 * @throws SignetError `private_key_submitted`, `invalid_public_key`, `unsupported_key_type`, `key_too_small`
 */
export function importPublicKey(text: string): PublicKeyInfo {
  if (typeof text !== 'string' || text.trim() === '') {
    fail('invalid_public_key', 'The public key is empty. Paste the SPKI PEM (-----BEGIN PUBLIC KEY-----) of your key pair.');
  }
  if (looksLikePrivateKey(text)) {
    fail(
      'private_key_submitted',
      'This is a private key. Paste only the public half (-----BEGIN PUBLIC KEY-----), and treat this private key as exposed: generate a new key pair.',
    );
  }
  let key: KeyObject | undefined;
  const pem = PEM_BLOCK.exec(text);
  if (pem) {
    try {
      key = createPublicKey({ key: pem[0], format: 'pem' });
    } catch (cause) {
      fail('invalid_public_key', `The ${pem[1]} block could not be read as a public key. Paste the whole PEM, header and footer included.`, { cause });
    }
  } else {
    const der = decodeBareBase64(text.trim());
    if (der === undefined) {
      fail('invalid_public_key', 'The public key is neither PEM nor Base64 DER. Paste the SPKI PEM (-----BEGIN PUBLIC KEY-----).');
    }
    key = parsePublicDer(der);
    if (key === undefined) {
      fail('invalid_public_key', 'The Base64 text is not an SPKI or PKCS#1 RSA public key. Paste the SPKI PEM (-----BEGIN PUBLIC KEY-----).');
    }
  }
  if (key.type !== 'public') {
    fail('private_key_submitted', 'This is a private key. Paste only the public half, and treat this private key as exposed.');
  }
  const bits = checkRsa(key, 'public');
  return { key, fingerprint: fingerprintOf(key), spkiPem: spkiPemOf(key), bits };
}

/**
 * Imports a private key: headerless Base64 PKCS#8 (private.pkcs8.b64), PKCS#8 PEM or PKCS#1 PEM.
 * @throws SignetError `invalid_private_key`, `unsupported_key_type`, `key_too_small`
 */
export function importPrivateKey(text: string): PrivateKeyInfo {
  if (typeof text !== 'string' || text.trim() === '') {
    fail('invalid_private_key', 'The private key is empty. Give the PKCS#8 key as Base64 (no header/footer) or as PEM.');
  }
  let key: KeyObject | undefined;
  const pem = PEM_BLOCK.exec(text);
  if (pem) {
    if (pem[1] === 'ENCRYPTED PRIVATE KEY') {
      fail('invalid_private_key', 'The private key is encrypted. Export it unencrypted as PKCS#8 (openssl pkcs8 -topk8 -nocrypt).');
    }
    try {
      key = createPrivateKey({ key: pem[0], format: 'pem' });
    } catch (cause) {
      fail('invalid_private_key', `The ${pem[1]} block could not be read as a private key. Give the whole PEM, header and footer included.`, { cause });
    }
  } else {
    const der = decodeBareBase64(text.trim());
    key = der === undefined ? undefined : parsePrivateDer(der);
    if (key === undefined) {
      fail('invalid_private_key', 'The text is not a PKCS#8 private key in Base64 or PEM. Give the key as produced by `signet keygen` (private.pkcs8.b64).');
    }
  }
  const bits = checkRsa(key, 'private');
  const publicKey = createPublicKey(key);
  return {
    key,
    publicKey,
    fingerprint: fingerprintOf(publicKey),
    pkcs8Base64: (key.export({ type: 'pkcs8', format: 'der' }) as Buffer).toString('base64'),
    bits,
  };
}

/** SHA-256 of the SPKI DER of a public (or private: its public half) key, base64url, no padding. */
export function fingerprintOf(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  const der = pub.export({ type: 'spki', format: 'der' }) as Buffer;
  return createHash('sha256').update(der).digest('base64url');
}

/** True when `value` has the shape of a fingerprint (43 base64url characters). */
export function isFingerprint(value: string): boolean {
  return value.length === 43 && BASE64URL_BODY.test(value);
}

/** The canonical SPKI PEM of a key's public half. */
export function spkiPemOf(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return pub.export({ type: 'spki', format: 'pem' }) as string;
}

/** A fresh RSA key pair (e = 65537). */
export function generateRsaKeyPair(bits: number = DEFAULT_RSA_BITS): PrivateKeyInfo {
  if (!Number.isInteger(bits) || bits < MIN_RSA_BITS || bits > 16384) {
    fail('key_too_small', `RSA keys must be at least ${MIN_RSA_BITS} bits; ${bits} was asked for.`);
  }
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: bits, publicExponent: 0x10001 });
  return importPrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
}

/**
 * Imported public keys, bounded, keyed by fingerprint: importing a PEM costs about ten
 * verifications, so the authorizer does it once per key, not per request.
 */
export class PublicKeyCache {
  private readonly cache: BoundedCache<string, KeyObject>;

  constructor(maxEntries: number = DEFAULT_KEY_CACHE_MAX_ENTRIES) {
    this.cache = new BoundedCache(maxEntries);
  }

  /**
   * The `KeyObject` for a stored key. The PEM is imported on a miss, and its fingerprint must
   * match the one it was stored under (a corrupted record is refused, not trusted).
   */
  get(fingerprint: string, spkiPem: string): KeyObject {
    const hit = this.cache.get(fingerprint);
    if (hit !== undefined) return hit;
    const info = importPublicKey(spkiPem);
    if (info.fingerprint !== fingerprint) {
      throw new SignetError('invalid_public_key', 'A stored public key does not match its recorded fingerprint; the record needs repair.');
    }
    this.cache.set(fingerprint, info.key);
    return info.key;
  }

  get size(): number {
    return this.cache.size;
  }
}

function checkRsa(key: KeyObject, kind: 'public' | 'private'): number {
  if (key.asymmetricKeyType !== 'rsa') {
    fail(
      'unsupported_key_type',
      `The ${kind} key is ${key.asymmetricKeyType ?? 'of an unknown type'}; Signet uses rsa-v1_5-sha256 and needs a plain RSA key.`,
    );
  }
  return checkRsaKeyStrength(key, kind);
}

/** The only RSA public exponent Signet accepts: F4, what every mainstream key generator uses. */
export const RSA_PUBLIC_EXPONENT = 65_537n;

/**
 * The one rule for the strength of an RSA key (public, or the public half of a private one);
 * registration, rotation, signing and loading stored keys for verification all reach it through
 * {@link importPublicKey} / {@link importPrivateKey}.
 *
 * - At least {@link MIN_RSA_BITS} bits.
 * - Public exponent exactly 65537. With e = 1 a "signature" is the padded digest itself, so
 *   anyone forges one without the private key; small exponents (3, 17) have their own attacks on
 *   PKCS#1 v1.5 verifiers. Exactly 65537 rather than "odd and at least 65537" (which FIPS 186
 *   would also allow): every generator in use (OpenSSL, AWS KMS, Java, .NET, Go, WebCrypto
 *   defaults, `signet keygen`) writes 65537, and a fixed exponent keeps the cost of each
 *   verification fixed, so a registered key cannot make every request (and every forged one
 *   naming it) expensive with a huge exponent.
 * - A modulus nobody can factor easily ({@link modulusWeakness}): not even, not prime, not a
 *   square, no small factor, its primes not close together. Each of those lets anyone who reads
 *   the public key sign for it.
 *
 * @returns the modulus length in bits
 * @throws SignetError `key_too_small`, `weak_key`
 */
export function checkRsaKeyStrength(key: KeyObject, kind: 'public' | 'private' = key.type === 'private' ? 'private' : 'public'): number {
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_RSA_BITS) {
    fail('key_too_small', `The RSA ${kind} key has ${bits} bits; at least ${MIN_RSA_BITS} are required. Generate a new key pair.`);
  }
  const exponent = key.asymmetricKeyDetails?.publicExponent;
  if (exponent !== RSA_PUBLIC_EXPONENT) {
    fail(
      'weak_key',
      `The RSA ${kind} key's public exponent is ${describeExponent(exponent)}; Signet accepts only 65537 (with another, signatures can be forged or cost too much to check). Generate a new key pair (signet keygen, or openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048).`,
    );
  }
  const n = (key.export({ format: 'jwk' }) as { n?: string }).n;
  const weakness = modulusWeakness(n === undefined ? 0n : BigInt(`0x${Buffer.from(n, 'base64url').toString('hex') || '0'}`));
  if (weakness !== undefined) {
    fail('weak_key', `The RSA ${kind} key's modulus ${weakness}: signatures made for it prove nothing. Generate a new key pair (signet keygen, or openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048).`);
  }
  return bits;
}

function describeExponent(exponent: bigint | undefined): string {
  if (exponent === undefined) return 'unreadable';
  const text = exponent.toString();
  return text.length <= 20 ? text : `a ${exponent.toString(2).length}-bit number`;
}

function decodeBareBase64(text: string): Buffer | undefined {
  const compact = text.replace(/\s+/g, '');
  if (compact.length < 16 || compact.length % 4 !== 0 || !BASE64_BODY.test(compact)) return undefined;
  return Buffer.from(compact, 'base64');
}

function parsePublicDer(der: Buffer): KeyObject | undefined {
  for (const type of ['spki', 'pkcs1'] as const) {
    try {
      return createPublicKey({ key: der, format: 'der', type });
    } catch {
      // try the next encoding
    }
  }
  return undefined;
}

function parsePrivateDer(der: Buffer): KeyObject | undefined {
  for (const type of ['pkcs8', 'pkcs1'] as const) {
    try {
      return createPrivateKey({ key: der, format: 'der', type });
    } catch {
      // try the next encoding
    }
  }
  return undefined;
}

/**
 * True when DER bytes are a private key: PKCS#8 (also encrypted: a passphrase is asked for),
 * PKCS#1 RSA or SEC1 EC.
 */
function isPrivateDer(der: Buffer): boolean {
  for (const type of ['pkcs8', 'pkcs1', 'sec1'] as const) {
    try {
      createPrivateKey({ key: der, format: 'der', type });
      return true;
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ERR_MISSING_PASSPHRASE') return true;
    }
  }
  return false;
}
