/**
 * RSA keys no generator would make, written as DER by hand (Node's key generator refuses them):
 * a 2048-bit key with public exponent 1 (its "signature" of a message is the padded digest
 * itself, so anyone can make one), one with exponent 3, one whose modulus is even, and moduli
 * anyone can factor or sign for (prime, square, a small factor, primes close together). Node
 * imports all of them without complaint; Signet must not.
 */
import { checkPrimeSync, createHash, createPrivateKey, generateKeyPairSync, generatePrimeSync, type KeyObject } from 'node:crypto';

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const tlv = (tag: number, body: Buffer): Buffer => Buffer.concat([Buffer.from([tag]), length(body.length), body]);
const sequence = (...parts: Buffer[]): Buffer => tlv(0x30, Buffer.concat(parts));

/** A DER INTEGER (non-negative). */
function integer(value: bigint): Buffer {
  let hex = value.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  let bytes = Buffer.from(hex, 'hex');
  if (bytes[0] & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return tlv(0x02, bytes);
}

/** AlgorithmIdentifier rsaEncryption (1.2.840.113549.1.1.1) with NULL parameters. */
const RSA_ENCRYPTION = sequence(Buffer.from('06092a864886f70d0101010500', 'hex'));

/** SubjectPublicKeyInfo DER for the RSA public key (n, e). */
export function rsaSpkiDer(n: bigint, e: bigint): Buffer {
  return sequence(RSA_ENCRYPTION, tlv(0x03, Buffer.concat([Buffer.from([0]), sequence(integer(n), integer(e))])));
}

/** The PEM of a DER SPKI. */
export function spkiPemOfDer(der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN PUBLIC KEY-----\n${lines.join('\n')}\n-----END PUBLIC KEY-----\n`;
}

/** Signet's fingerprint of a DER SPKI (SHA-256, base64url), computed independently of the code under test. */
export function fingerprintOfDer(der: Buffer): string {
  return createHash('sha256').update(der).digest('base64url');
}

function modularInverse(a: bigint, m: bigint): bigint {
  let [oldR, r] = [((a % m) + m) % m, m];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const q = oldR / r;
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  return ((oldS % m) + m) % m;
}

/** A 2048-bit modulus of a real key (odd, a product of two primes). */
function realModulus(): bigint {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const n = (publicKey.export({ format: 'jwk' }) as { n: string }).n;
  return BigInt(`0x${Buffer.from(n, 'base64url').toString('hex')}`);
}

export interface WeakKey {
  /** SPKI DER, its PEM, and its fingerprint. */
  readonly spkiDer: Buffer;
  readonly spkiPem: string;
  readonly fingerprint: string;
}

/** A 2048-bit public key with exponent `e` (1 or 3 make it useless). */
export function rsaPublicKeyWithExponent(e: bigint): WeakKey {
  const der = rsaSpkiDer(realModulus(), e);
  return { spkiDer: der, spkiPem: spkiPemOfDer(der), fingerprint: fingerprintOfDer(der) };
}

/** A 2048-bit "public key" with exponent 65537 and an even modulus. */
export function rsaPublicKeyWithEvenModulus(): WeakKey {
  const der = rsaSpkiDer(realModulus() - 1n, 65_537n);
  return { spkiDer: der, spkiPem: spkiPemOfDer(der), fingerprint: fingerprintOfDer(der) };
}

/**
 * A 2048-bit RSA private key with e = d = 1 (PKCS#1 fields filled consistently: n = p·q, the CRT
 * exponents 1): what signs for an e = 1 public key. Its signature of anything is the padded
 * digest, which anyone can compute.
 */
export function rsaPrivateKeyWithExponentOne(): WeakKey & { readonly privateKey: KeyObject } {
  const p = generatePrimeSync(1024, { bigint: true });
  const q = generatePrimeSync(1024, { bigint: true });
  const n = p * q;
  const der = sequence(integer(0n), integer(n), integer(1n), integer(1n), integer(p), integer(q), integer(1n), integer(1n), integer(modularInverse(q, p)));
  const privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs1' });
  const spki = rsaSpkiDer(n, 1n);
  return { privateKey, spkiDer: spki, spkiPem: spkiPemOfDer(spki), fingerprint: fingerprintOfDer(spki) };
}

/** A public key (exponent 65537) for the modulus `n`, as DER, PEM and fingerprint. */
export function rsaPublicKeyWithModulus(n: bigint): WeakKey & { readonly n: bigint } {
  const der = rsaSpkiDer(n, 65_537n);
  return { n, spkiDer: der, spkiPem: spkiPemOfDer(der), fingerprint: fingerprintOfDer(der) };
}

/** The smallest prime at or above `from` (odd steps; Node's Miller-Rabin). */
export function nextPrime(from: bigint): bigint {
  let candidate = from | 1n;
  while (!checkPrimeSync(candidate)) candidate += 2n;
  return candidate;
}

/** A 2048-bit prime modulus whose p − 1 is prime to 65537, so d = 65537⁻¹ mod (n − 1) exists: anyone signs for it. */
export function primeModulus(): bigint {
  for (;;) {
    const n = generatePrimeSync(2048, { bigint: true });
    if ((n - 1n) % 65_537n !== 0n) return n;
  }
}

/** p² for a 1024-bit prime p (p = q). */
export function squareModulus(): bigint {
  const p = generatePrimeSync(1024, { bigint: true });
  return p * p;
}

/** 65521 (the largest prime below 2^16) times a prime, 2048 bits in all. */
export function smallFactorModulus(): bigint {
  for (;;) {
    const n = 65_521n * generatePrimeSync(2033, { bigint: true });
    if (n.toString(2).length >= 2048) return n;
  }
}

/** p · q with q the first prime after p + 2^`gapBits` (1024-bit p). */
export function closePrimesModulus(gapBits = 200): bigint {
  const p = generatePrimeSync(1024, { bigint: true });
  return p * nextPrime(p + (1n << BigInt(gapBits)));
}

/**
 * What anyone can do with a prime modulus n: d = 65537⁻¹ mod (n − 1), and the signature of `base`
 * is EMSA-PKCS1-v1_5(SHA-256(base))^d mod n — no private key involved.
 */
export function forgeForPrimeModulus(n: bigint, base: string): Buffer {
  const d = modularInverse(65_537n, n - 1n);
  const bytes = (n.toString(16).length + 1) >> 1;
  const digestInfo = Buffer.concat([Buffer.from('3031300d060960864801650304020105000420', 'hex'), createHash('sha256').update(base).digest()]);
  const encoded = Buffer.concat([Buffer.from([0x00, 0x01]), Buffer.alloc(bytes - 3 - digestInfo.length, 0xff), Buffer.from([0x00]), digestInfo]);
  let result = 1n;
  let power = BigInt(`0x${encoded.toString('hex')}`) % n;
  for (let e = d; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * power) % n;
    power = (power * power) % n;
  }
  return Buffer.from(result.toString(16).padStart(bytes * 2, '0'), 'hex');
}
