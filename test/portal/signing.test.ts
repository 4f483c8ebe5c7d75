/**
 * Signing in the page: the admin's key loaded by portal/keys.ts (importSigningKey, a
 * non-extractable CryptoKey) and the core's WebCrypto signer as the page gets it (portal/signet-core.ts,
 * bundled from the core), run under Node's WebCrypto as they run under the browser's. The core's
 * own tests prove its two signers agree (test/core/sign-webcrypto.test.ts); this proves the bundle
 * the page loads is that signer, working with the page's keys.
 */
import { generateKeyPairSync } from 'node:crypto';
import { signRequest } from '../../lambda/core/sign';
import { type PrivateKeyInfo, generateKeyPair } from '../../lambda/core/keys';
import { defaultVerifyPolicy, verifyRequest } from '../../lambda/core/verify';
import { OUTCOME, runInPortal } from './portal-modules';
import { nextTestKey } from '../support/test-keys';

let signer: PrivateKeyInfo;
beforeAll(() => {
  signer = nextTestKey();
});

test("the page's bundle signs, with the key importSigningKey loaded, exactly what the core's node signer signs", () => {
  const cases = [
    { method: 'GET', url: 'http://127.0.0.1:3000/registry/roles', keyId: 'c_AdminAdminAdminAdmin0A', created: 1_700_000_000, dateField: 'x-date' as const },
    { method: 'POST', url: 'http://127.0.0.1:3000/registry/clients', body: '{"name":"Zoë ✓","networkWhitelist":["203.0.113.7"],"roles":["demo"]}', keyId: 'c_AdminAdminAdminAdmin0A', created: 1_700_000_001, dateField: 'x-date' as const },
    { method: 'patch', url: 'https://x.execute-api.eu-west-1.amazonaws.com/prod/registry/clients/c_1?a=b%20c', body: '{}', keyId: 'we"ird\\id', created: 1_700_000_002 },
  ];
  const fromPage = runInPortal<Array<{ headers: Record<string, string>; base: string }>>(
    `
      const { privateKey } = await m.keys.importSigningKey(input.key);
      const out = [];
      for (const c of input.cases) out.push(await m.core.signRequest({ ...c, privateKey }));
      return out;
    `,
    { key: signer.pkcs8Base64, cases },
  );
  cases.forEach((c, i) => {
    const { headers, base } = signRequest({ ...c, privateKey: signer.key });
    expect(fromPage[i]).toEqual({ headers: { ...headers }, base });
  });
  expect(fromPage[0].headers['x-date']).toBe('Tue, 14 Nov 2023 22:13:20 GMT');
});

describe('importSigningKey: the admin key, loaded for signing only', () => {
  test('headerless Base64 PKCS#8, PKCS#8 PEM and PKCS#1 PEM give the same key, named by the core fingerprint, not extractable', () => {
    const forms = [
      signer.pkcs8Base64,
      signer.key.export({ type: 'pkcs8', format: 'pem' }) as string,
      signer.key.export({ type: 'pkcs1', format: 'pem' }) as string,
      `\n  ${signer.pkcs8Base64.replace(/(.{64})/g, '$1\n')}\n`,
    ];
    const out = runInPortal<Array<{ fingerprint: string; bits: number; extractable: boolean; usages: string[]; algorithm: string }>>(
      `return Promise.all(input.forms.map(async (f) => {
        const k = await m.keys.importSigningKey(f);
        return { fingerprint: k.fingerprint, bits: k.bits, extractable: k.privateKey.extractable, usages: k.privateKey.usages, algorithm: k.privateKey.algorithm.name };
      }));`,
      { forms },
    );
    for (const k of out) expect(k).toEqual({ fingerprint: signer.fingerprint, bits: 2048, extractable: false, usages: ['sign'], algorithm: 'RSASSA-PKCS1-v1_5' });
  });

  test('refuses empty, encrypted, public, unsupported and small keys with the core codes', () => {
    const ec = generateKeyPairSync('ed448');
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const encrypted = signer.key.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'x' }) as string;
    const inputs = [
      '',
      encrypted,
      signer.publicKey.export({ type: 'spki', format: 'pem' }) as string,
      'not a key at all',
      (ec.privateKey.export({ type: 'pkcs8', format: 'der' }) as Buffer).toString('base64'),
      small.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    ];
    const out = runInPortal<Array<{ code?: string; message?: string }>>(`${OUTCOME} return Promise.all(input.map((t) => outcome(() => m.keys.importSigningKey(t))));`, inputs);
    expect(out.map((o) => o.code)).toEqual(['invalid_private_key', 'invalid_private_key', 'invalid_private_key', 'invalid_private_key', 'unsupported_key_type', 'key_too_small']);
    expect(out[1].message).toMatch(/encrypted/);
    expect(out[4].message).toBe('The private key is ed448; Signet signs in the page with RSA (rsa-v1_5-sha256), Ed25519 or ECDSA P-256 / P-384 keys.');
    for (const o of out) expect(o.message).not.toMatch(/[A-Za-z0-9+/]{40,}/);
  });
});

describe('importSigningKey and signRequest with Ed25519 and ECDSA admin keys', () => {
  test.each(['ed25519', 'ecdsa-p256', 'ecdsa-p384'] as const)('a %s key signs in the page, named by the core fingerprint, and the core verifies it', async (type) => {
    const pair = generateKeyPair(type);
    const out = runInPortal<{ fingerprint: string; extractable: boolean; headers: Record<string, string> }>(
      `const k = await m.keys.importSigningKey(input.key);
       const signed = await m.core.signRequest({ method: 'GET', url: 'https://api.example.com/registry/clients', keyId: 'c_admin', privateKey: k.privateKey, created: input.created, dateField: 'x-date' });
       return { fingerprint: k.fingerprint, extractable: k.privateKey.extractable, headers: signed.headers };`,
      { key: pair.pkcs8Base64, created: 1_800_000_000 },
    );
    expect(out.fingerprint).toBe(pair.fingerprint);
    expect(out.extractable).toBe(false);
    expect(out.headers['signature-input']).toContain(`alg="${pair.algorithm}"`);
    const verdict = await verifyRequest(
      { method: 'GET', targetUri: 'https://api.example.com/registry/clients', headers: out.headers },
      defaultVerifyPolicy({ nowS: () => 1_800_000_000 }),
      () => [{ fingerprint: pair.fingerprint, key: pair.publicKey, algorithm: pair.algorithm }],
    );
    expect(verdict.fingerprint).toBe(pair.fingerprint);
  });
});
