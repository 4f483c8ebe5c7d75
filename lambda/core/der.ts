/**
 * Reading and writing the few DER structures of key formats, by their shape alone (ITU-T X.690),
 * pure, so the same code judges keys on a server and in the browser:
 * - private keys: PKCS#8 PrivateKeyInfo (and its encrypted form), PKCS#1 RSAPrivateKey, SEC1
 *   ECPrivateKey ({@link isPrivateKeyDer}, behind the private-key scan);
 * - public keys: SubjectPublicKeyInfo and PKCS#1 RSAPublicKey (their algorithm, for messages);
 * - PKCS#1 wrapped as SPKI or PKCS#8 (WebCrypto imports only those).
 * Lengths are checked against the bytes at hand; nothing here allocates more than its input.
 */

/** One TLV: its tag and the bounds of its content. */
export interface Tlv {
  readonly tag: number;
  readonly start: number;
  readonly end: number;
}

const SEQUENCE = 0x30;
const INTEGER = 0x02;
const BIT_STRING = 0x03;
const OCTET_STRING = 0x04;
const OID = 0x06;

/** The TLV at `pos`, or undefined when it is malformed or runs past the bytes. */
export function readTlv(der: Uint8Array, pos: number): Tlv | undefined {
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

/** The first `max` children of the constructed TLV `outer`, or undefined when one is malformed. */
function children(der: Uint8Array, outer: Tlv, max: number): Tlv[] | undefined {
  const list: Tlv[] = [];
  for (let pos = outer.start; pos < outer.end && list.length < max; ) {
    const tlv = readTlv(der, pos);
    if (tlv === undefined || tlv.end > outer.end) return undefined;
    list.push(tlv);
    pos = tlv.end;
  }
  return list;
}

/** The children of `der` when it is one SEQUENCE (trailing bytes allowed: the caller bounds them). */
function sequence(der: Uint8Array, max: number): Tlv[] | undefined {
  const outer = readTlv(der, 0);
  return outer === undefined || outer.tag !== SEQUENCE ? undefined : children(der, outer, max);
}

function hexOf(der: Uint8Array, tlv: Tlv): string {
  return Array.from(der.subarray(tlv.start, tlv.end), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** An INTEGER of one byte with value 0 or 1 (`only`: exactly that value): the version field of key formats. */
function isVersion(der: Uint8Array, tlv: Tlv, only?: number): boolean {
  return tlv.tag === INTEGER && tlv.end - tlv.start === 1 && (only === undefined ? der[tlv.start] <= 1 : der[tlv.start] === only);
}

/** The OID (hex) first inside an AlgorithmIdentifier SEQUENCE, or undefined. */
function algorithmOid(der: Uint8Array, algorithm: Tlv): string | undefined {
  if (algorithm.tag !== SEQUENCE) return undefined;
  const oid = readTlv(der, algorithm.start);
  return oid !== undefined && oid.tag === OID && oid.end <= algorithm.end ? hexOf(der, oid) : undefined;
}

/** PKCS#8 PrivateKeyInfo / OneAsymmetricKey: SEQUENCE { INTEGER 0|1, AlgorithmIdentifier, OCTET STRING, ... }; its algorithm OID (hex). */
export function pkcs8AlgorithmOid(der: Uint8Array): string | undefined {
  const parts = sequence(der, 3);
  if (parts === undefined || parts.length < 3) return undefined;
  const [version, algorithm, key] = parts;
  if (!isVersion(der, version) || key.tag !== OCTET_STRING || key.end === key.start) return undefined;
  return algorithmOid(der, algorithm);
}

/** PKCS#8 EncryptedPrivateKeyInfo: SEQUENCE { AlgorithmIdentifier, OCTET STRING }. */
function isEncryptedPkcs8(der: Uint8Array): boolean {
  const parts = sequence(der, 3);
  return parts !== undefined && parts.length === 2 && algorithmOid(der, parts[0]) !== undefined && parts[1].tag === OCTET_STRING && parts[1].end > parts[1].start;
}

/** PKCS#1 RSAPrivateKey: SEQUENCE { INTEGER version, n, e, d, p, q, dp, dq, qinv, ... }. */
export function isPkcs1PrivateKey(der: Uint8Array): boolean {
  const parts = sequence(der, 9);
  return parts !== undefined && parts.length === 9 && isVersion(der, parts[0]) && parts.every((p) => p.tag === INTEGER && p.end > p.start);
}

/** SEC1 ECPrivateKey: SEQUENCE { INTEGER 1, OCTET STRING, [0] parameters OPTIONAL, [1] publicKey OPTIONAL }. */
function isSec1PrivateKey(der: Uint8Array): boolean {
  const parts = sequence(der, 5);
  if (parts === undefined || parts.length < 2 || parts.length > 4) return false;
  const [version, key, ...rest] = parts;
  return isVersion(der, version, 1) && key.tag === OCTET_STRING && key.end > key.start && rest.every((p) => p.tag === 0xa0 || p.tag === 0xa1);
}

/** True when the bytes are shaped as a private key: PKCS#8 (also encrypted), PKCS#1 RSA or SEC1 EC. */
export function isPrivateKeyDer(der: Uint8Array): boolean {
  return pkcs8AlgorithmOid(der) !== undefined || isPkcs1PrivateKey(der) || isSec1PrivateKey(der) || isEncryptedPkcs8(der);
}

/** SubjectPublicKeyInfo: SEQUENCE { AlgorithmIdentifier, BIT STRING }, the whole input; its algorithm OID (hex). */
export function spkiAlgorithmOid(der: Uint8Array): string | undefined {
  const outer = readTlv(der, 0);
  if (outer === undefined || outer.tag !== SEQUENCE || outer.end !== der.length) return undefined;
  const parts = children(der, outer, 3);
  if (parts === undefined || parts.length !== 2 || parts[1].tag !== BIT_STRING) return undefined;
  return algorithmOid(der, parts[0]);
}

/** The subjectPublicKey of a SubjectPublicKeyInfo (the BIT STRING's bytes, with no unused bits), or undefined. */
export function spkiSubjectPublicKey(der: Uint8Array): Uint8Array | undefined {
  const outer = readTlv(der, 0);
  if (outer === undefined || outer.tag !== SEQUENCE || outer.end !== der.length) return undefined;
  const parts = children(der, outer, 3);
  if (parts === undefined || parts.length !== 2 || parts[1].tag !== BIT_STRING || parts[1].end - parts[1].start < 2) return undefined;
  return der[parts[1].start] === 0 ? der.subarray(parts[1].start + 1, parts[1].end) : undefined;
}

/** PKCS#1 RSAPublicKey: SEQUENCE { INTEGER n, INTEGER e }, the whole input. */
export function isPkcs1PublicKey(der: Uint8Array): boolean {
  const outer = readTlv(der, 0);
  if (outer === undefined || outer.tag !== SEQUENCE || outer.end !== der.length) return false;
  const parts = children(der, outer, 3);
  return parts !== undefined && parts.length === 2 && parts.every((p) => p.tag === INTEGER && p.end > p.start);
}

/** A DER TLV around `content`. */
function tlv(tag: number, content: Uint8Array): Uint8Array<ArrayBuffer> {
  const n = content.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : n < 0x10000 ? [0x82, n >> 8, n & 0xff] : [0x83, n >> 16, (n >> 8) & 0xff, n & 0xff];
  const out = new Uint8Array(1 + length.length + n);
  out[0] = tag;
  out.set(length, 1);
  out.set(content, 1 + length.length);
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** DER of the rsaEncryption OID, 1.2.840.113549.1.1.1, as hex. */
export const RSA_ENCRYPTION_OID = '2a864886f70d010101';

/** AlgorithmIdentifier { rsaEncryption, NULL }. */
const RSA_ALGORITHM_ID = new Uint8Array([0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00]);

/** An RSAPublicKey (PKCS#1) as SubjectPublicKeyInfo. */
export function spkiOfPkcs1(pkcs1: Uint8Array): Uint8Array<ArrayBuffer> {
  return tlv(SEQUENCE, concat(RSA_ALGORITHM_ID, tlv(BIT_STRING, concat(new Uint8Array([0]), pkcs1))));
}

/** An RSAPrivateKey (PKCS#1) as PKCS#8 PrivateKeyInfo. */
export function pkcs8OfPkcs1(pkcs1: Uint8Array): Uint8Array<ArrayBuffer> {
  return tlv(SEQUENCE, concat(new Uint8Array([0x02, 0x01, 0x00]), RSA_ALGORITHM_ID, tlv(OCTET_STRING, pkcs1)));
}
