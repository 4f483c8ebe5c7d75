import * as core from '../../lambda/core';
import * as defaults from '../../lambda/core/defaults';
import * as errors from '../../lambda/core/errors';

/**
 * The names the barrel picks one by one from the core's modules (the error table and every named
 * default come whole, from errors.ts and defaults.ts). Adding or dropping one is a change of the public
 * surface: make it here too, on purpose.
 */
const NAMED_EXPORTS = [
  'BoundedCache',
  'BoundedMemo',
  'PublicKeyCache',
  'SignatureSet',
  'Verifier',
  'admitsEveryone',
  'buildSignatureBase',
  'checkContentDigest',
  'checkContentDigestField',
  'compileAllowList',
  'compileRoleCatalogue',
  'computeContentDigest',
  'createVerifier',
  'defaultVerifyPolicy',
  'fingerprintOf',
  'formatHttpDate',
  'generateRsaKeyPair',
  'holdsPrivateKeyMaterial',
  'importPrivateKey',
  'importPublicKey',
  'isFingerprint',
  'isKeyDue',
  'keyAgeDays',
  'looksLikePrivateKey',
  'normaliseCallerIp',
  'normaliseNetworkEntry',
  'parseContentDigest',
  'parseHttpDate',
  'parseRequestSignature',
  'readSignatureInput',
  'readSignatureValue',
  'rotationCutoff',
  'scanForPrivateKey',
  'signRequest',
  'spkiPemOf',
  'validateRoles',
  'verdictOf',
  'verifyParsedSignature',
  'verifyRequest',
  'EVERYONE',
];

describe('lambda/core/index.ts (the public surface)', () => {
  it('exports exactly the picked names, the error table and every default, nothing internal', () => {
    const expected = new Set([...NAMED_EXPORTS, ...Object.keys(errors), ...Object.keys(defaults)]);
    expect(Object.keys(core).sort()).toEqual([...expected].sort());
  });

  it('signs and verifies a request with nothing but the barrel, and refuses it tampered with a stable code', async () => {
    const created = 1_700_000_000;
    const signer = core.generateRsaKeyPair(core.MIN_RSA_BITS);
    const body = '{"amount":10}';
    const url = 'https://api.example.com/orders';
    const { headers } = core.signRequest({ method: 'POST', url, body, keyId: 'client-1', privateKey: signer.key, created });
    const request = { method: 'POST', targetUri: url, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } };
    const policy = core.defaultVerifyPolicy({ nowS: () => created });
    const keys = () => [{ fingerprint: core.fingerprintOf(signer.publicKey), key: signer.publicKey }];

    const verdict = await core.verifyRequest(request, policy, keys);
    expect(verdict).toEqual({
      keyId: 'client-1',
      fingerprint: signer.fingerprint,
      created,
      covered: ['"@method"', '"@target-uri"', '"content-digest"', '"date"'],
      contentDigest: core.computeContentDigest(body),
      profile: 'signet',
      coversMethod: true,
      coversPath: true,
    });
    expect(() => core.checkContentDigest(verdict.contentDigest, body)).not.toThrow();

    const refusal = await core.verifyRequest({ ...request, targetUri: `${url}?amount=1000` }, policy, keys).catch((error: unknown) => error);
    expect(core.isSignetError(refusal)).toBe(true);
    expect(refusal).toMatchObject({ code: 'signature_mismatch', status: core.ERROR_CODES.signature_mismatch });
  });

  it('builds a verifier once and verifies with it: the same verdict, and a replayed request refused by its guard', async () => {
    const created = 1_700_000_000;
    const signer = core.generateRsaKeyPair(core.MIN_RSA_BITS);
    const url = 'https://api.example.com/orders';
    const { headers } = core.signRequest({ method: 'GET', url, keyId: 'client-1', privateKey: signer.key, created });
    const request = { method: 'GET', targetUri: url, headers: { ...headers } };
    const claimed = new Set<string>();
    const verifier = core.createVerifier({
      policy: core.defaultVerifyPolicy({ nowS: () => created }),
      resolveKeys: () => [{ fingerprint: signer.fingerprint, key: signer.publicKey }],
      replay: { claim: async (claims) => claims.every((c) => !claimed.has(c.signatureId)) && (claims.forEach((c) => claimed.add(c.signatureId)), true) },
    });

    await expect(verifier.verify(request)).resolves.toEqual({
      keyId: 'client-1',
      fingerprint: signer.fingerprint,
      created,
      covered: ['"@method"', '"@target-uri"', '"date"'],
      contentDigest: undefined,
      profile: 'signet',
      coversMethod: true,
      coversPath: true,
    });
    await expect(verifier.verify(request)).rejects.toMatchObject({ code: 'replayed_request' });
  });

  it('exports the scheme constants partners sign with', () => {
    expect(core.ERROR_CODES.signature_mismatch).toBe(401);
    expect(core.SIGNATURE_LABEL).toBe('sig');
    expect(core.SIGNATURE_ALGORITHM).toBe('rsa-v1_5-sha256');
    expect(core.DIGEST_ALGORITHM).toBe('sha-256');
    expect(core.DEFAULT_MAX_AGE_S).toBe(300);
    expect(core.DEFAULT_MAX_SKEW_S).toBe(30);
    expect(core.MIN_RSA_BITS).toBe(2048);
    expect(core.DEFAULT_ALLOW_LEGACY).toBe(false);
    expect(core.EVERYONE).toBe('0.0.0.0');
  });
});
