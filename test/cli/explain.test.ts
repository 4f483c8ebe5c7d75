/**
 * `signet explain` names the exact mistake. Each case signs, by hand, the base a mistaken signer
 * builds (written out here line by line, independently of the code under test) and sends the
 * request as the verifier receives it; explain must recover the signed digest with the public
 * key and name that mistake, or say the key is wrong.
 */
import { KeyObject, createHash, sign as rsaSign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../bin/cli';
import { explainRequest, recoverDigest } from '../../bin/commands/explain';
import { computeContentDigest } from '../../lambda/core/content-digest';
import { generateRsaKeyPair } from '../../lambda/core/keys';
import { signRequest } from '../../lambda/core/sign';
import { SignedRequest } from '../../lambda/core/types';
import { defaultVerifyPolicy } from '../../lambda/core/verify';
import { nextTestKey } from '../support/test-keys';

const CLIENT = 'c_ExplainPartner000000000';
const CREATED = 1767225600;
const DATE = 'Thu, 01 Jan 2026 00:00:00 GMT';
const KEY = nextTestKey();
const OTHER_KEY = nextTestKey();
const KEYS = [{ fingerprint: KEY.fingerprint, key: KEY.publicKey }];
const POLICY = defaultVerifyPolicy({ nowS: () => CREATED });

const params = (components: string[]): string => `(${components.map((c) => `"${c}"`).join(' ')});created=${CREATED};keyid="${CLIENT}";alg="rsa-v1_5-sha256"`;
const STANDARD = params(['@method', '@target-uri', 'date']);

/** The lines of a base as a signer writes them. */
function baseLines(method: string, url: string, extra: { digest?: string; date?: string | null; params?: string } = {}): string[] {
  const lines = [`"@method": ${method}`, `"@target-uri": ${url}`];
  if (extra.digest !== undefined) lines.push(`"content-digest": ${extra.digest}`);
  if (extra.date !== null) lines.push(`"date": ${extra.date ?? DATE}`);
  lines.push(`"@signature-params": ${extra.params ?? (extra.digest !== undefined ? params(['@method', '@target-uri', 'content-digest', 'date']) : STANDARD)}`);
  return lines;
}

function signature(base: string, key: KeyObject = KEY.key, hash = 'sha256'): string {
  return `sig=:${rsaSign(hash, Buffer.from(base, 'utf8'), key).toString('base64')}:`;
}

/** The request as the verifier receives it, carrying a signature over `signedBase`. */
function received(method: string, url: string, signedBase: string, headers: Record<string, string> = {}, inputParams = STANDARD): SignedRequest {
  return { method, targetUri: url, headers: { date: DATE, ...headers, 'signature-input': `sig=${inputParams}`, signature: signature(signedBase) } };
}

function explain(request: SignedRequest, body?: Buffer, keys = KEYS) {
  const lines: string[] = [];
  const result = explainRequest({ request, body, policy: POLICY, clientId: CLIENT, keys }, (line) => lines.push(line));
  return { ...result, text: lines.join('\n') };
}

const LF = (lines: string[]): string => lines.join('\n');

interface VariantCase {
  readonly id: string;
  readonly method: string;
  /** The URL the verifier rebuilt. */
  readonly url: string;
  /** The base the mistaken signer signed. */
  readonly signed: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly inputParams?: string;
  /** Words the finding must contain. */
  readonly says: RegExp;
}

const BODY = '{"order": 42}';
const BODY_DIGEST = computeContentDigest(BODY);

const CASES: VariantCase[] = [
  { id: 'url-without-query', method: 'GET', url: 'https://api.example.com/api/echo?x=1', signed: LF(baseLines('GET', 'https://api.example.com/api/echo')), says: /without its query string/ },
  { id: 'query-reordered', method: 'GET', url: 'https://api.example.com/api/echo?b=2&a=1', signed: LF(baseLines('GET', 'https://api.example.com/api/echo?a=1&b=2')), says: /another order/ },
  { id: 'url-decoded', method: 'GET', url: 'https://api.example.com/api/a%C3%A9b', signed: LF(baseLines('GET', 'https://api.example.com/api/aéb')), says: /percent-decoded/ },
  { id: 'url-plus-space', method: 'GET', url: 'https://api.example.com/api/echo?q=a%20b', signed: LF(baseLines('GET', 'https://api.example.com/api/echo?q=a+b')), says: /"\+"/ },
  { id: 'trailing-slash', method: 'GET', url: 'https://api.example.com/api/echo', signed: LF(baseLines('GET', 'https://api.example.com/api/echo/')), says: /trailing slash/ },
  { id: 'other-scheme', method: 'GET', url: 'http://api.example.com/api/echo', signed: LF(baseLines('GET', 'https://api.example.com/api/echo')), says: /signed with https:\/\/ but the verifier rebuilt http:\/\// },
  { id: 'other-host', method: 'GET', url: 'http://127.0.0.1:3000/api/echo', signed: LF(baseLines('GET', 'http://localhost:3000/api/echo')), says: /signed for host localhost:3000 but the verifier rebuilt 127\.0\.0\.1:3000/ },
  { id: 'without-stage', method: 'GET', url: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/api/echo', signed: LF(baseLines('GET', 'https://abc.execute-api.eu-west-1.amazonaws.com/api/echo')), says: /without the stage or base path "\/prod"/ },
  { id: 'with-stage', method: 'GET', url: 'https://api.example.com/api/echo', signed: LF(baseLines('GET', 'https://api.example.com/prod/api/echo')), says: /"\/prod" stage prefix/ },
  { id: 'method-lower-case', method: 'POST', url: 'https://api.example.com/api/echo', signed: LF(baseLines('post', 'https://api.example.com/api/echo')), says: /lower case/ },
  {
    id: 'body-serialisation',
    method: 'POST',
    url: 'https://api.example.com/api/echo',
    body: BODY,
    headers: { 'content-digest': BODY_DIGEST },
    inputParams: params(['@method', '@target-uri', 'content-digest', 'date']),
    signed: LF(baseLines('POST', 'https://api.example.com/api/echo', { digest: computeContentDigest('{"order":42}') })),
    says: /computed over the body as compact JSON/,
  },
  { id: 'missing-date', method: 'GET', url: 'https://api.example.com/api/echo', signed: LF(baseLines('GET', 'https://api.example.com/api/echo', { date: null })), says: /left the "date" line out/ },
  {
    id: 'legacy-form',
    method: 'GET',
    url: 'https://api.example.com/api/echo',
    signed: LF(baseLines('GET', 'https://api.example.com/api/echo', { date: null, params: params(['@method', '@target-uri']) })),
    says: /legacy form/,
  },
  { id: 'date-changed', method: 'GET', url: 'https://api.example.com/api/echo', signed: LF(baseLines('GET', 'https://api.example.com/api/echo', { date: 'Wed, 31 Dec 2025 23:59:59 GMT' })), says: /signed Date was 1 s earlier/ },
  { id: 'crlf-line-ends', method: 'GET', url: 'https://api.example.com/api/echo', signed: baseLines('GET', 'https://api.example.com/api/echo').join('\r\n'), says: /CRLF/ },
  { id: 'literal-percent-n', method: 'GET', url: 'https://api.example.com/api/echo', signed: baseLines('GET', 'https://api.example.com/api/echo').join('%n'), says: /literal "%n"/ },
  { id: 'literal-backslash-n', method: 'GET', url: 'https://api.example.com/api/echo', signed: baseLines('GET', 'https://api.example.com/api/echo').join('\\n'), says: /backslash, n/ },
  { id: 'trailing-newline', method: 'GET', url: 'https://api.example.com/api/echo', signed: `${LF(baseLines('GET', 'https://api.example.com/api/echo'))}\n`, says: /line break after the "@signature-params" line/ },
  { id: 'trailing-crlf', method: 'GET', url: 'https://api.example.com/api/echo', signed: `${baseLines('GET', 'https://api.example.com/api/echo').join('\r\n')}\r\n`, says: /final CRLF/ },
];

describe.each(CASES.map((c) => [c.id, c] as const))('same key, different base: %s', (id, c) => {
  test('is named, with the key found right and the verifier base printed', () => {
    const request = received(c.method, c.url, c.signed, c.headers, c.inputParams);
    const result = explain(request, c.body === undefined ? undefined : Buffer.from(c.body));
    expect(result.valid).toBe(false);
    expect(result.diagnoses).toEqual([id]);
    expect(result.findings.join('\n')).toMatch(/^same key, different base: /);
    expect(result.findings.join('\n')).toMatch(c.says);
    expect(result.text).toContain(`The signature was made by registered key ${KEY.fingerprint}`);
    expect(result.text).toContain(`"@target-uri": ${c.url}`);
  });
});

test('the correct request verifies: explain says valid and names nothing', () => {
  const { headers } = signRequest({ method: 'GET', url: 'https://api.example.com/api/echo?x=1', keyId: CLIENT, privateKey: KEY.key, created: CREATED });
  const result = explain({ method: 'GET', targetUri: 'https://api.example.com/api/echo?x=1', headers: { ...headers } });
  expect(result).toMatchObject({ valid: true, findings: [], diagnoses: [], failures: [] });
  expect(result.text).toContain('result: valid');
});

test('wrong key: the recovered block is not a PKCS#1 v1.5 encoding, so the signer used another key', () => {
  const url = 'https://api.example.com/api/echo?x=1';
  const { headers } = signRequest({ method: 'GET', url, keyId: CLIENT, privateKey: OTHER_KEY.key, created: CREATED });
  const result = explain({ method: 'GET', targetUri: url, headers: { ...headers } });
  expect(result.diagnoses).toEqual(['wrong-key']);
  expect(result.findings[0]).toContain(`not made by any key registered for ${CLIENT} (fingerprints ${KEY.fingerprint}); the signer used another key`);
  // The FAIL line says what failed; it does not send the user to the command already running.
  expect(result.text).toMatch(/\[FAIL\] +\d+\. The signature verifies over the verifier's base: signature_mismatch: /);
  expect(result.text).not.toContain('signet explain`');
  expect(recoverDigest(Buffer.from(headers.signature.slice(5, -1), 'base64'), KEY.publicKey)).toBeUndefined();
  // ... while the right key recovers exactly the SHA-256 of the base.
  const base = signRequest({ method: 'GET', url, keyId: CLIENT, privateKey: OTHER_KEY.key, created: CREATED }).base;
  expect(recoverDigest(Buffer.from(headers.signature.slice(5, -1), 'base64'), OTHER_KEY.publicKey)).toEqual({ hash: 'SHA-256', digest: createHash('sha256').update(base).digest() });
});

test('a key of another size is the wrong key too', () => {
  const big = generateRsaKeyPair(3072);
  const url = 'https://api.example.com/api/echo';
  const { headers } = signRequest({ method: 'GET', url, keyId: CLIENT, privateKey: big.key, created: CREATED });
  expect(explain({ method: 'GET', targetUri: url, headers: { ...headers } }).diagnoses).toEqual(['wrong-key']);
});

test('the right key over a SHA-512 digest is named', () => {
  const url = 'https://api.example.com/api/echo';
  const base = LF(baseLines('GET', url));
  const request: SignedRequest = { method: 'GET', targetUri: url, headers: { date: DATE, 'signature-input': `sig=${STANDARD}`, signature: signature(base, KEY.key, 'sha512') } };
  const result = explain(request);
  expect(result.diagnoses).toEqual(['other-hash']);
  expect(result.findings[0]).toContain('SHA-512');
});

test('right key, no known mistake: says the key is right and the base differs', () => {
  const url = 'https://api.example.com/api/echo';
  const result = explain(received('GET', url, LF(baseLines('GET', 'https://api.example.com/api/other'))));
  expect(result.diagnoses).toEqual(['unknown-base']);
  expect(result.findings[0]).toMatch(/the key is right .* matches none of the known mistakes/);
});

test('early failures do not stop the later checks: an expired request signed with another key reports both', () => {
  const url = 'https://api.example.com/api/echo';
  const { headers } = signRequest({ method: 'GET', url, keyId: CLIENT, privateKey: OTHER_KEY.key, created: CREATED - 3600 });
  const result = explain({ method: 'GET', targetUri: url, headers: { ...headers } });
  expect(result.failures.map((f) => f.code)).toEqual(['expired', 'signature_mismatch']);
  expect(result.diagnoses).toEqual(['wrong-key']);
  expect(result.text).toContain('result: invalid: expired, signature_mismatch');
});

test('a body without content-digest covered (digest_required) and a URL signed without its query: both reported', () => {
  const url = 'https://api.example.com/api/echo?x=1';
  const request = { ...received('POST', url, LF(baseLines('POST', 'https://api.example.com/api/echo'))), hasBody: true };
  const result = explain(request, Buffer.from(BODY));
  expect(result.failures.map((f) => f.code)).toEqual(['digest_required', 'signature_mismatch']);
  expect(result.diagnoses).toEqual(['url-without-query']);
});

test('a Content-Digest over another serialisation of the body is named', () => {
  const url = 'https://api.example.com/api/echo';
  const sent = `${BODY}\n`;
  const { headers } = signRequest({ method: 'POST', url, body: BODY, keyId: CLIENT, privateKey: KEY.key, created: CREATED });
  const result = explain({ method: 'POST', targetUri: url, headers: { ...headers }, hasBody: true }, Buffer.from(sent));
  expect(result.failures.map((f) => f.code)).toEqual(['digest_mismatch']);
  expect(result.diagnoses).toEqual(['digest-over-other-body']);
  expect(result.findings[0]).toContain('without the trailing newline');
});

describe('through the command line', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'signet-explain-'));
    writeFileSync(join(dir, 'public.pem'), KEY.publicKey.export({ type: 'spki', format: 'pem' }) as string);
    writeFileSync(join(dir, 'private.pem'), KEY.key.export({ type: 'pkcs8', format: 'pem' }) as string);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function cli(...argv: string[]): Promise<{ code: number; stdout: string }> {
    let stdout = '';
    const log = jest.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void (stdout += `${parts.join(' ')}\n`));
    try {
      return { code: await main(argv), stdout };
    } finally {
      log.mockRestore();
    }
  }

  test('explain names the URL signed without its query (exit 1)', async () => {
    const { headers } = signRequest({ method: 'GET', url: 'https://api.example.com/api/echo', keyId: CLIENT, privateKey: KEY.key, created: CREATED });
    const h = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
    const result = await cli('explain', '--public-key', join(dir, 'public.pem'), '--now', String(CREATED), '--method', 'GET', '--url', 'https://api.example.com/api/echo?x=1', ...h);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('found: same key, different base: the URL was signed without its query string');
  });

  test('verify with a signed Content-Digest but no body says the body was not checked', async () => {
    const url = 'https://api.example.com/api/echo';
    const { headers } = signRequest({ method: 'POST', url, body: BODY, keyId: CLIENT, privateKey: KEY.key, created: CREATED });
    const h = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
    const args = ['verify', '--public-key', join(dir, 'public.pem'), '--now', String(CREATED), '--method', 'POST', '--url', url, ...h];
    const without = await cli(...args);
    expect(without.code).toBe(0);
    expect(without.stdout).toBe('valid\nnote: the signature covers Content-Digest but no body was given, so the body was NOT checked; add --data or --data-file to check it.\n');
    const withBody = await cli(...args, '--data', BODY);
    expect(withBody.stdout).toBe('valid\n');
  });

  test('--public-key repeats for a client with several keys: verify accepts either, explain lists every fingerprint', async () => {
    const other = join(dir, 'other.pem');
    writeFileSync(other, OTHER_KEY.publicKey.export({ type: 'spki', format: 'pem' }) as string);
    const url = 'https://api.example.com/api/echo';
    const { headers } = signRequest({ method: 'GET', url, keyId: CLIENT, privateKey: KEY.key, created: CREATED });
    const h = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
    const common = ['--now', String(CREATED), '--method', 'GET', '--url', url, ...h];
    expect((await cli('verify', '--public-key', other, '--public-key', join(dir, 'public.pem'), ...common)).stdout).toBe('valid\n');
    const stranger = nextTestKey();
    const signedByStranger = signRequest({ method: 'GET', url, keyId: CLIENT, privateKey: stranger.key, created: CREATED }).headers;
    const hs = Object.entries(signedByStranger).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
    const wrong = await cli('explain', '--public-key', other, '--public-key', join(dir, 'public.pem'), '--now', String(CREATED), '--method', 'GET', '--url', url, ...hs);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain(`(fingerprints ${OTHER_KEY.fingerprint}, ${KEY.fingerprint}); the signer used another key`);
  });

  test('explain given a private key as --public-key reports it', async () => {
    const result = await cli('explain', '--public-key', join(dir, 'private.pem'), '--method', 'GET', '--url', 'https://api.example.com/', '-H', 'Date: x');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('result: invalid: private_key_submitted');
  });
});
