/**
 * createSigner: the headers it makes verify with the core verifier, for a key held in memory
 * and for a key read from Secrets Manager (the stand-in, through the real SDK client).
 */
import { computeContentDigest } from '../../lambda/core/content-digest';
import { isSignetError } from '../../lambda/core/errors';
import { PrivateKeyInfo, generateKeyPair } from '../../lambda/core/keys';
import { SignedRequest } from '../../lambda/core/types';
import { defaultVerifyPolicy, verifyRequest } from '../../lambda/core/verify';
import { KEY_RETRY_AFTER_FAILED_READ_MS, createSigner } from '../../lambda/signer/signer';
import { StandInFixture, createKeySecret, putKeySecret, startStandInFixture } from './helpers';
import { nextTestKey } from '../support/test-keys';

const k1 = nextTestKey();
const k2 = nextTestKey();
const NOW_MS = 1_800_000_000_500;
const URL_ = 'https://api.example.com/api/echo?x=1&y=%20z';

let fx: StandInFixture;
beforeAll(async () => {
  fx = await startStandInFixture();
});
afterAll(() => fx.stop());

/** Verifies headers for a request with the core, as the authorizer would, against `keys`. */
function verify(method: string, headers: Record<string, string>, keys: PrivateKeyInfo[], options: { body?: string; legacy?: boolean; algorithm?: 'rsa-pss-sha512' } = {}) {
  const req: SignedRequest = {
    method,
    targetUri: URL_,
    headers: { ...headers, ...(options.body ? { 'content-length': String(Buffer.byteLength(options.body)) } : {}) },
  };
  const policy = defaultVerifyPolicy({ nowS: () => Math.floor(NOW_MS / 1000), allowLegacy: options.legacy ?? false });
  return verifyRequest(req, policy, () => keys.map((k) => ({ fingerprint: k.fingerprint, key: k.publicKey, algorithm: options.algorithm ?? k.algorithm })));
}

describe('createSigner with a key in memory', () => {
  it('signs @method, @target-uri and date with keyid = clientId and created from the clock', async () => {
    const signer = createSigner({ clientId: 'c_partner', privateKey: k1.pkcs8Base64, nowMs: () => NOW_MS });
    const headers = await signer.sign({ method: 'get', url: URL_ });
    expect(Object.keys(headers).sort()).toEqual(['date', 'signature', 'signature-input']);
    expect(headers['signature-input']).toContain('keyid="c_partner"');
    expect(headers['signature-input']).toContain(`created=${Math.floor(NOW_MS / 1000)}`);
    const verdict = await verify('GET', headers, [k1]);
    expect(verdict).toMatchObject({ keyId: 'c_partner', fingerprint: k1.fingerprint });
    expect(await signer.keyFingerprint()).toBe(k1.fingerprint);
  });

  it('adds a Content-Digest for a body, covered by the signature', async () => {
    const signer = createSigner({ clientId: 'c_partner', privateKey: k1.key, nowMs: () => NOW_MS });
    const body = '{"amount":10}';
    const details = await signer.signDetailed({ method: 'POST', url: URL_, body });
    expect(details).toMatchObject({ keyId: 'c_partner', fingerprint: k1.fingerprint });
    expect(details.headers['content-digest']).toBe(computeContentDigest(body));
    const verdict = await verify('POST', details.headers, [k1], { body });
    expect(verdict.contentDigest).toBe(computeContentDigest(body));
  });

  it('signs the legacy form without date when asked', async () => {
    const signer = createSigner({ clientId: 'c_partner', privateKey: k1.pkcs8Base64, legacy: true, nowMs: () => NOW_MS });
    const headers = await signer.sign({ method: 'GET', url: URL_ });
    expect(headers.date).toBeUndefined();
    await expect(verify('GET', headers, [k1], { legacy: true })).resolves.toMatchObject({ fingerprint: k1.fingerprint });
    await expect(verify('GET', headers, [k1])).rejects.toMatchObject({ code: 'missing_component' });
  });

  it('does not verify against another key', async () => {
    const signer = createSigner({ clientId: 'c_partner', privateKey: k1.pkcs8Base64, nowMs: () => NOW_MS });
    await expect(verify('GET', await signer.sign({ method: 'GET', url: URL_ }), [k2])).rejects.toMatchObject({ code: 'signature_mismatch' });
  });

  it.each(['ed25519', 'ecdsa-p256', 'ecdsa-p384'] as const)('signs with a %s key, its one algorithm sent as alg', async (type) => {
    const key = generateKeyPair(type);
    const signer = createSigner({ clientId: 'c_partner', privateKey: key.pkcs8Base64, nowMs: () => NOW_MS });
    const headers = await signer.sign({ method: 'GET', url: URL_ });
    expect(headers['signature-input']).toContain(`alg="${key.algorithm}"`);
    await expect(verify('GET', headers, [key])).resolves.toMatchObject({ fingerprint: key.fingerprint });
  });

  it('signs rsa-pss-sha512 for an RSA key registered for it when told, which a key registered for v1.5 refuses', async () => {
    const signer = createSigner({ clientId: 'c_partner', privateKey: k1.pkcs8Base64, algorithm: 'rsa-pss-sha512', nowMs: () => NOW_MS });
    const headers = await signer.sign({ method: 'GET', url: URL_ });
    expect(headers['signature-input']).toContain('alg="rsa-pss-sha512"');
    await expect(verify('GET', headers, [k1], { algorithm: 'rsa-pss-sha512' })).resolves.toMatchObject({ fingerprint: k1.fingerprint });
    await expect(verify('GET', headers, [k1])).rejects.toMatchObject({ code: 'algorithm_mismatch' });
  });

  it('refuses a public key, a bad clientId, and says so with a stable code', () => {
    const codeOf = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return isSignetError(e) ? e.code : 'not a SignetError';
      }
      return 'no error';
    };
    expect(codeOf(() => createSigner({ clientId: 'c_partner', privateKey: k1.publicKey }))).toBe('invalid_private_key');
    expect(codeOf(() => createSigner({ clientId: 'c partner', privateKey: k1.pkcs8Base64 }))).toBe('invalid_request');
    expect(codeOf(() => createSigner({ clientId: 'c_partner', privateKey: 'not a key' }))).toBe('invalid_private_key');
  });
});

