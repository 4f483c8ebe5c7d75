/**
 * A request shaped exactly as curl's `--httpsig ed25519` sends it, through `npm start`'s gateway
 * under SIGNET_PROFILE=rfc9421:
 *
 *   signet keygen --out bot --alg ed25519          # writes bot/private.ed25519.hex
 *   curl --httpsig ed25519 --httpsig-key @bot/private.ed25519.hex --httpsig-keyid <clientId> URL
 *
 * curl signs with label `sig1`, parameters `created`, `keyid` and `alg="ed25519"`, and covers
 * "@method" "@authority" "@path" (+ "@query" when the URL has one); `--httpsig-headers "method
 * authority path query content-digest: date:"` adds the header fields the user gives with -H
 * (curl never computes Content-Digest itself). The signer below builds that base by hand from the
 * hex seed, with node:crypto only: none of Signet's code makes these requests. The `signet`
 * commands (keygen, sign, request) run in this process (test/support/signet-in-process.ts: the
 * same code without a child's start-up; test/cli/client-commands.e2e.test.ts runs the bin itself).
 */
import { createHash, createPrivateKey, sign as nodeSign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readClientDir } from '../../local/client-dir';
import { runSignetInProcess } from '../support/signet-in-process';
import { GatewayProcess, TestSigner, gatewayEnv, sendSigned, startGatewayProcess } from './gateway-process';

jest.setTimeout(240_000);

let home: string;
let gateway: GatewayProcess;
let admin: TestSigner;
let bot: { clientId: string; seedHex: string };

/** What curl sends for `--httpsig ed25519` (and `--httpsig-headers` with header fields), built by hand. */
function curlShaped(url: string, keyId: string, seedHex: string, options: { method?: string; headers?: Record<string, string>; label?: string; created?: number } = {}): Record<string, string> {
  const target = new URL(url);
  const method = options.method ?? 'GET';
  const created = options.created ?? Math.floor(Date.now() / 1000);
  const headers = options.headers ?? {};
  const lines: [string, string][] = [
    ['@method', method],
    ['@authority', target.host],
    ['@path', target.pathname],
  ];
  if (target.search !== '') lines.push(['@query', target.search]);
  for (const [name, value] of Object.entries(headers)) lines.push([name.toLowerCase(), value]);
  const params = `(${lines.map(([name]) => `"${name}"`).join(' ')});created=${created};keyid="${keyId}";alg="ed25519"`;
  const base = [...lines.map(([name, value]) => `"${name}": ${value}`), `"@signature-params": ${params}`].join('\n');
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(seedHex, 'hex')]);
  const signature = nodeSign(null, Buffer.from(base), createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }));
  const label = options.label ?? 'sig1';
  return { ...headers, 'signature-input': `${label}=${params}`, signature: `${label}=:${signature.toString('base64')}:` };
}

async function send(url: string, init: { method?: string; headers: Record<string, string>; body?: string }): Promise<{ status: number; code: string | null; body: Record<string, unknown> }> {
  const response = await fetch(url, { method: init.method ?? 'GET', headers: init.headers, body: init.body });
  const text = await response.text();
  return { status: response.status, code: response.headers.get('x-signet-error'), body: JSON.parse(text) as Record<string, unknown> };
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'signet-home-'));
  gateway = await startGatewayProcess(home, { seedKeys: true, env: { SIGNET_PROFILE: 'rfc9421' } });
  const adminDir = readClientDir(join(home, 'admin'));
  admin = { clientId: adminDir.clientId, privateKey: adminDir.key.key };

  const keygen = await runSignetInProcess(['keygen', '--out', join(home, 'bot'), '--alg', 'ed25519'], gatewayEnv(home, gateway.port));
  expect(keygen).toMatchObject({ code: 0 });
  expect(keygen.stdout).toContain('algorithm: ed25519');
  const registered = await sendSigned(admin, `${gateway.url}/registry/clients`, {
    body: JSON.stringify({ name: 'curl bot', networkWhitelist: ['127.0.0.1'], roles: ['demo'], publicKey: readFileSync(join(home, 'bot', 'public.pem'), 'utf8') }),
  });
  expect(registered.status).toBe(201);
  expect((registered.body.keys as { algorithm: string }[])[0].algorithm).toBe('ed25519');
  bot = { clientId: registered.body.clientId as string, seedHex: readFileSync(join(home, 'bot', 'private.ed25519.hex'), 'utf8').trim() };
});

