import { createPublicKey, generateKeyPairSync, getDiffieHellman } from 'node:crypto';
import { jwkThumbprint, thumbprintOfKey } from '../../lambda/core/jwk-thumbprint';
import type { JsonWebKey } from '../../lambda/core/keys';
import { KEY_REFUSAL_CODES, KEY_SET_REFUSAL_CODES, KNOWN_TEST_KEY_THUMBPRINTS, type KeySetReading, readPublishedKeySet } from '../../lambda/core/published-key-set';
import { ModulusVerdicts } from '../../lambda/core/rsa-modulus';

/** A 2048-bit prime without generating one: RFC 3526's group 14 modulus, as Node holds it. */
const prime2048 = (): bigint => BigInt(`0x${getDiffieHellman('modp14').getPrime('hex')}`);
import { TEST_KEY_ECC_P256_PUBLIC_PEM, TEST_KEY_ED25519_PUBLIC_PEM, TEST_KEY_RSA_PSS_PUBLIC_PEM, TEST_KEY_RSA_PUBLIC_PEM } from '../fixtures/rfc9421';

const jwkOf = (key: ReturnType<typeof createPublicKey>): JsonWebKey => key.export({ format: 'jwk' }) as JsonWebKey;
const ed25519 = generateKeyPairSync('ed25519');
const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ED = jwkOf(ed25519.publicKey);

/** RFC 8037 §A.2 and RFC 7638 §3.1's example keys, whose private halves are printed beside them. */
const RFC8037_OKP_JWK = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };
const RFC7638_RSA_JWK = {
  kty: 'RSA',
  e: 'AQAB',
  n: '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjB' +
      'ZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8' +
      'KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_' +
      'xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
};

const set = (...keys: unknown[]): string => JSON.stringify({ keys });

/** An odd number of exactly `bits` bits that 3 divides: no RSA modulus, but one the importer must judge to refuse. */
function madeUpModulus(bits: number): Buffer {
  let n = (1n << BigInt(bits - 1)) | 1n;
  while (n % 3n !== 0n) n += 2n;
  return Buffer.from(n.toString(16).padStart(Math.ceil(bits / 4) + (Math.ceil(bits / 4) % 2), '0'), 'hex');
}

function accepted(reading: KeySetReading) {
  if (!reading.ok) throw new Error(`expected a usable set, got ${reading.code}: ${reading.message}`);
  return reading;
}

/** The one refusal a set of [good key, `jwk`] gives `jwk`. */
function refusalOf(jwk: unknown, nowS?: number): { code: string; message: string } {
  const reading = accepted(readPublishedKeySet(set(ED, jwk), nowS === undefined ? {} : { nowS }));
  expect(reading.keys).toHaveLength(1);
  expect(reading.refused).toHaveLength(1);
  expect(reading.refused[0].index).toBe(1);
  return reading.refused[0];
}

