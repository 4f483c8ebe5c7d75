/**
 * The portal signs in the browser what lambda/core/sign.ts signs on a server, byte for byte:
 * portal/http-signature.js runs under Node's WebCrypto (as it runs under the browser's) on the
 * same inputs as the core signer, and every header (Content-Digest, Date or X-Date,
 * Signature-Input, Signature: RSASSA-PKCS1-v1_5 is deterministic) and the signature base must
 * be identical. The portal's X-Date form then verifies with the core verifier's default policy.
 */
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { signRequest } from '../../lambda/core/sign';
import { verifyRequest, defaultVerifyPolicy } from '../../lambda/core/verify';
import { type PrivateKeyInfo, generateRsaKeyPair } from '../../lambda/core/keys';
import { OUTCOME, runInPortal } from './portal-modules';

let signer: PrivateKeyInfo;
beforeAll(() => {
  signer = generateRsaKeyPair(2048);
});

interface Case {
  method: string;
  url: string;
  /** A string body, or bytes as base64 (`bodyB64`). */
  body?: string;
  bodyB64?: string;
  keyId: string;
  created: number;
  legacy?: boolean;
  dateField?: 'date' | 'x-date';
}

interface PortalSigned {
  headers: Record<string, string>;
  base: string;
}

const caseArb: fc.Arbitrary<Case> = fc.record(
  {
    method: fc.constantFrom('GET', 'post', 'PATCH', 'delete', 'Put', 'OPTIONS'),
    url: fc.tuple(fc.constantFrom('https://api.example.com', 'http://127.0.0.1:3000', 'https://x.execute-api.eu-west-1.amazonaws.com/prod'), fc.webPath(), fc.option(fc.webQueryParameters(), { nil: undefined })).map(
      ([origin, path, query]) => new URL(`${origin}${path}${query === undefined ? '' : `?${query}`}`).href,
    ),
    body: fc.option(fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.json()), { nil: undefined }),
    bodyB64: fc.option(fc.uint8Array({ minLength: 0, maxLength: 300 }).map((b) => Buffer.from(b).toString('base64')), { nil: undefined }),
    keyId: fc.oneof(fc.constant('c_AdminAdminAdminAdmin0A'), fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 40 })),
    created: fc.integer({ min: 0, max: 4_102_444_800 }),
    legacy: fc.option(fc.boolean(), { nil: undefined }),
    dateField: fc.option(fc.constantFrom<'date' | 'x-date'>('date', 'x-date'), { nil: undefined }),
  },
  { requiredKeys: ['method', 'url', 'keyId', 'created'] },
);

/** Signs every case in the portal module (one child process). */
function portalSign(cases: readonly Case[], pkcs8Base64: string): PortalSigned[] {
  return runInPortal<PortalSigned[]>(
    `
      const { privateKey } = await m.keys.importSigningKey(input.key);
      const out = [];
      for (const c of input.cases) {
        const body = c.bodyB64 !== undefined ? Uint8Array.from(Buffer.from(c.bodyB64, 'base64')) : c.body;
        out.push(await m.sig.signRequest({ method: c.method, url: c.url, body, keyId: c.keyId, privateKey, created: c.created, legacy: c.legacy, dateField: c.dateField }));
      }
      return out;
    `,
    { key: pkcs8Base64, cases },
  );
}

function coreSign(c: Case): PortalSigned {
  const body = c.bodyB64 !== undefined ? new Uint8Array(Buffer.from(c.bodyB64, 'base64')) : c.body;
  const { headers, base } = signRequest({ method: c.method, url: c.url, body, keyId: c.keyId, privateKey: signer.key, created: c.created, legacy: c.legacy, dateField: c.dateField });
  return { headers: { ...headers }, base };
}

test('the portal signer and the core signer give identical headers and base, byte for byte (200 random requests)', () => {
  const cases = fc.sample(caseArb, { numRuns: 200, seed: 9421 });
  const fromPortal = portalSign(cases, signer.pkcs8Base64);
  expect(fromPortal).toHaveLength(cases.length);
  cases.forEach((c, i) => {
    expect({ case: c, ...fromPortal[i] }).toEqual({ case: c, ...coreSign(c) });
  });
  // The sample covers every form: with and without body, date and x-date, legacy.
  expect(cases.some((c) => (c.body ?? '') !== '' || (c.bodyB64 ?? '') !== '')).toBe(true);
  expect(fromPortal.some((s) => 'x-date' in s.headers)).toBe(true);
  expect(fromPortal.some((s) => 'date' in s.headers)).toBe(true);
  expect(fromPortal.some((s) => !('date' in s.headers) && !('x-date' in s.headers))).toBe(true);
});

