import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { canonicalJwkThumbprint, jwkThumbprint, thumbprintOfKey } from '../../lambda/core/jwk-thumbprint';
import { type JsonWebKey, importPublicKey } from '../../lambda/core/keys';
import { TEST_KEY_ECC_P256_PUBLIC_PEM, TEST_KEY_ED25519_PUBLIC_PEM, TEST_KEY_RSA_PSS_PRIVATE_PEM, TEST_KEY_RSA_PSS_PUBLIC_PEM, TEST_KEY_RSA_PUBLIC_PEM } from '../fixtures/rfc9421';
import { errorOf } from './helpers';

/** RFC 7638 §3.1: the example RSA key (RFC 7517 Appendix A.1) and its thumbprint. */
const RFC7638_RSA_JWK = {
  kty: 'RSA',
  n: '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjB' +
      'ZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8' +
      'KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_' +
      'xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw',
  e: 'AQAB',
  alg: 'RS256',
  kid: '2011-04-29',
};
const RFC7638_THUMBPRINT = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';

/** RFC 8037 §A.3: the Ed25519 public key of §A.2 and its thumbprint. */
const RFC8037_OKP_JWK = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };
const RFC8037_THUMBPRINT = 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k';

/** The keyid the Web Bot Auth drafts' examples give RFC 9421's test-key-ed25519. */
const WEB_BOT_AUTH_EXAMPLE_KEYID = 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U';

describe('jwkThumbprint (RFC 7638, RFC 8037)', () => {
  it('gives RFC 7638 §3.1 thumbprint for its RSA example, ignoring alg and kid', () => {
    expect(jwkThumbprint(RFC7638_RSA_JWK)).toBe(RFC7638_THUMBPRINT);
  });

  it('gives the RFC 8037 §A.3 thumbprint for its Ed25519 example', () => {
    expect(jwkThumbprint(RFC8037_OKP_JWK)).toBe(RFC8037_THUMBPRINT);
  });

  it('does not depend on member order or on optional members', () => {
    const reordered = { x: RFC8037_OKP_JWK.x, use: 'sig', crv: 'Ed25519', kid: 'anything', kty: 'OKP' };
    expect(jwkThumbprint(reordered)).toBe(RFC8037_THUMBPRINT);
  });

  it('changes when any required member changes', () => {
    expect(jwkThumbprint({ ...RFC7638_RSA_JWK, e: 'AQAC' })).not.toBe(RFC7638_THUMBPRINT);
    expect(jwkThumbprint({ ...RFC8037_OKP_JWK, crv: 'Ed448' })).not.toBe(RFC8037_THUMBPRINT);
  });

  it.each([
    ['an oct key', { kty: 'oct', k: 'c2VjcmV0' }, 'unsupported_key_type'],
    ['no kty', { n: 'AQAB', e: 'AQAB' }, 'unsupported_key_type'],
    ['a kty inherited from Object.prototype', { kty: 'toString' }, 'unsupported_key_type'],
    ['an RSA key without n', { kty: 'RSA', e: 'AQAB' }, 'invalid_public_key'],
    ['an EC key without y', { kty: 'EC', crv: 'P-256', x: 'AAAA' }, 'invalid_public_key'],
    ['a number where base64url belongs', { kty: 'OKP', crv: 'Ed25519', x: 12 }, 'invalid_public_key'],
    ['standard base64 (with +/=) instead of base64url', { kty: 'OKP', crv: 'Ed25519', x: 'ab+/cd==' }, 'invalid_public_key'],
  ])('refuses %s with %s', (_name, jwk, code) => {
    expect(errorOf(() => jwkThumbprint(jwk)).code).toBe(code);
  });
});

describe('canonicalJwkThumbprint (one key, however its members are spelled)', () => {
  it('reads leading zero bytes, padding, the standard alphabet and short EC coordinates as the canonical key', () => {
    const rsa = createPublicKey(TEST_KEY_RSA_PUBLIC_PEM).export({ format: 'jwk' }) as JsonWebKey;
    const ec = createPublicKey(TEST_KEY_ECC_P256_PUBLIC_PEM).export({ format: 'jwk' }) as JsonWebKey;
    const n = Buffer.from(rsa.n as string, 'base64url');
    const x = Buffer.from(ec.x as string, 'base64url');
    expect(canonicalJwkThumbprint(rsa)).toBe(jwkThumbprint(rsa));
    expect(canonicalJwkThumbprint({ ...rsa, n: Buffer.concat([Buffer.alloc(2), n]).toString('base64') })).toBe(jwkThumbprint(rsa));
    // A coordinate whose first byte is zero, written without it, is padded back to the curve's 32 bytes.
    const shortX = Buffer.concat([Buffer.alloc(1), x.subarray(1)]);
    const ecShort = { ...ec, x: shortX.toString('base64url') };
    expect(canonicalJwkThumbprint({ ...ecShort, x: shortX.subarray(1).toString('base64url') })).toBe(jwkThumbprint(ecShort));
    expect([canonicalJwkThumbprint({ kty: 'EC', crv: 'P-256', x: 'not base64!', y: ec.y }), canonicalJwkThumbprint({ kty: 'RSA', e: 'AQAB' })]).toEqual([undefined, undefined]);
  });
});

describe('thumbprintOfKey (a key as Signet stores it)', () => {
  it('gives the RFC 7638 and RFC 8037 thumbprints for the examples imported as keys', () => {
    expect(thumbprintOfKey(createPublicKey({ key: RFC7638_RSA_JWK, format: 'jwk' }))).toBe(RFC7638_THUMBPRINT);
    expect(thumbprintOfKey(createPublicKey({ key: RFC8037_OKP_JWK, format: 'jwk' }))).toBe(RFC8037_THUMBPRINT);
  });

  it("gives RFC 9421's test-key-ed25519, stored as SPKI PEM, the keyid the Web Bot Auth drafts use for it", () => {
    expect(thumbprintOfKey(importPublicKey(TEST_KEY_ED25519_PUBLIC_PEM).key)).toBe(WEB_BOT_AUTH_EXAMPLE_KEYID);
  });

  it('agrees with jwkThumbprint of the JWK the publisher would publish, for RSA, EC P-256, P-384 and Ed25519', () => {
    const keys = [
      importPublicKey(TEST_KEY_RSA_PUBLIC_PEM).key,
      importPublicKey(TEST_KEY_ECC_P256_PUBLIC_PEM).key,
      generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey,
      generateKeyPairSync('ed25519').publicKey,
    ];
    for (const key of keys) {
      const jwk = key.export({ format: 'jwk' });
      expect(thumbprintOfKey(key)).toBe(jwkThumbprint(jwk));
      expect(thumbprintOfKey(key)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
  });

  it('gives an RSA key one thumbprint whether its SPKI names rsaEncryption or id-RSASSA-PSS, and a private key its public half', () => {
    const plain = thumbprintOfKey(importPublicKey(TEST_KEY_RSA_PSS_PUBLIC_PEM).key);
    const pssOid = createPublicKey(TEST_KEY_RSA_PSS_PRIVATE_PEM);
    expect(pssOid.asymmetricKeyType).toBe('rsa-pss');
    expect(thumbprintOfKey(pssOid)).toBe(plain);
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    expect(thumbprintOfKey(privateKey)).toBe(thumbprintOfKey(publicKey));
  });

  it('refuses a key type Signet does not verify with unsupported_key_type', () => {
    expect(errorOf(() => thumbprintOfKey(generateKeyPairSync('x25519').publicKey)).code).toBe('unsupported_key_type');
  });
});
