/**
 * JWK thumbprints (RFC 7638; RFC 8037 §2 for OKP keys): the base64url SHA-256 of a public key's
 * required JWK members, in lexicographic order, as JSON without whitespace. Web Bot Auth agents
 * and JWKS publishers name their keys this way (`keyid`), so it is how a published key is found.
 *
 * Required members (RFC 7638 §3.2, RFC 8037 §2): RSA `e`, `kty`, `n`; EC `crv`, `kty`, `x`, `y`;
 * OKP `crv`, `kty`, `x`. Every other member (`alg`, `kid`, `use`, ...) is left out, so one key has
 * one thumbprint whatever its JWK says about it.
 */
import { KeyObject, createHash, createPublicKey } from 'node:crypto';
import { spkiOfPkcs1, spkiSubjectPublicKey } from './der';
import { fail } from './errors';
import type { JsonWebKey } from './keys';

/** The members that make up a thumbprint, per `kty`, already in lexicographic order (RFC 7638 §3.3). */
const REQUIRED_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  RSA: ['e', 'kty', 'n'],
  EC: ['crv', 'kty', 'x', 'y'],
  OKP: ['crv', 'kty', 'x'],
};

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * The RFC 7638 SHA-256 thumbprint of a public JWK, base64url without padding (43 characters).
 * The members are taken as the JWK spells them: a key whose JWK pads `n` with a leading zero has
 * another thumbprint than its canonical form (./published-key-set.ts refuses such JWKs).
 * @example jwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' })
 *   // 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k' (RFC 8037 §A.3)
 * @throws SignetError `unsupported_key_type` for a `kty` other than RSA, EC, OKP;
 *   `invalid_public_key` when a required member is missing or not base64url / a curve name
 */
export function jwkThumbprint(jwk: JsonWebKey): string {
  const kty = typeof jwk.kty === 'string' ? jwk.kty : '';
  const members = Object.prototype.hasOwnProperty.call(REQUIRED_MEMBERS, kty) ? REQUIRED_MEMBERS[kty] : undefined;
  if (members === undefined) {
    fail('unsupported_key_type', `A thumbprint is taken of RSA, EC or OKP public keys; this JWK's kty is ${JSON.stringify(String(jwk.kty ?? 'missing').slice(0, 20))}.`);
  }
  const canonical: Record<string, string> = {};
  for (const name of members) {
    const value = jwk[name];
    const valid = typeof value === 'string' && (name === 'kty' || (name === 'crv' ? /^[A-Za-z0-9-]{1,16}$/.test(value) : BASE64URL.test(value)));
    if (!valid) fail('invalid_public_key', `The ${kty} JWK's "${name}" member is missing or not ${name === 'crv' ? 'a curve name' : 'base64url'}; an ${kty} key needs ${members.join(', ')}.`);
    canonical[name] = value;
  }
  // JSON.stringify writes these ASCII strings exactly as RFC 7638 §3.3 asks: no whitespace, members in insertion order.
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url');
}

/** Bytes of each coordinate of the EC curves a JWK may name (RFC 7518 §6.2.1.2). */
const COORDINATE_BYTES: Readonly<Record<string, number>> = { 'P-256': 32, 'P-384': 48, 'P-521': 66 };

/**
 * {@link jwkThumbprint} of the key a JWK holds, whatever spelling its members use: an RSA number
 * with leading zero bytes, padding or the standard Base64 alphabet, an EC coordinate written short.
 * Two JWKs of one key give one thumbprint; a JWK already canonical gives its own.
 * @returns undefined when the members cannot be read as a key of its `kty` (RSA, EC or OKP)
 */
export function canonicalJwkThumbprint(jwk: JsonWebKey): string | undefined {
  const bytesOf = (name: 'n' | 'e' | 'x' | 'y'): Buffer | undefined => {
    const value = jwk[name];
    return typeof value === 'string' && /^[A-Za-z0-9_+/-]+={0,2}$/.test(value) ? Buffer.from(value, 'base64url') : undefined;
  };
  const unsigned = (bytes: Buffer | undefined, size?: number): string | undefined => {
    if (bytes === undefined) return undefined;
    let first = 0;
    while (first < bytes.length - 1 && bytes[first] === 0) first++;
    const magnitude = bytes.subarray(first);
    if (size === undefined) return magnitude.toString('base64url');
    return magnitude.length > size ? undefined : Buffer.concat([Buffer.alloc(size - magnitude.length), magnitude]).toString('base64url');
  };
  const { kty, crv } = jwk;
  const size = typeof crv === 'string' ? (COORDINATE_BYTES[crv] ?? -1) : -1;
  const members: Record<string, unknown> =
    kty === 'RSA'
      ? { kty, n: unsigned(bytesOf('n')), e: unsigned(bytesOf('e')) }
      : kty === 'EC'
        ? { kty, crv, x: unsigned(bytesOf('x'), size), y: unsigned(bytesOf('y'), size) }
        : { kty, crv, x: bytesOf('x')?.toString('base64url') };
  if (Object.values(members).some((value) => typeof value !== 'string' || value === '')) return undefined;
  try {
    return jwkThumbprint(members as JsonWebKey);
  } catch {
    return undefined;
  }
}

/**
 * The RFC 7638 thumbprint of a key as Signet holds it (a `KeyObject`, e.g. from
 * `importPublicKey(spkiPem).key` or `PublicKeyCache.get`), or of a private key's public half.
 * Node exports the canonical JWK (no leading zeros), so this is the thumbprint a publisher
 * computes from its own key.
 * @throws SignetError `unsupported_key_type` for a key that is not RSA, EC or Ed25519
 */
export function thumbprintOfKey(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  if (publicKey.asymmetricKeyType === 'rsa-pss') {
    // An id-RSASSA-PSS SPKI holds a plain RSA key (same n and e), whose JWK is the RSA one.
    const pkcs1 = spkiSubjectPublicKey(publicKey.export({ type: 'spki', format: 'der' }) as Buffer);
    if (pkcs1 === undefined) fail('invalid_public_key', 'The RSA-PSS public key could not be read.');
    return jwkThumbprint(createPublicKey({ key: Buffer.from(spkiOfPkcs1(pkcs1)), format: 'der', type: 'spki' }).export({ format: 'jwk' }) as JsonWebKey);
  }
  if (!['rsa', 'ec', 'ed25519'].includes(publicKey.asymmetricKeyType ?? '')) {
    fail('unsupported_key_type', `A thumbprint is taken of RSA, ECDSA or Ed25519 keys; this key is ${publicKey.asymmetricKeyType ?? 'of no known type'}.`);
  }
  return jwkThumbprint(publicKey.export({ format: 'jwk' }) as JsonWebKey);
}

/**
 * Whether `keyid` has the shape of a SHA-256 JWK thumbprint: 43 base64url characters, the last
 * one carrying two zero bits (32 bytes, unpadded). A clientId (`c_` and 22 characters,
 * lambda/store/client-id.ts) never has it, so the two kinds of keyid cannot be confused.
 */
export function isThumbprintKeyId(keyid: string): boolean {
  return THUMBPRINT_KEYID.test(keyid);
}

const THUMBPRINT_KEYID = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
