/**
 * Key formats: turning the text people paste into `KeyObject`s, once, and naming them.
 *
 * Key types: RSA (at least {@link MIN_RSA_BITS} bits, public exponent 65537, a modulus nobody can
 * factor easily: {@link checkRsaKeyStrength}), Ed25519 (not one of the small-order points anyone
 * can sign for: {@link checkEd25519Key}), and ECDSA on P-256 or P-384. Each key has one signature
 * algorithm (./algorithms.ts).
 *
 * Accepted public keys: SPKI PEM (`BEGIN PUBLIC KEY`), PKCS#1 PEM (`BEGIN RSA PUBLIC KEY`), bare
 * Base64 DER of either, and a JWK (RFC 7517: an object or its JSON text, the form Web Bot Auth
 * key directories publish). An RSA key whose SPKI names id-RSASSA-PSS is stored as the plain RSA
 * key it is (so it has one fingerprint), registered for rsa-pss-sha512; an EC key written with a
 * compressed point is stored uncompressed (one fingerprint too). Every key is judged whole by the
 * gate of ./der.ts and ./ec-point.ts before node:crypto builds it: no input ends the process. Accepted private keys:
 * private.pkcs8.b64's form (PKCS#8 DER in Base64, PEM header/footer and all whitespace removed),
 * PKCS#8 PEM, PKCS#1 and SEC1 PEM, and an Ed25519 seed as 64 hex digits (what curl's
 * `--httpsig-key` reads).
 *
 * Private material offered where a public key belongs is refused with `private_key_submitted`;
 * no message here ever echoes the input.
 */
