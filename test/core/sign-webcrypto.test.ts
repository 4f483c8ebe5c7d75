/**
 * The core's two signers sign the same bytes: signRequestWebCrypto (the portal's, in the browser)
 * and signRequest (node:crypto: Lambda, CLI, signer library) share the plan (sign-plan.ts), and
 * RSASSA-PKCS1-v1_5 is deterministic, so for the same key and inputs every header (Content-Digest,
 * Date or X-Date, Signature-Input, Signature) and the base are identical. Runs with Node's WebCrypto.
 */
import { webcrypto } from 'node:crypto';
import fc from 'fast-check';
import { type PrivateKeyInfo, generateKeyPair } from '../../lambda/core/keys';
import { signRequest } from '../../lambda/core/sign';
import { RSASSA_PKCS1_SHA256, WEBCRYPTO_ALGORITHMS, computeContentDigestWebCrypto, signRequestWebCrypto } from '../../lambda/core/sign-webcrypto';
import { computeContentDigest } from '../../lambda/core/content-digest';
import { defaultVerifyPolicy, verifyRequest } from '../../lambda/core/verify';
import { isSignetError } from '../../lambda/core/errors';
import { nextTestKey } from '../support/test-keys';

const subtle = webcrypto.subtle as unknown as SubtleCrypto;
let signer: PrivateKeyInfo;
let cryptoKey: CryptoKey;
beforeAll(async () => {
  signer = nextTestKey();
  // Non-extractable, sign only: as the portal keeps the admin's key.
  cryptoKey = await subtle.importKey('pkcs8', Buffer.from(signer.pkcs8Base64, 'base64'), RSASSA_PKCS1_SHA256, false, ['sign']);
});

interface Case {
  method: string;
  url: string;
  body?: string;
  bodyBytes?: Uint8Array;
  keyId: string;
  created: number;
  legacy?: boolean;
  dateField?: 'date' | 'x-date';
}

const caseArb: fc.Arbitrary<Case> = fc.record(
  {
    method: fc.constantFrom('GET', 'post', 'PATCH', 'delete', 'Put', 'OPTIONS'),
    url: fc.tuple(fc.constantFrom('https://api.example.com', 'http://127.0.0.1:3000', 'https://x.execute-api.eu-west-1.amazonaws.com/prod'), fc.webPath(), fc.option(fc.webQueryParameters(), { nil: undefined })).map(
      ([origin, path, query]) => new URL(`${origin}${path}${query === undefined ? '' : `?${query}`}`).href,
    ),
    body: fc.option(fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.json()), { nil: undefined }),
    bodyBytes: fc.option(fc.uint8Array({ minLength: 0, maxLength: 300 }), { nil: undefined }),
    keyId: fc.oneof(fc.constant('c_AdminAdminAdminAdmin0A'), fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 40 })),
    created: fc.integer({ min: 0, max: 4_102_444_800 }),
    legacy: fc.option(fc.boolean(), { nil: undefined }),
    dateField: fc.option(fc.constantFrom<'date' | 'x-date'>('date', 'x-date'), { nil: undefined }),
  },
  { requiredKeys: ['method', 'url', 'keyId', 'created'] },
);

const bodyOf = (c: Case) => c.bodyBytes ?? c.body;

async function bothSign(c: Case) {
  const input = { method: c.method, url: c.url, body: bodyOf(c), keyId: c.keyId, created: c.created, legacy: c.legacy, dateField: c.dateField };
  const web = await signRequestWebCrypto({ ...input, privateKey: cryptoKey, subtle });
  const node = signRequest({ ...input, privateKey: signer.key });
  return { web: { headers: { ...web.headers }, base: web.base }, node: { headers: { ...node.headers }, base: node.base } };
}

