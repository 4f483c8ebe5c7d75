import { generateKeyPairSync } from 'node:crypto';
import { isSignetError } from '../../lambda/core/errors';
import { spkiPemOf } from '../../lambda/core/keys';
import { parseSigningSecret, serializeSigningSecret, signingSecretFor } from '../../lambda/signer/signing-secret';
import { nextTestKey } from '../support/test-keys';

const key = nextTestKey();
const other = nextTestKey();
const createdAt = new Date('2026-01-31T12:00:00.000Z');

function codeOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (e) {
    if (isSignetError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected a SignetError');
}

const valid = () => ({ clientId: 'c_abc', privateKey: key.pkcs8Base64, fingerprint: key.fingerprint, createdAt: createdAt.toISOString() });

describe('signing secret', () => {
  it('round-trips: the stored JSON holds headerless Base64 PKCS#8 and parses back to the same key', () => {
    const secret = signingSecretFor('c_abc', key, createdAt);
    expect(secret).toEqual(valid());
    const text = serializeSigningSecret(secret);
    expect(JSON.parse(text)).toEqual(valid());
    const parsed = parseSigningSecret(text);
    expect(parsed.secret).toEqual(secret);
    expect(parsed.key.fingerprint).toBe(key.fingerprint);
    expect(spkiPemOf(parsed.key.key)).toBe(key.publicKey.export({ type: 'spki', format: 'pem' }));
  });

  it('reads a PEM private key too, and normalises it to headerless Base64 PKCS#8', () => {
    const pem = key.key.export({ type: 'pkcs8', format: 'pem' }) as string;
    const parsed = parseSigningSecret(JSON.stringify({ ...valid(), privateKey: pem }));
    expect(parsed.secret.privateKey).toBe(key.pkcs8Base64);
  });

  const smallKey = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64');
  const cases: Array<[string, string, string]> = [
    ['not JSON', '{"clientId":', 'invalid_request'],
    ['an array', '[]', 'invalid_request'],
    ['no clientId', JSON.stringify({ ...valid(), clientId: undefined }), 'invalid_request'],
    ['a clientId with a space', JSON.stringify({ ...valid(), clientId: 'c abc' }), 'invalid_request'],
    ['a privateKey that is not a string', JSON.stringify({ ...valid(), privateKey: 42 }), 'invalid_private_key'],
    ['a privateKey that is not a key', JSON.stringify({ ...valid(), privateKey: 'bm90IGEga2V5IGF0IGFsbCwgc29ycnk=' }), 'invalid_private_key'],
    ['a public key as privateKey', JSON.stringify({ ...valid(), privateKey: spkiPemOf(key.key) }), 'invalid_private_key'],
    ['a 1024-bit key', JSON.stringify({ ...valid(), privateKey: smallKey }), 'key_too_small'],
    ['the fingerprint of another key', JSON.stringify({ ...valid(), fingerprint: other.fingerprint }), 'invalid_private_key'],
    ['no fingerprint', JSON.stringify({ ...valid(), fingerprint: undefined }), 'invalid_private_key'],
    ['no createdAt', JSON.stringify({ ...valid(), createdAt: undefined }), 'invalid_request'],
    ['a createdAt that is not ISO 8601', JSON.stringify({ ...valid(), createdAt: 'yesterday' }), 'invalid_request'],
  ];

  it.each(cases)('refuses a secret with %s, never echoing the key', (_label, text, code) => {
    const error = codeOf(() => parseSigningSecret(text));
    expect(error.code).toBe(code);
    expect(error.message).not.toContain(key.pkcs8Base64.slice(40, 80));
    expect(error.message).not.toContain(smallKey.slice(40, 80));
  });

  it('refuses to build a secret for a malformed clientId', () => {
    expect(codeOf(() => signingSecretFor('', key, createdAt)).code).toBe('invalid_request');
  });
});
