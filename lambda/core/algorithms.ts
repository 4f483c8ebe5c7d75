/**
 * The signature algorithms Signet verifies and signs with (RFC 9421 §3.3, the asymmetric ones):
 * which key each needs, how long its signatures are, and the one call that checks or makes one.
 *
 * A key's algorithm is fixed when the key is registered (RSA: `rsa-v1_5-sha256` unless declared
 * `rsa-pss-sha512`; the others follow from the key) and the verifier uses only that one: an `alg`
 * parameter, when a signature carries it, must name it (§3.2 step 6; §7.3.6 algorithm confusion).
 * `hmac-sha256` is not offered: it needs a shared secret, and the registry holds public keys only.
 */
import { KeyObject, constants, sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import { DEFAULT_RSA_ALGORITHM, SIGNATURE_ALGORITHMS, type SignatureAlgorithm, isSignatureAlgorithm } from './algorithm-names';
import { fail } from './errors';

export { DEFAULT_RSA_ALGORITHM, SIGNATURE_ALGORITHMS, isSignatureAlgorithm };
export type { SignatureAlgorithm };

/** The RFC 9421 algorithms Signet refuses on purpose, with why (shown to whoever asked for one). */
const REFUSED_ALGORITHMS: Readonly<Record<string, string>> = {
  'hmac-sha256': 'hmac-sha256 needs a secret shared with the verifier, and Signet\'s registry holds only public keys; register a public key (Ed25519, ECDSA P-256/P-384 or RSA) and sign with its private half',
};

interface AlgorithmSpec {
  /** node:crypto's key type for it. */
  readonly keyType: 'rsa' | 'ec' | 'ed25519';
  /** For ECDSA: node's name of the curve. */
  readonly curve?: 'prime256v1' | 'secp384r1';
  /** The digest node:crypto hashes with (Ed25519 hashes internally: null). */
  readonly digest: 'sha256' | 'sha384' | 'sha512' | null;
  /** Fixed signature length in bytes (ECDSA r‖s, Ed25519); RSA's is its modulus length. */
  readonly signatureBytes?: number;
}

const SPECS: Readonly<Record<SignatureAlgorithm, AlgorithmSpec>> = {
  'rsa-v1_5-sha256': { keyType: 'rsa', digest: 'sha256' },
  'rsa-pss-sha512': { keyType: 'rsa', digest: 'sha512' },
  'ecdsa-p256-sha256': { keyType: 'ec', curve: 'prime256v1', digest: 'sha256', signatureBytes: 64 },
  'ecdsa-p384-sha384': { keyType: 'ec', curve: 'secp384r1', digest: 'sha384', signatureBytes: 96 },
  ed25519: { keyType: 'ed25519', digest: null, signatureBytes: 64 },
};

/** RFC 9421 §3.3.1: RSASSA-PSS with a 64-byte salt. */
const PSS_SALT_BYTES = 64;

/** SHA-512's output, in bytes: the largest PSS salt for a modulus of n bytes is n - 64 - 2. */
const SHA512_BYTES = 64;

/**
 * Checks an `alg` a signature names (§3.2 step 6) before any key is known: it must be one of
 * {@link SIGNATURE_ALGORITHMS}. Whether it fits the key comes later ({@link algorithmFits}).
 * @throws SignetError `unsupported_algorithm`, saying why (hmac-sha256) or what is accepted
 */
export function checkAlgorithmName(alg: string): SignatureAlgorithm {
  if (isSignatureAlgorithm(alg)) return alg;
  const why = REFUSED_ALGORITHMS[alg];
  if (why !== undefined) fail('unsupported_algorithm', `alg "${alg}" is not accepted: ${why}.`);
  fail('unsupported_algorithm', `alg ${JSON.stringify(alg.slice(0, 40))} is not an algorithm Signet verifies; use one of ${SIGNATURE_ALGORITHMS.join(', ')} (the one your registered key has), or leave alg out.`);
}

/**
 * The algorithm a key is registered with: the declared one, which must fit the key, else the
 * key type's own (RSA: {@link DEFAULT_RSA_ALGORITHM}).
 * @throws SignetError `unsupported_key_type` for a declared algorithm that is unknown, refused, or of another key type
 */
export function algorithmForKey(key: KeyObject, declared?: string): SignatureAlgorithm {
  const own = ownAlgorithm(key);
  if (declared === undefined) return own;
  if (!isSignatureAlgorithm(declared)) {
    const why = REFUSED_ALGORITHMS[declared];
    fail(
      'unsupported_key_type',
      why !== undefined ? `algorithm "${declared}" is not offered: ${why}.` : `algorithm ${JSON.stringify(String(declared).slice(0, 40))} is not one Signet supports; use one of ${SIGNATURE_ALGORITHMS.join(', ')}.`,
    );
  }
  if (!keyFits(key, declared)) {
    fail('unsupported_key_type', `algorithm "${declared}" needs ${keyNeeded(declared)}, but this is ${describeKey(key)}; ${own === 'rsa-v1_5-sha256' ? 'declare rsa-v1_5-sha256 or rsa-pss-sha512' : `declare ${own}`}, or leave algorithm out.`);
  }
  return declared;
}

/** Whether a signature that says `alg` may be checked with a key registered for `keyAlgorithm`. */
export function algorithmFits(alg: string | undefined, keyAlgorithm: SignatureAlgorithm): boolean {
  return alg === undefined || alg === keyAlgorithm;
}

/** The length in bytes of every signature a key makes with `algorithm` (RSA: its modulus length). */
export function signatureLength(algorithm: SignatureAlgorithm, key: KeyObject): number {
  const fixed = SPECS[algorithm].signatureBytes;
  return fixed ?? Math.ceil((key.asymmetricKeyDetails?.modulusLength ?? 0) / 8);
}

/** Checks a signature over `data` (§3.3.2-§3.3.6). ECDSA signatures are the raw r‖s form (§3.3.4). */
export function verifySignature(algorithm: SignatureAlgorithm, data: Uint8Array, key: KeyObject, signature: Uint8Array): boolean {
  switch (algorithm) {
    case 'rsa-v1_5-sha256':
      return nodeVerify('sha256', data, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
    case 'rsa-pss-sha512':
      // RFC 9421's 64-byte salt, or the largest salt: what OpenSSL and node sign with when no
      // length is given (the http-message-signatures npm package does that). Any other length is
      // refused; the salt length does not weaken PSS either way, so this costs only a second check.
      return (
        nodeVerify('sha512', data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: PSS_SALT_BYTES }, signature) ||
        nodeVerify('sha512', data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: signatureLength(algorithm, key) - SHA512_BYTES - 2 }, signature)
      );
    case 'ecdsa-p256-sha256':
    case 'ecdsa-p384-sha384':
      return nodeVerify(SPECS[algorithm].digest, data, { key, dsaEncoding: 'ieee-p1363' }, signature);
    case 'ed25519':
      return nodeVerify(null, data, key, signature);
  }
}

