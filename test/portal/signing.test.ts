/**
 * Signing in the page: the admin's key loaded by portal/keys.ts (importSigningKey, a
 * non-extractable CryptoKey) and the core's WebCrypto signer as the page gets it (portal/signet-core.ts,
 * bundled from the core), run under Node's WebCrypto as they run under the browser's. The core's
 * own tests prove its two signers agree (test/core/sign-webcrypto.test.ts); this proves the bundle
 * the page loads is that signer, working with the page's keys.
 */
import { generateKeyPairSync } from 'node:crypto';
import { signRequest } from '../../lambda/core/sign';
import { type PrivateKeyInfo, generateRsaKeyPair } from '../../lambda/core/keys';
import { OUTCOME, runInPortal } from './portal-modules';

let signer: PrivateKeyInfo;
beforeAll(() => {
  signer = generateRsaKeyPair(2048);
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

  test('refuses empty, encrypted, public, non-RSA and small keys with the core codes', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
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
    expect(out[4].message).toBe('The private key is ec; Signet uses rsa-v1_5-sha256 and needs a plain RSA key.');
    for (const o of out) expect(o.message).not.toMatch(/[A-Za-z0-9+/]{40,}/);
  });
});
