/**
 * Malformed public and private keys for the key reader's fuzz (test/core/keys.test.ts): SPKI,
 * PKCS#1, PKCS#8 and SEC1 built from parts (algorithm identifiers with the right, wrong or no
 * parameters; EC points of every encoding, on and off their curve, the identity; Ed25519 keys of
 * every length; RSA moduli up to past the size limit) and valid keys cut, extended or flipped,
 * each written as PEM, bare Base64 or JWK.
 */
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';

/** A DER TLV (definite length, as the encoder in lambda/core/der.ts writes it; `lengthBytes` forces the long form). */
export function tlv(tag: number, content: Uint8Array, lengthBytes?: number): Buffer {
  const n = content.length;
  const forced = lengthBytes !== undefined ? Array.from({ length: lengthBytes }, (_, i) => (n >> (8 * (lengthBytes - 1 - i))) & 0xff) : undefined;
  const length = forced !== undefined ? [0x80 | lengthBytes!, ...forced] : n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), content]);
}
const seq = (...parts: Uint8Array[]) => tlv(0x30, Buffer.concat(parts));
const oid = (hex: string) => tlv(0x06, Buffer.from(hex, 'hex'));
const NULL = Buffer.from('0500', 'hex');
const bitString = (bytes: Uint8Array, unused = 0) => tlv(0x03, Buffer.concat([Buffer.from([unused]), bytes]));

export const OIDS = {
  rsa: '2a864886f70d010101',
  rsaPss: '2a864886f70d01010a',
  ec: '2a8648ce3d0201',
  p256: '2a8648ce3d030107',
  p384: '2b81040022',
  p521: '2b81040023',
  secp256k1: '2b8104000a',
  ed25519: '2b6570',
  ed448: '2b6571',
  x25519: '2b656e',
};

/** The SPKI of the EC point at infinity (BIT STRING `00 00`) on P-256 or P-384. */
export function infinityPointSpki(curve: 'P-256' | 'P-384'): Buffer {
  return seq(seq(oid(OIDS.ec), oid(curve === 'P-256' ? OIDS.p256 : OIDS.p384)), bitString(Buffer.from([0])));
}

/** The same as a PEM. */
export function pemOf(der: Uint8Array, label = 'PUBLIC KEY'): string {
  const body = Buffer.from(der).toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
}

const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
const ed = generateKeyPairSync('ed25519');
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const spkiDer = (key: { export(o: object): unknown }) => key.export({ type: 'spki', format: 'der' }) as Buffer;
const pkcs8Der = (key: { export(o: object): unknown }) => key.export({ type: 'pkcs8', format: 'der' }) as Buffer;
/** The BIT STRING content (the point) of an EC SPKI. */
const pointOf = (der: Buffer) => der.subarray(der.length - (der[der.length - 65 - 2] === 0x03 ? 65 : 97));

/** Valid keys, the seeds the mutations start from. */
export const VALID_PUBLIC_DER = [spkiDer(p256.publicKey), spkiDer(p384.publicKey), spkiDer(ed.publicKey), spkiDer(rsa.publicKey), rsa.publicKey.export({ type: 'pkcs1', format: 'der' }) as Buffer];
export const VALID_PRIVATE_DER = [pkcs8Der(p256.privateKey), pkcs8Der(p384.privateKey), pkcs8Der(ed.privateKey), p256.privateKey.export({ type: 'sec1', format: 'der' }) as Buffer];

const P256_POINT = pointOf(spkiDer(p256.publicKey));
const P384_POINT = pointOf(spkiDer(p384.publicKey));

const bytes = (min: number, max: number) => fc.uint8Array({ minLength: min, maxLength: max }).map((b) => Buffer.from(b));

