/**
 * Key text in the browser, with WebCrypto, on the core's own key rules (./signet-core.ts):
 *
 * - looksLikePrivateKey is the core's private-key scan itself (lambda/core/private-key-scan.ts),
 *   the test the registry runs before anything else, so a private key pasted in the Public Key
 *   box is refused on the spot, in every form the registry recognises.
 * - {@link checkPublicKey}: SPKI / PKCS#1, PEM or bare Base64, read and judged by the core's key
 *   gate (lambda/core/public-key-text.ts: the same refusals, codes and sentences as the registry);
 *   RSA of at least 2048 bits, Ed25519, ECDSA P-256/P-384; the fingerprint the registry will show
 *   (SHA-256 of the SPKI DER, base64url).
 * - {@link importSigningKey}: the admin's private key (headerless Base64 PKCS#8 as in private.pkcs8.b64,
 *   PKCS#8 PEM or PKCS#1 PEM) as a non-extractable CryptoKey that can only sign.
 *
 * What stays here is what needs WebCrypto (importing, measuring and fingerprinting a key):
 * test/portal/keys.test.ts compares its answers, codes and sentences with the core's.
 * No message ever echoes key material.
 */
import {
  MIN_RSA_BITS,
  PRIVATE_KEY_SUBMITTED_MESSAGE,
  RSASSA_PKCS1_SHA256 as RSASSA,
  RSA_ENCRYPTION_OID,
  type SignatureAlgorithm,
  WEBCRYPTO_ALGORITHMS,
  decodeBareBase64,
  encodeBase64,
  fail,
  gatedPublicKeyOfText,
  isPkcs1PrivateKey,
  looksLikePrivateKey,
  pkcs8AlgorithmOid,
  pkcs8OfPkcs1,
  refusePublicKeyGiven,
  spkiOfPkcs1,
  spkiSubjectPublicKey,
} from './signet-core';

export { looksLikePrivateKey };

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/;

/** Key types Node names (`asymmetricKeyType`) by their algorithm OID, for the signing key's message. */
const KEY_TYPES_BY_OID = Object.freeze({
  '2a864886f70d01010a': 'rsa-pss',
  '2a8648ce3d0201': 'ec',
  '2b6570': 'ed25519',
  '2b6571': 'ed448',
  '2b656e': 'x25519',
  '2b656f': 'x448',
  '2a8648ce380401': 'dsa',
  '2a864886f70d010301': 'dh',
  '2a8648ce3e0201': 'dh',
});

const EC_OID = '2a8648ce3d0201';
const ED25519_OID = '2b6570';

/** What the page accepts, as WebCrypto imports it: the same key types the registry takes. */
interface KeyKind {
  readonly algorithm: SignatureAlgorithm;
  readonly keyType: (bits: number) => string;
}

const RSA_KINDS: Readonly<Record<'rsa-v1_5-sha256' | 'rsa-pss-sha512', KeyKind>> = {
  'rsa-v1_5-sha256': { algorithm: 'rsa-v1_5-sha256', keyType: (bits) => `RSA-${bits}` },
  'rsa-pss-sha512': { algorithm: 'rsa-pss-sha512', keyType: (bits) => `RSA-${bits}` },
};
const EC_KINDS: readonly KeyKind[] = [
  { algorithm: 'ecdsa-p256-sha256', keyType: () => 'ECDSA P-256' },
  { algorithm: 'ecdsa-p384-sha384', keyType: () => 'ECDSA P-384' },
];
const ED25519_KIND: KeyKind = { algorithm: 'ed25519', keyType: () => 'Ed25519' };

/**
 * SHA-256 of bytes, base64url without padding (a fingerprint when the bytes are SPKI DER).
 */
