/**
 * Signed Web Bot Auth key directories for tests, made with Cloudflare's `web-bot-auth` package as
 * a directory publisher would (`directoryResponseHeaders`: each key signs the answer with tag
 * `http-message-signatures-directory`, covering `"@authority";req`).
 */
import type { KeyObject } from 'node:crypto';
import { directoryResponseHeaders } from 'web-bot-auth';
import { Ed25519Signer } from 'web-bot-auth/crypto';

/** The Signature and Signature-Input fields of a directory answer served at `url`, signed by `keys`. */
export async function signDirectory(url: string, keys: readonly KeyObject[], createdS: number, expiresS = createdS + 3_600): Promise<{ signature: string; signatureInput: string }> {
  const signers = await Promise.all(keys.map((key) => Ed25519Signer.fromJWK(key.export({ format: 'jwk' }) as JsonWebKey)));
  const message = { request: { method: 'GET', url, headers: {} }, response: { status: 200, headers: {} } };
  const headers = await directoryResponseHeaders(message, signers, { created: new Date(createdS * 1000), expires: new Date(expiresS * 1000) });
  return { signature: headers.Signature, signatureInput: headers['Signature-Input'] };
}