test('WebCrypto and node:crypto signers give identical headers and base, byte for byte (200 random requests)', async () => {
  const cases = fc.sample(caseArb, { numRuns: 200, seed: 9421 });
  const seen = { body: 0, xDate: 0, date: 0, legacy: 0 };
  for (const c of cases) {
    const { web, node } = await bothSign(c);
    expect({ case: c, ...web }).toEqual({ case: c, ...node });
    if ('content-digest' in web.headers) seen.body++;
    if ('x-date' in web.headers) seen.xDate++;
    else if ('date' in web.headers) seen.date++;
    else seen.legacy++;
  }
  // The sample covers every form: with and without body, date and x-date, legacy.
  expect(Object.values(seen).every((n) => n > 0)).toBe(true);
});

test('fixed cases: the registry calls the portal makes (x-date, JSON bodies, quotes in keyid)', async () => {
  const cases: Case[] = [
    { method: 'GET', url: 'http://127.0.0.1:3000/registry/roles', keyId: 'c_AdminAdminAdminAdmin0A', created: 1_700_000_000, dateField: 'x-date' },
    { method: 'POST', url: 'http://127.0.0.1:3000/registry/clients', body: '{"name":"Zoë ✓","networkWhitelist":["203.0.113.7"],"roles":["demo"]}', keyId: 'c_AdminAdminAdminAdmin0A', created: 1_700_000_001, dateField: 'x-date' },
    { method: 'PATCH', url: 'https://x.execute-api.eu-west-1.amazonaws.com/prod/registry/clients/c_1?a=b%20c&a=d', body: '{}', keyId: 'we"ird\\id', created: 1_700_000_002 },
    { method: 'GET', url: 'https://api.example.com/registry/clients?limit=50&cursor=abc%2B%2F', keyId: 'c', created: 0, legacy: true },
  ];
  const signed = [];
  for (const c of cases) {
    const { web, node } = await bothSign(c);
    expect(web).toEqual(node);
    signed.push(web);
  }
  expect(signed[0].headers['signature-input']).toBe('sig=("@method" "@target-uri" "x-date");created=1700000000;keyid="c_AdminAdminAdminAdmin0A";alg="rsa-v1_5-sha256"');
  expect(signed[0].headers['x-date']).toBe('Tue, 14 Nov 2023 22:13:20 GMT');
  expect(signed[2].headers['signature-input']).toContain('keyid="we\\"ird\\\\id"');
});

test("X-Date requests signed with WebCrypto verify with the core verifier's default policy (legacy off)", async () => {
  const now = Math.floor(Date.now() / 1000);
  const policy = defaultVerifyPolicy({ nowS: () => now });
  expect(policy.allowLegacy).toBe(false);
  for (const body of [undefined, '{"name":"a"}']) {
    const url = 'http://127.0.0.1:3000/registry/clients?limit=50';
    const { headers } = await signRequestWebCrypto({ method: body ? 'POST' : 'GET', url, body, keyId: 'c_x', privateKey: cryptoKey, created: now, dateField: 'x-date', subtle });
    const withLength = { ...headers, ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}) };
    const verdict = await verifyRequest({ method: body ? 'POST' : 'GET', targetUri: url, headers: withLength }, policy, () => [{ fingerprint: signer.fingerprint, key: signer.publicKey }]);
    expect(verdict).toEqual({
      keyId: 'c_x',
      fingerprint: signer.fingerprint,
      created: now,
      covered: body ? ['"@method"', '"@target-uri"', '"content-digest"', '"x-date"'] : ['"@method"', '"@target-uri"', '"x-date"'],
      contentDigest: headers['content-digest'],
      profile: 'signet',
      coversMethod: true,
      coversPath: true,
    });
  }
});

test("computeContentDigestWebCrypto is the core's Content-Digest", async () => {
  const bodies = ['', 'a', '{"x":1}\n', 'ünïcødé ✓ 𝄞', new Uint8Array([0, 255, 1, 254])];
  for (const body of bodies) expect(await computeContentDigestWebCrypto(body, subtle)).toBe(computeContentDigest(body));
});

