/**
 * A key pair made in the browser with WebCrypto, for a partner who has none yet: Ed25519 (the
 * default for a new client), ECDSA P-256, ECDSA P-384 or RSA-2048 (RSASSA-PKCS1-v1_5 / SHA-256);
 * a new key for an existing client defaults to the type of the key it signs with now. The public half comes out as
 * SPKI PEM (what the Public Key box takes, checked there as the registry will check it); the
 * private half as headerless Base64 PKCS#8, one line: the `private.pkcs8.b64` that `signet keygen`
 * writes and every Signet signer (and the portal's sign-in) reads.
 *
 * The private key is extractable only for the one export here; nothing is logged or stored, and
 * the caller hands the text to the download (./key-box.ts) and lets go of it.
 */
import { type SignatureAlgorithm, encodeBase64 } from './signet-core';

/** The key types the page generates, in the order offered (the first is the default). */
export const GENERATED_KEY_TYPES = Object.freeze({
  ed25519: { label: 'Ed25519', params: { name: 'Ed25519' } as Algorithm },
  'ecdsa-p256': { label: 'ECDSA P-256', params: { name: 'ECDSA', namedCurve: 'P-256' } as EcKeyGenParams },
  'ecdsa-p384': { label: 'ECDSA P-384', params: { name: 'ECDSA', namedCurve: 'P-384' } as EcKeyGenParams },
  'rsa-2048': {
    label: 'RSA-2048',
    params: { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' } as RsaHashedKeyGenParams,
  },
});

export type GeneratedKeyType = keyof typeof GENERATED_KEY_TYPES;

/** The file name the private key is offered under (as `signet keygen` names it). */
export const PRIVATE_KEY_FILE = 'private.pkcs8.b64';

export interface GeneratedKeyPair {
  readonly type: GeneratedKeyType;
  /** SPKI PEM, `-----BEGIN PUBLIC KEY-----`, 64-character lines */
  readonly publicKeyPem: string;
  /** PKCS#8 DER in Base64, one line, no header: the content of private.pkcs8.b64 (without its newline) */
  readonly privateKeyPkcs8Base64: string;
}

/**
 * The type to generate for a client's next key: the type of the key it signs with now (its newest
 * active key), so a rollover keeps its signer's algorithm. RSA keys of either padding give
 * RSA-2048 (WebCrypto exports an RSA key as rsaEncryption, which the registry registers for
 * rsa-v1_5-sha256). Ed25519 for a client with no active key.
 */
export function keyTypeForRollover(keys: readonly { readonly algorithm: SignatureAlgorithm; readonly addedAt: string; readonly active: boolean }[]): GeneratedKeyType {
  const current = keys.filter((k) => k.active).sort((a, b) => b.addedAt.localeCompare(a.addedAt))[0];
  switch (current?.algorithm) {
    case 'ecdsa-p256-sha256':
      return 'ecdsa-p256';
    case 'ecdsa-p384-sha384':
      return 'ecdsa-p384';
    case 'rsa-v1_5-sha256':
    case 'rsa-pss-sha512':
      return 'rsa-2048';
    default:
      return 'ed25519';
  }
}

export function isGeneratedKeyType(value: string): value is GeneratedKeyType {
  return Object.prototype.hasOwnProperty.call(GENERATED_KEY_TYPES, value);
}

/**
 * Generates a key pair of `type` and exports both halves.
 * @throws Error when this browser's WebCrypto cannot generate the type (the message names it)
 */
export async function generateKeyPair(type: GeneratedKeyType, subtle: SubtleCrypto = globalThis.crypto.subtle): Promise<GeneratedKeyPair> {
  const { label, params } = GENERATED_KEY_TYPES[type];
  let pair: CryptoKeyPair;
  try {
    // Extractable: the private key must be exported once, right below; the CryptoKeys are dropped after.
    pair = (await subtle.generateKey(params, true, ['sign', 'verify'])) as CryptoKeyPair;
  } catch {
    throw new Error(`This browser cannot generate ${label} keys. Choose another key type, or run \`signet keygen\` and paste its public.pem.`);
  }
  const spki = new Uint8Array(await subtle.exportKey('spki', pair.publicKey));
  const pkcs8 = new Uint8Array(await subtle.exportKey('pkcs8', pair.privateKey));
  const privateKeyPkcs8Base64 = encodeBase64(pkcs8);
  pkcs8.fill(0);
  return { type, publicKeyPem: pemOf('PUBLIC KEY', encodeBase64(spki)), privateKeyPkcs8Base64 };
}

function pemOf(label: string, base64: string): string {
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
