import * as core from '../../lambda/core';

describe('lambda/core/index.ts (the public surface)', () => {
  it('exports every function and class other parts call', () => {
    const names = [
      'SignetError',
      'fail',
      'isSignetError',
      'BoundedCache',
      'BoundedMemo',
      'computeContentDigest',
      'parseContentDigest',
      'checkContentDigest',
      'checkContentDigestField',
      'formatHttpDate',
      'parseHttpDate',
      'buildSignatureBase',
      'readSignatureInput',
      'readSignatureValue',
      'signRequest',
      'defaultVerifyPolicy',
      'parseRequestSignature',
      'verifyParsedSignature',
      'verifyRequest',
      'verdictOf',
      'PublicKeyCache',
      'fingerprintOf',
      'generateRsaKeyPair',
      'importPrivateKey',
      'importPublicKey',
      'isFingerprint',
      'looksLikePrivateKey',
      'spkiPemOf',
      'compileAllowList',
      'normaliseCallerIp',
      'normaliseNetworkEntry',
      'compileRoleCatalogue',
      'validateRoles',
      'keyAgeDays',
      'isKeyDue',
      'rotationCutoff',
    ];
    for (const name of names) expect(typeof (core as Record<string, unknown>)[name]).toBe('function');
  });

  it('exports the error table and the scheme constants', () => {
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