async function sha256Base64Url(bytes: Uint8Array<ArrayBuffer>, subtle: SubtleCrypto) {
  const digest = new Uint8Array(await subtle.digest('SHA-256', bytes));
  return encodeBase64(digest).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

interface PublicKeyCheck {
  /** SHA-256 of the SPKI DER, base64url (what the registry stores) */
  fingerprint: string;
  /** RSA: the modulus size; ECDSA: the curve's; Ed25519: 256 */
  bits: number;
  /** "RSA-2048", "Ed25519", "ECDSA P-256", as the registry names it */
  keyType: string;
  /** the algorithm the registry will register it for (RSA: rsa-v1_5-sha256 unless its SPKI says PSS) */
  algorithm: SignatureAlgorithm;
}

/**
 * Checks a public key as the registry will (lambda/core/keys.ts importPublicKey): the text is read
 * and judged by the core's own key gate (gatedPublicKeyOfText, lambda/core/public-key-text.ts),
 * then imported with WebCrypto for its size and fingerprint.
 * @returns undefined for a JWK: it is checked by the registry on submit
 * @throws SignetError private_key_submitted, invalid_public_key, unsupported_key_type, key_too_small
 */
export async function checkPublicKey(text: string, subtle: SubtleCrypto = globalThis.crypto.subtle): Promise<PublicKeyCheck | undefined> {
  if (typeof text === 'string' && text.trim().startsWith('{')) {
    if (looksLikePrivateKey(text)) fail('private_key_submitted', PRIVATE_KEY_SUBMITTED_MESSAGE);
    return undefined;
  }
  const gated = gatedPublicKeyOfText(text);
  switch (gated.type) {
    case 'rsa':
      return checkRsaPublicKey(gated.spki, RSA_KINDS['rsa-v1_5-sha256'], subtle);
    case 'rsa-pss': {
      // Stored as the plain RSA key it holds (one key, one fingerprint), registered for PSS.
      const pkcs1 = spkiSubjectPublicKey(gated.spki) as Uint8Array;
      return checkRsaPublicKey(spkiOfPkcs1(pkcs1), RSA_KINDS['rsa-pss-sha512'], subtle);
    }
    case 'ed25519':
      return checkImported(gated.spki, ED25519_KIND, gated.source, subtle);
    case 'ec':
      return checkImported(gated.spki, gated.curve === 'P-384' ? EC_KINDS[1] : EC_KINDS[0], gated.source, subtle);
  }
}

async function checkRsaPublicKey(spki: Uint8Array<ArrayBuffer>, kind: KeyKind, subtle: SubtleCrypto): Promise<PublicKeyCheck> {
  let key: CryptoKey;
  try {
    key = await subtle.importKey('spki', spki, RSASSA, true, ['verify']);
  } catch {
    return fail('invalid_public_key', 'The public key could not be read. Paste the SPKI PEM (-----BEGIN PUBLIC KEY-----).');
  }
  const bits = (key.algorithm as RsaHashedKeyAlgorithm).modulusLength;
  if (bits < MIN_RSA_BITS) fail('key_too_small', `The RSA public key has ${bits} bits; at least ${MIN_RSA_BITS} are required. Generate a new key pair.`);
  const canonical = new Uint8Array(await subtle.exportKey('spki', key));
  return { fingerprint: await sha256Base64Url(canonical, subtle), bits, keyType: kind.keyType(bits), algorithm: kind.algorithm };
}

/** An Ed25519 or ECDSA key the gate accepted, as WebCrypto imports it. */
async function checkImported(spki: Uint8Array<ArrayBuffer>, kind: KeyKind, source: string, subtle: SubtleCrypto): Promise<PublicKeyCheck> {
  let key: CryptoKey;
  try {
    key = await subtle.importKey('spki', spki, WEBCRYPTO_ALGORITHMS[kind.algorithm].importAs, true, ['verify']);
  } catch {
    return fail('invalid_public_key', `${source} could not be read as a public key. Paste the SPKI PEM (-----BEGIN PUBLIC KEY-----) exactly as your key tool wrote it.`);
  }
  const canonical = new Uint8Array(await subtle.exportKey('spki', key));
  const bits = kind.algorithm === 'ecdsa-p384-sha384' ? 384 : 256;
  return { fingerprint: await sha256Base64Url(canonical, subtle), bits, keyType: kind.keyType(bits), algorithm: kind.algorithm };
}

interface SigningKey {
  /** non-extractable, usable only to sign, with its key type's algorithm (RSA: RSASSA-PKCS1-v1_5 / SHA-256) */
  privateKey: CryptoKey;
  /** of its public half (the registry lists it on the admin client) */
  fingerprint: string;
  bits: number;
}

/**
 * Imports the admin's private key for signing. The key is read once, never kept as text, and the
 * CryptoKey returned cannot be exported.
 * @param text headerless Base64 PKCS#8 (private.pkcs8.b64), PKCS#8 PEM or PKCS#1 PEM
 * @throws SignetError invalid_private_key, unsupported_key_type, key_too_small
 */
export async function importSigningKey(text: string, subtle: SubtleCrypto = globalThis.crypto.subtle): Promise<SigningKey> {
  if (typeof text !== 'string' || text.trim() === '') {
    fail('invalid_private_key', 'The private key is empty. Give the PKCS#8 key as Base64 (no header/footer) or as PEM.');
  }
  refusePublicKeyGiven(text);
  let pkcs8: Uint8Array<ArrayBuffer> | undefined;
  const pem = PEM_BLOCK.exec(text);
  if (pem) {
    if (pem[1] === 'ENCRYPTED PRIVATE KEY') {
      fail('invalid_private_key', 'The private key is encrypted. Export it unencrypted as PKCS#8 (openssl pkcs8 -topk8 -nocrypt).');
    }
    const der = decodeBareBase64(pem[2]);
    if (der !== undefined && pkcs8AlgorithmOid(der) !== undefined) pkcs8 = der;
    else if (der !== undefined && isPkcs1PrivateKey(der)) pkcs8 = pkcs8OfPkcs1(der);
    if (pkcs8 === undefined) fail('invalid_private_key', `The ${pem[1]} block could not be read as a private key. Give the whole PEM, header and footer included.`);
  } else {
    const der = decodeBareBase64(text.trim());
    pkcs8 = der === undefined ? undefined : pkcs8AlgorithmOid(der) !== undefined ? der : isPkcs1PrivateKey(der) ? pkcs8OfPkcs1(der) : undefined;
    if (pkcs8 === undefined) {
      fail('invalid_private_key', 'The text is not a PKCS#8 private key in Base64 or PEM. Give the key as produced by `signet keygen` (private.pkcs8.b64).');
    }
  }
  const oid = (pkcs8AlgorithmOid(pkcs8) as string);
  if (oid === ED25519_OID) return importCurveSigningKey(pkcs8, [ED25519_KIND], subtle);
  if (oid === EC_OID) return importCurveSigningKey(pkcs8, EC_KINDS, subtle);
  if (oid !== RSA_ENCRYPTION_OID) {
    const type = (KEY_TYPES_BY_OID as Record<string, string>)[oid] ?? 'of an unknown type';
    fail('unsupported_key_type', `The private key is ${type}; Signet signs in the page with RSA (rsa-v1_5-sha256), Ed25519 or ECDSA P-256 / P-384 keys.`);
  }
  // Imported once extractable only to derive the public half (its fingerprint names the key);
  // the key kept for signing is imported again, non-extractable.
  let jwk: JsonWebKey;
  try {
    jwk = await subtle.exportKey('jwk', await subtle.importKey('pkcs8', pkcs8, RSASSA, true, ['sign']));
  } catch {
    return fail('invalid_private_key', 'The private key could not be read. Give the key as produced by `signet keygen` (private.pkcs8.b64).');
  }
  const publicKey = await subtle.importKey('jwk', { kty: 'RSA', n: jwk.n, e: jwk.e, ext: true }, RSASSA, true, ['verify']);
  const bits = (publicKey.algorithm as RsaHashedKeyAlgorithm).modulusLength;
  if (bits < MIN_RSA_BITS) fail('key_too_small', `The RSA private key has ${bits} bits; at least ${MIN_RSA_BITS} are required. Generate a new key pair.`);
  const fingerprint = await sha256Base64Url(new Uint8Array(await subtle.exportKey('spki', publicKey)), subtle);
  const privateKey = await subtle.importKey('pkcs8', pkcs8, RSASSA, false, ['sign']);
  return { privateKey, fingerprint, bits };
}

/**
 * An Ed25519 or ECDSA private key (PKCS#8), for signing: imported once extractable only to name
 * its public half (the fingerprint), then again non-extractable, sign only.
 */
async function importCurveSigningKey(pkcs8: Uint8Array<ArrayBuffer>, kinds: readonly KeyKind[], subtle: SubtleCrypto): Promise<SigningKey> {
  for (const kind of kinds) {
    const importAs = WEBCRYPTO_ALGORITHMS[kind.algorithm].importAs;
    let jwk: JsonWebKey;
    try {
      jwk = await subtle.exportKey('jwk', await subtle.importKey('pkcs8', pkcs8, importAs, true, ['sign']));
    } catch {
      continue;
    }
    const publicJwk: JsonWebKey = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, ...(jwk.y !== undefined ? { y: jwk.y } : {}), ext: true };
    const publicKey = await subtle.importKey('jwk', publicJwk, importAs, true, ['verify']);
    const fingerprint = await sha256Base64Url(new Uint8Array(await subtle.exportKey('spki', publicKey)), subtle);
    const privateKey = await subtle.importKey('pkcs8', pkcs8, importAs, false, ['sign']);
    return { privateKey, fingerprint, bits: kind.algorithm === 'ecdsa-p384-sha384' ? 384 : 256 };
  }
  return fail('unsupported_key_type', 'The private key could not be read as Ed25519, P-256 or P-384. Give the key as produced by `signet keygen` (private.pkcs8.b64).');
}
