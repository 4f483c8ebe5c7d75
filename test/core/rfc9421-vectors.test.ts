/**
 * RFC 9421's own asymmetric vectors (Appendix B.2.1-B.2.4, B.2.6, §3.2 and §4.3's client
 * signature) through the core's verifier, with the RFC test keys imported as the registry imports
 * them, and a policy that requires only what each vector covers. Then the refusals that keep
 * algorithms apart: a signature never verifies under a key of another type or algorithm.
 */
import { createPrivateKey } from 'node:crypto';
import { createSignature, verifySignature } from '../../lambda/core/algorithms';
import { importPrivateKey, importPublicKey } from '../../lambda/core/keys';
import { readSignatureInput, readSignatureValue } from '../../lambda/core/signature-params';
import type { SignedRequest } from '../../lambda/core/types';
import { VerificationKey, VerifyPolicy, defaultVerifyPolicy, verifyRequest } from '../../lambda/core/verify';
import {
  APPENDIX_B24,
  APPENDIX_B26,
  APPENDIX_B2_CASES,
  type AppendixB2Case,
  SECTION_2_5_REQUEST,
  SECTION_4_3_CLIENT_REQUEST,
  TEST_KEY_ECC_P256_PRIVATE_PEM,
  TEST_KEY_ECC_P256_PUBLIC_PEM,
  TEST_KEY_ED25519_PRIVATE_PEM,
  TEST_KEY_ED25519_PUBLIC_PEM,
  TEST_KEY_RSA_PSS_PRIVATE_PEM,
  TEST_KEY_RSA_PSS_PUBLIC_PEM,
  TEST_KEY_RSA_PUBLIC_PEM,
  TEST_REQUEST,
  toSignedRequest,
} from '../fixtures/rfc9421';
import { refusal } from './helpers';

const CREATED = 1618884473;

/** The key as the registry would hold it: imported, judged, with its algorithm. */
function registered(pem: string, algorithm?: string): VerificationKey {
  const info = importPublicKey(pem, algorithm);
  return { fingerprint: info.fingerprint, key: info.key, algorithm: info.algorithm };
}

const PSS = registered(TEST_KEY_RSA_PSS_PUBLIC_PEM, 'rsa-pss-sha512');
const P256 = registered(TEST_KEY_ECC_P256_PUBLIC_PEM);
const ED25519 = registered(TEST_KEY_ED25519_PUBLIC_PEM);

/** A policy that asks for nothing the vector does not cover (its digests are sha-512; it sends no alg). */
function vectorPolicy(label: string, created: number, overrides: Partial<VerifyPolicy> = {}): VerifyPolicy {
  return defaultVerifyPolicy({ label, requiredComponents: [], allowLegacy: true, requireAlg: false, requireKnownDigest: false, nowS: () => created, ...overrides });
}

/** test-request with one vector's signature; `hasBody: false` where the vector does not cover the digest (see below). */
function withSignature(vector: AppendixB2Case, hasBody?: boolean): SignedRequest {
  const req = toSignedRequest(TEST_REQUEST);
  return { ...req, headers: { ...req.headers, 'signature-input': vector.signatureInput, signature: vector.signature }, ...(hasBody === undefined ? {} : { hasBody }) };
}


const coversDigest = (v: AppendixB2Case) => v.signatureInput.includes('"content-digest"');

