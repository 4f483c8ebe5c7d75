import { constants, createPrivateKey, createPublicKey, generateKeyPairSync, verify as cryptoVerify } from 'node:crypto';
import fc from 'fast-check';
import { httpbis, createSigner, createVerifier } from 'http-message-signatures';
import { checkContentDigest } from '../../lambda/core/content-digest';
import { signRequest } from '../../lambda/core/sign';
import { importPublicKey } from '../../lambda/core/keys';
import { defaultVerifyPolicy, verifyRequest } from '../../lambda/core/verify';
import { TEST_KEY_ECC_P256_PRIVATE_PEM, TEST_KEY_RSA_PRIVATE_PEM, TEST_KEY_RSA_PUBLIC_PEM } from '../fixtures/rfc9421';
import { NOW_S, TestKeys, errorOf, imfDate, independentBase, policyAt, rsaKeys, sha256B64, verificationKey } from './helpers';

// RSA key generation is slow: three keys for the whole file.
const KEYS: TestKeys[] = [rsaKeys(), rsaKeys(), rsaKeys()];
const alice = KEYS[0];

const rfcPrivate = createPrivateKey(TEST_KEY_RSA_PRIVATE_PEM);
const rfcPublic = createPublicKey(TEST_KEY_RSA_PUBLIC_PEM);

describe('signRequest: what it writes', () => {
  it('a GET: covers @method, @target-uri, date; no Content-Digest; the profile parameters in order', () => {
    const { headers, base } = signRequest({ method: 'GET', url: 'https://api.example.com/orders?id=7', keyId: 'client-1', privateKey: alice.privateKey, created: NOW_S });
    expect(Object.keys(headers).sort()).toEqual(['date', 'signature', 'signature-input']);
    expect(headers.date).toBe('Tue, 14 Nov 2023 22:13:20 GMT');
    expect(headers['signature-input']).toBe(`sig=("@method" "@target-uri" "date");created=${NOW_S};keyid="client-1";alg="rsa-v1_5-sha256"`);
    expect(headers.signature).toMatch(/^sig=:[A-Za-z0-9+/]{342}==:$/);
    expect(base).toBe(
      [
        '"@method": GET',
        '"@target-uri": https://api.example.com/orders?id=7',
        '"date": Tue, 14 Nov 2023 22:13:20 GMT',
        `"@signature-params": ("@method" "@target-uri" "date");created=${NOW_S};keyid="client-1";alg="rsa-v1_5-sha256"`,
      ].join('\n'),
    );
  });

  it('a POST with a body: adds content-digest (sha-256 of the exact bytes) before date', () => {
    const body = '{"hello": "world"}';
    const { headers } = signRequest({ method: 'POST', url: 'https://api.example.com/orders', body, keyId: 'client-1', privateKey: alice.privateKey, created: NOW_S });
    expect(headers['content-digest']).toBe('sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:');
    expect(headers['signature-input']).toBe(`sig=("@method" "@target-uri" "content-digest" "date");created=${NOW_S};keyid="client-1";alg="rsa-v1_5-sha256"`);
  });

  it('an empty body (string or bytes) is treated as none', () => {
    for (const body of ['', new Uint8Array(0)]) {
      const { headers } = signRequest({ method: 'POST', url: 'https://a.example/x', body, keyId: 'c', privateKey: alice.privateKey, created: NOW_S });
      expect(headers['content-digest']).toBeUndefined();
      expect(headers['signature-input']).toContain('("@method" "@target-uri" "date")');
    }
  });

  it('legacy: no date component and no Date header', () => {
    const { headers } = signRequest({ method: 'GET', url: 'https://a.example/x', keyId: 'c', privateKey: alice.privateKey, created: NOW_S, legacy: true });
    expect(headers.date).toBeUndefined();
    expect(headers['signature-input']).toBe(`sig=("@method" "@target-uri");created=${NOW_S};keyid="c";alg="rsa-v1_5-sha256"`);
  });

  it('upper-cases the method in the base', () => {
    const { base } = signRequest({ method: 'patch', url: 'https://a.example/x', keyId: 'c', privateKey: alice.privateKey, created: NOW_S });
    expect(base.startsWith('"@method": PATCH\n')).toBe(true);
  });

  it('signs the base an independent builder makes, with RSASSA-PKCS1-v1_5 SHA-256 (checked with node:crypto)', () => {
    const body = 'a=1&b=2';
    const url = 'https://api.example.com/p?x=%20y&z=ü';
    const { headers, base } = signRequest({ method: 'PUT', url, body, keyId: 'client-1', privateKey: alice.privateKey, created: NOW_S });
    const params = headers['signature-input'].slice('sig='.length);
    const expected = independentBase({ method: 'PUT', targetUri: url, headers: { 'content-digest': `sha-256=:${sha256B64(body)}:`, date: imfDate(NOW_S) } }, ['@method', '@target-uri', 'content-digest', 'date'], params);
    expect(base).toBe(expected);
    const signature = Buffer.from(headers.signature.slice(5, -1), 'base64');
    expect(cryptoVerify('sha256', Buffer.from(expected), { key: alice.publicKey, padding: constants.RSA_PKCS1_PADDING }, signature)).toBe(true);
  });

  it('is deterministic (PKCS#1 v1.5): the RFC test-key-rsa gives the same signature twice, verifiable with the RFC public key', () => {
    const input = { method: 'GET', url: 'https://example.com/foo?param=Value&Pet=dog', keyId: 'test-key-rsa', privateKey: rfcPrivate, created: 1618884480 };
    const first = signRequest(input);
    expect(signRequest(input).headers.signature).toBe(first.headers.signature);
    const signature = Buffer.from(first.headers.signature.slice(5, -1), 'base64');
    expect(cryptoVerify('sha256', Buffer.from(first.base), { key: rfcPublic, padding: constants.RSA_PKCS1_PADDING }, signature)).toBe(true);
  });
});

