/**
 * The most common wrong file for a private key: its own public half (`public.pem` chosen where
 * `private.pkcs8.b64` belongs). Both private-key readers, node:crypto's (./keys.ts: the CLI, the
 * signer) and the page's WebCrypto one (portal/keys.ts), ask this first, so both say the same
 * thing. Pure: no node: imports (the portal bundles it).
 */
import { decodeBareBase64 } from './base64';
import { isPkcs1PublicKey, isPrivateKeyDer, spkiAlgorithmOid } from './der';
import { fail } from './errors';

/** What either reader says when it is given a public key to sign with. */
export const PUBLIC_KEY_GIVEN_MESSAGE = 'This file holds a public key; choose your private key (private.pkcs8.b64 or private.pem).';

const PUBLIC_PEM_BLOCK = /-----BEGIN ((?:RSA |EC )?PUBLIC KEY)-----([\s\S]*?)-----END \1-----/;
const OPENSSH_PUBLIC_KEY = /^\s*(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(?:256|384|521)) AAAA[A-Za-z0-9+/]+={0,2}/;
const JWK_WITHOUT_PRIVATE_MEMBER = /^\s*\{[\s\S]*"kty"[\s\S]*\}\s*$/;

/**
 * Refuses text that holds a public key and no private key: a PUBLIC KEY / RSA PUBLIC KEY PEM
 * block (without a private block beside it, and not a private key relabelled), an OpenSSH public key line, Base64 of an SPKI or
 * PKCS#1 public key, or a JWK without its private member `d`.
 * @throws SignetError invalid_private_key, with {@link PUBLIC_KEY_GIVEN_MESSAGE}
 */
export function refusePublicKeyGiven(text: string): void {
  if (typeof text !== 'string') return;
  const pem = PUBLIC_PEM_BLOCK.exec(text);
  if (pem && !/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(text)) {
    // A private key relabelled PUBLIC KEY is not a public key: the reader says what it is.
    const body = decodeBareBase64(pem[2]);
    if (body === undefined || !isPrivateKeyDer(body)) fail('invalid_private_key', PUBLIC_KEY_GIVEN_MESSAGE);
  }
  if (OPENSSH_PUBLIC_KEY.test(text)) fail('invalid_private_key', PUBLIC_KEY_GIVEN_MESSAGE);
  if (JWK_WITHOUT_PRIVATE_MEMBER.test(text) && !/"d"\s*:/.test(text)) fail('invalid_private_key', PUBLIC_KEY_GIVEN_MESSAGE);
  const der = decodeBareBase64(text.trim());
  if (der !== undefined && (spkiAlgorithmOid(der) !== undefined || isPkcs1PublicKey(der))) fail('invalid_private_key', PUBLIC_KEY_GIVEN_MESSAGE);
}
