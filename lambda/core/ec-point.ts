/**
 * The points and scalars of the two ECDSA curves Signet accepts, P-256 and P-384 (FIPS 186-5,
 * SEC 2), checked with BigInt arithmetic before any key is built from them.
 *
 * Why here and not in node:crypto: Node (OpenSSL 3) builds a key from the point at infinity
 * (SEC1 encoding `00`) without complaint, and reading that key's details then fails a native
 * assertion that aborts the whole process. So a point is judged by its bytes first: the SEC1
 * encoding (uncompressed `04‖X‖Y` or compressed `02`/`03‖X`, each coordinate the curve's length),
 * coordinates below p, and on the curve: y² = x³ − 3x + b (mod p). The identity has no such
 * encoding, so it never passes. Both curves have cofactor 1: every point on them other than the
 * identity generates the whole group, so nothing else needs checking. Pure, so the browser runs it too.
 */

/** The curves, by their JOSE / WebCrypto names. */
export type NamedCurve = 'P-256' | 'P-384';

interface Curve {
  /** The field prime. */
  readonly p: bigint;
  /** The constant b of y² = x³ − 3x + b (a = −3 on both curves). */
  readonly b: bigint;
  /** The order of the group (of the base point). */
  readonly n: bigint;
  /** The length of a coordinate (and of a scalar) in bytes. */
  readonly bytes: number;
}

const CURVES: Readonly<Record<NamedCurve, Curve>> = {
  'P-256': {
    p: 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn,
    b: 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn,
    n: 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n,
    bytes: 32,
  },
  'P-384': {
    p: 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffffn,
    b: 0xb3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aefn,
    n: 0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973n,
    bytes: 48,
  },
};

/** The length of a coordinate of `curve`, in bytes (32 or 48). */
export function coordinateBytes(curve: NamedCurve): number {
  return CURVES[curve].bytes;
}

/**
 * Why `point` (SEC1 bytes) is not a public key on `curve`, as a sentence fragment
 * ("is the point at infinity", …), or undefined when it is a valid point other than the identity.
 */
export function ecPointProblem(curve: NamedCurve, point: Uint8Array): string | undefined {
  const { p, bytes } = CURVES[curve];
  const form = point[0];
  if (point.length === 0 || (point.length === 1 && form === 0x00)) return 'is the point at infinity (the identity), which is no public key';
  if (form === 0x04) {
    if (point.length !== 1 + 2 * bytes) return `is an uncompressed point of ${point.length} bytes; a ${curve} point is ${1 + 2 * bytes} bytes (04, X, Y)`;
    const x = bigIntOf(point.subarray(1, 1 + bytes));
    const y = bigIntOf(point.subarray(1 + bytes));
    if (x >= p || y >= p) return `has a coordinate not below the ${curve} field prime`;
    return mod(y * y, p) === rightSide(curve, x) ? undefined : `is not a point on ${curve}`;
  }
  if (form === 0x02 || form === 0x03) {
    if (point.length !== 1 + bytes) return `is a compressed point of ${point.length} bytes; a ${curve} point is ${1 + bytes} bytes (02 or 03, X)`;
    const x = bigIntOf(point.subarray(1));
    if (x >= p) return `has an X coordinate not below the ${curve} field prime`;
    return squareRootOf(curve, rightSide(curve, x)) === undefined ? `is not a point on ${curve} (no Y fits its X)` : undefined;
  }
  return `is not a SEC1 point encoding (it starts with ${form.toString(16).padStart(2, '0')}; a point starts with 04, or 02/03 compressed)`;
}

/**
 * The uncompressed encoding (`04‖X‖Y`) of a point {@link ecPointProblem} accepted: a compressed
 * one (`02`/`03‖X`) with its Y worked out, an uncompressed one as it is. One key, one encoding,
 * so one fingerprint whichever way the key was written.
 */
export function uncompressedPoint(curve: NamedCurve, point: Uint8Array): Uint8Array {
  if (point[0] === 0x04) return point;
  const { p, bytes } = CURVES[curve];
  const x = bigIntOf(point.subarray(1));
  let y = squareRootOf(curve, rightSide(curve, x)) ?? 0n;
  if (Number(y & 1n) !== (point[0] & 1)) y = p - y;
  const out = new Uint8Array(1 + 2 * bytes);
  out[0] = 0x04;
  out.set(point.subarray(1), 1);
  out.set(bytesOf(y, bytes), 1 + bytes);
  return out;
}

/** Why `scalar` (big-endian bytes) cannot be a private key on `curve`, or undefined when 1 ≤ d < n. */
export function ecScalarProblem(curve: NamedCurve, scalar: Uint8Array): string | undefined {
  const { n, bytes } = CURVES[curve];
  if (scalar.length === 0 || scalar.length > bytes) return `is ${scalar.length} bytes; a ${curve} private key is at most ${bytes}`;
  const d = bigIntOf(scalar);
  if (d === 0n || d >= n) return `is outside 1 to n − 1 for ${curve}, so it is no private key`;
  return undefined;
}

/** x³ − 3x + b mod p. */
function rightSide(curve: NamedCurve, x: bigint): bigint {
  const { p, b } = CURVES[curve];
  return mod(x * x * x - 3n * x + b, p);
}

/** A y with y² = v (mod p), or undefined when v is not a square. Both primes are 3 mod 4: y = v^((p+1)/4). */
function squareRootOf(curve: NamedCurve, v: bigint): bigint | undefined {
  const { p } = CURVES[curve];
  const y = powMod(v, (p + 1n) / 4n, p);
  return mod(y * y, p) === v ? y : undefined;
}

function powMod(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let b = mod(base, modulus);
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % modulus;
    b = (b * b) % modulus;
  }
  return result;
}

function mod(a: bigint, m: bigint): bigint {
  const r = a % m;
  return r < 0n ? r + m : r;
}

function bytesOf(value: bigint, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = length - 1, v = value; i >= 0; i--, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
}

function bigIntOf(bytes: Uint8Array): bigint {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  return value;
}