describe('signRequest: refusals', () => {
  const base = { method: 'GET', url: 'https://a.example/x', keyId: 'c', privateKey: alice.privateKey, created: NOW_S };

  it.each([1.5, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])('refuses created=%s with invalid_request', (created) => {
    expect(errorOf(() => signRequest({ ...base, created })).code).toBe('invalid_request');
  });

  it.each(['', 'k'.repeat(257), 'tab\there', 'nl\n', 'é'])('refuses keyId %j with invalid_request', (keyId) => {
    expect(errorOf(() => signRequest({ ...base, keyId })).code).toBe('invalid_request');
  });

  it('refuses a public key with invalid_private_key, a key no algorithm fits with unsupported_key_type, and an algorithm of another key type', () => {
    expect(errorOf(() => signRequest({ ...base, privateKey: alice.publicKey })).code).toBe('invalid_private_key');
    expect(errorOf(() => signRequest({ ...base, privateKey: generateKeyPairSync('ed448').privateKey })).code).toBe('unsupported_key_type');
    expect(errorOf(() => signRequest({ ...base, privateKey: createPrivateKey(TEST_KEY_ECC_P256_PRIVATE_PEM), algorithm: 'ed25519' })).code).toBe('unsupported_key_type');
  });

  it.each([
    ['ecdsa-p256-sha256', () => createPrivateKey(TEST_KEY_ECC_P256_PRIVATE_PEM), undefined],
    ['ed25519', () => generateKeyPairSync('ed25519').privateKey, undefined],
    ['ecdsa-p384-sha384', () => generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey, undefined],
    ['rsa-pss-sha512', () => alice.privateKey, 'rsa-pss-sha512' as const],
  ])('signs with %s, sends it as alg, and the verifier accepts it with the key registered for it', async (alg, privateKeyOf, declared) => {
    const privateKey = privateKeyOf();
    const { headers } = signRequest({ ...base, privateKey, algorithm: declared });
    expect(headers['signature-input']).toContain(`alg="${alg}"`);
    const info = importPublicKey(createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }) as string, declared);
    const request = { method: base.method, targetUri: base.url, headers: { ...headers } };
    await expect(verifyRequest(request, defaultVerifyPolicy({ nowS: () => base.created }), () => [{ fingerprint: info.fingerprint, key: info.key, algorithm: info.algorithm }])).resolves.toMatchObject({ fingerprint: info.fingerprint });
  });

  it('error messages never contain key material', () => {
    const error = errorOf(() => signRequest({ ...base, privateKey: alice.publicKey }));
    expect(error.message).not.toMatch(/BEGIN|MII/);
  });
});

// --- Property tests: sign → verify round trips -------------------------------------------------

