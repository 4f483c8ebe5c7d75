/**
 * Interoperability: requests signed by another RFC 9421 implementation, the npm package
 * `http-message-signatures` (v1.0.6), verified by Signet's core, for every asymmetric algorithm.
 * The package builds the signature base and writes Signature-Input / Signature; Signet has no say
 * in either, so a difference in base construction, parameter serialization or signature encoding
 * shows here.
 *
 * One finding, documented rather than worked around: the package's `createSigner(key,
 * 'rsa-pss-sha512')` signs with node's default PSS salt (the maximum, 190 bytes for RSA-2048),
 * not RFC 9421 §3.3.1's 64 bytes, and Signet (which verifies with a 64-byte salt) refuses those
 * signatures. The package's base and headers are fine: given a SigningKey that signs with a 64-byte
 * salt, its PSS requests verify.
 */
import { KeyObject, constants, createHash, generateKeyPairSync, sign as nodeSign, verify as nodeVerify } from 'node:crypto';
import { type SigningKey, createSigner, httpbis } from 'http-message-signatures';
import { type SignatureAlgorithm } from '../../lambda/core/algorithms';
import { importPublicKey } from '../../lambda/core/keys';
import { type SignedRequest } from '../../lambda/core/types';
import { type VerificationKey, type VerifyPolicy, defaultVerifyPolicy, verifyRequest } from '../../lambda/core/verify';
import { NOW_S, codeOf, imfDate } from './helpers';

interface Client {
  readonly algorithm: SignatureAlgorithm;
  readonly privateKey: KeyObject;
  /** As the registry would hold it: imported from the SPKI PEM, for the declared algorithm. */
  readonly registered: VerificationKey;
}

function client(algorithm: SignatureAlgorithm): Client {
  const { privateKey, publicKey } =
    algorithm === 'ed25519'
      ? generateKeyPairSync('ed25519')
      : algorithm === 'ecdsa-p256-sha256' || algorithm === 'ecdsa-p384-sha384'
        ? generateKeyPairSync('ec', { namedCurve: algorithm === 'ecdsa-p256-sha256' ? 'P-256' : 'P-384' })
        : generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
  const pem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
  const { key, fingerprint, algorithm: registeredAs } = importPublicKey(pem, algorithm === 'rsa-pss-sha512' ? 'rsa-pss-sha512' : undefined);
  expect(registeredAs).toBe(algorithm);
  return { algorithm, privateKey, registered: { fingerprint, key, algorithm: registeredAs } };
}

const ALGORITHMS: readonly SignatureAlgorithm[] = ['rsa-v1_5-sha256', 'rsa-pss-sha512', 'ecdsa-p256-sha256', 'ecdsa-p384-sha384', 'ed25519'];
// RSA key generation is slow: one key per algorithm for the whole file.
const CLIENTS = new Map(ALGORITHMS.map((a) => [a, client(a)]));
const clientOf = (a: SignatureAlgorithm): Client => CLIENTS.get(a) as Client;

/**
 * The package's signer for `algorithm`, except rsa-pss-sha512: there a SigningKey whose sign()
 * uses RFC 9421's 64-byte salt (the package's own uses the maximum; see the file comment), so
 * the base and headers are still all the package's.
 */
function conformingSigner(c: Client, keyId: string): SigningKey {
  if (c.algorithm !== 'rsa-pss-sha512') return createSigner(c.privateKey, c.algorithm, keyId);
  return {
    id: keyId,
    alg: 'rsa-pss-sha512',
    sign: async (data: Buffer) => nodeSign('sha512', data, { key: c.privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 }),
  };
}

const rfc9421 = defaultVerifyPolicy({ profile: 'rfc9421', nowS: () => NOW_S });
const signet = defaultVerifyPolicy({ profile: 'signet', nowS: () => NOW_S });

const GET_URL = 'https://api.example.com/orders/7?expand=items&lang=en';
const POST_URL = 'https://api.example.com/orders';

interface PackageSignature {
  readonly key: SigningKey;
  readonly fields: string[];
  readonly params: string[];
  readonly label?: string;
}

/** Signs with the package and returns the request as Signet's adapters would hand it over. */
async function packageSigned(method: string, url: string, headers: Record<string, string>, sig: PackageSignature, hasBody?: boolean): Promise<SignedRequest> {
  const signed = await httpbis.signMessage(
    { key: sig.key, name: sig.label, fields: sig.fields, params: sig.params, paramValues: { created: new Date(NOW_S * 1000) } },
    { method, url, headers },
  );
  const lower = Object.fromEntries(Object.entries(signed.headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(', ') : v]));
  return hasBody === undefined ? { method, targetUri: url, headers: lower } : { method, targetUri: url, headers: lower, hasBody };
}

function verify(req: SignedRequest, policy: VerifyPolicy, keys: readonly VerificationKey[]): ReturnType<typeof verifyRequest> {
  return verifyRequest(req, policy, () => keys);
}