test('refuses what the node signer refuses: bad created, bad keyid, a key that cannot sign, an unknown date field, a line break', async () => {
  const pair = (await subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, false, ['sign', 'verify'])) as CryptoKeyPair;
  const base = { method: 'GET', url: 'https://a.example/', keyId: 'c', privateKey: cryptoKey, created: 1, subtle };
  const variants = [
    { ...base, created: 1.5 },
    { ...base, created: -1 },
    { ...base, keyId: '' },
    { ...base, keyId: 'é' },
    { ...base, keyId: 'a b' },
    { ...base, privateKey: pair.publicKey },
    { ...base, dateField: 'x-when' as 'date' },
    { ...base, url: 'https://a.example/\nx' },
  ];
  const codes: string[] = [];
  for (const input of variants) {
    try {
      await signRequestWebCrypto(input);
      codes.push('signed');
    } catch (error) {
      if (!isSignetError(error)) throw error;
      codes.push(error.code);
    }
  }
  expect(codes).toEqual(['invalid_request', 'invalid_request', 'invalid_request', 'invalid_request', 'invalid_request', 'invalid_private_key', 'invalid_request', 'absent_component']);
});

describe('the WebCrypto signer with every key type WebCrypto holds', () => {
  it.each([
    ['ed25519', 'ed25519'],
    ['ecdsa-p256-sha256', 'ecdsa-p256'],
    ['ecdsa-p384-sha384', 'ecdsa-p384'],
  ] as const)('%s: a non-extractable key signs, alg says so, and the node verifier accepts it', async (algorithm, type) => {
    const pair = generateKeyPair(type);
    const key = await subtle.importKey('pkcs8', Buffer.from(pair.pkcs8Base64, 'base64'), WEBCRYPTO_ALGORITHMS[algorithm].importAs, false, ['sign']);
    const { headers } = await signRequestWebCrypto({ method: 'POST', url: 'https://api.example.com/orders', body: '{"a":1}', keyId: 'c_1', privateKey: key, created: 1_800_000_000, dateField: 'x-date', subtle });
    expect(headers['signature-input']).toContain(`alg="${algorithm}"`);
    const verdict = await verifyRequest(
      { method: 'POST', targetUri: 'https://api.example.com/orders', headers: { ...headers, 'content-length': '7' } },
      defaultVerifyPolicy({ nowS: () => 1_800_000_000 }),
      () => [{ fingerprint: pair.fingerprint, key: pair.publicKey, algorithm: pair.algorithm }],
    );
    expect(verdict).toEqual({
      keyId: 'c_1',
      fingerprint: pair.fingerprint,
      created: 1_800_000_000,
      covered: ['"@method"', '"@target-uri"', '"content-digest"', '"x-date"'],
      contentDigest: headers['content-digest'],
      profile: 'signet',
      coversMethod: true,
      coversPath: true,
    });
  });

  it('an RSA-PSS CryptoKey signs rsa-pss-sha512 with a 64-byte salt, which the verifier accepts only for a key registered for it', async () => {
    const key = await subtle.importKey('pkcs8', Buffer.from(signer.pkcs8Base64, 'base64'), WEBCRYPTO_ALGORITHMS['rsa-pss-sha512'].importAs, false, ['sign']);
    const { headers } = await signRequestWebCrypto({ method: 'GET', url: 'https://api.example.com/', keyId: 'c_1', privateKey: key, created: 1_800_000_000, subtle });
    const request = { method: 'GET', targetUri: 'https://api.example.com/', headers: { ...headers } };
    const policy = defaultVerifyPolicy({ nowS: () => 1_800_000_000 });
    await expect(verifyRequest(request, policy, () => [{ fingerprint: signer.fingerprint, key: signer.publicKey, algorithm: 'rsa-pss-sha512' }])).resolves.toEqual({
      keyId: 'c_1',
      fingerprint: signer.fingerprint,
      created: 1_800_000_000,
      covered: ['"@method"', '"@target-uri"', '"date"'],
      profile: 'signet',
      coversMethod: true,
      coversPath: true,
    });
    await expect(verifyRequest(request, policy, () => [{ fingerprint: signer.fingerprint, key: signer.publicKey }])).rejects.toMatchObject({ code: 'algorithm_mismatch' });
  });
});
