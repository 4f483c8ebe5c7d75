/**
 * `signet verify` and `signet explain` with any supported public key and `--profile`:
 * RFC 9421 Appendix B.2's own signatures are recognised as good (explain's signature item), and
 * the profile's rules are applied on top; a request shaped as curl's `--httpsig ed25519` sends it
 * is valid under `--profile rfc9421` and refused under the default profile.
 */
import { createPrivateKey, sign as nodeSign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../bin/cli';
import { generateKeyPair } from '../../lambda/core/keys';
import { writeClientDir } from '../../local/client-dir';
import { APPENDIX_B26, APPENDIX_B2_CASES, TEST_KEY_ED25519_PRIVATE_PEM, TEST_KEY_ED25519_PUBLIC_PEM, TEST_KEY_RSA_PSS_PUBLIC_PEM, TEST_REQUEST } from '../fixtures/rfc9421';
import { WEB_BOT_AUTH_VECTORS, WEB_BOT_AUTH_VECTOR_CREATED } from '../fixtures/web-bot-auth-drafts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'signet-verify-profiles-'));
  writeFileSync(join(dir, 'ed25519.pem'), TEST_KEY_ED25519_PUBLIC_PEM);
  writeFileSync(join(dir, 'pss.pem'), TEST_KEY_RSA_PSS_PUBLIC_PEM);
  writeFileSync(join(dir, 'ed25519.jwk'), JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs' }));
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

/** test-request as received, with one vector's signature headers. */
function vectorArgs(signatureInput: string, signature: string): string[] {
  const headers = TEST_REQUEST.headers.filter(([name]) => name !== 'Host').flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  return ['--method', 'POST', '--url', `https://example.com${TEST_REQUEST.requestTarget}`, ...headers, '-H', `Signature-Input: ${signatureInput}`, '-H', `Signature: ${signature}`, '--now', '1618884473', '--data', TEST_REQUEST.body, '--profile', 'rfc9421'];
}

describe('RFC 9421 Appendix B.2 through signet explain --profile rfc9421', () => {
  test.each([
    ...APPENDIX_B2_CASES.map((c) => [c.label, c.signatureInput, c.signature, 'pss.pem', ['--key-alg', 'rsa-pss-sha512']] as const),
    [APPENDIX_B26.label, APPENDIX_B26.signatureInput, APPENDIX_B26.signature, 'ed25519.pem', []] as const,
    [`${APPENDIX_B26.label} (key as a JWK)`, APPENDIX_B26.signatureInput, APPENDIX_B26.signature, 'ed25519.jwk', []] as const,
  ])('%s: the RFC signature verifies over the verifier\'s base; what the profile requires beyond it is named', async (label, input, signature, keyFile, extra) => {
    const out = await cli('explain', '--public-key', join(dir, keyFile), ...extra, ...vectorArgs(input, signature));
    expect(out.stdout).toMatch(/\[ok {2}\] +\d+\. The signature verifies over the verifier's base with key /);
    if (label === 'sig-b23') {
      // The one vector that covers the method, the whole target and the body's sha-512 digest
      // (RFC 9530: accepted alone) meets everything the profile requires.
      expect(out.code).toBe(0);
      expect(out.stdout).toMatch(/result: valid/);
      return;
    }
    // The others leave the body's digest or the query uncovered.
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/result: invalid: (missing_component|digest_required)/);
  });

  test('a signature altered by one byte is not recognised: the explain item fails', async () => {
    const altered = APPENDIX_B26.signature.replace('wqcA', 'wqcB');
    const out = await cli('explain', '--public-key', join(dir, 'ed25519.pem'), ...vectorArgs(APPENDIX_B26.signatureInput, altered));
    expect(out.stdout).not.toMatch(/\[ok {2}\] +\d+\. The signature verifies/);
    expect(out.stdout).toContain('signature_mismatch');
  });
});

describe('a curl --httpsig ed25519 request through signet verify', () => {
  const created = 1_800_000_000;
  const url = 'https://api.example.com/api/echo?x=1';
  const params = `("@method" "@authority" "@path" "@query");created=${created};keyid="c_bot";alg="ed25519"`;
  const base = `"@method": GET\n"@authority": api.example.com\n"@path": /api/echo\n"@query": ?x=1\n"@signature-params": ${params}`;
  const signature = nodeSign(null, Buffer.from(base), createPrivateKey(TEST_KEY_ED25519_PRIVATE_PEM)).toString('base64');
  const args = (...more: string[]) => ['verify', '--public-key', join(dir, 'ed25519.pem'), '--method', 'GET', '--url', url, '-H', `Signature-Input: sig1=${params}`, '-H', `Signature: sig1=:${signature}:`, '--now', String(created), ...more];

  test('valid under --profile rfc9421', async () => {
    expect(await cli(...args('--profile', 'rfc9421'))).toEqual({ code: 0, stdout: 'valid\n' });
  });

  test('under the default profile it is refused, saying why (label sig)', async () => {
    const out = await cli(...args());
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/^invalid: signature_label_missing: /);
  });

  test('--profile must be signet or rfc9421 (usage error, exit 2)', async () => {
    const err = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect((await cli(...args('--profile', 'strict'))).code).toBe(2);
    } finally {
      err.mockRestore();
    }
  });
});