describe('createSigner refresh()', () => {
  it('shares a read within the refresh interval, but not one that failed: a refresh 5 s after it reads again, and none sooner', async () => {
    const key = generateKeyPair('ed25519');
    const signingKey = { clientId: 'c_partner', privateKey: key.key, fingerprint: key.fingerprint };
    const outcomes: Array<'fail' | 'ok'> = ['fail', 'ok', 'ok'];
    let reads = 0;
    const keyProvider = {
      current: async () => signingKey,
      refresh: async () => {
        reads += 1;
        if (outcomes.shift() === 'fail') throw new Error('Secrets Manager unreachable');
        return signingKey;
      },
    };
    let nowMs = 1_800_000_000_000;
    const signer = createSigner({ keyProvider, nowMs: () => nowMs });
    await expect(signer.refresh()).rejects.toThrow('Secrets Manager unreachable');
    nowMs += KEY_RETRY_AFTER_FAILED_READ_MS - 1;
    await signer.refresh(); // refusals during an outage do not each cost a read
    expect(reads).toBe(1);
    nowMs += 1;
    await signer.refresh();
    await signer.refresh();
    expect(reads).toBe(2);
  });
});

describe('createSigner with a secretId', () => {
  it('signs with the AWSCURRENT key from Secrets Manager and picks up a rotated key on refresh()', async () => {
    const secretId = await createKeySecret(fx.sm, 'c_rotating', k1);
    const signer = createSigner({ secretId, secretsManager: fx.sm, maxAgeMs: 3_600_000, nowMs: () => NOW_MS });
    const first = await signer.signDetailed({ method: 'GET', url: URL_ });
    expect(first.fingerprint).toBe(k1.fingerprint);
    await expect(verify('GET', first.headers, [k1])).resolves.toMatchObject({ keyId: 'c_rotating' });

    await putKeySecret(fx.sm, secretId, 'c_rotating', k2);
    expect(await signer.keyFingerprint()).toBe(k1.fingerprint); // cached for maxAgeMs
    await signer.refresh();
    expect(await signer.keyFingerprint()).toBe(k2.fingerprint);
    const second = await signer.sign({ method: 'GET', url: URL_ });
    await expect(verify('GET', second, [k2])).resolves.toMatchObject({ fingerprint: k2.fingerprint });
  });

  it('fails with dependency_unavailable when the secret cannot be read', async () => {
    const signer = createSigner({ secretId: 'signet/missing', secretsManager: fx.sm });
    await expect(signer.sign({ method: 'GET', url: URL_ })).rejects.toMatchObject({ code: 'dependency_unavailable' });
  });
});