import { KeyObject, createHash, createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { type SignatureAlgorithm, algorithmForKey, describeKey } from './algorithms';
import { BoundedCache } from './bounded-cache';
import { DEFAULT_KEY_CACHE_MAX_ENTRIES, DEFAULT_RSA_BITS, MAX_RSA_BITS, MIN_RSA_BITS } from './defaults';
import { isPkcs1PrivateKey, judgePrivateKeyDer, pkcs8AlgorithmOid, spkiOfPkcs1, spkiSubjectPublicKey } from './der';
import { type GatedPublicKey, type JsonWebKey, gatedPublicKeyOfJwk, gatedPublicKeyOfText, jwkOfText, refuseUnlessAccepted } from './public-key-text';
import { SignetError, fail } from './errors';
import { decodeBareBase64 } from './base64';
import { refusePublicKeyGiven } from './public-key-file';
import { ModulusVerdicts, modulusWeakness } from './rsa-modulus';

/** A verified, imported public key. */
export interface PublicKeyInfo {
  readonly key: KeyObject;
  /** SHA-256 of the SPKI DER, base64url without padding (43 characters, URL-safe). */
  readonly fingerprint: string;
  /** The canonical SPKI PEM, what the registry stores. */
  readonly spkiPem: string;
  /** RSA: the modulus length; ECDSA: the curve's size; Ed25519: 256. */
  readonly bits: number;
  /** The signature algorithm the key is registered for. */
  readonly algorithm: SignatureAlgorithm;
  /** For people: "RSA-2048", "Ed25519", "ECDSA P-256". */
  readonly keyType: string;
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
  /** The algorithm the key signs with unless told otherwise (RSA: rsa-v1_5-sha256). */
  readonly algorithm: SignatureAlgorithm;
  /** For people: "RSA-2048", "Ed25519", "ECDSA P-256". */
  readonly keyType: string;
}

/** The key types `signet keygen` and rotation make. */
export const KEY_TYPES = ['rsa', 'ed25519', 'ecdsa-p256', 'ecdsa-p384'] as const;
export type KeyTypeName = (typeof KEY_TYPES)[number];

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/;
const BASE64URL_BODY = /^[A-Za-z0-9_-]+$/;
const ED25519_SEED_HEX = /^[0-9a-fA-F]{64}$/;

export type { JsonWebKey };

/**
 * Imports a public key from any accepted format, for the algorithm declared (or the key type's own).
 * @param declaredAlgorithm RSA keys only need it, for rsa-pss-sha512; when given it must fit the key
 * @param modulusVerdicts where an RSA modulus's verdict is remembered (default: judged afresh)
 * @throws SignetError `private_key_submitted`, `invalid_public_key`, `unsupported_key_type`, `key_too_small`, `weak_key`
 */
export function importPublicKey(input: string | JsonWebKey, declaredAlgorithm?: string, modulusVerdicts?: ModulusVerdicts): PublicKeyInfo {
  const jwk = typeof input === 'object' && input !== null ? input : typeof input === 'string' ? jwkOfText(input) : undefined;
  const gated = jwk !== undefined ? gatedPublicKeyOfJwk(jwk) : gatedPublicKeyOfText(input as string);
  const jwkAlgorithm = gated.jwkAlgorithm;
  if (jwkAlgorithm !== undefined && declaredAlgorithm !== undefined && declaredAlgorithm !== jwkAlgorithm) {
    fail('unsupported_key_type', `The JWK says its alg is ${jwkAlgorithm} but algorithm ${JSON.stringify(String(declaredAlgorithm).slice(0, 40))} was declared; give one, or the same in both.`);
  }
  const key = publicKeyOfSpki(gated);
  const algorithm = algorithmForKey(key, declaredAlgorithm ?? jwkAlgorithm);
  const plain = plainRsa(key);
  const bits = checkKeyStrength(plain, 'public', modulusVerdicts);
  return { key: plain, fingerprint: fingerprintOf(plain), spkiPem: spkiPemOf(plain), bits, algorithm, keyType: keyTypeOf(plain) };
}

/**
 * The one door from a key's bytes to a public `KeyObject`: only an SPKI the gate judged whole
 * (./public-key-text.ts) reaches node:crypto, because some keys Node builds without complaint
 * abort the process when their details are read (an EC point at infinity).
 */
function publicKeyOfSpki({ spki, source }: GatedPublicKey): KeyObject {
  try {
    return createPublicKey({ key: Buffer.from(spki.buffer, spki.byteOffset, spki.byteLength), format: 'der', type: 'spki' });
  } catch (cause) {
    return fail('invalid_public_key', `${source} could not be read as a public key. Paste the SPKI PEM (-----BEGIN PUBLIC KEY-----) exactly as your key tool wrote it.`, { cause });
  }
}

/**
 * Imports a private key: headerless Base64 PKCS#8 (private.pkcs8.b64), PKCS#8, PKCS#1 or SEC1 PEM,
 * or an Ed25519 seed as 64 hex digits (curl's --httpsig-key file).
 * @throws SignetError `invalid_private_key`, `unsupported_key_type`, `key_too_small`, `weak_key`
 */
export function importPrivateKey(text: string): PrivateKeyInfo {
  if (typeof text !== 'string' || text.trim() === '') {
    fail('invalid_private_key', 'The private key is empty. Give the PKCS#8 key as Base64 (no header/footer) or as PEM.');
  }
  refusePublicKeyGiven(text);
  const key = privateKeyOfText(text);
  const algorithm = algorithmForKey(key);
  const publicKey = plainRsa(createPublicKey(key));
  const bits = checkKeyStrength(publicKey, 'private');
  return {
    key,
    publicKey,
    fingerprint: fingerprintOf(publicKey),
    pkcs8Base64: (key.export({ type: 'pkcs8', format: 'der' }) as Buffer).toString('base64'),
    bits,
    algorithm,
    keyType: keyTypeOf(publicKey),
  };
}

/** PKCS#8 PrivateKeyInfo of an Ed25519 key, up to its 32-byte seed (RFC 8410 §7). */
const ED25519_PKCS8_PREFIX: Readonly<Buffer> = Buffer.from('302e020100300506032b657004220420', 'hex');

/** An Ed25519 private key's 32-byte seed as 64 lower-case hex digits: what curl's `--httpsig-key` file holds. */
export function ed25519SeedHex(privateKey: KeyObject): string {
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519') fail('invalid_private_key', 'Only an Ed25519 private key has a seed.');
  const d = (privateKey.export({ format: 'jwk' }) as { d?: string }).d ?? '';
  return Buffer.from(d, 'base64url').toString('hex');
}

/** SHA-256 of the SPKI DER of a public (or private: its public half) key, base64url, no padding. */
export function fingerprintOf(key: KeyObject): string {
  const der = plainRsa(key.type === 'private' ? createPublicKey(key) : key).export({ type: 'spki', format: 'der' }) as Buffer;
  return createHash('sha256').update(der).digest('base64url');
}

/** True when `value` has the shape of a fingerprint (43 base64url characters). */
export function isFingerprint(value: string): boolean {
  return value.length === 43 && BASE64URL_BODY.test(value);
}

/** The canonical SPKI PEM of a key's public half. */
export function spkiPemOf(key: KeyObject): string {
  return plainRsa(key.type === 'private' ? createPublicKey(key) : key).export({ type: 'spki', format: 'pem' }) as string;
}

/** A fresh RSA key pair (e = 65537). */
export function generateRsaKeyPair(bits: number = DEFAULT_RSA_BITS): PrivateKeyInfo {
  if (!Number.isInteger(bits) || bits < MIN_RSA_BITS || bits > MAX_RSA_BITS) {
    fail('key_too_small', `RSA keys must be ${MIN_RSA_BITS} to ${MAX_RSA_BITS} bits; ${bits} was asked for.`);
  }
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: bits, publicExponent: 0x10001 });
  return importPrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
}

