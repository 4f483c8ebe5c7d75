/**
 * The partner signing examples (docs/signing-examples.md): each is run to produce headers, which
 * must verify with the core's verifyRequest, carry the right Content-Digest, and equal what the
 * core's own signer makes for the same `created` (RSASSA-PKCS1-v1_5 is deterministic, so any
 * byte of difference in the base would show). An example whose language is missing on this
 * machine fails with what to install, or is skipped where SIGNET_ALLOW_SKIP allows it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkContentDigest } from '../../lambda/core/content-digest';
import { PrivateKeyInfo } from '../../lambda/core/keys';
import { signRequest } from '../../lambda/core/sign';
import { SignedRequest } from '../../lambda/core/types';
import { defaultVerifyPolicy, verifyRequest } from '../../lambda/core/verify';
import { testNeeding } from '../support/prerequisites';
import { ExampleRunner, exampleRunners, headerLinesToMap, runExample } from './example-runners';
import { nextTestKey } from '../support/test-keys';

jest.setTimeout(180_000);

const CLIENT_ID = 'c_ExamplePartner0000000';

let dir: string;
let key: PrivateKeyInfo;
let seedKeyFile: string;
let pemKeyFile: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'signet-examples-'));
  key = nextTestKey();
  seedKeyFile = join(dir, 'private.pkcs8.b64');
  pemKeyFile = join(dir, 'private.pem');
  writeFileSync(seedKeyFile, `${key.pkcs8Base64}\n`);
  writeFileSync(pemKeyFile, key.key.export({ type: 'pkcs8', format: 'pem' }) as string);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Case {
  readonly name: string;
  readonly method: string;
  readonly url: string;
  readonly body?: Buffer;
  readonly keyFile: () => string;
}

const CASES: readonly Case[] = [
  { name: 'GET with a query, key as private.pkcs8.b64', method: 'get', url: 'https://api.example.com/api/echo?b=2&a=1&a=%20x', keyFile: () => seedKeyFile },
  {
    name: 'POST with a UTF-8 JSON body, PEM key',
    method: 'POST',
    url: 'http://127.0.0.1:3000/api/echo',
    body: Buffer.from('{"order": 42,\n "note": "ünïcødé"}\n'),
    keyFile: () => pemKeyFile,
  },
  { name: 'PUT with binary body bytes', method: 'PUT', url: 'https://api.example.com/v1/blobs/7', body: Buffer.from(Array.from({ length: 256 }, (_, i) => i)), keyFile: () => seedKeyFile },
];

async function verify(request: SignedRequest): Promise<{ keyId: string; created: number; fingerprint: string }> {
  const policy = defaultVerifyPolicy({ nowS: () => Math.floor(Date.now() / 1000) });
  return verifyRequest(request, policy, (keyId) => (keyId === CLIENT_ID ? [{ fingerprint: key.fingerprint, key: key.publicKey }] : []));
}

describe.each(exampleRunners().map((runner) => [runner.label, runner] as const))('%s', (_label, runner: ExampleRunner) => {
  const maybe = testNeeding(runner.needs);

  for (const c of CASES) {
    maybe(`${c.name}: the printed headers verify with the core and equal the core signer's`, async () => {
      const args = [c.keyFile(), CLIENT_ID, c.method, c.url];
      if (c.body !== undefined) {
        const bodyFile = join(dir, `body-${c.method}.bin`);
        writeFileSync(bodyFile, c.body);
        args.push(bodyFile);
      }
      const result = runExample(runner, args);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const headers = headerLinesToMap(result.stdout);

      const request: SignedRequest = { method: c.method.toUpperCase(), targetUri: c.url, headers, hasBody: c.body !== undefined };
      const verdict = await verify(request);
      expect(verdict).toMatchObject({ keyId: CLIENT_ID, fingerprint: key.fingerprint });
      if (c.body !== undefined) expect(() => checkContentDigest(headers['content-digest'], c.body!)).not.toThrow();
      else expect(headers['content-digest']).toBeUndefined();

      const core = signRequest({ method: c.method, url: c.url, body: c.body, keyId: CLIENT_ID, privateKey: key.key, created: verdict.created });
      expect(headers).toEqual(core.headers);

      // The same headers on another URL must not verify: the check above can fail.
      await expect(verify({ ...request, targetUri: `${c.url}x` })).rejects.toMatchObject({ code: 'signature_mismatch' });
    });
  }

  maybe(`a wrong key file is one line on stderr (exit 1), never a traceback, and prints no header`, () => {
    const publicKeyFile = join(dir, 'public.pem');
    const garbage = join(dir, 'garbage.txt');
    writeFileSync(publicKeyFile, key.publicKey.export({ type: 'spki', format: 'pem' }) as string);
    writeFileSync(garbage, 'this is not a key\n');
    const cases: Array<[string, RegExp]> = [
      [join(dir, 'missing.b64'), /no such (readable )?file/],
      [publicKeyFile, /it holds a PUBLIC key; give your private key/],
      [garbage, /it is (neither PEM nor Base64 PKCS#8|not a PKCS#8 RSA private key)/],
    ];
    for (const [file, reason] of cases) {
      const result = runExample(runner, [file, CLIENT_ID, 'GET', 'https://api.example.com/api/echo']);
      expect({ file, code: result.code, stdout: result.stdout, lines: result.stderr.trimEnd().split('\n').length }).toEqual({ file, code: 1, stdout: '', lines: 1 });
      expect(result.stderr).toMatch(new RegExp(`^error: KEY_FILE ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} cannot be used as the private key: `));
      expect(result.stderr).toMatch(reason);
    }
  });
});

for (const runner of exampleRunners()) {
  testNeeding(runner.needs)(`${runner.label}: prints its usage and exits 2 when called wrongly`, () => {
    const result = runExample(runner, ['only-one-argument']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/usage: .*\[--send\] KEY_FILE CLIENT_ID METHOD URL \[BODY_FILE\]/);
  });
}
