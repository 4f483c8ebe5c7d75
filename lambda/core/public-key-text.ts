/**
 * A public key as people paste it (SPKI or PKCS#1 PEM, bare Base64 DER, a JWK), read to the SPKI
 * DER it stands for and judged whole by the key gate (./der.ts, ./ec-point.ts). Pure: the
 * registry (./keys.ts, which then builds the key with node:crypto) and the portal's page (with
 * WebCrypto, bundled from portal/signet-core.ts) run this same code, so they refuse the same keys
 * with the same code and sentence. Nothing here echoes the input.
 */
import { type SignatureAlgorithm } from './algorithm-names';
import { decodeBareBase64, decodeBase64 } from './base64';
import { type GatedKeyType, type KeyDerVerdict, type NamedCurve, coordinateBytes, isPkcs1PublicKey, judgePkcs1PublicKey, judgeSpki, spkiOfEcPoint, spkiOfEd25519, spkiOfPkcs1, spkiOfRsaNumbers } from './der';
import { fail } from './errors';
import { PRIVATE_KEY_SUBMITTED_MESSAGE, looksLikePrivateKey } from './private-key-scan';

/** A public key the gate accepted, as the SPKI DER to build it from. */
export interface GatedPublicKey {
  /** The SPKI DER (a compressed EC point already written uncompressed). */
  readonly spki: Uint8Array<ArrayBuffer>;
  readonly type: GatedKeyType;
  readonly curve?: NamedCurve;
  /** How messages name the input: "The PUBLIC KEY block", "The Base64 DER", "The EC JWK". */
  readonly source: string;
  /** The algorithm a JWK's `alg` names, if any. */
  readonly jwkAlgorithm?: SignatureAlgorithm;
}

/** A JSON Web Key as pasted: only the members Signet reads are typed. */
export interface JsonWebKey {
  readonly kty?: unknown;
  readonly alg?: unknown;
  readonly [member: string]: unknown;
}

/** JOSE `alg` names (RFC 7518, RFC 8037) as RFC 9421 algorithms, for a JWK that carries one. */
export const JOSE_ALGORITHMS: Readonly<Record<string, SignatureAlgorithm>> = {
  RS256: 'rsa-v1_5-sha256',
  PS512: 'rsa-pss-sha512',
  ES256: 'ecdsa-p256-sha256',
  ES384: 'ecdsa-p384-sha384',
  EdDSA: 'ed25519',
  Ed25519: 'ed25519',
};

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/;
const BASE64URL_BODY = /^[A-Za-z0-9_-]+$/;
const ACCEPTED_KEYS = 'Signet accepts RSA, Ed25519, and ECDSA P-256 or P-384 keys';

/**
 * The public key in `text` (PEM or Base64 DER; a JWK is {@link gatedPublicKeyOfJwk}'s), judged.
 * @throws SignetError `private_key_submitted`, `invalid_public_key`, `unsupported_key_type`
 */
export function gatedPublicKeyOfText(text: string): GatedPublicKey {
  if (typeof text !== 'string' || text.trim() === '') {
    fail('invalid_public_key', 'The public key is empty. Paste the SPKI PEM (-----BEGIN PUBLIC KEY-----) or the JWK of your key pair.');
  }
  if (looksLikePrivateKey(text)) fail('private_key_submitted', PRIVATE_KEY_SUBMITTED_MESSAGE);
  const pem = PEM_BLOCK.exec(text);
  if (pem) {
    const label = pem[1];
    if (label !== 'PUBLIC KEY' && label !== 'RSA PUBLIC KEY') {
      fail('invalid_public_key', `A ${label} block is not a public key Signet reads. Paste the SPKI PEM (-----BEGIN PUBLIC KEY-----), a PKCS#1 RSA PUBLIC KEY PEM, or the JWK.`);
    }
    const source = `The ${label} block`;
    const der = decodeBareBase64(pem[2]);
    if (der === undefined) fail('invalid_public_key', `${source} could not be read as a public key: its body is not Base64. Paste the whole PEM, header and footer included.`);
    return gated(label === 'RSA PUBLIC KEY' ? pkcs1AsSpki(der, source) : der, source);
  }
  const der = decodeBareBase64(text.trim());
  if (der === undefined) fail('invalid_public_key', 'The public key is neither PEM, Base64 DER nor a JWK. Paste the SPKI PEM (-----BEGIN PUBLIC KEY-----).');
  return gated(isPkcs1PublicKey(der) ? pkcs1AsSpki(der, 'The Base64 DER') : der, 'The Base64 DER');
}

/**
 * A public JWK (RFC 7517/7518/8037) of kty RSA, EC or OKP, written as the SPKI it stands for and
 * judged like PEM and DER, with the algorithm its `alg` names, if any.
 * @throws SignetError `private_key_submitted`, `invalid_public_key`, `unsupported_key_type`
 */