/** EC points: the identity, every encoding with random coordinates, real points (mutated, or of the other curve), coordinates ≥ p. */
const ecPoints = fc.oneof(
  fc.constantFrom(Buffer.from([0]), Buffer.alloc(0), Buffer.from([0, 0]), Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 0xff)]), Buffer.concat([Buffer.from([4]), Buffer.alloc(96, 0xff)]), Buffer.concat([Buffer.from([2]), Buffer.alloc(32, 0xff)])),
  fc.constantFrom(P256_POINT, P384_POINT, Buffer.concat([Buffer.from([2]), P256_POINT.subarray(1, 33)]), Buffer.concat([Buffer.from([3]), P384_POINT.subarray(1, 49)]), Buffer.concat([Buffer.from([6]), P256_POINT.subarray(1)])),
  fc.tuple(fc.constantFrom(0, 2, 3, 4, 6, 7), fc.constantFrom(32, 48, 64, 96, 31, 33, 65, 97, 0, 1)).chain(([form, n]) => bytes(n, n).map((rest) => Buffer.concat([Buffer.from([form]), rest]))),
  fc.tuple(fc.constantFrom(P256_POINT, P384_POINT), fc.nat(), fc.integer({ min: 1, max: 255 })).map(([point, at, xor]) => {
    const copy = Buffer.from(point);
    copy[1 + (at % (copy.length - 1))] ^= xor;
    return copy;
  }),
  bytes(0, 100),
);

/** EC algorithm parameters: P-256, P-384, other curves, none, NULL, explicit (random SEQUENCE). */
const ecParams = fc.oneof(
  fc.constantFrom(oid(OIDS.p256), oid(OIDS.p384), oid(OIDS.p521), oid(OIDS.secp256k1), NULL, Buffer.alloc(0)),
  bytes(0, 40).map((b) => seq(b)),
);

/** A DER INTEGER of `magnitude` (possibly negative or non-minimal as given). */
const integer = (content: Uint8Array) => tlv(0x02, content);

/** RSA moduli: random up to 300 bytes, and huge ones past the 8192-bit limit (refused before anything reads them). */
const rsaNumbers = fc.tuple(
  fc.oneof(bytes(0, 300), fc.integer({ min: 1024, max: 1100 }).chain((n) => bytes(n, n).map((b) => Buffer.concat([Buffer.from([0, 0xc1]), b])))),
  fc.oneof(fc.constantFrom(Buffer.from([1, 0, 1]), Buffer.from([3]), Buffer.from([0]), Buffer.alloc(0), Buffer.from([0xff])), bytes(0, 300)),
);

/** SubjectPublicKeyInfo built from parts, right and wrong. */
const builtSpki = fc.oneof(
  fc.tuple(ecParams, ecPoints, fc.constantFrom(0, 0, 0, 1, 7)).map(([params, point, unused]) => seq(seq(oid(OIDS.ec), params), bitString(point, unused))),
  fc.tuple(fc.constantFrom(Buffer.alloc(0), NULL, oid(OIDS.p256)), fc.oneof(bytes(0, 64), fc.constantFrom(Buffer.alloc(31), Buffer.alloc(32), Buffer.alloc(33), Buffer.from('01'.padEnd(64, '0'), 'hex')))).map(([params, key]) => seq(seq(oid(OIDS.ed25519), params), bitString(key))),
  fc.tuple(fc.constantFrom(OIDS.rsa, OIDS.rsaPss), fc.constantFrom(NULL, Buffer.alloc(0), seq(), seq(Buffer.from([0xa0, 0x03, 0x02, 0x01, 0xff]))), rsaNumbers).map(([algorithm, params, [n, e]]) => seq(seq(oid(algorithm), params), bitString(seq(integer(n), integer(e))))),
  fc.tuple(fc.constantFrom(OIDS.ed448, OIDS.x25519, OIDS.p256, '2a8648ce380401', '55'), bytes(0, 60)).map(([algorithm, key]) => seq(seq(oid(algorithm)), bitString(key))),
);

/** Valid keys cut short, extended, with a byte flipped, or with a length byte changed. */
function mutated(seeds: readonly Buffer[]) {
  return fc.tuple(fc.constantFrom(...seeds), fc.nat(), fc.integer({ min: 1, max: 255 }), fc.constantFrom('truncate', 'append', 'flip', 'length')).chain(([seed, at, value, how]) => {
    const i = at % seed.length;
    switch (how) {
      case 'truncate':
        return fc.constant(seed.subarray(0, i));
      case 'append':
        return bytes(1, 8).map((tail) => Buffer.concat([seed, tail]));
      case 'flip': {
        const copy = Buffer.from(seed);
        copy[i] ^= value;
        return fc.constant(copy);
      }
      default: {
        const copy = Buffer.from(seed);
        copy[Math.min(i, 6) % copy.length] = value;
        return fc.constant(copy);
      }
    }
  });
}

