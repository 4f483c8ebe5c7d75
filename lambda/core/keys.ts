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
import { decodeBareBase64 } from './base64';
import { PRIVATE_KEY_SUBMITTED_MESSAGE, looksLikePrivateKey } from './private-key-scan';
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
const BASE64URL_BODY = /^[A-Za-z0-9_-]+$/;

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
      PRIVATE_KEY_SUBMITTED_MESSAGE,
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

function parsePublicDer(bytes: Uint8Array): KeyObject | undefined {
  const der = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const type of ['spki', 'pkcs1'] as const) {
    try {
      return createPublicKey({ key: der, format: 'der', type });
    } catch {
      // try the next encoding
    }
  }
  return undefined;
}

function parsePrivateDer(bytes: Uint8Array): KeyObject | undefined {
  const der = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const type of ['pkcs8', 'pkcs1'] as const) {
    try {
      return createPrivateKey({ key: der, format: 'der', type });
    } catch {
      // try the next encoding
    }
  }
  return undefined;
}
