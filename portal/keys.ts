/**
 * Key text in the browser, with WebCrypto, on the core's own key rules (./signet-core.ts):
 *
 * - looksLikePrivateKey is the core's private-key scan itself (lambda/core/private-key-scan.ts),
 *   the test the registry runs before anything else, so a private key pasted in the Public Key
 *   box is refused on the spot, in every form the registry recognises.
 * - {@link checkPublicKey}: SPKI / PKCS#1, PEM or bare Base64 (read by the core's DER reader,
 *   lambda/core/der.ts); RSA only, at least 2048 bits; the fingerprint the registry will show
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
  decodeBareBase64,
  encodeBase64,
  fail,
  isPkcs1PrivateKey,
  isPkcs1PublicKey,
  looksLikePrivateKey,
  pkcs8AlgorithmOid,
  pkcs8OfPkcs1,
  spkiAlgorithmOid,
  spkiOfPkcs1,
} from './signet-core';

export { looksLikePrivateKey };

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/;

/** Key types Node names (`asymmetricKeyType`) by their algorithm OID, for the registry's message. */
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
  /** the RSA modulus size */
  bits: number;
}

/**
 * Checks a public key as the registry will (lambda/core/keys.ts importPublicKey).
 * @returns undefined for a PEM type only the registry can
 *   read (e.g. a certificate): it is then checked on submit
 * @throws SignetError private_key_submitted, invalid_public_key, unsupported_key_type, key_too_small
 */
export async function checkPublicKey(text: string, subtle: SubtleCrypto = globalThis.crypto.subtle): Promise<PublicKeyCheck | undefined> {
  if (typeof text !== 'string' || text.trim() === '') {
    fail('invalid_public_key', 'The public key is empty. Paste the SPKI PEM (-----BEGIN PUBLIC KEY-----) of your key pair.');
  }
  if (looksLikePrivateKey(text)) fail('private_key_submitted', PRIVATE_KEY_SUBMITTED_MESSAGE);
  let spki: Uint8Array<ArrayBuffer> | undefined;
  const pem = PEM_BLOCK.exec(text);
  if (pem) {
    if (pem[1] !== 'PUBLIC KEY' && pem[1] !== 'RSA PUBLIC KEY') return undefined;
    const der = decodeBareBase64(pem[2]);
    if (der !== undefined && pem[1] === 'PUBLIC KEY' && spkiAlgorithmOid(der) !== undefined) spki = der;
    if (der !== undefined && pem[1] === 'RSA PUBLIC KEY' && isPkcs1PublicKey(der)) spki = spkiOfPkcs1(der);
    if (spki === undefined) fail('invalid_public_key', `The ${pem[1]} block could not be read as a public key. Paste the whole PEM, header and footer included.`);
  } else {
    const der = decodeBareBase64(text.trim());
    if (der === undefined) fail('invalid_public_key', 'The public key is neither PEM nor Base64 DER. Paste the SPKI PEM (-----BEGIN PUBLIC KEY-----).');
    spki = spkiAlgorithmOid(der) !== undefined ? der : isPkcs1PublicKey(der) ? spkiOfPkcs1(der) : undefined;
    if (spki === undefined) fail('invalid_public_key', 'The Base64 text is not an SPKI or PKCS#1 RSA public key. Paste the SPKI PEM (-----BEGIN PUBLIC KEY-----).');
  }
  const oid = (spkiAlgorithmOid(spki) as string);
  if (oid !== RSA_ENCRYPTION_OID) {
    const type = (KEY_TYPES_BY_OID as Record<string, string>)[oid] ?? 'of an unknown type';
    fail('unsupported_key_type', `The public key is ${type}; Signet uses rsa-v1_5-sha256 and needs a plain RSA key.`);
  }
  let key: CryptoKey;
  try {
    key = await subtle.importKey('spki', spki, RSASSA, true, ['verify']);
  } catch {
    return fail('invalid_public_key', 'The public key could not be read. Paste the SPKI PEM (-----BEGIN PUBLIC KEY-----).');
  }
  const bits = (key.algorithm as RsaHashedKeyAlgorithm).modulusLength;
  if (bits < MIN_RSA_BITS) fail('key_too_small', `The RSA public key has ${bits} bits; at least ${MIN_RSA_BITS} are required. Generate a new key pair.`);
  const canonical = new Uint8Array(await subtle.exportKey('spki', key));
  return { fingerprint: await sha256Base64Url(canonical, subtle), bits };
}

interface SigningKey {
  /** non-extractable, usable only to sign with RSASSA-PKCS1-v1_5 / SHA-256 */
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
  if (oid !== RSA_ENCRYPTION_OID) {
    const type = (KEY_TYPES_BY_OID as Record<string, string>)[oid] ?? 'of an unknown type';
    fail('unsupported_key_type', `The private key is ${type}; Signet uses rsa-v1_5-sha256 and needs a plain RSA key.`);
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
