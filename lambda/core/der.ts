/**
 * Reading and writing the few DER structures of key formats, by their shape alone (ITU-T X.690),
 * pure, so the same code judges keys on a server and in the browser:
 * - private keys: PKCS#8 PrivateKeyInfo (and its encrypted form), PKCS#1 RSAPrivateKey, SEC1
 *   ECPrivateKey ({@link isPrivateKeyDer}, behind the private-key scan);
 * - public keys: SubjectPublicKeyInfo and PKCS#1 RSAPublicKey (their algorithm, for messages);
 * - PKCS#1 wrapped as SPKI or PKCS#8 (WebCrypto imports only those);
 * - the key gate ({@link judgeSpki}, {@link judgePrivateKeyDer}): every key is judged here, whole,
 *   before node:crypto builds anything from it, since some malformed keys Node accepts end the
 *   process when their details are read (an EC point at infinity fails a native assertion).
 * Lengths are checked against the bytes at hand; nothing here allocates more than its input.
 */
import { MAX_RSA_BITS, MIN_RSA_BITS } from './defaults';
import { type NamedCurve, coordinateBytes, ecPointProblem, ecScalarProblem, uncompressedPoint } from './ec-point';

export { coordinateBytes };
export type { NamedCurve };

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
const NULL = 0x05;

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
const RSA_ALGORITHM_ID: Readonly<Uint8Array> = new Uint8Array([0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00]);

/** An RSAPublicKey (PKCS#1) as SubjectPublicKeyInfo. */
export function spkiOfPkcs1(pkcs1: Uint8Array): Uint8Array<ArrayBuffer> {
  return tlv(SEQUENCE, concat(RSA_ALGORITHM_ID, tlv(BIT_STRING, concat(new Uint8Array([0]), pkcs1))));
}

/** An RSAPrivateKey (PKCS#1) as PKCS#8 PrivateKeyInfo. */
export function pkcs8OfPkcs1(pkcs1: Uint8Array): Uint8Array<ArrayBuffer> {
  return tlv(SEQUENCE, concat(new Uint8Array([0x02, 0x01, 0x00]), RSA_ALGORITHM_ID, tlv(OCTET_STRING, pkcs1)));
}

// ----------------------------------------------------------------------------- the key gate

/** The key types Signet verifies with, as node:crypto names them. */
export type GatedKeyType = 'rsa' | 'rsa-pss' | 'ec' | 'ed25519';

/**
 * What the gate says of a key's DER: accepted (its type, and its curve for EC), or refused with a
 * reason (a sentence fragment that follows "The key …", never echoing the key) and whether the
 * refusal is for a key type Signet does not take (`unsupported`) rather than a malformed key.
 */
export type KeyDerVerdict =
  | {
      readonly ok: true;
      readonly type: GatedKeyType;
      readonly curve?: NamedCurve;
      /** The SPKI to build the key from when it is not the input: a compressed EC point written uncompressed (one key, one fingerprint). */
      readonly canonicalSpki?: Uint8Array<ArrayBuffer>;
    }
  | { readonly ok: false; readonly unsupported: boolean; readonly reason: string };

/** DER of the OIDs the gate knows (hex of the content). */
const OID_RSA_PSS = '2a864886f70d01010a';
const OID_EC_PUBLIC_KEY = '2a8648ce3d0201';
const OID_ED25519 = '2b6570';
const CURVE_OIDS: Readonly<Record<string, NamedCurve>> = { '2a8648ce3d030107': 'P-256', '2b81040022': 'P-384' };
/** Key types and curves people do send, named in the refusal. */
const OTHER_KEY_TYPES: Readonly<Record<string, string>> = {
  '2b6571': 'an Ed448 key',
  '2b656e': 'an X25519 key (for key agreement, not signatures)',
  '2b656f': 'an X448 key (for key agreement, not signatures)',
  '2a8648ce380401': 'a DSA key',
  '2a864886f70d010301': 'a Diffie-Hellman key',
  '2a8648ce3e0201': 'a Diffie-Hellman key',
  '2a811ccf5501822d': 'an SM2 key',
};
const OTHER_CURVES: Readonly<Record<string, string>> = {
  '2b81040023': 'P-521',
  '2b8104000a': 'secp256k1',
  '2b240303020801010701': 'brainpoolP256r1',
  '2a811ccf5501822d': 'SM2',
};
const ACCEPTED = `Signet accepts RSA (${MIN_RSA_BITS} to ${MAX_RSA_BITS} bits), Ed25519, and ECDSA P-256 or P-384 keys`;

const accept = (type: GatedKeyType, curve?: NamedCurve): KeyDerVerdict => (curve === undefined ? { ok: true, type } : { ok: true, type, curve });
const malformed = (reason: string): KeyDerVerdict => ({ ok: false, unsupported: false, reason });
const unsupported = (reason: string): KeyDerVerdict => ({ ok: false, unsupported: true, reason });

