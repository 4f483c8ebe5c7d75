// @ts-check
/**
 * Key text in the browser, mirroring lambda/core/keys.ts with WebCrypto:
 *
 * - {@link looksLikePrivateKey}: the same test the registry runs before anything else, so a
 *   private key pasted in the Public Key box is refused on the spot (PEM labels, the body of any
 *   PEM block, bare Base64 DER shaped as PKCS#8 or PKCS#1, a JWK with `d`).
 * - {@link checkPublicKey}: SPKI / PKCS#1, PEM or bare Base64; RSA only, at least 2048 bits; the
 *   fingerprint the registry will show (SHA-256 of the SPKI DER, base64url).
 * - {@link importSigningKey}: the admin's private key (headerless Base64 PKCS#8 as in private.pkcs8.b64,
 *   PKCS#8 PEM or PKCS#1 PEM) as a non-extractable CryptoKey that can only sign.
 *
 * Codes and sentences are the API's (test/portal/keys.test.ts compares them with the core's).
 * No message ever echoes key material.
 */
import { MIN_RSA_BITS, RSASSA_PKCS1_SHA256 as RSASSA, fail } from './signet-core.js';

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/;
const PEM_BLOCKS = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;
const BASE64_BODY = /^[A-Za-z0-9+/]+={0,2}$/;

/** DER of the rsaEncryption OID, 1.2.840.113549.1.1.1. */
const RSA_ENCRYPTION_OID = '2a864886f70d010101';
/** Key types Node names (`asymmetricKeyType`) by their algorithm OID, for the same message. */
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

const PRIVATE_KEY_SUBMITTED =
  'This is a private key. Paste only the public half (-----BEGIN PUBLIC KEY-----), and treat this private key as exposed: generate a new key pair.';

// ------------------------------------------------------------------ DER

/**
 * One DER TLV at `pos`: its tag and the bounds of its content, or undefined when malformed.
 * @param {Uint8Array} der
 * @param {number} pos
 * @returns {{ tag: number, start: number, end: number } | undefined}
 */
function readTlv(der, pos) {
  if (pos + 2 > der.length) return undefined;
  const tag = der[pos];
  let length = der[pos + 1];
  let start = pos + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4 || start + count > der.length) return undefined;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + der[start + i];
    start += count;
  }
  const end = start + length;
  return end > der.length ? undefined : { tag, start, end };
}

/**
 * The children of the constructed TLV `outer` (up to `max`), or undefined when malformed.
 * @param {Uint8Array} der
 * @param {{ start: number, end: number }} outer
 * @param {number} max
 */
function children(der, outer, max) {
  const list = [];
  for (let pos = outer.start; pos < outer.end && list.length < max; ) {
    const tlv = readTlv(der, pos);
    if (tlv === undefined || tlv.end > outer.end) return undefined;
    list.push(tlv);
    pos = tlv.end;
  }
  return list;
}