test('fixed cases: the registry calls the portal makes (x-date, JSON bodies, quotes in keyid)', () => {
  const cases: Case[] = [
    { method: 'GET', url: 'http://127.0.0.1:3000/registry/roles', keyId: 'c_AdminAdminAdminAdmin0A', created: 1_700_000_000, dateField: 'x-date' },
    { method: 'POST', url: 'http://127.0.0.1:3000/registry/clients', body: '{"name":"Zoë ✓","networkWhitelist":["203.0.113.7"],"roles":["demo"]}', keyId: 'c_AdminAdminAdminAdmin0A', created: 1_700_000_001, dateField: 'x-date' },
    { method: 'PATCH', url: 'https://x.execute-api.eu-west-1.amazonaws.com/prod/registry/clients/c_1?a=b%20c&a=d', body: '{}', keyId: 'we"ird\\id', created: 1_700_000_002 },
    { method: 'GET', url: 'https://api.example.com/registry/clients?limit=50&cursor=abc%2B%2F', keyId: 'c', created: 0, legacy: true },
  ];
  const fromPortal = portalSign(cases, signer.pkcs8Base64);
  cases.forEach((c, i) => expect(fromPortal[i]).toEqual(coreSign(c)));
  expect(fromPortal[0].headers['signature-input']).toBe('sig=("@method" "@target-uri" "x-date");created=1700000000;keyid="c_AdminAdminAdminAdmin0A";alg="rsa-v1_5-sha256"');
  expect(fromPortal[0].headers['x-date']).toBe('Tue, 14 Nov 2023 22:13:20 GMT');
  expect(fromPortal[2].headers['signature-input']).toContain('keyid="we\\"ird\\\\id"');
});

test("the portal's X-Date requests verify with the core verifier's default policy (legacy off)", async () => {
  const now = Math.floor(Date.now() / 1000);
  const cases: Case[] = [
    { method: 'GET', url: 'http://127.0.0.1:3000/registry/clients?limit=50', keyId: 'c_x', created: now, dateField: 'x-date' },
    { method: 'POST', url: 'http://127.0.0.1:3000/registry/clients', body: '{"name":"a"}', keyId: 'c_x', created: now, dateField: 'x-date' },
  ];
  const fromPortal = portalSign(cases, signer.pkcs8Base64);
  const policy = defaultVerifyPolicy({ nowS: () => now });
  expect(policy.allowLegacy).toBe(false);
  for (const [i, c] of cases.entries()) {
    const headers = { ...fromPortal[i].headers, ...(c.body ? { 'content-length': String(Buffer.byteLength(c.body)) } : {}) };
    const verdict = await verifyRequest({ method: c.method, targetUri: c.url, headers }, policy, () => [{ fingerprint: signer.fingerprint, key: signer.publicKey }]);
    expect(verdict).toMatchObject({ keyId: 'c_x', fingerprint: signer.fingerprint });
    expect(verdict.covered).toContain('"x-date"');
  }
});

test('formatHttpDate and computeContentDigest agree with the core on edge values', () => {
  const dates = [0, 1, 59, 951_782_400, 1_700_000_000, 4_102_444_799, 253_402_300_799];
  const bodies = ['', 'a', '{"x":1}\n', 'ünïcødé ✓ 𝄞'];
  const out = runInPortal<{ dates: string[]; digests: string[] }>(
    `return { dates: input.dates.map((d) => m.sig.formatHttpDate(d)), digests: await Promise.all(input.bodies.map((b) => m.sig.computeContentDigest(b))) };`,
    { dates, bodies },
  );
   
  const { formatHttpDate } = require('../../lambda/core/http-date') as typeof import('../../lambda/core/http-date');
   
  const { computeContentDigest } = require('../../lambda/core/content-digest') as typeof import('../../lambda/core/content-digest');
  expect(out.dates).toEqual(dates.map(formatHttpDate));
  expect(out.digests).toEqual(bodies.map((b) => computeContentDigest(b)));
});

test('refuses what the core refuses: bad created, bad keyid, a key that cannot sign, an unknown date field', () => {
  const out = runInPortal<Array<{ code?: string }>>(
    `${OUTCOME}
      const { privateKey } = await m.keys.importSigningKey(input.key);
      const pair = await crypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, false, ['sign', 'verify']);
      const base = { method: 'GET', url: 'https://a.example/', keyId: 'c', privateKey, created: 1 };
      return [
        await outcome(() => m.sig.signRequest({ ...base, created: 1.5 })),
        await outcome(() => m.sig.signRequest({ ...base, created: -1 })),
        await outcome(() => m.sig.signRequest({ ...base, keyId: '' })),
        await outcome(() => m.sig.signRequest({ ...base, keyId: 'é' })),
        await outcome(() => m.sig.signRequest({ ...base, keyId: 'a b' })),
        await outcome(() => m.sig.signRequest({ ...base, privateKey: pair.publicKey })),
        await outcome(() => m.sig.signRequest({ ...base, dateField: 'x-when' })),
        await outcome(() => m.sig.signRequest({ ...base, url: 'https://a.example/\\nx' })),
      ];
    `,
    { key: signer.pkcs8Base64 },
  );
  expect(out.map((o) => o.code)).toEqual(['invalid_request', 'invalid_request', 'invalid_request', 'invalid_request', 'invalid_request', 'invalid_private_key', 'invalid_request', 'absent_component']);
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