describe('readPublishedKeySet: usable keys', () => {
  it('reads a Web Bot Auth key directory: kid = thumbprint, nbf/exp carried as unix seconds', () => {
    const thumbprint = jwkThumbprint(ED);
    const reading = accepted(readPublishedKeySet(set({ ...ED, kid: thumbprint, nbf: 1_743_465_600, exp: 1_893_456_000.5 })));
    expect(reading.refused).toEqual([]);
    expect(reading.keys).toEqual([
      {
        kid: thumbprint,
        thumbprint,
        fingerprint: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        spkiPem: ed25519.publicKey.export({ type: 'spki', format: 'pem' }),
        algorithm: 'ed25519',
        keyType: 'Ed25519',
        notBeforeS: 1_743_465_600,
        expiresS: 1_893_456_000,
      },
    ]);
  });

  it('reads a JWKS of every key type Signet verifies, each bound to its algorithm', () => {
    const reading = accepted(
      readPublishedKeySet(
        set(
          { ...jwkOf(rsa.publicKey), kid: 'rsa', alg: 'RS256', use: 'sig' },
          { ...jwkOf(rsa.publicKey), kid: 'rsa-pss', alg: 'PS512' },
          { ...jwkOf(p256.publicKey), kid: 'p256', key_ops: ['verify'] },
          { ...jwkOf(p384.publicKey), kid: 'p384', alg: 'ES384' },
          { ...ED, kid: 'ed', alg: 'EdDSA' },
        ),
      ),
    );
    // The PS512 entry is the same key as the RS256 one: read once.
    expect(reading.keys.map((key) => [key.kid, key.algorithm, key.keyType])).toEqual([
      ['rsa', 'rsa-v1_5-sha256', 'RSA-2048'],
      ['p256', 'ecdsa-p256-sha256', 'ECDSA P-256'],
      ['p384', 'ecdsa-p384-sha384', 'ECDSA P-384'],
      ['ed', 'ed25519', 'Ed25519'],
    ]);
    expect(reading.refused).toEqual([{ index: 1, kid: 'rsa-pss', code: 'duplicate_key', message: expect.stringContaining('same key') }]);
    expect(reading.keys.map((key) => key.thumbprint)).toEqual([rsa, p256, p384, ed25519].map(({ publicKey }) => thumbprintOfKey(publicKey)));
  });

  it('reads up to 20 keys and refuses a set of 21 whole (too_many_keys)', () => {
    const keys = Array.from({ length: 21 }, () => jwkOf(generateKeyPairSync('ed25519').publicKey));
    expect(accepted(readPublishedKeySet(set(...keys.slice(0, 20)))).keys).toHaveLength(20);
    const refused = readPublishedKeySet(set(...keys));
    expect(refused).toMatchObject({ ok: false, code: 'too_many_keys', message: expect.stringContaining('21') });
    expect(readPublishedKeySet(set(...keys.slice(0, 3)), { maxKeys: 2 })).toMatchObject({ ok: false, code: 'too_many_keys' });
  });

  it('keeps a key whose nbf is still to come, and refuses one whose exp has passed at nowS', () => {
    const nowS = 1_800_000_000;
    expect(accepted(readPublishedKeySet(set({ ...ED, nbf: nowS + 60 }), { nowS })).keys[0].notBeforeS).toBe(nowS + 60);
    expect(refusalOf({ ...jwkOf(p256.publicKey), exp: nowS }, nowS).code).toBe('expired');
    expect(accepted(readPublishedKeySet(set({ ...ED, exp: nowS + 1 }), { nowS })).keys).toHaveLength(1);
  });
});