/** A fresh key pair of `type` (RSA: `rsaBits`, default {@link DEFAULT_RSA_BITS}). */
export function generateKeyPair(type: KeyTypeName, rsaBits: number = DEFAULT_RSA_BITS): PrivateKeyInfo {
  switch (type) {
    case 'rsa':
      return generateRsaKeyPair(rsaBits);
    case 'ed25519':
      return importPrivateKey(generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
    case 'ecdsa-p256':
    case 'ecdsa-p384': {
      const namedCurve = type === 'ecdsa-p256' ? 'P-256' : 'P-384';
      return importPrivateKey(generateKeyPairSync('ec', { namedCurve }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
    }
    default:
      return fail('unsupported_key_type', `Key type ${JSON.stringify(String(type))} is not one of ${KEY_TYPES.join(', ')}.`);
  }
}

/** The key type of a key, as {@link generateKeyPair} names it (rotation makes the same type again). */
export function keyTypeNameOf(key: KeyObject | null): KeyTypeName {
  switch (key?.asymmetricKeyType) {
    case 'ed25519':
      return 'ed25519';
    case 'ec':
      return key.asymmetricKeyDetails?.namedCurve === 'secp384r1' ? 'ecdsa-p384' : 'ecdsa-p256';
    default:
      return 'rsa';
  }
}

/**
 * Imported public keys, bounded, keyed by fingerprint: importing a PEM costs about ten
 * verifications, so the authorizer does it once per key, not per request.
 */
export class PublicKeyCache {
  private readonly cache: BoundedCache<string, KeyObject>;
  /** The verdicts on the RSA moduli imported here: a stored weak key, refused again on every request naming it, is judged once. */
  readonly modulusVerdicts = new ModulusVerdicts();

  constructor(maxEntries: number = DEFAULT_KEY_CACHE_MAX_ENTRIES) {
    this.cache = new BoundedCache(maxEntries);
  }

  /**
   * The `KeyObject` for a stored key. The PEM is imported on a miss (and judged as at
   * registration, for its `algorithm`), and its fingerprint must match the one it was stored
   * under (a corrupted record is refused, not trusted). An EC key stored with a compressed point
   * before such keys were written uncompressed matches by the digest of its stored DER.
   */
  get(fingerprint: string, spkiPem: string, algorithm?: SignatureAlgorithm): KeyObject {
    const hit = this.cache.get(fingerprint);
    if (hit !== undefined) return hit;
    const info = importPublicKey(spkiPem, algorithm, this.modulusVerdicts);
    if (info.fingerprint !== fingerprint && storedDerDigest(spkiPem) !== fingerprint) {
      throw new SignetError('invalid_public_key', 'A stored public key does not match its recorded fingerprint; the record needs repair.');
    }
    this.cache.set(fingerprint, info.key);
    return info.key;
  }

  get size(): number {
    return this.cache.size;
  }
}

/** SHA-256 of the DER inside a stored SPKI PEM, as written (base64url), or undefined when it is not one PEM. */
function storedDerDigest(spkiPem: string): string | undefined {
  const pem = PEM_BLOCK.exec(spkiPem);
  const der = pem ? decodeBareBase64(pem[2]) : undefined;
  return der === undefined ? undefined : createHash('sha256').update(der).digest('base64url');
}

/**
 * An RSA key whose SPKI names id-RSASSA-PSS, as the plain rsaEncryption key it holds (same
 * modulus and exponent): one key, one fingerprint, whichever OID it came with. Others unchanged.
 */
function plainRsa(key: KeyObject): KeyObject {
  if (key.asymmetricKeyType !== 'rsa-pss' || key.type !== 'public') return key;
  const pkcs1 = spkiSubjectPublicKey(key.export({ type: 'spki', format: 'der' }) as Buffer);
  if (pkcs1 === undefined) fail('invalid_public_key', 'The RSA-PSS public key could not be read.');
  return createPublicKey({ key: Buffer.from(spkiOfPkcs1(pkcs1)), format: 'der', type: 'spki' });
}

/** "RSA-2048", "Ed25519", "ECDSA P-256", "ECDSA P-384". */
function keyTypeOf(key: KeyObject): string {
  return describeKey(key).replace(/^an? /, '').replace(/ key$/, '').replace(/^P-/, 'ECDSA P-');
}

/** The strength rule of the key's type. @returns its size in bits */
function checkKeyStrength(key: KeyObject, kind: 'public' | 'private', modulusVerdicts?: ModulusVerdicts): number {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return checkRsaKeyStrength(key, kind, modulusVerdicts);
    case 'ed25519':
      checkEd25519Key(key, kind);
      return 256;
    case 'ec':
      return key.asymmetricKeyDetails?.namedCurve === 'secp384r1' ? 384 : 256;
    default:
      return fail('unsupported_key_type', `The ${kind} key is ${describeKey(key)}; Signet accepts RSA, Ed25519, and ECDSA P-256 or P-384 keys.`);
  }
}

/**
 * The Ed25519 public keys of small order (RFC 8032 leaves them to the verifier; libsodium refuses
 * them): for these a "signature" that verifies for every message can be written without any
 * private key (R = the identity, S = 0 verifies for the identity key), so a client registered
 * with one proves nothing. Compared without the sign bit of x, which does not change the order.
 */
const SMALL_ORDER_ED25519_POINTS: ReadonlySet<string> = new Set([
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0100000000000000000000000000000000000000000000000000000000000000',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
]);

/** @throws SignetError `weak_key` for an Ed25519 key of small order ({@link SMALL_ORDER_ED25519_POINTS}) */
export function checkEd25519Key(key: KeyObject, kind: 'public' | 'private' = 'public'): void {
  const bytes = Buffer.from((key.export({ format: 'jwk' }) as { x?: string }).x ?? '', 'base64url');
  if (bytes.length !== 32) fail('invalid_public_key', `The Ed25519 ${kind} key is not 32 bytes.`);
  bytes[31] &= 0x7f;
  if (SMALL_ORDER_ED25519_POINTS.has(bytes.toString('hex'))) {
    fail('weak_key', `The Ed25519 ${kind} key is a point of small order: anyone can make signatures it accepts, without any private key. Generate a new key pair (signet keygen --alg ed25519).`);
  }
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
 * @param modulusVerdicts where the modulus's verdict is remembered (default: judged afresh)
 * @returns the modulus length in bits
 * @throws SignetError `key_too_small`, `weak_key`
 */
export function checkRsaKeyStrength(key: KeyObject, kind: 'public' | 'private' = key.type === 'private' ? 'private' : 'public', modulusVerdicts?: ModulusVerdicts): number {
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
  const modulus = n === undefined ? 0n : BigInt(`0x${Buffer.from(n, 'base64url').toString('hex') || '0'}`);
  const weakness = modulusVerdicts === undefined ? modulusWeakness(modulus) : modulusVerdicts.weakness(modulus);
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

/** The PEM labels of the private key forms Signet reads, with node:crypto's name of each. */
const PRIVATE_PEM_FORMS: Readonly<Record<string, 'pkcs8' | 'pkcs1' | 'sec1'>> = { 'PRIVATE KEY': 'pkcs8', 'RSA PRIVATE KEY': 'pkcs1', 'EC PRIVATE KEY': 'sec1' };

/** The private key in `text` (PEM, Ed25519 seed hex, or Base64 PKCS#8 / PKCS#1), judged by the gate before node:crypto builds it. */
function privateKeyOfText(text: string): KeyObject {
  // openssl ecparam -genkey writes an EC PARAMETERS block first: the key is the PRIVATE KEY block.
  const pem = PEM_BLOCK.exec(text.replace(/-----BEGIN EC PARAMETERS-----[\s\S]*?-----END EC PARAMETERS-----/, ''));
  let der: Uint8Array | undefined;
  let form: 'pkcs8' | 'pkcs1' | 'sec1' | undefined;
  let what = 'The Base64 text';
  if (pem) {
    const label = pem[1];
    if (label === 'ENCRYPTED PRIVATE KEY' || /Proc-Type:\s*4,ENCRYPTED/.test(pem[2])) {
      fail('invalid_private_key', 'The private key is encrypted. Export it unencrypted as PKCS#8 (openssl pkcs8 -topk8 -nocrypt).');
    }
    form = PRIVATE_PEM_FORMS[label];
    if (form === undefined) fail('invalid_private_key', `A ${label} block is not a private key. Give the PKCS#8 PEM (-----BEGIN PRIVATE KEY-----) or private.pkcs8.b64 from signet keygen.`);
    der = decodeBareBase64(pem[2]);
    what = `The ${label} block`;
    if (der === undefined) fail('invalid_private_key', `${what} could not be read as a private key: its body is not Base64. Give the whole PEM, header and footer included.`);
  } else if (ED25519_SEED_HEX.test(text.trim())) {
    der = Buffer.concat([ED25519_PKCS8_PREFIX, Buffer.from(text.trim(), 'hex')]);
    form = 'pkcs8';
  } else {
    der = decodeBareBase64(text.trim());
    form = der === undefined ? undefined : pkcs8AlgorithmOid(der) !== undefined ? 'pkcs8' : isPkcs1PrivateKey(der) ? 'pkcs1' : undefined;
    if (der === undefined || form === undefined) {
      fail('invalid_private_key', 'The text is not a PKCS#8 private key in Base64 or PEM. Give the key as produced by `signet keygen` (private.pkcs8.b64).');
    }
  }
  refuseUnlessAccepted(judgePrivateKeyDer(der, form), what, 'private');
  try {
    return createPrivateKey({ key: Buffer.from(der.buffer, der.byteOffset, der.byteLength), format: 'der', type: form });
  } catch (cause) {
    return fail('invalid_private_key', `${what} could not be read as a private key. Give the key as produced by \`signet keygen\` (private.pkcs8.b64) or its PKCS#8 PEM.`, { cause });
  }
}