/** The content of a BIT STRING with no unused bits, or undefined. */
function bitStringBytes(der: Uint8Array, tlv: Tlv): Uint8Array | undefined {
  return tlv.end > tlv.start && der[tlv.start] === 0 ? der.subarray(tlv.start + 1, tlv.end) : undefined;
}

/** The TLVs of `der` when it is exactly one SEQUENCE (no trailing bytes) of at most `max` children. */
function wholeSequence(der: Uint8Array, max: number): Tlv[] | undefined {
  const outer = readTlv(der, 0);
  if (outer === undefined || outer.tag !== SEQUENCE || outer.end !== der.length) return undefined;
  const parts = children(der, outer, max + 1);
  return parts === undefined || parts.length > max ? undefined : parts;
}

/** The magnitude of a positive INTEGER (no leading zero byte), or a reason it is not one. */
function positiveInteger(der: Uint8Array, tlv: Tlv, name: string): Uint8Array | string {
  if (tlv.tag !== INTEGER || tlv.end === tlv.start) return `has no ${name} INTEGER`;
  let bytes = der.subarray(tlv.start, tlv.end);
  if (bytes[0] & 0x80) return `has a negative ${name}`;
  if (bytes.length > 1 && bytes[0] === 0 && !(bytes[1] & 0x80)) return `has a ${name} with a needless leading zero (not DER)`;
  if (bytes[0] === 0) bytes = bytes.subarray(1);
  return bytes.length === 0 ? `has a ${name} of zero` : bytes;
}

/** The bits of a positive integer's magnitude (big-endian, no leading zero byte). */
export function bitLength(magnitude: Uint8Array): number {
  return (magnitude.length - 1) * 8 + (32 - Math.clz32(magnitude[0]));
}

/** An RSA modulus (and the exponent after it, when given) as the gate takes them. */
function judgeRsaNumbers(der: Uint8Array, modulus: Tlv, exponent: Tlv | undefined, type: 'rsa' | 'rsa-pss'): KeyDerVerdict {
  const n = positiveInteger(der, modulus, 'modulus');
  if (typeof n === 'string') return malformed(n);
  const bits = bitLength(n);
  if (bits > MAX_RSA_BITS) return unsupported(`is an RSA key of ${bits} bits; ${ACCEPTED}`);
  if (exponent !== undefined) {
    const e = positiveInteger(der, exponent, 'public exponent');
    if (typeof e === 'string') return malformed(e);
    if (e.length > n.length) return malformed('has a public exponent longer than its modulus');
  }
  return accept(type);
}

/** PKCS#1 RSAPublicKey: SEQUENCE { INTEGER n, INTEGER e }, the whole input. */
export function judgePkcs1PublicKey(der: Uint8Array, type: 'rsa' | 'rsa-pss' = 'rsa'): KeyDerVerdict {
  const parts = wholeSequence(der, 2);
  if (parts === undefined || parts.length !== 2) return malformed('is not an RSA public key (a SEQUENCE of modulus and exponent)');
  return judgeRsaNumbers(der, parts[0], parts[1], type);
}

/** The named curve of EC algorithm parameters, or a refusal (explicit parameters, other curves). */
function namedCurveOf(der: Uint8Array, params: Tlv | undefined): NamedCurve | KeyDerVerdict {
  if (params === undefined || params.tag !== OID) {
    return params !== undefined && params.tag === SEQUENCE
      ? unsupported(`gives its curve by explicit parameters; ${ACCEPTED}, by their names`)
      : malformed('is an EC key that names no curve');
  }
  const oid = hexOf(der, params);
  const curve = CURVE_OIDS[oid];
  if (curve !== undefined) return curve;
  return unsupported(`is an EC key on ${OTHER_CURVES[oid] ?? 'a curve Signet does not know'}; ${ACCEPTED}`);
}

/**
 * The gate for a SubjectPublicKeyInfo, the whole input: an algorithm Signet verifies with, its
 * parameters as that algorithm has them, and a key that fits: an RSA modulus of at most
 * {@link MAX_RSA_BITS} bits, an EC point on its named curve that is not the identity, an
 * Ed25519 key of 32 bytes.
 */
