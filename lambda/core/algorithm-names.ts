/**
 * The names of the signature algorithms (RFC 9421 §6.2.2) a registered key may have, with no
 * cryptography attached, so that code that runs in the browser (the signature plan, the portal)
 * can name them. ./algorithms.ts does the verifying and signing.
 */

/** Every algorithm a registered key may have. */
export const SIGNATURE_ALGORITHMS = ['rsa-v1_5-sha256', 'rsa-pss-sha512', 'ecdsa-p256-sha256', 'ecdsa-p384-sha384', 'ed25519'] as const;

export type SignatureAlgorithm = (typeof SIGNATURE_ALGORITHMS)[number];

/** The algorithm of a key registered before keys had one, and of an RSA key registered without one. */
export const DEFAULT_RSA_ALGORITHM: SignatureAlgorithm = 'rsa-v1_5-sha256';

/** True when `name` is one of {@link SIGNATURE_ALGORITHMS}. */
export function isSignatureAlgorithm(name: unknown): name is SignatureAlgorithm {
  return typeof name === 'string' && (SIGNATURE_ALGORITHMS as readonly string[]).includes(name);
}