/** The raw signature bytes of `label` in a Signature header. */
function signatureBytes(req: SignedRequest, label: string): Buffer {
  const match = new RegExp(`^${label}=:([A-Za-z0-9+/=]*):$`).exec(req.headers.signature ?? '');
  if (match === null) throw new Error(`test setup: no ${label} signature in ${String(req.headers.signature)}`);
  return Buffer.from(match[1], 'base64');
}

/** The request with its `label` signature replaced by `bytes`. */
function withSignature(req: SignedRequest, label: string, bytes: Buffer): SignedRequest {
  return { ...req, headers: { ...req.headers, signature: `${label}=:${bytes.toString('base64')}:` } };
}

/** ASN.1 DER ECDSA-Sig-Value (SEQUENCE of INTEGER r, INTEGER s) of a raw r‖s signature. */
function derOfRaw(raw: Buffer): Buffer {
  const integer = (bytes: Buffer): Buffer => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    const trimmed = bytes.subarray(i);
    const body = trimmed[0] >= 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
    return Buffer.concat([Buffer.from([0x02, body.length]), body]);
  };
  const half = raw.length / 2;
  const content = Buffer.concat([integer(raw.subarray(0, half)), integer(raw.subarray(half))]);
  const length = content.length < 0x80 ? Buffer.from([content.length]) : Buffer.from([0x81, content.length]);
  return Buffer.concat([Buffer.from([0x30]), length, content]);
}