describe('RFC 9421 Appendix B.2 through verifyRequest', () => {
  it.each(APPENDIX_B2_CASES.map((c) => [c.label, c] as const))('%s (rsa-pss-sha512, test-key-rsa-pss) verifies', async (_label, vector) => {
    // A vector that leaves the digest uncovered is presented as the authorizer sees a request
    // without a body: Signet itself never accepts an uncovered body (asserted in the next test).
    const req = withSignature(vector, coversDigest(vector) ? undefined : false);
    const bases: string[] = [];
    const verdict = await verifyRequest(req, vectorPolicy(vector.label, CREATED, { onBase: (b) => bases.push(b) }), () => [PSS]);
    expect(bases).toEqual([vector.base]);
    expect(verdict).toMatchObject({ keyId: 'test-key-rsa-pss', fingerprint: PSS.fingerprint, created: CREATED });
  });

  it('a vector that leaves the body\'s digest uncovered is refused with the body (digest_required): Signet\'s own rule, not the RFC\'s', async () => {
    const b21 = APPENDIX_B2_CASES.find((c) => c.label === 'sig-b21')!;
    expect((await refusal(verifyRequest(withSignature(b21), vectorPolicy('sig-b21', CREATED), () => [PSS]))).code).toBe('digest_required');
  });

  it('B.2.6 (ed25519, test-key-ed25519) verifies, and re-signing its base gives the RFC\'s bytes (Ed25519 is deterministic)', async () => {
    const bases: string[] = [];
    const verdict = await verifyRequest(withSignature(APPENDIX_B26, false), vectorPolicy('sig-b26', CREATED, { onBase: (b) => bases.push(b) }), () => [ED25519]);
    expect(bases).toEqual([APPENDIX_B26.base]);
    expect(verdict.fingerprint).toBe(ED25519.fingerprint);
    const signed = createSignature('ed25519', Buffer.from(APPENDIX_B26.base), importPrivateKey(TEST_KEY_ED25519_PRIVATE_PEM).key);
    expect(`sig-b26=:${signed.toString('base64')}:`).toBe(APPENDIX_B26.signature);
  });

  it('B.2.4 (ecdsa-p256-sha256, a response): its Signature-Input gives the printed @signature-params, and the signature verifies over the printed base', () => {
    // Signet verifies requests; @status exists only in responses, so the base is the RFC's own.
    const input = readSignatureInput(APPENDIX_B24.signatureInput, 'sig-b24');
    expect(APPENDIX_B24.base.endsWith(`"@signature-params": ${input.signatureParams}`)).toBe(true);
    const signature = readSignatureValue(APPENDIX_B24.signature, 'sig-b24');
    expect(signature).toHaveLength(64);
    expect(verifySignature(P256.algorithm!, Buffer.from(APPENDIX_B24.base), P256.key, signature)).toBe(true);
    expect(verifySignature(P256.algorithm!, Buffer.from(APPENDIX_B24.base.replace('200', '201')), P256.key, signature)).toBe(false);
  });

  it('§4.3 sig1 (ecdsa-p256-sha256, test-key-ecc-p256, no alg) on the client\'s request: refused under rfc9421 (its query is not covered), verified under a policy asking only what it covers', async () => {
    const req = toSignedRequest(SECTION_4_3_CLIENT_REQUEST);
    // The request has a query that sig1 does not cover: the rfc9421 profile refuses that.
    const strict = defaultVerifyPolicy({ profile: 'rfc9421', requireKnownDigest: false, nowS: () => 1618884475 });
    const error = await refusal(verifyRequest(req, strict, () => [P256]));
    expect(error.code).toBe('missing_component');
    expect(error.message).toMatch(/@query/);
    // Without the query (and the policy that asks only what sig1 covers) it verifies.
    await expect(verifyRequest(req, vectorPolicy('sig1', 1618884475), () => [P256])).resolves.toMatchObject({ keyId: 'test-key-ecc-p256' });
  });

  it('§3.2 sig1 (rsa-pss-sha512) verifies with the key registered for rsa-pss-sha512', async () => {
    const req = toSignedRequest(SECTION_2_5_REQUEST);
    await expect(verifyRequest(req, vectorPolicy('sig1', CREATED), () => [PSS])).resolves.toMatchObject({ fingerprint: PSS.fingerprint });
  });
});

