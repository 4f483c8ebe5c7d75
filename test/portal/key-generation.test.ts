/**
 * Generating a key pair in the page (portal/key-generation.ts), run under Node's WebCrypto as it
 * runs under the browser's: each type's public key is one the page's own check (checkPublicKey)
 * and the core (importPublicKey) accept with the same type, algorithm and fingerprint, and its
 * private key is the `private.pkcs8.b64` the core's signer reads (importPrivateKey) and the
 * page's sign-in loads (importSigningKey), a signature from it verifying with the public key.
 */
import { createPublicKey, sign, verify } from 'node:crypto';
import { importPrivateKey, importPublicKey } from '../../lambda/core/keys';
import { runInPortal } from './portal-modules';

interface Generated {
  type: string;
  publicKeyPem: string;
  privateKeyPkcs8Base64: string;
  check: { fingerprint: string; keyType: string; algorithm: string; bits: number };
  signIn: { fingerprint: string; extractable: boolean };
  types: string[];
  file: string;
}

let generated: Generated[];
beforeAll(() => {
  generated = runInPortal<Generated[]>(
    `
      const out = [];
      for (const type of Object.keys(m.generation.GENERATED_KEY_TYPES)) {
        const pair = await m.generation.generateKeyPair(type);
        const check = await m.keys.checkPublicKey(pair.publicKeyPem);
        const signIn = await m.keys.importSigningKey(pair.privateKeyPkcs8Base64);
        out.push({ ...pair, check, signIn: { fingerprint: signIn.fingerprint, extractable: signIn.privateKey.extractable },
          types: Object.values(m.generation.GENERATED_KEY_TYPES).map((t) => t.label), file: m.generation.PRIVATE_KEY_FILE });
      }
      return out;
    `,
  );
});

test('offers Ed25519 (first, the default), ECDSA P-256, ECDSA P-384 and RSA-2048, and names the file as signet keygen does', () => {
  expect(generated.map((g) => g.type)).toEqual(['ed25519', 'ecdsa-p256', 'ecdsa-p384', 'rsa-2048']);
  expect(generated[0].types).toEqual(['Ed25519', 'ECDSA P-256', 'ECDSA P-384', 'RSA-2048']);
  expect(generated[0].file).toBe('private.pkcs8.b64');
});

test.each([
  ['ed25519', 'Ed25519', 'ed25519', 256],
  ['ecdsa-p256', 'ECDSA P-256', 'ecdsa-p256-sha256', 256],
  ['ecdsa-p384', 'ECDSA P-384', 'ecdsa-p384-sha384', 384],
  ['rsa-2048', 'RSA-2048', 'rsa-v1_5-sha256', 2048],
])('%s: SPKI PEM the page and the core read alike; headerless Base64 PKCS#8 the core signs with', (type, keyType, algorithm, bits) => {
  const pair = generated.find((g) => g.type === type)!;
  expect(pair.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----\n([A-Za-z0-9+/=]{1,64}\n)+-----END PUBLIC KEY-----\n$/);
  expect(pair.privateKeyPkcs8Base64).toMatch(/^[A-Za-z0-9+/]+=*$/);
  const core = importPublicKey(pair.publicKeyPem);
  expect(pair.check).toEqual({ fingerprint: core.fingerprint, keyType, algorithm, bits });
  expect(core.algorithm).toBe(algorithm);

  const signer = importPrivateKey(pair.privateKeyPkcs8Base64);
  expect(signer.fingerprint).toBe(core.fingerprint);
  expect(signer.algorithm).toBe(algorithm);
  expect(pair.signIn).toEqual({ fingerprint: core.fingerprint, extractable: false });

  const data = Buffer.from('signed by a key the page generated');
  const hash = type === 'ed25519' ? null : type === 'ecdsa-p384' ? 'sha384' : 'sha256';
  expect(verify(hash, data, createPublicKey(pair.publicKeyPem), sign(hash, data, signer.key))).toBe(true);
});

test('two pairs are never the same key', () => {
  const again = runInPortal<string[]>(`return Promise.all(['ed25519', 'ed25519'].map(async (t) => (await m.generation.generateKeyPair(t)).publicKeyPem));`);
  expect(new Set([...again, generated[0].publicKeyPem]).size).toBe(3);
});

test('a new key for a client defaults to the type of the key it signs with now (its newest active key)', () => {
  const key = (algorithm: string, addedAt: string, active = true) => ({ algorithm, addedAt, active });
  const cases = {
    rsa: [key('rsa-v1_5-sha256', '2026-01-01T00:00:00Z')],
    rsaPss: [key('rsa-pss-sha512', '2026-01-01T00:00:00Z')],
    p256: [key('ecdsa-p256-sha256', '2026-01-01T00:00:00Z')],
    p384: [key('ecdsa-p384-sha384', '2026-01-01T00:00:00Z')],
    ed25519: [key('ed25519', '2026-01-01T00:00:00Z')],
    rolledToP256: [key('rsa-v1_5-sha256', '2026-01-01T00:00:00Z'), key('ecdsa-p256-sha256', '2026-03-01T00:00:00Z')],
    newestExpired: [key('rsa-v1_5-sha256', '2026-01-01T00:00:00Z'), key('ed25519', '2026-03-01T00:00:00Z', false)],
    none: [],
  };
  const types = runInPortal<Record<string, string>>(`return Object.fromEntries(Object.entries(input).map(([n, keys]) => [n, m.generation.keyTypeForRollover(keys)]));`, cases);
  expect(types).toEqual({ rsa: 'rsa-2048', rsaPss: 'rsa-2048', p256: 'ecdsa-p256', p384: 'ecdsa-p384', ed25519: 'ed25519', rolledToP256: 'ecdsa-p256', newestExpired: 'rsa-2048', none: 'ed25519' });
});