/** @param {Uint8Array} der @param {{ start: number, end: number }} tlv */
function hexOf(der, tlv) {
  return Array.from(der.subarray(tlv.start, tlv.end), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** @param {Uint8Array} der @param {{ tag: number, start: number, end: number }} tlv */
function isSmallVersion(der, tlv) {
  return tlv.tag === 0x02 && tlv.end - tlv.start === 1 && der[tlv.start] <= 1;
}

/**
 * PKCS#8 PrivateKeyInfo: SEQUENCE { INTEGER 0|1, SEQUENCE { OID, ... }, OCTET STRING, ... }.
 * @param {Uint8Array} der
 * @returns {string | undefined} the algorithm OID (hex) when `der` has this shape
 */
function pkcs8AlgorithmOid(der) {
  const outer = readTlv(der, 0);
  if (outer === undefined || outer.tag !== 0x30) return undefined;
  const parts = children(der, outer, 3);
  if (parts === undefined || parts.length < 3) return undefined;
  const [version, algorithm, key] = parts;
  if (!isSmallVersion(der, version) || algorithm.tag !== 0x30 || key.tag !== 0x04 || key.end === key.start) return undefined;
  const oid = readTlv(der, algorithm.start);
  return oid !== undefined && oid.tag === 0x06 && oid.end <= algorithm.end ? hexOf(der, oid) : undefined;
}

/**
 * PKCS#1 RSAPrivateKey: SEQUENCE { INTEGER version, n, e, d, p, q, dp, dq, qinv, ... }.
 * @param {Uint8Array} der
 */
function isPkcs1PrivateKey(der) {
  const outer = readTlv(der, 0);
  if (outer === undefined || outer.tag !== 0x30) return false;
  const parts = children(der, outer, 9);
  return parts !== undefined && parts.length === 9 && isSmallVersion(der, parts[0]) && parts.every((p) => p.tag === 0x02 && p.end > p.start);
}

/**
 * SubjectPublicKeyInfo: SEQUENCE { SEQUENCE { OID, ... }, BIT STRING }.
 * @param {Uint8Array} der
 * @returns {string | undefined} the algorithm OID (hex) when `der` has this shape
 */
function spkiAlgorithmOid(der) {
  const outer = readTlv(der, 0);
  if (outer === undefined || outer.tag !== 0x30 || outer.end !== der.length) return undefined;
  const parts = children(der, outer, 3);
  if (parts === undefined || parts.length !== 2 || parts[0].tag !== 0x30 || parts[1].tag !== 0x03) return undefined;
  const oid = readTlv(der, parts[0].start);
  return oid !== undefined && oid.tag === 0x06 && oid.end <= parts[0].end ? hexOf(der, oid) : undefined;
}

/**
 * PKCS#1 RSAPublicKey: SEQUENCE { INTEGER n, INTEGER e }.
 * @param {Uint8Array} der
 */
function isPkcs1PublicKey(der) {
  const outer = readTlv(der, 0);
  if (outer === undefined || outer.tag !== 0x30 || outer.end !== der.length) return false;
  const parts = children(der, outer, 3);
  return parts !== undefined && parts.length === 2 && parts.every((p) => p.tag === 0x02 && p.end > p.start);
}

/**
 * A DER TLV around `content`.
 * @param {number} tag
 * @param {Uint8Array} content
 * @returns {Uint8Array<ArrayBuffer>}
 */
function tlv(tag, content) {
  const n = content.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : n < 0x10000 ? [0x82, n >> 8, n & 0xff] : [0x83, n >> 16, (n >> 8) & 0xff, n & 0xff];
  const out = new Uint8Array(1 + length.length + n);
  out[0] = tag;
  out.set(length, 1);
  out.set(content, 1 + length.length);
  return out;
}

/**
 * @param {Uint8Array[]} parts
 * @returns {Uint8Array<ArrayBuffer>}
 */
function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** AlgorithmIdentifier { rsaEncryption, NULL }. */
const RSA_ALGORITHM_ID = new Uint8Array([0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00]);

/** @param {Uint8Array} pkcs1 an RSAPublicKey */
function spkiOfPkcs1(pkcs1) {
  return tlv(0x30, concat(RSA_ALGORITHM_ID, tlv(0x03, concat(new Uint8Array([0]), pkcs1))));
}

/** @param {Uint8Array} pkcs1 an RSAPrivateKey */
function pkcs8OfPkcs1(pkcs1) {
  return tlv(0x30, concat(new Uint8Array([0x02, 0x01, 0x00]), RSA_ALGORITHM_ID, tlv(0x04, pkcs1)));
}

// ------------------------------------------------------------------ text

/**
 * Bare Base64 (whitespace allowed) as bytes, or undefined (as the core's decodeBareBase64).
 * @param {string} text
 * @returns {Uint8Array<ArrayBuffer> | undefined}
 */
export function decodeBareBase64(text) {
  const compact = text.replace(/\s+/g, '');
  if (compact.length < 16 || compact.length % 4 !== 0 || !BASE64_BODY.test(compact)) return undefined;
  const binary = atob(compact);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** @param {Uint8Array} der */
function isPrivateDer(der) {
  return pkcs8AlgorithmOid(der) !== undefined || isPkcs1PrivateKey(der);
}

/**
 * True when the text holds private key material in any form the registry recognises.
 * @param {string} text
 */
export function looksLikePrivateKey(text) {
  if (/PRIVATE KEY/.test(text) && /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(text)) return true;
  // A private key whose PEM label was edited by hand: judge the body, not the label.
  for (const block of text.matchAll(PEM_BLOCKS)) {
    const der = decodeBareBase64(block[2].replace(/^[A-Za-z-]+:.*$/gm, ''));
    if (der !== undefined && isPrivateDer(der)) return true;
  }
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      const jwk = JSON.parse(trimmed);
      return typeof jwk === 'object' && jwk !== null && 'd' in jwk;
    } catch {
      return false;
    }
  }
  const der = decodeBareBase64(trimmed);
  return der !== undefined && isPrivateDer(der);
}

/**
 * SHA-256 of bytes, base64url without padding (a fingerprint when the bytes are SPKI DER).
 * @param {Uint8Array<ArrayBuffer>} bytes
 * @param {SubtleCrypto} subtle
 */
async function sha256Base64Url(bytes, subtle) {
  const digest = new Uint8Array(await subtle.digest('SHA-256', bytes));
  let binary = '';
  for (const b of digest) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * @typedef {object} PublicKeyCheck
 * @property {string} fingerprint SHA-256 of the SPKI DER, base64url (what the registry stores)
 * @property {number} bits the RSA modulus size
 */

/**
 * Checks a public key as the registry will (lambda/core/keys.ts importPublicKey).
 * @param {string} text
 * @param {SubtleCrypto} [subtle]
 * @returns {Promise<PublicKeyCheck | undefined>} undefined for a PEM type only the registry can
 *   read (e.g. a certificate): it is then checked on submit
 * @throws SignetError private_key_submitted, invalid_public_key, unsupported_key_type, key_too_small
 */
export async function checkPublicKey(text, subtle = globalThis.crypto.subtle) {
  if (typeof text !== 'string' || text.trim() === '') {
    fail('invalid_public_key', 'The public key is empty. Paste the SPKI PEM (-----BEGIN PUBLIC KEY-----) of your key pair.');
  }
  if (looksLikePrivateKey(text)) fail('private_key_submitted', PRIVATE_KEY_SUBMITTED);
  /** @type {Uint8Array<ArrayBuffer> | undefined} */
  let spki;
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
  const oid = /** @type {string} */ (spkiAlgorithmOid(spki));
  if (oid !== RSA_ENCRYPTION_OID) {
    const type = /** @type {Record<string, string>} */ (KEY_TYPES_BY_OID)[oid] ?? 'of an unknown type';
    fail('unsupported_key_type', `The public key is ${type}; Signet uses rsa-v1_5-sha256 and needs a plain RSA key.`);
  }
  /** @type {CryptoKey} */
  let key;
  try {
    key = await subtle.importKey('spki', spki, RSASSA, true, ['verify']);
  } catch {
    return fail('invalid_public_key', 'The public key could not be read. Paste the SPKI PEM (-----BEGIN PUBLIC KEY-----).');
  }
  const bits = /** @type {RsaHashedKeyAlgorithm} */ (key.algorithm).modulusLength;
  if (bits < MIN_RSA_BITS) fail('key_too_small', `The RSA public key has ${bits} bits; at least ${MIN_RSA_BITS} are required. Generate a new key pair.`);
  const canonical = new Uint8Array(await subtle.exportKey('spki', key));
  return { fingerprint: await sha256Base64Url(canonical, subtle), bits };
}

/**
 * @typedef {object} SigningKey
 * @property {CryptoKey} privateKey non-extractable, usable only to sign with RSASSA-PKCS1-v1_5 / SHA-256
 * @property {string} fingerprint of its public half (the registry lists it on the admin client)
 * @property {number} bits
 */

/**
 * Imports the admin's private key for signing. The key is read once, never kept as text, and the
 * CryptoKey returned cannot be exported.
 * @param {string} text headerless Base64 PKCS#8 (private.pkcs8.b64), PKCS#8 PEM or PKCS#1 PEM
 * @param {SubtleCrypto} [subtle]
 * @returns {Promise<SigningKey>}
 * @throws SignetError invalid_private_key, unsupported_key_type, key_too_small
 */
export async function importSigningKey(text, subtle = globalThis.crypto.subtle) {
  if (typeof text !== 'string' || text.trim() === '') {
    fail('invalid_private_key', 'The private key is empty. Give the PKCS#8 key as Base64 (no header/footer) or as PEM.');
  }
  /** @type {Uint8Array<ArrayBuffer> | undefined} */
  let pkcs8;
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
  const oid = /** @type {string} */ (pkcs8AlgorithmOid(pkcs8));
  if (oid !== RSA_ENCRYPTION_OID) {
    const type = /** @type {Record<string, string>} */ (KEY_TYPES_BY_OID)[oid] ?? 'of an unknown type';
    fail('unsupported_key_type', `The private key is ${type}; Signet uses rsa-v1_5-sha256 and needs a plain RSA key.`);
  }
  // Imported once extractable only to derive the public half (its fingerprint names the key);
  // the key kept for signing is imported again, non-extractable.
  /** @type {JsonWebKey} */
  let jwk;
  try {
    jwk = await subtle.exportKey('jwk', await subtle.importKey('pkcs8', pkcs8, RSASSA, true, ['sign']));
  } catch {
    return fail('invalid_private_key', 'The private key could not be read. Give the key as produced by `signet keygen` (private.pkcs8.b64).');
  }
  const publicKey = await subtle.importKey('jwk', { kty: 'RSA', n: jwk.n, e: jwk.e, ext: true }, RSASSA, true, ['verify']);
  const bits = /** @type {RsaHashedKeyAlgorithm} */ (publicKey.algorithm).modulusLength;
  if (bits < MIN_RSA_BITS) fail('key_too_small', `The RSA private key has ${bits} bits; at least ${MIN_RSA_BITS} are required. Generate a new key pair.`);
  const fingerprint = await sha256Base64Url(new Uint8Array(await subtle.exportKey('spki', publicKey)), subtle);
  const privateKey = await subtle.importKey('pkcs8', pkcs8, RSASSA, false, ['sign']);
  return { privateKey, fingerprint, bits };
}