describe("a Web Bot Auth draft's appendix example through signet verify --profile web-bot-auth", () => {
  const legacy = WEB_BOT_AUTH_VECTORS.find((v) => v.algorithm === 'ed25519' && v.signatureAgent?.startsWith('"'));
  const args = (...more: string[]) => {
    if (legacy?.signatureAgent === undefined) throw new Error('fixture: the legacy Ed25519 vector');
    const headers = [`Signature-Agent: ${legacy.signatureAgent}`, `Signature-Input: ${legacy.signatureInput}`, `Signature: ${legacy.signature}`].flatMap((h) => ['-H', h]);
    return ['verify', '--public-key', join(dir, 'ed25519.pem'), '--method', 'GET', '--url', 'https://example.com/foo', ...headers, '--now', String(WEB_BOT_AUTH_VECTOR_CREATED + 5), ...more];
  };

  test('valid under --profile web-bot-auth (any label, @authority and the Signature-Agent it names)', async () => {
    expect(await cli(...args('--profile', 'web-bot-auth'))).toEqual({ code: 0, stdout: 'valid\n' });
  });

  test('refused under --profile rfc9421, which requires @method and the target', async () => {
    const out = await cli(...args('--profile', 'rfc9421'));
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/^invalid: missing_component: /);
  });
});

describe('signet sign given a public key as --key', () => {
  test('says the file holds a public key and which file to choose (the portal\'s sign-in says the same)', async () => {
    writeFileSync(join(dir, 'public.pem'), TEST_KEY_ED25519_PUBLIC_PEM);
    let stderr = '';
    const error = jest.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => void (stderr += `${parts.join(' ')}\n`));
    let result;
    try {
      result = await cli('sign', '--key', join(dir, 'public.pem'), '--client-id', 'c_partner', '--method', 'GET', '--url', 'http://127.0.0.1:3000/api/echo');
    } finally {
      error.mockRestore();
    }
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(stderr).toContain('This file holds a public key; choose your private key (private.pkcs8.b64 or private.pem).');
  });
});

describe('signet sign --client DIR', () => {
  test("signs as the client directory (its key and client-id), as signet request --client does; verify accepts the headers with its public key", async () => {
    const client = join(dir, 'partner');
    writeClientDir(client, 'c_PartnerPartnerPartner0', generateKeyPair('ed25519'));
    const url = 'http://127.0.0.1:3000/api/echo?x=1';
    const signed = await cli('sign', '--client', client, '--method', 'POST', '--url', url, '--data', '{"a":1}', '--created', '1800000000');
    expect(signed.code).toBe(0);
    expect(signed.stdout).toMatch(/^Signature-Input: sig=\("@method" "@target-uri" "content-digest" "date"\);created=1800000000;keyid="c_PartnerPartnerPartner0";alg="ed25519"$/m);
    const headers = signed.stdout.trim().split('\n').flatMap((line) => ['-H', line]);
    const verified = await cli('verify', '--public-key', join(client, 'public.pem'), '--method', 'POST', '--url', url, ...headers, '--data', '{"a":1}', '--now', '1800000000');
    expect(verified).toEqual({ code: 0, stdout: 'valid\n' });
  });
});