/** Public-key DER of every kind above. */
export const malformedPublicDer = fc.oneof(builtSpki, mutated(VALID_PUBLIC_DER), fc.tuple(rsaNumbers).map(([[n, e]]) => seq(integer(n), integer(e))));

/** DER written as the reader is given it: bare Base64, PEM under the label it fits or another, with trailing text. */
export const asPublicText = (der: Uint8Array) =>
  fc.constantFrom('base64', 'pem', 'rsa-pem', 'other-pem', 'pem-trailing').map((form) => {
    switch (form) {
      case 'base64':
        return Buffer.from(der).toString('base64');
      case 'pem':
        return pemOf(der);
      case 'rsa-pem':
        return pemOf(der, 'RSA PUBLIC KEY');
      case 'other-pem':
        return pemOf(der, 'CERTIFICATE');
      default:
        return `${pemOf(der)}trailing text`;
    }
  });

const base64url = fc.oneof(bytes(0, 120).map((b) => b.toString('base64url')), fc.string({ maxLength: 40 }), fc.constantFrom(P256_POINT.subarray(1, 33).toString('base64url'), P384_POINT.subarray(49).toString('base64url')));

/** Public JWKs with members of every shape. */
export const malformedJwk = fc.oneof(
  fc.record({ kty: fc.constant('EC'), crv: fc.constantFrom('P-256', 'P-384', 'P-521', 'secp256k1', 7), x: base64url, y: fc.oneof(base64url, fc.constant(undefined)) }),
  fc.record({ kty: fc.constant('OKP'), crv: fc.constantFrom('Ed25519', 'Ed448', 'X25519'), x: base64url }),
  fc.record({ kty: fc.constant('RSA'), n: fc.oneof(base64url, rsaNumbers.map(([n]) => n.toString('base64url'))), e: fc.oneof(base64url, fc.constant('AQAB')) }),
);

/** Private-key DER: PKCS#8 and SEC1 EC keys with every scalar and public point, Ed25519 seeds of every length, mutations of valid keys. */
export const malformedPrivateDer = fc.oneof(
  fc.tuple(ecParams, fc.oneof(bytes(0, 50), fc.constantFrom(Buffer.alloc(32), Buffer.alloc(48), Buffer.from('ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551', 'hex'))), fc.option(ecPoints)).map(([params, d, point]) => {
    const sec1 = seq(integer(Buffer.from([1])), tlv(0x04, d), ...(point === null ? [] : [tlv(0xa1, bitString(point))]));
    return seq(integer(Buffer.from([0])), seq(oid(OIDS.ec), params), tlv(0x04, sec1));
  }),
  fc.tuple(bytes(0, 40), fc.boolean()).map(([seed, wrapped]) => seq(integer(Buffer.from([0])), seq(oid(OIDS.ed25519)), tlv(0x04, wrapped ? tlv(0x04, seed) : seed))),
  fc.tuple(fc.constantFrom(OIDS.ed448, OIDS.x25519, '55'), bytes(0, 60)).map(([algorithm, key]) => seq(integer(Buffer.from([0])), seq(oid(algorithm)), tlv(0x04, key))),
  mutated(VALID_PRIVATE_DER),
);

/** Private DER as the reader is given it. */
export const asPrivateText = (der: Uint8Array) =>
  fc.constantFrom('base64', 'pkcs8-pem', 'sec1-pem', 'pkcs1-pem').map((form) =>
    form === 'base64' ? Buffer.from(der).toString('base64') : pemOf(der, { 'pkcs8-pem': 'PRIVATE KEY', 'sec1-pem': 'EC PRIVATE KEY', 'pkcs1-pem': 'RSA PRIVATE KEY' }[form]),
  );