export function gatedPublicKeyOfJwk(jwk: JsonWebKey): GatedPublicKey {
  if (jwk.kty === 'oct') {
    fail('unsupported_key_type', "This JWK is a shared secret (kty \"oct\", for hmac-sha256); Signet's registry holds only public keys. Register a public key (Ed25519, ECDSA P-256/P-384 or RSA).");
  }
  if ('d' in jwk || 'p' in jwk) fail('private_key_submitted', PRIVATE_KEY_SUBMITTED_MESSAGE);
  if (jwk.kty !== 'RSA' && jwk.kty !== 'EC' && jwk.kty !== 'OKP') {
    fail('unsupported_key_type', `The JWK's kty is ${JSON.stringify(String(jwk.kty ?? 'missing').slice(0, 20))}; Signet accepts RSA, EC (P-256, P-384) and OKP (Ed25519) public keys.`);
  }
  let jwkAlgorithm: SignatureAlgorithm | undefined;
  if (jwk.alg !== undefined) {
    jwkAlgorithm = typeof jwk.alg === 'string' && Object.prototype.hasOwnProperty.call(JOSE_ALGORITHMS, jwk.alg) ? JOSE_ALGORITHMS[jwk.alg] : undefined;
    if (jwkAlgorithm === undefined) {
      fail('unsupported_key_type', `The JWK's alg ${JSON.stringify(String(jwk.alg).slice(0, 20))} is not one Signet verifies; use ${Object.keys(JOSE_ALGORITHMS).join(', ')}, or leave alg out.`);
    }
  }
  const key = gated(spkiOfJwk(jwk), `The ${jwk.kty} JWK`);
  return jwkAlgorithm === undefined ? key : { ...key, jwkAlgorithm };
}

/**
 * The JWK in `text` when it is one (JSON text of an object), else undefined.
 * @throws SignetError `private_key_submitted`, `invalid_public_key` (JSON that is not a JWK object)
 */
export function jwkOfText(text: string): JsonWebKey | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  if (looksLikePrivateKey(text)) fail('private_key_submitted', PRIVATE_KEY_SUBMITTED_MESSAGE);
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch (cause) {
    fail('invalid_public_key', 'The key starts with "{" but is not valid JSON. Paste the JWK as JSON, or the SPKI PEM.', { cause });
  }
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as JsonWebKey;
  return fail('invalid_public_key', 'The key is JSON but not a JWK object. Paste one JWK ({"kty": ...}), or the SPKI PEM.');
}

/**
 * The gate's refusal as the error every reader gives: `unsupported_key_type` for a key type or
 * curve Signet does not take, else `invalid_public_key` / `invalid_private_key`, with the reason.
 */
export function refuseUnlessAccepted(verdict: KeyDerVerdict, source: string, kind: 'public' | 'private'): asserts verdict is Extract<KeyDerVerdict, { ok: true }> {
  if (verdict.ok) return;
  if (verdict.unsupported) fail('unsupported_key_type', `${source} ${verdict.reason}.`);
  const advice = kind === 'public' ? 'Paste the public key your key tool wrote, unchanged, or generate a new key pair (signet keygen).' : 'Give the private key your key tool wrote, unchanged, or generate a new key pair (signet keygen).';
  fail(kind === 'public' ? 'invalid_public_key' : 'invalid_private_key', `${source} ${verdict.reason}. ${advice}`);
}

function gated(spki: Uint8Array<ArrayBuffer>, source: string): GatedPublicKey {
  const verdict = judgeSpki(spki);
  refuseUnlessAccepted(verdict, source, 'public');
  const key: GatedPublicKey = { spki: verdict.canonicalSpki ?? spki, type: verdict.type, source };
  return verdict.curve === undefined ? key : { ...key, curve: verdict.curve };
}

/** A PKCS#1 RSAPublicKey as SPKI, after the gate has judged it. */
function pkcs1AsSpki(der: Uint8Array, source: string): Uint8Array<ArrayBuffer> {
  refuseUnlessAccepted(judgePkcs1PublicKey(der), source, 'public');
  return spkiOfPkcs1(der);
}

/** The SPKI DER a public JWK of kty RSA, EC or OKP stands for. */
function spkiOfJwk(jwk: JsonWebKey): Uint8Array<ArrayBuffer> {
  switch (jwk.kty) {
    case 'RSA':
      return spkiOfRsaNumbers(jwkMember(jwk, 'n'), jwkMember(jwk, 'e'));
    case 'EC': {
      if (jwk.crv !== 'P-256' && jwk.crv !== 'P-384') fail('unsupported_key_type', `The EC JWK's crv is ${JSON.stringify(String(jwk.crv ?? 'missing').slice(0, 20))}; ${ACCEPTED_KEYS}.`);
      const length = coordinateBytes(jwk.crv);
      const point = new Uint8Array(1 + 2 * length);
      point[0] = 0x04;
      point.set(jwkMember(jwk, 'x', length), 1);
      point.set(jwkMember(jwk, 'y', length), 1 + length);
      return spkiOfEcPoint(jwk.crv, point);
    }
    default:
      if (jwk.crv !== 'Ed25519') fail('unsupported_key_type', `The OKP JWK's crv is ${JSON.stringify(String(jwk.crv ?? 'missing').slice(0, 20))}; ${ACCEPTED_KEYS}.`);
      return spkiOfEd25519(jwkMember(jwk, 'x', 32));
  }
}

/** A JWK member's base64url bytes (RFC 7518: EC coordinates are the curve's full length). */
function jwkMember(jwk: JsonWebKey, name: string, length?: number): Uint8Array {
  const value = jwk[name];
  const text = typeof value === 'string' ? value.replace(/=+$/, '') : '';
  if (text === '' || !BASE64URL_BODY.test(text) || text.length % 4 === 1) {
    fail('invalid_public_key', `The ${String(jwk.kty)} JWK's "${name}" is ${value === undefined ? 'missing' : 'not base64url text'}. Copy the JWK exactly as your key tool wrote it.`);
  }
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const bytes = decodeBase64(base64.padEnd(base64.length + ((4 - (base64.length % 4)) % 4), '='));
  if (length !== undefined && bytes.length !== length) {
    fail('invalid_public_key', `The ${String(jwk.kty)} JWK's "${name}" is ${bytes.length} bytes; for crv ${String(jwk.crv)} it is ${length} bytes (RFC 7518 §6.2.1, RFC 8037 §2). Copy the JWK exactly as your key tool wrote it.`);
  }
  return bytes;
}