describe('no algorithm confusion', () => {
  const b23 = APPENDIX_B2_CASES.find((c) => c.label === 'sig-b23')!;

  it('a PSS signature never verifies with the same RSA key registered for rsa-v1_5-sha256', async () => {
    const v15 = registered(TEST_KEY_RSA_PSS_PUBLIC_PEM);
    expect(v15.algorithm).toBe('rsa-v1_5-sha256');
    expect((await refusal(verifyRequest(withSignature(b23), vectorPolicy('sig-b23', CREATED), () => [v15]))).code).toBe('signature_mismatch');
  });

  it.each([
    ['P-256', P256],
    ['Ed25519', ED25519],
    ['RSA v1.5 (test-key-rsa)', registered(TEST_KEY_RSA_PUBLIC_PEM)],
  ])('a PSS signature is signature_mismatch with a %s key', async (_name, key) => {
    expect((await refusal(verifyRequest(withSignature(b23), vectorPolicy('sig-b23', CREATED), () => [key]))).code).toBe('signature_mismatch');
  });

  it('an Ed25519 signature is signature_mismatch with a P-256 key (both 64 bytes: the key\'s algorithm decides, not the length)', async () => {
    expect((await refusal(verifyRequest(withSignature(APPENDIX_B26, false), vectorPolicy('sig-b26', CREATED), () => [P256]))).code).toBe('signature_mismatch');
  });

  it.each([
    ['ed25519', [PSS]],
    ['rsa-pss-sha512', [ED25519]],
    ['rsa-v1_5-sha256', [PSS]],
    ['ecdsa-p256-sha256', [ED25519]],
  ] as const)('alg="%s" with a client whose key has another algorithm → algorithm_mismatch, naming both', async (alg, keys) => {
    const vector = { ...APPENDIX_B26, signatureInput: `${APPENDIX_B26.signatureInput};alg="${alg}"` };
    const error = await refusal(verifyRequest(withSignature(vector, false), vectorPolicy('sig-b26', CREATED), () => keys));
    expect(error.code).toBe('algorithm_mismatch');
    expect(error.message).toContain(`alg="${alg}"`);
    expect(error.message).toContain(keys[0].algorithm);
  });

  it('a DER-encoded ECDSA signature is refused, saying RFC 9421 wants r‖s', async () => {
    const req = toSignedRequest(SECTION_4_3_CLIENT_REQUEST);
    const raw = readSignatureValue(req.headers.signature, 'sig1');
    const der = p1363ToDer(raw);
    const error = await refusal(verifyRequest({ ...req, headers: { ...req.headers, signature: `sig1=:${der.toString('base64')}:` } }, vectorPolicy('sig1', 1618884475), () => [P256]));
    expect(error.code).toBe('signature_mismatch');
    expect(error.message).toMatch(/DER-encoded.*r‖s/);
  });

  it('createSignature refuses a private key of another type', () => {
    expect(() => createSignature('ed25519', Buffer.from('x'), createPrivateKey(TEST_KEY_ECC_P256_PRIVATE_PEM))).toThrow(/Ed25519/);
    expect(() => createSignature('rsa-pss-sha512', Buffer.from('x'), createPrivateKey(TEST_KEY_ED25519_PRIVATE_PEM))).toThrow(/RSA/);
  });

  it('what Signet signs with each algorithm, its verifier accepts (and the RFC PSS key signs PSS with a 64-byte salt)', () => {
    const data = Buffer.from('"@method": GET');
    const pss = importPrivateKey(TEST_KEY_RSA_PSS_PRIVATE_PEM);
    expect(verifySignature('rsa-pss-sha512', data, PSS.key, createSignature('rsa-pss-sha512', data, pss.key))).toBe(true);
    const p256 = importPrivateKey(TEST_KEY_ECC_P256_PRIVATE_PEM);
    expect(createSignature('ecdsa-p256-sha256', data, p256.key)).toHaveLength(64);
  });
});

/** An ECDSA r‖s signature in DER (SEQUENCE of two INTEGERs), as most libraries return by default. */
function p1363ToDer(raw: Buffer): Buffer {
  const int = (b: Buffer) => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    const v = b[i] & 0x80 ? Buffer.concat([Buffer.from([0]), b.subarray(i)]) : b.subarray(i);
    return Buffer.concat([Buffer.from([0x02, v.length]), v]);
  };
  const body = Buffer.concat([int(raw.subarray(0, raw.length / 2)), int(raw.subarray(raw.length / 2))]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
}
