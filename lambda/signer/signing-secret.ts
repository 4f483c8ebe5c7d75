/**
 * The JSON a signing key is stored as in Secrets Manager, and its one parser. The signer reads
 * it; the rotation Lambda writes it (createSecret) and reads it (setSecret, testSecret).
 *
 * ```json
 * { "clientId": "…", "privateKey": "<PKCS#8 DER, Base64, no header/footer>",
 *   "fingerprint": "<SHA-256 of the SPKI DER, base64url>", "createdAt": "2026-01-31T12:00:00.000Z" }
 * ```
 * No message here ever contains the private key or the secret's text.
 */
import { fail } from '../core/errors';
import { KEYID_RULE, isKeyid } from '../core/keyid';
import { PrivateKeyInfo, importPrivateKey } from '../core/keys';

/** The stored shape, field for field. */
export interface SigningSecret {
  /** The client the key belongs to; signers put it in `keyid`. */
  readonly clientId: string;
  /** The private key as private.pkcs8.b64 holds it: PKCS#8 DER, Base64, no header/footer, no whitespace. */
  readonly privateKey: string;
  /** Fingerprint of the public half (see `fingerprintOf` in lambda/core/keys.ts). */
  readonly fingerprint: string;
  /** When the key was generated, ISO 8601 UTC. */
  readonly createdAt: string;
}

/** A parsed secret: the stored fields and the imported key. */
export interface ParsedSigningSecret {
  readonly secret: SigningSecret;
  readonly key: PrivateKeyInfo;
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** The stored shape for a key (its private half as private.pkcs8.b64 holds it). */
export function signingSecretFor(clientId: string, key: PrivateKeyInfo, createdAt: Date): SigningSecret {
  if (!isKeyid(clientId)) fail('invalid_request', `The clientId must be ${KEYID_RULE}.`);
  return { clientId, privateKey: key.pkcs8Base64, fingerprint: key.fingerprint, createdAt: createdAt.toISOString() };
}

/** The SecretString to store for a key. */
export function serializeSigningSecret(secret: SigningSecret): string {
  return JSON.stringify({ clientId: secret.clientId, privateKey: secret.privateKey, fingerprint: secret.fingerprint, createdAt: secret.createdAt });
}

/**
 * Reads a SecretString: checks every field, imports the key, and checks that the fingerprint is
 * the key's (a secret edited by hand, or corrupted, is refused rather than signing with a key
 * nobody registered).
 * @throws SignetError `invalid_request` (shape), `invalid_private_key`, `unsupported_key_type`, `key_too_small`
 */
export function parseSigningSecret(text: string): ParsedSigningSecret {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    fail('invalid_request', 'The signing secret is not JSON. It must hold {"clientId", "privateKey", "fingerprint", "createdAt"}.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail('invalid_request', 'The signing secret must be a JSON object with clientId, privateKey, fingerprint and createdAt.');
  }
  const fields = value as Record<string, unknown>;
  const clientId = fields.clientId;
  if (!isKeyid(clientId)) {
    fail('invalid_request', `The signing secret's "clientId" must be the client's id: ${KEYID_RULE}.`);
  }
  if (typeof fields.privateKey !== 'string') {
    fail('invalid_private_key', 'The signing secret\'s "privateKey" must be a string: the PKCS#8 key in Base64 (signet keygen\'s private.pkcs8.b64).');
  }
  const key = importPrivateKey(fields.privateKey);
  if (fields.fingerprint !== key.fingerprint) {
    fail(
      'invalid_private_key',
      typeof fields.fingerprint === 'string'
        ? 'The signing secret\'s "fingerprint" is not the fingerprint of its private key: the secret was edited or corrupted. Store the key and its fingerprint together (signet keygen prints it).'
        : 'The signing secret has no "fingerprint" string; store the key\'s fingerprint with it (signet keygen prints it).',
    );
  }
  const createdAt = fields.createdAt;
  if (typeof createdAt !== 'string' || !ISO_8601.test(createdAt) || Number.isNaN(Date.parse(createdAt))) {
    fail('invalid_request', 'The signing secret\'s "createdAt" must be an ISO 8601 date-time such as 2026-01-31T12:00:00.000Z.');
  }
  return { secret: { clientId, privateKey: key.pkcs8Base64, fingerprint: key.fingerprint, createdAt }, key };
}