const methodArb = fc.oneof(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'), fc.stringMatching(/^[a-zA-Z]{1,12}$/));

/** A path or query piece: either percent-encoded (as a careful client sends it) or raw unicode. */
const pieceArb = fc.tuple(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.boolean()).map(([text, encode]) =>
  encode ? encodeURIComponent(text) : text.replace(/[\u0000-\u0020\u007f-\u009f#?/&=%\u2028\u2029]/g, ''),
);

const urlArb = fc
  .record({
    scheme: fc.constantFrom('https', 'http'),
    host: fc.domain(),
    port: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
    segments: fc.array(pieceArb, { maxLength: 4 }),
    query: fc.option(fc.array(fc.tuple(pieceArb, pieceArb), { maxLength: 4 }), { nil: undefined }),
  })
  .map(({ scheme, host, port, segments, query }) => {
    const authority = port === undefined ? host : `${host}:${port}`;
    const q = query === undefined ? '' : `?${query.map(([k, v]) => `${k}=${v}`).join('&')}`;
    return `${scheme}://${authority}/${segments.join('/')}${q}`;
  });

const bodyArb = fc.oneof(
  fc.constant(undefined),
  fc.constant(''),
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.uint8Array({ maxLength: 300 }),
);

function bodyLength(body: string | Uint8Array | undefined): number {
  if (body === undefined) return 0;
  return typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
}

describe('sign → verify round trips (property)', () => {
  it('verifies for random methods, URLs (queries, unicode, percent-encoding), bodies (text and binary) and keys', async () => {
    await fc.assert(
      fc.asyncProperty(methodArb, urlArb, bodyArb, fc.constantFrom(...KEYS), fc.integer({ min: -30, max: 300 }), async (method, url, body, keys, age) => {
        const created = NOW_S - age;
        const { headers } = signRequest({ method, url, body, keyId: 'client-1', privateKey: keys.privateKey, created });
        const length = bodyLength(body);
        const req = {
          method: method.toUpperCase(),
          targetUri: url,
          headers: { ...headers, ...(length > 0 ? { 'content-length': String(length) } : {}) } as Record<string, string>,
        };
        const verdict = await verifyRequest(req, policyAt(NOW_S), () => KEYS.map((k) => verificationKey(k)));
        expect(verdict.fingerprint).toBe(keys.fingerprint);
        expect(verdict.keyId).toBe('client-1');
        expect(verdict.created).toBe(created);
        // The backend half: the body as received matches the signed digest.
        expect(() => checkContentDigest(verdict.contentDigest, body ?? '')).not.toThrow();
      }),
      { numRuns: 60 },
    );
  });

  it('verifies the legacy form when the policy allows it (property)', async () => {
    await fc.assert(
      fc.asyncProperty(methodArb, urlArb, bodyArb, async (method, url, body) => {
        const { headers } = signRequest({ method, url, body, keyId: 'legacy-client', privateKey: alice.privateKey, created: NOW_S, legacy: true });
        const length = bodyLength(body);
        const req = { method: method.toUpperCase(), targetUri: url, headers: { ...headers, 'content-length': String(length) } as Record<string, string> };
        const verdict = await verifyRequest(req, policyAt(NOW_S, { allowLegacy: true }), () => [verificationKey(alice)]);
        expect(verdict.covered).not.toContain('"date"');
      }),
      { numRuns: 25 },
    );
  });
});

describe('interoperability with the http-message-signatures package', () => {
  const body = '{"amount": 10}';
  const url = 'https://api.example.com/payments?currency=EUR';

  it('a request it signs (our profile) verifies with Signet', async () => {
    const request = {
      method: 'POST',
      url,
      headers: { date: imfDate(NOW_S), 'content-digest': `sha-256=:${sha256B64(body)}:`, 'content-length': String(body.length) } as Record<string, string>,
    };
    const signed = await httpbis.signMessage(
      {
        key: createSigner(alice.privateKey, 'rsa-v1_5-sha256', 'client-1'),
        fields: ['@method', '@target-uri', 'content-digest', 'date'],
        params: ['created', 'keyid', 'alg'],
        paramValues: { created: new Date(NOW_S * 1000) },
      },
      request,
    );
    const headers = Object.fromEntries(Object.entries(signed.headers).map(([k, v]) => [k.toLowerCase(), String(v)]));
    const verdict = await verifyRequest({ method: 'POST', targetUri: url, headers }, policyAt(NOW_S), () => [verificationKey(alice)]);
    expect(verdict).toEqual({
      keyId: 'client-1',
      fingerprint: alice.fingerprint,
      created: NOW_S,
      covered: ['"@method"', '"@target-uri"', '"content-digest"', '"date"'],
      contentDigest: `sha-256=:${sha256B64(body)}:`,
      profile: 'signet',
      coversMethod: true,
      coversPath: true,
    });
  });

  it('a request Signet signs verifies with it', async () => {
    const { headers } = signRequest({ method: 'POST', url, body, keyId: 'client-1', privateKey: alice.privateKey, created: NOW_S });
    const request = { method: 'POST', url, headers: { ...headers } as Record<string, string> };
    const ok = await httpbis.verifyMessage(
      { keyLookup: async () => ({ id: 'client-1', algs: ['rsa-v1_5-sha256'], verify: createVerifier(alice.publicKey, 'rsa-v1_5-sha256') }) },
      request,
    );
    expect(ok).toBe(true);
  });
});
