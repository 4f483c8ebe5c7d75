/**
 * The identity of a signature for replay protection: equal for every form of one signature that
 * someone without the private key can make from another.
 *
 * ECDSA is malleable: when (r, s) verifies, so does (r, n − s), for the same request and key. An
 * id over the raw bytes would let whoever saw a signed request send it once more with s flipped.
 * So the id is the SHA-256 (base64url) of the signature with s replaced by min(s, n − s) ("low S")
 * whenever the signature has the length of a raw r‖s ECDSA signature (RFC 9421 §3.3.4: 64 bytes
 * for P-256, 96 for P-384). High-S signatures are NOT refused: Node, OpenSSL and WebCrypto make
 * them about half the time, and RFC 9421 allows them; only their replay id is normalised.
 *
 * The id is a function of the bytes alone, never of the key or the algorithm, so a signature the
 * authorizer did not verify (another signature of a request with several) gets the same id now as
 * when it is verified later: the authorizer claims every signature of an accepted request.
 * An Ed25519 signature is 64 bytes too and is mapped the same way; that is harmless, since
 * Ed25519 has no second form (verifiers refuse S ≥ L, RFC 8032 §5.1.7) and the mapping merges only
 * two byte strings of which at most one verifies. RSA signatures (PKCS#1 v1.5 is deterministic;
 * only the key holder can make another PSS signature) are hashed as they are.
 *
 * A low-S or RSA signature has the id of its raw bytes, the id used before this rule, so replay
 * records written by an older authorizer still count.
 */
import { createHash } from 'node:crypto';

/** Raw ECDSA signature length in bytes → the order n of the curve's group. */
const CURVE_ORDERS: ReadonlyMap<number, bigint> = new Map([
  [64, 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n], // P-256
  [96, 0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973n], // P-384
]);

/** The replay id of `signature` (see the module comment): SHA-256 of its low-S form, base64url. */
export function signatureReplayId(signature: Uint8Array): string {
  return createHash('sha256').update(lowS(signature)).digest('base64url');
}

/**
 * `signature` with s replaced by n − s when it is the length of a raw ECDSA signature and
 * n/2 < s < n; otherwise `signature` itself. (An s ≥ n verifies under no key: it is left as is.)
 */
function lowS(signature: Uint8Array): Uint8Array {
  const order = CURVE_ORDERS.get(signature.length);
  if (order === undefined) return signature;
  const half = signature.length / 2;
  const sBytes = signature.subarray(half);
  const s = BigInt(`0x${Buffer.from(sBytes.buffer, sBytes.byteOffset, sBytes.byteLength).toString('hex')}`);
  if (s <= order >> 1n || s >= order) return signature;
  const flipped = Buffer.alloc(signature.length);
  flipped.set(signature.subarray(0, half), 0);
  flipped.write((order - s).toString(16).padStart(half * 2, '0'), half, 'hex');
  return flipped;
}
