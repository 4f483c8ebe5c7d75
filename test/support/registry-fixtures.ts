/**
 * Keys and inputs for the registry and store tests. The keys come from the test key pool
 * (./test-keys.ts): `testKey(i)` is the same key for the same `i` within a test file.
 */
import { generateKeyPairSync } from 'node:crypto';
import { type PrivateKeyInfo } from '../../lambda/core/keys';
import type { NewClient, NewKey } from '../../lambda/domain/store-types';
import { testKey } from './test-keys';

export { testKey };

/** The public half of the i-th key, as the store takes it. */
export function newKey(i: number): NewKey {
  const key = testKey(i);
  return { fingerprint: key.fingerprint, spkiPem: spkiPem(key) };
}

export function spkiPem(key: PrivateKeyInfo): string {
  return key.publicKey.export({ type: 'spki', format: 'pem' }) as string;
}

/** A valid store input for a client holding the i-th key. */
export function newClient(i: number, overrides: Partial<NewClient> = {}): NewClient {
  return { name: `Partner ${i}`, networkWhitelist: ['0.0.0.0'], roles: ['registry:admin'], key: newKey(i), ...overrides };
}

/** Private material in every form a person might paste by mistake, for the `private_key_submitted` cases. */
export function privateKeyForms(key: PrivateKeyInfo): Record<string, string> {
  return {
    'PKCS#8 PEM': key.key.export({ type: 'pkcs8', format: 'pem' }) as string,
    'PKCS#1 PEM': key.key.export({ type: 'pkcs1', format: 'pem' }) as string,
    'headerless Base64 PKCS#8 (private.pkcs8.b64)': key.pkcs8Base64,
    'headerless Base64 PKCS#1': (key.key.export({ type: 'pkcs1', format: 'der' }) as Buffer).toString('base64'),
  };
}

/** Public keys Signet must refuse, by reason. */
export function unacceptablePublicKeys(): { unsupportedKey: string; rsa1024: string; garbage: string; truncatedPem: string } {
  const p521 = generateKeyPairSync('ec', { namedCurve: 'P-521' });
  const small = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const good = spkiPem(testKey(0));
  return {
    unsupportedKey: p521.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    rsa1024: small.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    garbage: 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ this is not a PEM key',
    truncatedPem: good.slice(0, Math.floor(good.length / 2)) + '\n-----END PUBLIC KEY-----\n',
  };
}