describe('readPublishedKeySet: keys refused, each with its reason', () => {
  const edPrivate = ed25519.privateKey.export({ format: 'jwk' }) as JsonWebKey;
  const rsaPrivate = rsa.privateKey.export({ format: 'jwk' }) as JsonWebKey;

  it.each(([
    ['a string', 'not a key', 'not_an_object'],
    ['null', null, 'not_an_object'],
    ['an array', [ED], 'not_an_object'],
    ['an oct key', { kty: 'oct', k: 'c2VjcmV0LXNlY3JldC1zZWNyZXQ' }, 'symmetric_key'],
    ['an HMAC alg on a public key', { ...jwkOf(p256.publicKey), alg: 'HS256' }, 'symmetric_key'],
    ['a private Ed25519 JWK (d)', edPrivate, 'private_key_member'],
    ['a private RSA JWK (d, p, q, dp, dq, qi)', rsaPrivate, 'private_key_member'],
    ...(['p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const).map((member): [string, unknown, string] => [`a public RSA JWK with "${member}" added`, { ...jwkOf(rsa.publicKey), [member]: 'AQAB' }, 'private_key_member']),
    ['alg RS512', { ...jwkOf(rsa.publicKey), alg: 'RS512' }, 'unsupported_algorithm'],
    ['alg none', { ...ED, alg: 'none' }, 'unsupported_algorithm'],
    ['alg ES256 on a P-384 key', { ...jwkOf(p384.publicKey), alg: 'ES256' }, 'unsupported_algorithm'],
    ['a P-521 key', jwkOf(generateKeyPairSync('ec', { namedCurve: 'P-521' }).publicKey), 'unsupported_key_type'],
    ['an X25519 (OKP, not for signing) key', jwkOf(generateKeyPairSync('x25519').publicKey), 'unsupported_key_type'],
    ['kty missing', { x: ED.x, crv: 'Ed25519' }, 'unsupported_key_type'],
    ['use "enc"', { ...ED, use: 'enc' }, 'not_for_signatures'],
    ['key_ops without verify', { ...ED, key_ops: ['encrypt'] }, 'not_for_signatures'],
    ['an Ed25519 x of 31 bytes', { ...ED, x: (ED.x as string).slice(0, 41) }, 'invalid_public_key'],
    ['an EC point not on its curve', { ...jwkOf(p256.publicKey), y: jwkOf(p384.publicKey).x }, 'invalid_public_key'],
    ['an RSA n with a leading zero byte (not canonical: another thumbprint)', { ...jwkOf(rsa.publicKey), n: Buffer.concat([Buffer.alloc(1), Buffer.from(jwkOf(rsa.publicKey).n as string, 'base64url')]).toString('base64url') }, 'invalid_public_key'],
    ['the Ed25519 identity point (small order: anyone can sign)', { kty: 'OKP', crv: 'Ed25519', x: Buffer.from('0100000000000000000000000000000000000000000000000000000000000000', 'hex').toString('base64url') }, 'weak_key'],
    ['an RSA key with e = 3', { ...jwkOf(rsa.publicKey), e: 'Aw' }, 'weak_key'],
    ['a 1024-bit RSA key', jwkOf(generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey), 'key_too_small'],
    ['an RSA modulus of 4,097 bits (refused before it is imported or judged)', { kty: 'RSA', e: 'AQAB', n: madeUpModulus(4097).toString('base64url') }, 'key_too_large'],
    ['an RSA modulus of 4,096 bits (past the size rule; this made-up one then has a small factor)', { kty: 'RSA', e: 'AQAB', n: madeUpModulus(4096).toString('base64url') }, 'weak_key'],
    ['a numeric kid', { ...ED, kid: 7 }, 'invalid_kid'],
    ['a kid with a newline (log injection)', { ...ED, kid: 'a\nb' }, 'invalid_kid'],
    ['a string nbf', { ...ED, nbf: '1700000000' }, 'invalid_validity'],
    ['a negative exp', { ...ED, exp: -1 }, 'invalid_validity'],
    ['exp before nbf', { ...ED, nbf: 2_000_000_000, exp: 1_900_000_000 }, 'invalid_validity'],
  ] as [string, unknown, string][]).map(([name, jwk, code]) => ({ name, jwk, code })))('$name → $code', ({ jwk, code }) => {
    expect(refusalOf(jwk).code).toBe(code);
  });

  it('turns a prime modulus away before OpenSSL judges it, and reads its other spellings (leading zero bytes, padding) as the same key', () => {
    const prime = prime2048();
    const n = Buffer.from(prime.toString(16).padStart(512, '0'), 'hex');
    const spelled = (bytes: Buffer, pad = '') => ({ kty: 'RSA', e: 'AQAB', n: `${bytes.toString('base64url')}${pad}` });
    const reading = readPublishedKeySet(set(spelled(n), spelled(Buffer.concat([Buffer.alloc(1), n])), spelled(Buffer.concat([Buffer.alloc(3), n])), ED));
    expect(reading.refused.map(({ index, code, message }) => [index, code, message.includes('is a prime')])).toEqual([
      [0, 'weak_key', true],
      [1, 'duplicate_key', false],
      [2, 'duplicate_key', false],
    ]);
    // Every spelling lists one key, by the thumbprint of its canonical members.
    const canonical = jwkThumbprint(spelled(n) as JsonWebKey);
    expect(accepted(reading).listed).toEqual([canonical, canonical, canonical, jwkThumbprint(ED)]);
  });

  it('keeps every verdict on an RSA modulus in the caller\'s ModulusVerdicts: a set read again judges nothing again', () => {
    const verdicts = new ModulusVerdicts();
    const prime = { kty: 'RSA', e: 'AQAB', n: Buffer.from(prime2048().toString(16).padStart(512, '0'), 'hex').toString('base64url') };
    const body = set(prime, jwkOf(rsa.publicKey), ED);
    const first = readPublishedKeySet(body, { modulusVerdicts: verdicts });
    expect(verdicts.entries).toBe(2);
    const again = readPublishedKeySet(body, { modulusVerdicts: verdicts });
    expect(verdicts.entries).toBe(2);
    expect(again).toEqual(first);
    expect(first.refused.map(({ index, code }) => [index, code])).toEqual([[0, 'weak_key']]);
  });

  it('lists a key of an unreadable spelling as unknown, and leaves out entries no client can hold (oct, other curves)', () => {
    const secp256k1 = jwkOf(generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey);
    const reading = readPublishedKeySet(set({ kty: 'oct', k: 'AAAA' }, secp256k1, { kty: 'EC', crv: 'P-256', x: 'not base64!' }, ED));
    expect(accepted(reading).listed).toEqual([undefined, jwkThumbprint(ED)]);
  });

  it('a copy spelled otherwise (a leading zero byte) listed first is refused alone: the canonical copy after it is used', () => {
    const canonical = jwkOf(rsa.publicKey);
    const padded = { ...canonical, n: Buffer.concat([Buffer.alloc(1), Buffer.from(canonical.n as string, 'base64url')]).toString('base64url') };
    const reading = readPublishedKeySet(set(padded, canonical));
    expect(reading.refused.map(({ index, code }) => [index, code])).toEqual([[0, 'invalid_public_key']]);
    expect(accepted(reading).keys.map((k) => k.thumbprint)).toEqual([jwkThumbprint(canonical)]);
  });

  it('judges a key listed several times once: the copies are duplicate_key before they are imported, even when the first is refused', () => {
    const weak = { kty: 'RSA', e: 'AQAB', n: madeUpModulus(2048).toString('base64url') };
    const reading = readPublishedKeySet(set(weak, { ...weak, kid: 'again' }, weak, ED));
    expect(reading.refused.map(({ index, code }) => [index, code])).toEqual([
      [0, 'weak_key'],
      [1, 'duplicate_key'],
      [2, 'duplicate_key'],
    ]);
    expect(accepted(reading).keys).toHaveLength(1);
  });

  it('names a refused key by its kid only when the kid is a valid string', () => {
    const reading = accepted(readPublishedKeySet(set(ED, { kty: 'oct', k: 'AAAA', kid: 'hmac-1' }, { ...ED, kid: 7 }, { kty: 'oct', k: 'AAAA', kid: 42 })));
    expect(reading.refused.map(({ index, kid }) => [index, kid])).toEqual([[1, 'hmac-1'], [2, undefined], [3, undefined]]);
  });

  it('never echoes private material in the reason', () => {
    const { message } = refusalOf(edPrivate);
    expect(message).not.toContain(edPrivate.d as string);
    expect(message).toContain('"d"');
  });

  it.each([
    ['RFC 9421 §B.1.1 test-key-rsa', jwkOf(createPublicKey(TEST_KEY_RSA_PUBLIC_PEM))],
    ['RFC 9421 §B.1.2 test-key-rsa-pss', { ...jwkOf(createPublicKey(TEST_KEY_RSA_PSS_PUBLIC_PEM)), alg: 'PS512' }],
    ['RFC 9421 §B.1.3 test-key-ecc-p256', jwkOf(createPublicKey(TEST_KEY_ECC_P256_PUBLIC_PEM))],
    ['RFC 9421 §B.1.4 test-key-ed25519', jwkOf(createPublicKey(TEST_KEY_ED25519_PUBLIC_PEM))],
    ['RFC 8037 §A.1 Ed25519 example key', RFC8037_OKP_JWK],
    ['RFC 7517 §A.1 / RFC 7638 §3.1 RSA example key', RFC7638_RSA_JWK],
  ])('refuses the %s (its private key is printed in the RFC) with known_test_key', (name, jwk) => {
    const refusal = refusalOf({ ...jwk, kid: 'test' });
    expect(refusal.code).toBe('known_test_key');
    expect(refusal.message).toContain(name.split(' ').slice(0, 2).join(' '));
  });

  it('the deny list is exactly the thumbprints of those RFC keys, recomputed from their text', () => {
    const recomputed = [TEST_KEY_RSA_PUBLIC_PEM, TEST_KEY_RSA_PSS_PUBLIC_PEM, TEST_KEY_ECC_P256_PUBLIC_PEM, TEST_KEY_ED25519_PUBLIC_PEM]
      .map((pem) => thumbprintOfKey(createPublicKey(pem)))
      .concat([jwkThumbprint(RFC8037_OKP_JWK), jwkThumbprint(RFC7638_RSA_JWK)]);
    expect([...KNOWN_TEST_KEY_THUMBPRINTS.keys()].sort()).toEqual(recomputed.sort());
  });
});

describe('readPublishedKeySet: whole sets refused', () => {
  it.each([
    ['text that is not JSON', '<html>Not Found</html>', 'invalid_json'],
    ['an empty body', '', 'invalid_json'],
    ['a JSON array of keys (not a JWKS)', JSON.stringify([ED]), 'not_a_key_set'],
    ['one bare JWK', JSON.stringify(ED), 'not_a_key_set'],
    ['"keys" that is not an array', JSON.stringify({ keys: ED }), 'not_a_key_set'],
    ['JSON null', 'null', 'not_a_key_set'],
    ['an empty key list', set(), 'no_usable_key'],
  ])('%s → %s', (_name, text, code) => {
    expect(readPublishedKeySet(text)).toMatchObject({ ok: false, code, message: expect.any(String) });
  });

  it('a set whose every key is refused is no_usable_key, naming the reasons and listing each key', () => {
    const reading = readPublishedKeySet(set({ kty: 'oct', k: 'AAAA' }, { ...ED, use: 'enc' }, { ...ED, kid: 'x', alg: 'HS512' }, RFC8037_OKP_JWK));
    if (reading.ok) throw new Error('expected no_usable_key');
    expect(reading.code).toBe('no_usable_key');
    expect(reading.message).toContain('key 0: symmetric_key; key 1: not_for_signatures; key 2: symmetric_key; ...');
    expect(reading.refused.map((key) => key.code)).toEqual(['symmetric_key', 'not_for_signatures', 'symmetric_key', 'known_test_key']);
  });

  it('judges at most four RSA moduli new to it per reading, the rest at later readings, and the keys a client holds whatever their number', () => {
    // Six made-up moduli (3 divides each: refused as weak_key once judged), as a hostile set lists new ones at every fetch.
    const moduli = Array.from({ length: 6 }, (_, i) => {
      let n = (1n << 2047n) | BigInt(2 * i + 1);
      while (n % 3n !== 0n) n += 6n * BigInt(i + 1) + 2n;
      return { kty: 'RSA', e: 'AQAB', n: Buffer.from(n.toString(16), 'hex').toString('base64url') };
    });
    const body = set(...moduli, ED);
    const codes = (reading: KeySetReading) => reading.refused.map((key) => [key.index, key.code]);
    const verdicts = new ModulusVerdicts();
    const first = readPublishedKeySet(body, { modulusVerdicts: verdicts });
    expect(codes(first)).toEqual([[0, 'weak_key'], [1, 'weak_key'], [2, 'weak_key'], [3, 'weak_key'], [4, 'too_many_new_rsa_keys'], [5, 'too_many_new_rsa_keys']]);
    expect(first.refused[4].message).toMatch(/more RSA keys new to this API than it checks in one fetch \(4\); this one is checked at a later fetch/);
    // Listed still (a key refused for now is not withdrawn), and judged at the next reading: the first four are remembered.
    expect(first.ok && first.listed).toHaveLength(7);
    expect(codes(readPublishedKeySet(body, { modulusVerdicts: verdicts }))).toEqual(moduli.map((_, i) => [i, 'weak_key']));
    // After a cold start (no verdicts), keys the client holds are judged whatever their number, and count for nothing.
    const heldThumbprints = new Set(moduli.slice(0, 5).map((jwk) => jwkThumbprint(jwk as JsonWebKey)));
    expect(codes(readPublishedKeySet(body, { heldThumbprints, maxNewRsaModuli: 1 }))).toEqual(moduli.map((_, i) => [i, 'weak_key']));
    expect(codes(readPublishedKeySet(body, { maxNewRsaModuli: 1 })).map(([, code]) => code)).toEqual(['weak_key', ...Array(5).fill('too_many_new_rsa_keys')]);
  });

  it('never throws, whatever the JSON holds', () => {
    for (const text of ['{"keys":[{"kty":"RSA","n":{},"e":[]}]}', '{"keys":[{"kty":"EC","crv":"P-256","x":1}]}', '{"keys":[{"kty":"OKP","crv":"Ed448","x":"AA"}]}', '{"keys":[{"kty":"__proto__"}]}', '{"__proto__":{"keys":[]}}']) {
      expect(readPublishedKeySet(text).ok).toBe(false);
    }
  });

  it('pins the refusal code lists (codes are public: add, never rename)', () => {
    expect(KEY_SET_REFUSAL_CODES).toEqual(['invalid_json', 'not_a_key_set', 'too_many_keys', 'no_usable_key']);
    expect(KEY_REFUSAL_CODES).toEqual([
      'not_an_object', 'symmetric_key', 'private_key_member', 'unsupported_key_type', 'unsupported_algorithm', 'not_for_signatures', 'invalid_public_key',
      'key_too_small', 'weak_key', 'known_test_key', 'invalid_kid', 'invalid_validity', 'expired', 'duplicate_key', 'key_too_large', 'too_many_new_rsa_keys',
    ]);
  });
});