export function judgeSpki(der: Uint8Array): KeyDerVerdict {
  const parts = wholeSequence(der, 2);
  if (parts === undefined || parts.length !== 2 || parts[0].tag !== SEQUENCE || parts[1].tag !== BIT_STRING) {
    return malformed('is not a SubjectPublicKeyInfo (one DER SEQUENCE of an algorithm and a BIT STRING, nothing after it)');
  }
  const key = bitStringBytes(der, parts[1]);
  if (key === undefined) return malformed('has a BIT STRING with unused bits or no content');
  const algorithm = children(der, parts[0], 3);
  if (algorithm === undefined || algorithm.length === 0 || algorithm.length > 2 || algorithm[0].tag !== OID) return malformed('has a malformed algorithm identifier');
  const params = algorithm[1];
  const offset = key.byteOffset - der.byteOffset;
  switch (hexOf(der, algorithm[0])) {
    case RSA_ENCRYPTION_OID:
      if (params !== undefined && !(params.tag === NULL && params.end === params.start)) return malformed('has rsaEncryption parameters other than NULL');
      return judgePkcs1PublicKey(der.subarray(offset, offset + key.length));
    case OID_RSA_PSS:
      if (params !== undefined && params.tag !== SEQUENCE) return malformed('has RSASSA-PSS parameters that are not a SEQUENCE');
      return judgePkcs1PublicKey(der.subarray(offset, offset + key.length), 'rsa-pss');
    case OID_EC_PUBLIC_KEY: {
      const curve = namedCurveOf(der, params);
      if (typeof curve !== 'string') return curve;
      const problem = ecPointProblem(curve, key);
      if (problem !== undefined) return malformed(`is a ${curve} key whose point ${problem}`);
      return key[0] === 0x04 ? accept('ec', curve) : { ok: true, type: 'ec', curve, canonicalSpki: spkiOfEcPoint(curve, uncompressedPoint(curve, key)) };
    }
    case OID_ED25519:
      if (params !== undefined) return malformed('is an Ed25519 key with algorithm parameters (RFC 8410 has none)');
      return key.length === 32 ? accept('ed25519') : malformed(`is an Ed25519 key of ${key.length} bytes; an Ed25519 public key is 32 bytes`);
    default:
      return unsupported(`is ${OTHER_KEY_TYPES[hexOf(der, algorithm[0])] ?? 'of an algorithm Signet does not know'}; ${ACCEPTED}`);
  }
}

/** SEC1 ECPrivateKey, the whole input: version 1, a scalar in 1..n−1, its curve (here or from PKCS#8) and an optional valid point. */
function judgeSec1(der: Uint8Array, outerCurve: NamedCurve | undefined): KeyDerVerdict {
  const parts = wholeSequence(der, 4);
  if (parts === undefined || parts.length < 2 || !isVersion(der, parts[0], 1) || parts[1].tag !== OCTET_STRING) return malformed('is not an EC private key (SEC1)');
  let curve = outerCurve;
  let point: Uint8Array | undefined;
  let lastTag = 0;
  for (const field of parts.slice(2)) {
    if ((field.tag !== 0xa0 && field.tag !== 0xa1) || field.tag <= lastTag) return malformed('is an EC private key with unexpected fields');
    lastTag = field.tag;
    const inner = readTlv(der, field.start);
    if (inner === undefined || inner.end !== field.end) return malformed('is an EC private key with a malformed field');
    if (field.tag === 0xa0) {
      const named = namedCurveOf(der, inner);
      if (typeof named !== 'string') return named;
      if (outerCurve !== undefined && named !== outerCurve) return malformed('is an EC private key that names two different curves');
      curve = named;
    } else {
      point = inner.tag === BIT_STRING ? bitStringBytes(der, inner) : undefined;
      if (point === undefined) return malformed('is an EC private key whose public point is not a BIT STRING');
    }
  }
  if (curve === undefined) return malformed('is an EC private key that names no curve');
  const scalarProblem = ecScalarProblem(curve, der.subarray(parts[1].start, parts[1].end));
  if (scalarProblem !== undefined) return malformed(`is a ${curve} private key whose scalar ${scalarProblem}`);
  if (point !== undefined) {
    const problem = ecPointProblem(curve, point);
    if (problem !== undefined) return malformed(`is a ${curve} private key whose public point ${problem}`);
  }
  return accept('ec', curve);
}

/** PKCS#1 RSAPrivateKey, the whole input: version, n, e, d, p, q, dp, dq, qinv (and other primes' SEQUENCE). */
function judgePkcs1PrivateKey(der: Uint8Array, type: 'rsa' | 'rsa-pss'): KeyDerVerdict {
  const parts = wholeSequence(der, 10);
  if (parts === undefined || parts.length < 9 || !isVersion(der, parts[0]) || !parts.slice(1, 9).every((p) => p.tag === INTEGER && p.end > p.start)) {
    return malformed('is not an RSA private key (PKCS#1)');
  }
  return judgeRsaNumbers(der, parts[1], parts[2], type);
}

/**
 * The gate for a private key's DER, the whole input, in the form its PEM label (or its shape)
 * says: PKCS#8 of RSA, RSA-PSS, EC (P-256/P-384) or Ed25519, PKCS#1 RSA, or SEC1 EC.
 */