describe('http-message-signatures signs, Signet verifies (rfc9421 profile)', () => {
  describe.each(ALGORITHMS)('%s', (algorithm) => {
    const c = clientOf(algorithm);

    it.each([
      ['with alg', ['created', 'keyid', 'alg']],
      ['without alg', ['created', 'keyid']],
    ])('a GET with a query over @method @authority @path @query, label sig1, %s', async (_, params) => {
      const req = await packageSigned('GET', GET_URL, {}, { key: conformingSigner(c, 'client-1'), label: 'sig1', fields: ['@method', '@authority', '@path', '@query'], params });
      const alg = params.includes('alg') ? `;alg="${algorithm}"` : '';
      expect(req.headers['signature-input']).toBe(`sig1=("@method" "@authority" "@path" "@query");created=${NOW_S};keyid="client-1"${alg}`);
      const verdict = await verify(req, rfc9421, [c.registered]);
      expect(verdict).toMatchObject({ keyId: 'client-1', fingerprint: c.registered.fingerprint, created: NOW_S });
      expect(verdict.covered).toEqual(['"@method"', '"@authority"', '"@path"', '"@query"']);
    });

    it('a POST with a body, covering its Content-Digest (RFC 9530 sha-256), Content-Length set', async () => {
      const body = '{"item":"widget","quantity":3}';
      const digest = `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
      const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'content-digest': digest };
      const req = await packageSigned('POST', POST_URL, headers, { key: conformingSigner(c, 'client-1'), label: 'sig1', fields: ['@method', '@authority', '@path', 'content-digest'], params: ['created', 'keyid', 'alg'] }, true);
      const verdict = await verify(req, rfc9421, [c.registered]);
      expect(verdict).toMatchObject({ keyId: 'client-1', fingerprint: c.registered.fingerprint, contentDigest: digest });
      // The body makes content-digest required: a signature of the same request not covering it is
      // refused, the body known here from Content-Length alone (no hasBody).
      const uncovered = await packageSigned('POST', POST_URL, headers, { key: conformingSigner(c, 'client-1'), label: 'sig1', fields: ['@method', '@authority', '@path'], params: ['created', 'keyid', 'alg'] });
      expect(await codeOf(() => verify(uncovered, rfc9421, [c.registered]))).toBe('digest_required');
    });
  });
});

describe('http-message-signatures signs, Signet verifies (signet profile)', () => {
  it.each(ALGORITHMS)('%s: label sig over @method @target-uri date, with alg and a Date header', async (algorithm) => {
    const c = clientOf(algorithm);
    const req = await packageSigned('GET', GET_URL, { date: imfDate(NOW_S) }, { key: conformingSigner(c, 'client-1'), label: 'sig', fields: ['@method', '@target-uri', 'date'], params: ['created', 'keyid', 'alg'] });
    expect(req.headers['signature-input']).toBe(`sig=("@method" "@target-uri" "date");created=${NOW_S};keyid="client-1";alg="${algorithm}"`);
    const verdict = await verify(req, signet, [c.registered]);
    expect(verdict).toMatchObject({ keyId: 'client-1', fingerprint: c.registered.fingerprint });
  });
});

describe("the package's own signature encodings, against RFC 9421 §3.3", () => {
  it.each([
    ['ecdsa-p256-sha256', 64, 'sha256'],
    ['ecdsa-p384-sha384', 96, 'sha384'],
  ] as const)('%s: raw r‖s of %d bytes (§3.3.4), as Signet expects', async (algorithm, bytes, digest) => {
    const c = clientOf(algorithm);
    const req = await packageSigned('GET', GET_URL, {}, { key: createSigner(c.privateKey, algorithm, 'client-1'), label: 'sig1', fields: ['@method', '@authority', '@path', '@query'], params: ['created', 'keyid', 'alg'] });
    const raw = signatureBytes(req, 'sig1');
    expect(raw.length).toBe(bytes);
    const base = `"@method": GET\n"@authority": api.example.com\n"@path": /orders/7\n"@query": ?expand=items&lang=en\n"@signature-params": ${req.headers['signature-input']?.slice('sig1='.length)}`;
    expect(nodeVerify(digest, Buffer.from(base), { key: c.registered.key, dsaEncoding: 'ieee-p1363' }, raw)).toBe(true);
  });

  it('rsa-pss-sha512: the package signs with the maximum salt (190 bytes for RSA-2048), not 64 (§3.3.1), and Signet refuses it', async () => {
    const c = clientOf('rsa-pss-sha512');
    const req = await packageSigned('GET', GET_URL, { date: imfDate(NOW_S) }, { key: createSigner(c.privateKey, 'rsa-pss-sha512', 'client-1'), label: 'sig', fields: ['@method', '@target-uri', 'date'], params: ['created', 'keyid', 'alg'] });
    const signature = signatureBytes(req, 'sig');
    const base = Buffer.from(`"@method": GET\n"@target-uri": ${GET_URL}\n"date": ${imfDate(NOW_S)}\n"@signature-params": ${req.headers['signature-input']?.slice('sig='.length)}`);
    const pss = (saltLength: number): boolean => nodeVerify('sha512', base, { key: c.registered.key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength }, signature);
    expect(pss(256 - 64 - 2)).toBe(true);
    expect(pss(64)).toBe(false);
    // Signet does not widen its salt rule for it: RFC 9421 fixes the salt at 64 bytes.
    expect(await codeOf(() => verify(req, signet, [c.registered]))).toBe('signature_mismatch');
    expect(await codeOf(() => verify(req, rfc9421, [c.registered]))).toBe('signature_mismatch');
  });
});

describe('refusals of package-made signatures', () => {
  const ed = clientOf('ed25519');
  const p256 = clientOf('ecdsa-p256-sha256');
  const fields = ['@method', '@authority', '@path', '@query'];

  it('an Ed25519 signature (no alg) for a client registered with a P-256 key: signature_mismatch', async () => {
    const req = await packageSigned('GET', GET_URL, {}, { key: createSigner(ed.privateKey, 'ed25519', 'client-1'), label: 'sig1', fields, params: ['created', 'keyid'] });
    // Both are 64 bytes: only the verification itself can tell them apart.
    expect(signatureBytes(req, 'sig1').length).toBe(64);
    expect(await codeOf(() => verify(req, rfc9421, [p256.registered]))).toBe('signature_mismatch');
    expect(await verify(req, rfc9421, [ed.registered])).toMatchObject({ fingerprint: ed.registered.fingerprint });
  });

  it('alg="ed25519" for a client registered with a P-256 key: algorithm_mismatch', async () => {
    const req = await packageSigned('GET', GET_URL, {}, { key: createSigner(ed.privateKey, 'ed25519', 'client-1'), label: 'sig1', fields, params: ['created', 'keyid', 'alg'] });
    expect(req.headers['signature-input']).toContain(';alg="ed25519"');
    expect(await codeOf(() => verify(req, rfc9421, [p256.registered]))).toBe('algorithm_mismatch');
  });

  it.each(['ecdsa-p256-sha256', 'ecdsa-p384-sha384'] as const)('%s: the package signature converted to DER is refused, saying it looks DER-encoded', async (algorithm) => {
    const c = clientOf(algorithm);
    const req = await packageSigned('GET', GET_URL, {}, { key: createSigner(c.privateKey, algorithm, 'client-1'), label: 'sig1', fields, params: ['created', 'keyid', 'alg'] });
    await expect(verify(req, rfc9421, [c.registered])).resolves.toMatchObject({ fingerprint: c.registered.fingerprint });
    const raw = signatureBytes(req, 'sig1');
    const der = derOfRaw(raw);
    // The conversion is right: node reads the DER form as the same signature.
    const base = `"@method": GET\n"@authority": api.example.com\n"@path": /orders/7\n"@query": ?expand=items&lang=en\n"@signature-params": ${req.headers['signature-input']?.slice('sig1='.length)}`;
    expect(nodeVerify(algorithm === 'ecdsa-p256-sha256' ? 'sha256' : 'sha384', Buffer.from(base), { key: c.registered.key, dsaEncoding: 'der' }, der)).toBe(true);
    const refused = verifyRequest(withSignature(req, 'sig1', der), rfc9421, () => [c.registered]);
    await expect(refused).rejects.toMatchObject({ code: 'signature_mismatch', message: expect.stringContaining('looks DER-encoded') });
  });

  it('rfc9421: a GET with a query signed over @method @authority @path (no @query): missing_component', async () => {
    for (const algorithm of ALGORITHMS) {
      const c = clientOf(algorithm);
      const req = await packageSigned('GET', GET_URL, {}, { key: conformingSigner(c, 'client-1'), label: 'sig1', fields: ['@method', '@authority', '@path'], params: ['created', 'keyid', 'alg'] });
      expect(await codeOf(() => verify(req, rfc9421, [c.registered]))).toBe('missing_component');
    }
  });
});
