/**
 * Where a signer gets its key: one small interface, and the provider for a key held in memory.
 * The Secrets Manager provider lives in `secrets-manager-key-provider.ts`.
 */
import { KeyObject } from 'node:crypto';
import { fail } from '../core/errors';
import { KEYID_RULE, isKeyid } from '../core/keyid';
import { fingerprintOf, importPrivateKey } from '../core/keys';

/** What a signer needs from a key. */
export interface SigningKey {
  /** Goes into the signature's `keyid`. */
  readonly clientId: string;
  readonly fingerprint: string;
  readonly privateKey: KeyObject;
  /** The Secrets Manager VersionId the key was read from, when it came from there. */
  readonly versionId?: string;
}

/**
 * Supplies the signing key. `current()` may answer from a cache; `refresh()` must fetch anew
 * (signedFetch calls it after a refusal that says the key is no longer accepted, or says no reason).
 */
export interface SigningKeyProvider {
  current(): Promise<SigningKey>;
  refresh(): Promise<SigningKey>;
}

/**
 * A fixed key, e.g. a partner's key read from a file. `refresh()` returns the same key.
 * @param privateKey any format `importPrivateKey` reads (headerless Base64 PKCS#8 as in private.pkcs8.b64, PKCS#8 or PKCS#1 PEM), or a KeyObject
 * @throws SignetError `invalid_private_key`, `unsupported_key_type`, `key_too_small`, `invalid_request`
 */
export function staticKeyProvider(clientId: string, privateKey: string | KeyObject): SigningKeyProvider {
  if (!isKeyid(clientId)) {
    fail('invalid_request', `clientId must be the client's id: ${KEYID_RULE}.`);
  }
  let key: SigningKey;
  if (typeof privateKey === 'string') {
    const info = importPrivateKey(privateKey);
    key = { clientId, fingerprint: info.fingerprint, privateKey: info.key };
  } else {
    if (!(privateKey instanceof KeyObject) || privateKey.type !== 'private') {
      fail('invalid_private_key', 'privateKey must be the private key: text (PKCS#8 Base64 or PEM) or a private KeyObject.');
    }
    // Same checks as for text (RSA, size), without exporting the key anywhere.
    importPrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
    key = { clientId, fingerprint: fingerprintOf(privateKey), privateKey };
  }
  const frozen = Object.freeze(key);
  return { current: async () => frozen, refresh: async () => frozen };
}