/** Makes a signature over `data` with a private key of `algorithm`'s type (§3.3.2-§3.3.6). */
export function createSignature(algorithm: SignatureAlgorithm, data: Uint8Array, privateKey: KeyObject): Buffer {
  if (privateKey.type !== 'private' || !keyFits(privateKey, algorithm)) {
    fail('invalid_private_key', `Signing with ${algorithm} needs ${keyNeeded(algorithm)} private key; this is ${describeKey(privateKey)}.`);
  }
  switch (algorithm) {
    case 'rsa-v1_5-sha256':
      return nodeSign('sha256', data, { key: privateKey, padding: constants.RSA_PKCS1_PADDING });
    case 'rsa-pss-sha512':
      return nodeSign('sha512', data, { key: privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: PSS_SALT_BYTES });
    case 'ecdsa-p256-sha256':
    case 'ecdsa-p384-sha384':
      return nodeSign(SPECS[algorithm].digest, data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
    case 'ed25519':
      return nodeSign(null, data, privateKey);
  }
}

/**
 * Why a signature of the wrong length cannot be `algorithm`'s, when that says something useful:
 * a DER-encoded ECDSA signature (what most libraries return by default) instead of r‖s.
 */
export function signatureShapeHint(algorithm: SignatureAlgorithm, signature: Uint8Array): string | undefined {
  if (SPECS[algorithm].keyType === 'ec' && signature.length > 0 && signature[0] === 0x30 && signature.length !== SPECS[algorithm].signatureBytes) {
    return `The signature looks DER-encoded; ${algorithm} signatures are the raw ${SPECS[algorithm].signatureBytes}-byte r‖s form (RFC 9421 §3.3.4): convert it (e.g. dsaEncoding: 'ieee-p1363' in Node, Signature.fromDER in others).`;
  }
  return undefined;
}

/** The algorithm a key of this type has unless another is declared. */
function ownAlgorithm(key: KeyObject): SignatureAlgorithm {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return DEFAULT_RSA_ALGORITHM;
    case 'rsa-pss':
      return 'rsa-pss-sha512';
    case 'ed25519':
      return 'ed25519';
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      if (curve === 'prime256v1') return 'ecdsa-p256-sha256';
      if (curve === 'secp384r1') return 'ecdsa-p384-sha384';
      return fail('unsupported_key_type', `The key is ECDSA on ${curve ?? 'an unknown curve'}; Signet accepts P-256 and P-384 (RFC 9421 §3.3.4, §3.3.5).`);
    }
    default:
      return fail(
        'unsupported_key_type',
        `The key is ${key.asymmetricKeyType ?? 'of an unknown type'}; Signet accepts RSA (2048 bits or more), Ed25519, and ECDSA P-256 or P-384 keys.`,
      );
  }
}

function keyFits(key: KeyObject, algorithm: SignatureAlgorithm): boolean {
  const spec = SPECS[algorithm];
  const type = key.asymmetricKeyType;
  if (spec.keyType === 'rsa') return type === 'rsa' || (type === 'rsa-pss' && algorithm === 'rsa-pss-sha512');
  if (spec.keyType === 'ec') return type === 'ec' && key.asymmetricKeyDetails?.namedCurve === spec.curve;
  return type === spec.keyType;
}

function keyNeeded(algorithm: SignatureAlgorithm): string {
  const spec = SPECS[algorithm];
  if (spec.keyType === 'rsa') return 'an RSA';
  if (spec.keyType === 'ec') return spec.curve === 'prime256v1' ? 'a P-256 ECDSA' : 'a P-384 ECDSA';
  return 'an Ed25519';
}

/** "an RSA-2048 key", "a P-256 key", "an Ed25519 key". */
export function describeKey(key: KeyObject): string {
  switch (key.asymmetricKeyType) {
    case 'rsa':
    case 'rsa-pss':
      return `an RSA-${key.asymmetricKeyDetails?.modulusLength ?? '?'} key`;
    case 'ec':
      return key.asymmetricKeyDetails?.namedCurve === 'prime256v1' ? 'a P-256 key' : key.asymmetricKeyDetails?.namedCurve === 'secp384r1' ? 'a P-384 key' : 'an EC key on another curve';
    case 'ed25519':
      return 'an Ed25519 key';
    default:
      return `a key of type ${key.asymmetricKeyType ?? 'unknown'}`;
  }
}