export function judgePrivateKeyDer(der: Uint8Array, form: 'pkcs8' | 'pkcs1' | 'sec1'): KeyDerVerdict {
  if (form === 'pkcs1') return judgePkcs1PrivateKey(der, 'rsa');
  if (form === 'sec1') return judgeSec1(der, undefined);
  const parts = wholeSequence(der, 5);
  if (parts === undefined || parts.length < 3 || !isVersion(der, parts[0]) || parts[1].tag !== SEQUENCE || parts[2].tag !== OCTET_STRING) {
    return malformed('is not a PKCS#8 private key');
  }
  if (!parts.slice(3).every((p, i, rest) => (p.tag === 0xa0 || p.tag === 0x81) && (i === 0 || p.tag > rest[i - 1].tag))) return malformed('is a PKCS#8 private key with unexpected fields');
  const algorithm = children(der, parts[1], 3);
  if (algorithm === undefined || algorithm.length === 0 || algorithm.length > 2 || algorithm[0].tag !== OID) return malformed('has a malformed algorithm identifier');
  const params = algorithm[1];
  const inner = der.subarray(parts[2].start, parts[2].end);
  switch (hexOf(der, algorithm[0])) {
    case RSA_ENCRYPTION_OID:
      if (params !== undefined && !(params.tag === NULL && params.end === params.start)) return malformed('has rsaEncryption parameters other than NULL');
      return judgePkcs1PrivateKey(inner, 'rsa');
    case OID_RSA_PSS:
      if (params !== undefined && params.tag !== SEQUENCE) return malformed('has RSASSA-PSS parameters that are not a SEQUENCE');
      return judgePkcs1PrivateKey(inner, 'rsa-pss');
    case OID_EC_PUBLIC_KEY: {
      const curve = namedCurveOf(der, params);
      return typeof curve === 'string' ? judgeSec1(inner, curve) : curve;
    }
    case OID_ED25519: {
      if (params !== undefined) return malformed('is an Ed25519 key with algorithm parameters (RFC 8410 has none)');
      const seed = readTlv(inner, 0);
      if (seed === undefined || seed.tag !== OCTET_STRING || seed.end !== inner.length || seed.end - seed.start !== 32) return malformed('is an Ed25519 private key whose seed is not 32 bytes');
      const publicKey = parts.find((p) => p.tag === 0x81);
      if (publicKey !== undefined && (publicKey.end - publicKey.start !== 33 || der[publicKey.start] !== 0)) return malformed('is an Ed25519 private key whose public key is not 32 bytes');
      return accept('ed25519');
    }
    default:
      return unsupported(`is ${OTHER_KEY_TYPES[hexOf(der, algorithm[0])] ?? 'of an algorithm Signet does not know'}; ${ACCEPTED}`);
  }
}

/** A DER INTEGER of the big-endian magnitude `bytes` (leading zeros dropped, one added when the top bit is set). */
function integer(bytes: Uint8Array): Uint8Array {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const magnitude = bytes.length === 0 ? new Uint8Array([0]) : bytes.subarray(start);
  return tlv(INTEGER, magnitude[0] & 0x80 ? concat(new Uint8Array([0]), magnitude) : magnitude);
}

/** The SPKI of an RSA key given by its modulus and exponent (big-endian magnitudes, as a JWK's n and e). */
export function spkiOfRsaNumbers(n: Uint8Array, e: Uint8Array): Uint8Array<ArrayBuffer> {
  return spkiOfPkcs1(tlv(SEQUENCE, concat(integer(n), integer(e))));
}

/** The SPKI of an EC point (SEC1 bytes) on a named curve. */
export function spkiOfEcPoint(curve: NamedCurve, point: Uint8Array): Uint8Array<ArrayBuffer> {
  const curveOid = Object.keys(CURVE_OIDS).find((oid) => CURVE_OIDS[oid] === curve) as string;
  const algorithm = tlv(SEQUENCE, concat(tlv(OID, bytesOfHex(OID_EC_PUBLIC_KEY)), tlv(OID, bytesOfHex(curveOid))));
  return tlv(SEQUENCE, concat(algorithm, tlv(BIT_STRING, concat(new Uint8Array([0]), point))));
}

/** The SPKI of a 32-byte Ed25519 public key (RFC 8410). */
export function spkiOfEd25519(publicKey: Uint8Array): Uint8Array<ArrayBuffer> {
  return tlv(SEQUENCE, concat(tlv(SEQUENCE, tlv(OID, bytesOfHex(OID_ED25519))), tlv(BIT_STRING, concat(new Uint8Array([0]), publicKey))));
}


function bytesOfHex(hex: string): Uint8Array {
  return new Uint8Array(hex.match(/../g)!.map((byte) => parseInt(byte, 16)));
}