afterAll(async () => {
  await gateway?.stop('SIGKILL');
  rmSync(home, { recursive: true, force: true });
});

test('keygen --alg ed25519 writes the 64-hex-digit seed curl reads, mode 0600', () => {
  expect(bot.seedHex).toMatch(/^[0-9a-f]{64}$/);
  expect(statSync(join(home, 'bot', 'private.ed25519.hex')).mode & 0o777).toBe(0o600);
});

test('curl --httpsig ed25519 URL (default components, with a query) gets through', async () => {
  const url = `${gateway.url}/api/echo?x=1&y=two`;
  const answer = await send(url, { headers: curlShaped(url, bot.clientId, bot.seedHex) });
  expect(answer).toMatchObject({ status: 200, code: null });
  expect(answer.body).toMatchObject({ method: 'GET' });
});

test('curl --httpsig ed25519 URL without a query (no @query) gets through', async () => {
  const url = `${gateway.url}/api/echo`;
  expect((await send(url, { headers: curlShaped(url, bot.clientId, bot.seedHex) })).status).toBe(200);
});

test('with --httpsig-headers "method authority path query content-digest: date:" and -H for both, a POST gets through', async () => {
  const url = `${gateway.url}/api/echo?via=curl`;
  const body = '{"hello":"world"}';
  const digest = `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
  const headers = curlShaped(url, bot.clientId, bot.seedHex, { method: 'POST', headers: { 'content-digest': digest, date: new Date().toUTCString() } });
  const answer = await send(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
  expect(answer).toMatchObject({ status: 200, code: null });
});

test('the same POST without content-digest covered is refused: digest_required (curl never computes it; give it with -H and --httpsig-headers)', async () => {
  const url = `${gateway.url}/api/echo`;
  const headers = curlShaped(url, bot.clientId, bot.seedHex, { method: 'POST' });
  const answer = await send(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{"a":1}' });
  expect(answer).toMatchObject({ status: 401, code: 'digest_required' });
});

test('a query left uncovered is refused: missing_component', async () => {
  const signedFor = `${gateway.url}/api/echo`;
  const headers = curlShaped(signedFor, bot.clientId, bot.seedHex);
  const answer = await send(`${gateway.url}/api/echo?amount=1000`, { headers });
  expect(answer).toMatchObject({ status: 401, code: 'missing_component' });
});

test('an Ed25519 signature claiming alg="ed25519" for an RSA client is refused: algorithm_mismatch', async () => {
  const url = `${gateway.url}/api/echo`;
  const answer = await send(url, { headers: curlShaped(url, admin.clientId, bot.seedHex) });
  expect(answer).toMatchObject({ status: 401, code: 'algorithm_mismatch' });
});

test('a client whose own profile is signet is held to it under the rfc9421 deployment: curl\'s sig1 is refused', async () => {
  const version = async (): Promise<number> => (await sendSigned(admin, `${gateway.url}/registry/clients/${bot.clientId}`)).body.version as number;
  const patched = await sendSigned(admin, `${gateway.url}/registry/clients/${bot.clientId}`, { method: 'PATCH', body: JSON.stringify({ profile: 'signet', version: await version() }) });
  expect(patched).toMatchObject({ status: 200, body: { profile: 'signet' } });
  try {
    const url = `${gateway.url}/api/echo`;
    // Another created than the earlier tests': Ed25519 is deterministic, and the gateway, like API
    // Gateway, may answer a Signature it has already judged from its authorizer cache.
    const answer = await send(url, { headers: curlShaped(url, bot.clientId, bot.seedHex, { created: Math.floor(Date.now() / 1000) - 7 }) });
    expect(answer).toMatchObject({ status: 401, code: 'signature_label_missing' });
  } finally {
    const back = await sendSigned(admin, `${gateway.url}/registry/clients/${bot.clientId}`, { method: 'PATCH', body: JSON.stringify({ profile: 'rfc9421', version: await version() }) });
    expect(back.status).toBe(200);
  }
});

test('signet request signs with the Ed25519 key in the default scheme, and gets through', async () => {
  writeFileSync(join(home, 'bot', 'client-id'), `${bot.clientId}\n`);
  const out = await runSignetInProcess(['request', '--client', join(home, 'bot'), `${gateway.url}/api/echo?from=cli`], gatewayEnv(home, gateway.port));
  expect(out.stderr).toBe('');
  expect(out.code).toBe(0);
});

describe('every key type end to end through npm start: keygen, register, sign (signet sign), verify', () => {
  async function registerKey(dir: string, algorithm?: string): Promise<string> {
    const body: Record<string, unknown> = { name: `partner ${dir}`, networkWhitelist: ['127.0.0.1'], roles: ['demo'], publicKey: readFileSync(join(home, dir, 'public.pem'), 'utf8') };
    if (algorithm !== undefined) body.algorithm = algorithm;
    const registered = await sendSigned(admin, `${gateway.url}/registry/clients`, { body: JSON.stringify(body) });
    expect(registered.status).toBe(201);
    return registered.body.clientId as string;
  }

  /** `signet sign`'s headers for the request, sent with fetch. */
  async function signedWithCli(dir: string, clientId: string, url: string, extra: string[] = [], body?: string): Promise<{ status: number; code: string | null }> {
    const args = ['sign', '--key', join(home, dir, 'private.pkcs8.b64'), '--client-id', clientId, '--method', body === undefined ? 'GET' : 'POST', '--url', url, ...extra];
    if (body !== undefined) args.push('--data', body);
    const out = await runSignetInProcess(args, gatewayEnv(home, gateway.port));
    expect(out).toMatchObject({ code: 0, stderr: '' });
    const headers = Object.fromEntries(out.stdout.trim().split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
    const response = await fetch(url, { method: body === undefined ? 'GET' : 'POST', headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body });
    await response.text();
    return { status: response.status, code: response.headers.get('x-signet-error') };
  }

  test.each([
    ['ecdsa-p256', 'ecdsa-p256-sha256'],
    ['ecdsa-p384', 'ecdsa-p384-sha384'],
  ])('%s: signs GET and POST in the default scheme (alg="%s"), and gets through', async (type, alg) => {
    expect((await runSignetInProcess(['keygen', '--out', join(home, type), '--alg', type], gatewayEnv(home, gateway.port))).code).toBe(0);
    const clientId = await registerKey(type);
    expect(await signedWithCli(type, clientId, `${gateway.url}/api/echo?alg=${alg}`)).toEqual({ status: 200, code: null });
    expect(await signedWithCli(type, clientId, `${gateway.url}/api/echo`, [], '{"a":1}')).toEqual({ status: 200, code: null });
  });

  test('rsa-pss-sha512: an RSA key registered for PSS verifies PSS signatures only', async () => {
    expect((await runSignetInProcess(['keygen', '--out', join(home, 'pss')], gatewayEnv(home, gateway.port))).code).toBe(0);
    const clientId = await registerKey('pss', 'rsa-pss-sha512');
    expect(await signedWithCli('pss', clientId, `${gateway.url}/api/echo`, ['--alg', 'rsa-pss-sha512'])).toEqual({ status: 200, code: null });
    expect(await signedWithCli('pss', clientId, `${gateway.url}/api/echo?v15`)).toEqual({ status: 401, code: 'algorithm_mismatch' });
  });
});
