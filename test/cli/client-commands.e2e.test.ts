/**
 * `signet request`, `signet clients` and `signet keys` against `npm start`'s gateway in a child
 * process with a temporary SIGNET_HOME. Defaults (demo client, admin key, local endpoint) come from
 * SIGNET_HOME and PORT. Most commands run through the CLI's `main(argv)` in this process with that
 * environment (test/support/signet-in-process.ts: the same code, none of a child's start-up cost);
 * the bin itself runs as a user runs it where the process matters: a plain request, an unreachable
 * gateway, and output piped into `head`.
 */
import { spawnSync } from 'node:child_process';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signatureHeaders } from 'web-bot-auth';
import { signerFromJWK } from 'web-bot-auth/crypto';
import { KEY_DIRECTORY_MEDIA_TYPE, KEY_DIRECTORY_PATH } from '../../lambda/core/defaults';
import { findFreePort } from '../../local/dynamodb-local';
import { run as rotate } from '../../bin/commands/rotate';
import { GatewayProcess, REPO_ROOT, gatewayEnv, runSignet, startGatewayProcess } from '../local/gateway-process';
import { SignetRun, runSignetInProcess } from '../support/signet-in-process';
import { signDirectory } from '../support/signed-directory';

jest.setTimeout(240_000);

let home: string;
let gateway: GatewayProcess;
let env: NodeJS.ProcessEnv;
let work: string;

function signet(...args: string[]): Promise<SignetRun> {
  return runSignetInProcess(args, env);
}

/** A registry command with --json: the registry's answer as it came. */
function signetJson(...args: string[]): Promise<SignetRun> {
  return signet(...args, '--json');
}

function json(stdout: string): Record<string, unknown> {
  return JSON.parse(stdout) as Record<string, unknown>;
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'signet-cli-home-'));
  work = mkdtempSync(join(tmpdir(), 'signet-cli-work-'));
  // No client cache in the gateway: `signet rotate` below waits on an injected clock, not the real one.
  gateway = await startGatewayProcess(home, { seedKeys: true, env: { SIGNET_CLIENT_CACHE_TTL_MS: '0' } });
  env = gatewayEnv(home, gateway.port);
});

afterAll(async () => {
  await gateway?.stop();
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('signet request', () => {
  test('signs as the demo client by default and prints the status line and the body (exit 0)', () => {
    // The bin itself, in a child process, as a user runs it (the other tests call main() in-process).
    const result = runSignet(['request', `${gateway.url}/api/echo?x=1`], env);
    expect(result.code).toBe(0);
    const [status, body] = result.stdout.split('\n');
    expect(status).toBe('HTTP 200 OK');
    expect(JSON.parse(body)).toMatchObject({ method: 'GET', query: 'x=1', authorizer: { roles: 'demo' } });
  });

  test('-X POST -d @FILE sends the file bytes as JSON; -H adds headers; -i prints the response headers', async () => {
    const file = join(work, 'order.json');
    writeFileSync(file, '{"order": 7,\n "items": ["a"]}\n');
    const result = await signet('request', '--client', join(home, 'demo'), '-X', 'post', '-d', `@${file}`, '-H', 'X-Trace: t1', '-i', `${gateway.url}/api/echo`);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^HTTP 200 OK\n(.+\n)*content-type: application\/json\n/);
    const body = JSON.parse(result.stdout.split('\n\n')[1]) as Record<string, unknown>;
    expect(body).toMatchObject({ method: 'POST', body: readFileSync(file, 'utf8') });
  });

  test('--key FILE --client-id ID works like --client DIR; a path alone goes to the local gateway', async () => {
    const clientId = readFileSync(join(home, 'demo', 'client-id'), 'utf8').trim();
    const result = await signet('request', '--key', join(home, 'demo', 'private.pkcs8.b64'), '--client-id', clientId, '-d', 'plain text', '/api/echo');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout.split('\n')[1])).toMatchObject({ method: 'POST', body: 'plain text', authorizer: { clientId } });
  });

  test('a refusal prints its status and code and exits 1', async () => {
    const result = await signet('request', `${gateway.url}/registry/clients`);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^HTTP 403 Forbidden\n/);
    expect(JSON.parse(result.stdout.split('\n')[1])).toMatchObject({ error: 'role_forbidden' });
  });

  test('an unreachable gateway names the port the running one listens on, or says to start one (exit 1); bad usage exits 2', async () => {
    const deadPort = await findFreePort();
    const down = runSignet(['request', '/api/echo'], gatewayEnv(home, deadPort));
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(`could not reach http://127.0.0.1:${deadPort} (ECONNREFUSED). The local gateway of ${home} listens on ${gateway.url}: run the command with PORT=${gateway.port}, or give --endpoint ${gateway.url}.`);
    const none = runSignet(['request', '--client', join(home, 'demo'), '/api/echo'], gatewayEnv(join(home, 'no-gateway-here'), deadPort));
    expect(none.stderr).toMatch(/could not reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)\. Is the local gateway running\? Start it with `npm start`/);
    expect((await signet('request')).code).toBe(2);
    const both = await signet('request', '--client', join(home, 'demo'), '--key', 'k', '/api/echo');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('not both');
  });
});

describe('clean failures, never a stack trace', () => {
  test('`signet request -i ... | head -1` ends quietly when the reader closes the pipe (EPIPE)', async () => {
    const body = join(work, 'big.txt');
    writeFileSync(body, 'x'.repeat(512 * 1024));
    const result = spawnSync('sh', ['-c', `"${process.execPath}" --no-warnings -r tsx/cjs bin/signet.ts request -i -d @${body} /api/echo | head -1`], { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 60_000 });
    expect(result.stdout).toBe('HTTP 200 OK\n');
    expect(result.stderr).toBe('');
  });

  test('an unknown scheme is a usage error naming it (exit 2)', async () => {
    const result = await signet('request', 'htp://127.0.0.1/api/echo');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^signet request: "htp:\/\/127\.0\.0\.1\/api\/echo" has the scheme "htp"; use http:\/\/ or https:\/\/\n/);
  });

  test('a --client directory that does not exist is named as the user gave it, with no word of npm start (the default one says to run it)', async () => {
    const given = await signet('request', '--client', join(work, 'no-such-dir'), '/api/echo');
    expect(given.code).toBe(2);
    expect(given.stderr).toMatch(/^signet request: --client \S+no-such-dir does not exist\. Give a client directory \(private\.pkcs8\.b64 and client-id\), as `signet clients create --out DIR` writes one/);
    expect(given.stderr).not.toContain('npm start');
    const fresh = mkdtempSync(join(tmpdir(), 'signet-cli-empty-home-'));
    try {
      const missingDefault = await runSignetInProcess(['request', '/api/echo'], gatewayEnv(fresh, gateway.port));
      expect(missingDefault.code).toBe(2);
      expect(missingDefault.stderr).toContain('Run `npm start` once');
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  test('a missing file is named, not thrown', async () => {
    const result = await signet('request', '-d', `@${join(work, 'nope.json')}`, '/api/echo');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^signet request: --data @FILE \S+nope\.json does not exist\n/);
  });

  test('a request signed for localhost, refused by the gateway that rebuilds 127.0.0.1, says so once (in the answer)', async () => {
    const url = `http://localhost:${gateway.port}/api/echo`;
    const result = await signet('request', url);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^HTTP 401 /);
    expect(result.stdout).toContain(`This local gateway rebuilds every URL on ${gateway.url}; the request named host \\"localhost:${gateway.port}\\"`);
    expect(result.stderr).not.toContain('but a local Signet gateway rebuilds the URL');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  test('request --verbose prints the headers and the base it signed, and on a refusal runs explain', async () => {
    const ok = await signet(
      'request', '-v',
      '-H', 'Authorization: Bearer other-credential', '-H', 'X-Api-Key: usage-plan-key', '-H', 'X-Amz-Security-Token: sts-session',
      '-H', 'Api-Key: plain-api-key', '-H', 'Ocp-Apim-Subscription-Key: apim-key', '-H', 'X-Request-Id: r-17',
      `${gateway.url}/api/echo?x=1&access_token=query-token`,
    );
    expect(ok.code).toBe(0);
    // Other credentials the caller sends are left out of what -v prints (output gets pasted into
    // tickets): headers and query parameters whose names say so; other headers are shown.
    expect(ok.stderr).toContain('> authorization: <redacted>\n');
    expect(ok.stderr).toMatch(/> x-api-key: <redacted>\n/i);
    expect(ok.stderr).toMatch(/> x-amz-security-token: <redacted>\n/i);
    expect(ok.stderr).toMatch(/> api-key: <redacted>\n/i);
    expect(ok.stderr).toMatch(/> ocp-apim-subscription-key: <redacted>\n/i);
    expect(ok.stderr).toMatch(/> x-request-id: r-17\n/i);
    expect(ok.stderr).not.toMatch(/other-credential|usage-plan-key|sts-session|plain-api-key|apim-key|query-token/);
    expect(ok.stderr).toMatch(new RegExp(`^> GET ${gateway.url}/api/echo\\?x=1&access_token=<redacted>\n(> [a-z-]+: .+\n)*> signature-input: sig=`));
    expect(ok.stderr).toContain(`*   "@target-uri": ${gateway.url}/api/echo?x=1&access_token=<redacted>\n`);
    expect(ok.stderr).not.toContain('running signet explain');
    // A password in the URL is refused before anything is sent, and not repeated.
    const withPassword = await signet('request', '-v', `http://user:url-password@127.0.0.1:${gateway.port}/api/echo`);
    expect(withPassword.code).toBe(2);
    expect(withPassword.stderr).toContain('The URL holds a user name or password');
    expect(withPassword.stderr).not.toContain('url-password');
    // A path is signed as it is sent: dot segments resolved.
    const dotted = await signet('request', '-v', '/api/../api/echo');
    expect(dotted.code).toBe(0);
    expect(dotted.stderr).toContain(`*   "@target-uri": ${gateway.url}/api/echo\n`);

    const refused = await signet('request', '-v', '-H', 'X-Upstream-Bearer: bearer-secret', `http://localhost:${gateway.port}/api/echo?x=1&X-Amz-Signature=presigned-sig#access_token=fragment-token`);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('running signet explain on it');
    // What explain prints on a refusal (the base the verifier rebuilt) is redacted as the rest is.
    expect(refused.stderr).toContain('X-Amz-Signature=<redacted>');
    expect(refused.stderr).not.toMatch(/bearer-secret|presigned-sig|fragment-token/);
    expect(refused.stderr).toContain(`found: same key, different base: the URL was signed for host localhost:${gateway.port} but the verifier rebuilt 127.0.0.1:${gateway.port}`);
    expect(refused.stderr).toContain('key(s) the local registry holds for');

    const forbidden = await signet('request', '-v', `${gateway.url}/registry/clients`);
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toContain('result: valid');
    expect(forbidden.stderr).toContain('* the signature is fine; the gateway refused for another reason: role_forbidden: ');
  });
});

describe('signet keygen', () => {
  test('never replaces a key pair without --force', async () => {
    const dir = join(work, 'keygen');
    expect((await signet('keygen', '--out', dir)).code).toBe(0);
    const before = readFileSync(join(dir, 'private.pem'), 'utf8');
    const again = await signet('keygen', '--out', dir);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already holds a key pair (private.pkcs8.b64, private.pem, public.pem); nothing was written');
    expect(readFileSync(join(dir, 'private.pem'), 'utf8')).toBe(before);
    const forced = await signet('keygen', '--out', dir, '--force');
    expect(forced.code).toBe(0);
    expect(readFileSync(join(dir, 'private.pem'), 'utf8')).not.toBe(before);
  });
});

describe('signet clients', () => {
  let clientId: string;
  const partnerDir = (): string => join(work, 'partner');

  beforeAll(async () => {
    const created = await signetJson('clients', 'create', '--name', 'cli partner', '--role', 'demo', '--network', '127.0.0.1', '--network', '::1', '--out', partnerDir());
    expect(created.code).toBe(0);
    const body = json(created.stdout);
    expect(body).toMatchObject({ name: 'cli partner', roles: ['demo'], networkWhitelist: ['127.0.0.1', '::1'], registration: 'created', version: 1 });
    clientId = body.clientId as string;
  });

  test('create --out writes a usable client directory', async () => {
    expect(readFileSync(join(partnerDir(), 'client-id'), 'utf8').trim()).toBe(clientId);
    expect(statSync(join(partnerDir(), 'private.pem')).mode & 0o777).toBe(0o600);
    const result = await signet('request', '--client', partnerDir(), '/api/echo');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`"clientId":"${clientId}"`);
  });

  test('create with --public-key registers an existing key; the same key again is skipped', async () => {
    await signet('keygen', '--out', join(work, 'own'));
    const first = await signetJson('clients', 'create', '--name', 'own key', '--role', 'demo', '--network', '0.0.0.0', '--public-key', join(work, 'own', 'public.pem'));
    expect(first.code).toBe(0);
    const again = await signetJson('clients', 'create', '--name', 'own key again', '--role', 'demo', '--network', '0.0.0.0', '--public-key', join(work, 'own', 'public.pem'));
    expect(again.code).toBe(0);
    expect(json(again.stdout)).toMatchObject({ clientId: json(first.stdout).clientId, registration: 'skipped' });
  });

  test('key types and profiles: an Ed25519 key with --profile rfc9421, an RSA key with --algorithm rsa-pss-sha512, keys add --algorithm, update --profile', async () => {
    await signet('keygen', '--out', join(work, 'ed'), '--alg', 'ed25519');
    const ed = await signetJson('clients', 'create', '--name', 'curl bot', '--role', 'demo', '--network', '0.0.0.0', '--public-key', join(work, 'ed', 'public.pem'), '--profile', 'rfc9421');
    expect(ed.code).toBe(0);
    expect(json(ed.stdout)).toMatchObject({ profile: 'rfc9421', keys: [{ algorithm: 'ed25519' }] });
    const edId = json(ed.stdout).clientId as string;
    await signet('keygen', '--out', join(work, 'pss'));
    const added = await signetJson('keys', 'add', edId, '--public-key', join(work, 'pss', 'public.pem'), '--algorithm', 'rsa-pss-sha512');
    expect(added.code).toBe(0);
    expect((json(added.stdout).keys as { algorithm: string }[]).map((k) => k.algorithm)).toEqual(['ed25519', 'rsa-pss-sha512']);
    const updated = await signetJson('clients', 'update', edId, '--profile', 'signet');
    expect(updated.code).toBe(0);
    expect(json(updated.stdout)).toMatchObject({ profile: 'signet' });
    const refused = await signetJson('clients', 'update', edId, '--profile', 'strict');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr + refused.stdout).toContain('invalid_request');
  });

  test('list and get', async () => {
    const list = await signetJson('clients', 'list', '--limit', '100');
    expect(list.code).toBe(0);
    expect((json(list.stdout).clients as { clientId: string }[]).map((c) => c.clientId)).toContain(clientId);
    const get = await signetJson('clients', 'get', clientId);
    expect(get.code).toBe(0);
    expect(json(get.stdout)).toMatchObject({ clientId, status: 'active' });
  });

  test('update reads the version itself; a stale --version is refused with 409 version_conflict', async () => {
    const updated = await signetJson('clients', 'update', clientId, '--name', 'renamed partner', '--network', '127.0.0.1', '--network', '10.0.0.0/8');
    expect(updated.code).toBe(0);
    expect(json(updated.stdout)).toMatchObject({ name: 'renamed partner', networkWhitelist: ['127.0.0.1', '10.0.0.0/8'], version: 2 });
    const stale = await signetJson('clients', 'update', clientId, '--version', '1', '--name', 'lost update');
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/^HTTP 409 version_conflict: /);
  });

  test('disable and enable', async () => {
    const disabled = await signetJson('clients', 'disable', clientId);
    expect(disabled.code).toBe(0);
    expect(json(disabled.stdout).status).toBe('disabled');
    // The local gateway applies registry writes at once (x-signet-authorizer-cache-ttl: 0), and says so.
    expect(disabled.stderr).toContain('note: this change applies to the next request.');
    const enabled = await signetJson('clients', 'enable', clientId);
    expect(enabled.code).toBe(0);
    expect(json(enabled.stdout).status).toBe('active');
  });

  test('find by public key and by fingerprint', async () => {
    const byKey = await signetJson('clients', 'find', '--public-key', join(partnerDir(), 'public.pem'));
    expect(byKey.code).toBe(0);
    const found = (json(byKey.stdout).clients as { clientId: string; keys: { fingerprint: string }[] }[])[0];
    expect(found.clientId).toBe(clientId);
    const byFingerprint = await signetJson('clients', 'find', '--fingerprint', found.keys[0].fingerprint);
    expect([byFingerprint.code, byFingerprint.stderr]).toEqual([0, '']);
    expect((json(byFingerprint.stdout).clients as { clientId: string }[])[0].clientId).toBe(clientId);
  });

  test('a fingerprint that starts with "-" is an argument, not an option (one key in 64 has one)', async () => {
    const fingerprint = `-${'Ab3_'.repeat(10)}xy`;
    const find = await signetJson('clients', 'find', '--fingerprint', fingerprint);
    expect([find.code, find.stderr]).toEqual([0, '']);
    expect(json(find.stdout).clients).toEqual([]);
    const remove = await signetJson('keys', 'remove', clientId, fingerprint);
    expect([remove.code, remove.stderr]).toEqual([1, expect.stringMatching(/^HTTP 404 not_found: /)]);
  });

  test('failures lists the reasons a client was refused (a table by default)', async () => {
    const refused = await signet('request', '--client', partnerDir(), '/registry/clients');
    expect(refused.code).toBe(1);
    const failures = await signetJson('clients', 'failures', clientId);
    expect(failures.code).toBe(0);
    expect((json(failures.stdout).failures as { reason: string }[]).map((f) => f.reason)).toContain('role_forbidden');
    const table = await signet('clients', 'failures', clientId);
    expect(table.stdout).toMatch(/^AT +CODE +REQUEST +SOURCE IP +MESSAGE\n\S+ +role_forbidden +GET \/registry\/clients /);
  });

  test('registry errors are printed with status and code, and a route in the message comes with its command', async () => {
    const missing = await signetJson('clients', 'get', 'c_NobodyHasThisId000000');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^HTTP 404 not_found: /);
    expect(missing.stderr).toMatch(/GET \/registry\/clients.* \(`signet clients (list|find --fingerprint FP)`\)/);
  });

  test('a private key given as --public-key is refused before anything is sent (private_key_submitted, exit 1)', async () => {
    // A dead endpoint: had the CLI tried to send, it would say it could not reach it.
    const dead = `http://127.0.0.1:${await findFreePort()}`;
    const leaked = await signet('clients', 'create', '--name', 'oops', '--role', 'demo', '--network', '0.0.0.0', '--public-key', join(partnerDir(), 'private.pem'), '--endpoint', dead);
    expect(leaked.code).toBe(1);
    expect(leaked.stderr).toMatch(/^signet clients create: private_key_submitted: --public-key \S+private\.pem holds a PRIVATE key; nothing was sent\./);
    expect(leaked.stderr).not.toContain(readFileSync(join(partnerDir(), 'private.pkcs8.b64'), 'utf8').trim().slice(0, 40));
    for (const args of [['keys', 'add', clientId], ['clients', 'update', clientId], ['clients', 'find']]) {
      const result = await signet(...args, '--public-key', join(partnerDir(), 'private.pem'), '--endpoint', dead);
      expect({ args, code: result.code, stderr: result.stderr.split(':')[1] }).toEqual({ args, code: 1, stderr: ' private_key_submitted' });
    }
  });

  test('by default: a table for lists (no PEM), a summary for one client; --json gives the full answer', async () => {
    const table = await signet('clients', 'list', '--limit', '100');
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header.split(/ {2,}/)).toEqual(['CLIENT ID', 'NAME', 'STATUS', 'ROLES', 'KEYS', 'LAST USED', 'ACCOUNT']);
    // The partner's request above went through: the gateway's authorizer recorded its key's use.
    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
    expect(rows.find((r) => r.startsWith(clientId))?.split(/ {2,}/)).toEqual([clientId, expect.stringMatching(/partner$/), 'active', 'demo', '1', expect.stringMatching(iso), 'acct_default']);
    expect(rows.some((r) => r.split(/ {2,}/)[5] === 'never')).toBe(true);
    expect(table.stdout).not.toContain('BEGIN PUBLIC KEY');
    expect(table.stdout).toMatch(/\n\n\d+ clients\n$/);

    const summary = await signet('clients', 'get', clientId);
    expect(summary.stdout).toMatch(new RegExp(`^client +${clientId}\nname +.*partner\nstatus +active\n`));
    expect(summary.stdout).toMatch(/\nlast used \d{4}-\d{2}-\d{2}T\S+Z\n/);
    expect(summary.stdout).toMatch(/\n {2}fingerprint \S{43} {2}added \S+, last used \d{4}-\d{2}-\d{2}T\S+Z$/m);
    expect(summary.stdout).not.toContain('BEGIN PUBLIC KEY');
    const full = json((await signetJson('clients', 'get', clientId)).stdout);
    expect(summary.stdout).toContain((full.keys as { fingerprint: string }[])[0].fingerprint);
  });

  test('list searches, filters and sorts: --search, --status, --role, --sort, --order; the footer says how many match', async () => {
    const found = await signetJson('clients', 'list', '--search', 'PARTNER', '--status', 'active', '--role', 'demo', '--sort', 'last-used');
    expect(found.code).toBe(0);
    const body = json(found.stdout) as { clients: { clientId: string; lastUsedAt?: string }[]; total: number };
    expect(body.clients.map((c) => c.clientId)).toContain(clientId);
    expect(body.total).toBe(body.clients.length);
    expect(body.clients[0].lastUsedAt).toEqual(expect.any(String)); // most recent use first
    const table = await signet('clients', 'list', '--search', 'partner', '--sort', 'name', '--order', 'desc', '--limit', '1');
    expect(table.stdout).toMatch(/\n\n1 client shown of \d+ matching; more with --cursor \S+\n$|\n\n1 client of 1 matching\n$/);
    for (const bad of [['--sort', 'age'], ['--status', 'gone'], ['--order', 'up']]) expect((await signet('clients', 'list', ...bad)).code).toBe(2);
  });

  test('--endpoint and --admin reach any registry; a non-admin key is refused with 403 role_forbidden', async () => {
    const explicit = await signetJson('clients', 'get', clientId, '--endpoint', `${gateway.url}/`, '--admin', join(home, 'admin'));
    expect(explicit.code).toBe(0);
    const notAdmin = await signetJson('clients', 'list', '--admin', join(home, 'demo'));
    expect(notAdmin.code).toBe(1);
    expect(notAdmin.stderr).toMatch(/^HTTP 403 role_forbidden: /);
  });

  test('usage mistakes exit 2', async () => {
    expect((await signet('clients')).code).toBe(2);
    expect((await signetJson('clients', 'get')).code).toBe(2);
    expect((await signetJson('clients', 'create', '--name', 'x', '--role', 'demo', '--network', '0.0.0.0')).code).toBe(2);
    expect((await signetJson('clients', 'update', clientId)).code).toBe(2);
    expect((await signetJson('clients', 'list', '--bogus')).code).toBe(2);
  });

  describe('signet keys', () => {
    test('add a second key (with a not-after), then remove it', async () => {
      await signet('keygen', '--out', join(work, 'next'));
      const added = await signetJson('keys', 'add', clientId, '--public-key', join(work, 'next', 'public.pem'), '--not-after', '2099-01-01T00:00:00Z');
      expect(added.code).toBe(0);
      const keys = json(added.stdout).keys as { fingerprint: string; notAfter?: string }[];
      expect(keys).toHaveLength(2);
      const next = keys.find((k) => k.notAfter !== undefined)!;
      expect(next.notAfter).toBe('2099-01-01T00:00:00.000Z');

      const removed = await signetJson('keys', 'remove', clientId, next.fingerprint);
      expect(removed.code).toBe(0);
      expect((json(removed.stdout).keys as unknown[]).length).toBe(1);
    });

    test('removing the last key is refused (409 last_key)', async () => {
      const client = await signetJson('clients', 'get', clientId);
      expect([client.code, client.stderr]).toEqual([0, '']);
      const only = (json(client.stdout).keys as { fingerprint: string }[])[0];
      const result = await signetJson('keys', 'remove', clientId, only.fingerprint);
      expect([result.code, result.stderr]).toEqual([1, expect.stringMatching(/^HTTP 409 last_key: /)]);
      expect(result.stderr).toMatch(/^HTTP 409 last_key: /);
    });

    test('expiring lists keys older than N days (0: every key; default 90: none of these new ones)', async () => {
      const all = await signetJson('keys', 'expiring', '--older-than-days', '0', '--limit', '100');
      expect(all.code).toBe(0);
      expect(json(all.stdout)).toMatchObject({ olderThanDays: 0 });
      expect((json(all.stdout).keys as { clientId: string }[]).map((k) => k.clientId)).toContain(clientId);
      const due = await signetJson('keys', 'expiring');
      expect(json(due.stdout)).toEqual({ olderThanDays: 90, keys: [] });
      const table = await signet('keys', 'expiring', '--older-than-days', '0', '--limit', '100');
      expect(table.stdout).toMatch(new RegExp(`^CLIENT ID +FINGERPRINT +ADDED +AGE \\(DAYS\\) +NOT AFTER\n(.+\n)*${clientId} `));
      expect((await signet('keys', 'expiring')).stdout).toBe('no keys older than 90 days\n');
    });

    test('usage mistakes exit 2', async () => {
      expect((await signet('keys')).code).toBe(2);
      expect((await signetJson('keys', 'add', clientId)).code).toBe(2);
      expect((await signetJson('keys', 'remove', clientId)).code).toBe(2);
    });
  });
});

describe('signet rotate', () => {
  test('prints each of the four steps as it runs and counts the cache wait down (an injected clock: no real wait)', async () => {
    const lines: string[] = [];
    const slept: number[] = [];
    const saved = { home: process.env.SIGNET_HOME, port: process.env.PORT };
    process.env.SIGNET_HOME = home;
    process.env.PORT = String(gateway.port);
    try {
      const code = await rotate(['--settle-seconds', '60'], {
        print: (line) => lines.push(line),
        sleep: async (ms) => {
          slept.push(ms);
          lines.push(`(slept ${ms} ms)`);
        },
        interactive: false,
      });
      expect(code).toBe(0);
    } finally {
      process.env.SIGNET_HOME = saved.home;
      process.env.PORT = saved.port;
      if (saved.home === undefined) delete process.env.SIGNET_HOME;
      if (saved.port === undefined) delete process.env.PORT;
    }
    expect(slept.reduce((a, b) => a + b, 0)).toBeGreaterThan(55_000);
    const text = lines.join('\n');
    const order = [
      '[1/4] createSecret: make', '[1/4] createSecret: done', '[2/4] setSecret: add', '[2/4] setSecret: done', '[3/4] testSecret: check', '[3/4] testSecret: done',
      '[4/4] finishSecret: wait', 'waiting ', ' s left until', '(slept', 'waited: the gateway now knows the new key', '[4/4] finishSecret: done', 'is AWSCURRENT',
    ];
    const positions = order.map((needle) => text.indexOf(needle));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(lines.filter((l) => / s left until/.test(l)).length).toBeGreaterThanOrEqual(5);
    // The demo client signs with the new key at once.
    expect((await signet('request', '/api/echo')).code).toBe(0);
  });
});

describe('signet explain with --client-id and registry access', () => {
  test("checks the request under the client's registered profile and each key's registered algorithm, without --profile or --key-alg; a flag still wins", async () => {
    const dir = join(work, 'pss-explained');
    expect((await signet('keygen', '--out', dir)).code).toBe(0);
    const created = await signetJson('clients', 'create', '--name', 'pss rfc9421', '--role', 'demo', '--network', '0.0.0.0', '--public-key', join(dir, 'public.pem'), '--algorithm', 'rsa-pss-sha512', '--profile', 'rfc9421');
    const clientId = json(created.stdout).clientId as string;
    const url = `${gateway.url}/api/echo?x=1`;
    // Signed as an RFC 9421 signer may: PSS, no date.
    const signed = await signet('sign', '--key', join(dir, 'private.pkcs8.b64'), '--client-id', clientId, '--method', 'GET', '--url', url, '--alg', 'rsa-pss-sha512', '--legacy');
    expect(signed.code).toBe(0);
    const headers = signed.stdout.trim().split('\n').flatMap((line) => ['-H', line]);
    const request = ['--method', 'GET', '--url', url, ...headers];

    const fromRegistry = await signet('explain', '--client-id', clientId, ...request);
    expect(fromRegistry.stderr).toBe('');
    expect(fromRegistry.stdout).toContain(`signet explain: client ${clientId} as the registry at ${gateway.url} holds it: profile rfc9421 (registered); 1 registered key: `);
    expect(fromRegistry.stdout).toContain(' rsa-pss-sha512');
    expect(fromRegistry.stdout).toMatch(/\nresult: valid\n/);
    expect(fromRegistry.code).toBe(0);

    const withFile = await signet('explain', '--client-id', clientId, '--public-key', join(dir, 'public.pem'), ...request);
    expect(withFile.stdout).toMatch(/\nresult: valid\n/);

    const toldOtherwise = await signet('explain', '--client-id', clientId, '--profile', 'signet', ...request);
    expect(toldOtherwise.code).toBe(1);
    expect(toldOtherwise.stdout).toContain('profile signet (--profile)');
    expect(toldOtherwise.stdout).toMatch(/\nresult: invalid: missing_component/);

    const unknown = await signet('explain', '--client-id', 'c_NoSuchClientNoSuchCli0', ...request);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('signet explain: cannot read client c_NoSuchClientNoSuchCli0: the registry at');
    expect(unknown.stderr).toContain('HTTP 404 not_found');
  });
});

describe('audit trails', () => {
  test("accounts audit lists every change to the account and its clients, newest first, paged; clients audit one client's; help resolves", async () => {
    const created = await signet('accounts', 'create', '--name', 'Audit Co', '--ceiling', 'demo');
    const accountId = /^account +(acct_\S+)\n/.exec(created.stdout)![1];
    const dir = join(work, 'audited');
    const client = await signet('clients', 'create', '--name', 'Audited', '--role', 'demo', '--network', '127.0.0.1', '--out', dir, '--account', accountId);
    expect(client.code).toBe(0);
    const clientId = readFileSync(join(dir, 'client-id'), 'utf8').trim();
    const next = join(work, 'audited-next');
    expect((await signet('keygen', '--out', next)).code).toBe(0);
    expect((await signet('keys', 'add', clientId, '--public-key', join(next, 'public.pem'))).code).toBe(0);
    expect((await signet('clients', 'update', clientId, '--name', 'Audited Ltd')).code).toBe(0);

    const trail = await signet('accounts', 'audit', accountId);
    expect(trail.code).toBe(0);
    const rows = trail.stdout.split('\n').slice(1, 5).map((line) => line.split(/ {2,}/).slice(1, 3));
    expect(rows).toEqual([
      ['client.updated', clientId],
      ['key.added', clientId],
      ['client.created', clientId],
      ['account.created', accountId],
    ]);
    expect(trail.stdout).toMatch(/\n\n4 audit entries$/m);
    const paged = await signet('accounts', 'audit', accountId, '--limit', '1');
    expect(paged.stdout).toMatch(/\n\n1 audit entry shown; more with --cursor \S+/);
    const cursor = /--cursor (\S+)/.exec(paged.stdout)![1];
    expect((await signet('accounts', 'audit', accountId, '--limit', '1', '--cursor', cursor)).stdout.split('\n')[1]).toContain('key.added');

    const own = await signet('clients', 'audit', clientId);
    expect(own.code).toBe(0);
    expect(own.stdout.split('\n').slice(1, 4).map((line) => line.split(/ {2,}/)[1])).toEqual(['client.updated', 'key.added', 'client.created']);
    expect(own.stdout).toMatch(/\n\n3 audit entries$/m);
    expect(JSON.parse((await signet('clients', 'audit', clientId, '--json')).stdout)).toMatchObject({ clientId, entries: [{ action: 'client.updated' }, { action: 'key.added' }, { action: 'client.created' }] });

    const help = await signet('help', 'clients', 'audit');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^signet clients audit: /);
  });

  test('LAST USED follows a request at once on the local gateway (it records every second, not every 15 minutes)', async () => {
    const dir = join(work, 'last-used');
    expect((await signet('clients', 'create', '--name', 'Last used', '--role', 'demo', '--network', '127.0.0.1', '--out', dir)).code).toBe(0);
    const clientId = readFileSync(join(dir, 'client-id'), 'utf8').trim();
    expect((await signet('clients', 'get', clientId)).stdout).toMatch(/\nlast used never\n/);
    expect((await signet('request', '--client', dir, '/api/echo')).code).toBe(0);
    // The write is started, not awaited, by the authorizer: read it back a few times, no sleep.
    let shown = '';
    for (let attempt = 0; attempt < 5 && !/\nlast used 20\d\d-/.test(shown); attempt++) shown = (await signet('clients', 'get', clientId)).stdout;
    expect(shown).toMatch(/\nlast used 20\d\d-\d\d-\d\dT/);
  });
});

describe('signet accounts', () => {
  test('create prints a summary; list a table; audit a table of who changed what', async () => {
    const created = await signet('accounts', 'create', '--name', 'Table Co', '--ceiling', 'demo');
    expect(created.code).toBe(0);
    const accountId = /^account +(acct_\S+)\n/.exec(created.stdout)?.[1];
    expect(accountId).toBeDefined();
    expect(created.stdout).toMatch(/\nname +Table Co\nrole ceiling +demo\n/);
    const list = await signet('accounts', 'list', '--limit', '100');
    expect(list.stdout).toMatch(new RegExp(`^ACCOUNT ID +NAME +ROLE CEILING +VERSION\\n(.+\\n)*${accountId} +Table Co +demo +1\\n`));
    const audit = await signet('accounts', 'audit', accountId!);
    expect(audit.code).toBe(0);
    expect(audit.stdout).toMatch(/^AT +ACTION +RECORD +ACTOR +VERSION +CHANGED\n/);
  });
});

/**
 * A partner that publishes its keys: a JWKS served by this test on 127.0.0.1 (the local gateway
 * fetches loopback http sources), holding the public keys of the key pairs it names, or failing
 * with a status. The gateway fetches it when the client is registered and on `keys refresh`.
 */
describe('signet with a published key source (JWKS on this machine)', () => {
  let server: Server;
  let jwksUrl: string;
  /** What the source answers: the client directories whose public keys it lists, or an HTTP status. */
  const source = { keys: [] as string[], status: 200 };
  const keyDir = (name: string) => join(work, 'published', name);

  beforeAll(async () => {
    server = createServer((_req, res) => {
      if (source.status !== 200) return void res.writeHead(source.status, { 'content-type': 'text/plain' }).end('down\n');
      const keys = source.keys.map((name) => ({ ...createPublicKey(readFileSync(join(keyDir(name), 'public.pem'), 'utf8')).export({ format: 'jwk' }), kid: name, use: 'sig' }));
      res.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify({ keys }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
    for (const name of ['one', 'two']) expect((await signet('keygen', '--alg', 'ed25519', '--out', keyDir(name))).code).toBe(0);
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** A signed GET of /api/echo with one of the published key pairs, as the given client. */
  const call = (name: string, clientId: string) => signet('request', '--key', join(keyDir(name), 'private.pkcs8.b64'), '--client-id', clientId, '/api/echo');

  test('create --jwks-uri registers the keys fetched from it, show prints the source and each key; rotation at the source, a refresh, and a failing source that keeps the keys', async () => {
    source.keys = ['one'];
    const created = await signet('clients', 'create', '--name', 'JWKS partner', '--role', 'demo', '--network', '127.0.0.1', '--jwks-uri', jwksUrl);
    expect(created.code).toBe(0);
    const clientId = /^client +(c_\S+)/.exec(created.stdout)![1];
    expect(created.stdout).toContain(`\nsource    JWKS ${jwksUrl}\n`);
    expect(created.stdout).toMatch(/\n {6}kid one {2}thumbprint \S{43} {2}algorithm ed25519 {2}nbf - {2}exp -$/m);
    expect((await call('one', clientId)).code).toBe(0);

    // The partner rotates at its source: the new key verifies after a refresh, the old one stops.
    source.keys = ['two'];
    const refreshed = await signet('keys', 'refresh', clientId);
    expect(refreshed.code).toBe(0);
    expect(refreshed.stdout.split('\n')[0]).toMatch(new RegExp(`^refreshed ${clientId}: keys 1 added \\(\\S+\\), 1 removed \\(\\S+\\)`));
    expect(refreshed.stdout).toMatch(/\n {6}kid two {2}/);
    expect((await call('two', clientId)).code).toBe(0);
    const old = await call('one', clientId);
    expect(old.code).toBe(1);
    expect(old.stdout).toMatch(/^HTTP 401 /);

    // The source fails: nothing is removed, the error is recorded and shown, the command exits 1.
    source.status = 503;
    const failed = await signet('keys', 'refresh', clientId);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(new RegExp(`^refresh of ${clientId} FAILED: http_error \\(HTTP 503\\): `));
    expect(failed.stdout).toContain('nothing was removed: its key is kept and verifies until ');
    expect((await call('two', clientId)).code).toBe(0);
    const shown = await signet('clients', 'show', clientId);
    expect(shown.stdout).toMatch(/\n {2}failing since 20\S+ \(1 failed fetch\)\n {2}last error {4}http_error \(HTTP 503\): /);
    expect(shown.stdout).toMatch(/\n {2}kept until {4}20\S+ \(if no fetch succeeds by then/);
    source.status = 200;

    // Back to a registered key: the source and its state go.
    const back = await signetJson('clients', 'update', clientId, '--public-key', join(keyDir('one'), 'public.pem'));
    expect(back.code).toBe(0);
    expect(json(back.stdout).keySource).toBeUndefined();
    expect((await call('one', clientId)).code).toBe(0);
  });

  test('a source with no usable key is refused with the reason and nothing is created; --signature-agent gives the web-bot-auth profile', async () => {
    source.keys = [];
    const refused = await signet('clients', 'create', '--name', 'Empty source', '--role', 'demo', '--network', '127.0.0.1', '--jwks-uri', jwksUrl);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^HTTP 400 key_source_refused: .*127\.0\.0\.1/);
    expect(json((await signetJson('clients', 'list', '--search', 'Empty source')).stdout).clients).toEqual([]);

    // An agent's origin: its directory is fetched at the well-known path; the client gets the agent profile.
    source.keys = ['two'];
    const origin = new URL(jwksUrl).origin;
    const agent = await signet('clients', 'create', '--name', 'Agent', '--role', 'demo', '--network', '127.0.0.1', '--signature-agent', origin);
    expect(agent.code).toBe(0);
    expect(agent.stdout).toContain('\nprofile   web-bot-auth\n');
    expect(agent.stdout).toContain(`\nsource    Web Bot Auth agent ${origin} (its key directory)\n  fetched from  ${origin}/.well-known/http-message-signatures-directory\n`);
  });

  test('argument mistakes are named before anything is sent (exit 2)', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['clients', 'create', '--name', 'x', '--role', 'demo', '--network', '127.0.0.1'], /give one of: --public-key FILE .*, --jwks-uri URL or --signature-agent ORIGIN/],
      [['clients', 'create', '--name', 'x', '--role', 'demo', '--network', '127.0.0.1', '--public-key', 'k.pem', '--jwks-uri', 'https://p.example/j'], /not --public-key and --jwks-uri together/],
      [['clients', 'create', '--name', 'x', '--role', 'demo', '--network', '127.0.0.1', '--jwks-uri', 'https://p.example/j', '--signature-agent', 'https://a.example'], /give --jwks-uri URL or --signature-agent ORIGIN, not both/],
      [['clients', 'create', '--name', 'x', '--role', 'demo', '--network', '127.0.0.1', '--jwks-uri', 'https://p.example/j', '--algorithm', 'ed25519'], /--algorithm goes with --public-key only/],
      [['clients', 'create', '--name', 'x', '--role', 'demo', '--network', '127.0.0.1', '--signature-agent', 'https://agent.example/bot'], /--signature-agent: The signature agent is an origin/],
      [['clients', 'create', '--name', 'x', '--role', 'demo', '--network', '127.0.0.1', '--jwks-uri', 'http://partner.example/jwks.json'], /--jwks-uri: The JWKS URI uses http; key sources are fetched over https, or http only to 127\.0\.0\.1 or localhost/],
      [['clients', 'update', 'c_x', '--public-key', 'k.pem', '--signature-agent', 'https://a.example'], /give --public-key FILE or --signature-agent, not both/],
      [['keys', 'refresh'], /keys refresh takes one CLIENT_ID/],
    ];
    for (const [args, message] of cases) {
      const result = await signet(...args);
      expect({ args, code: result.code, stderr: message.test(result.stderr) }).toEqual({ args, code: 2, stderr: true });
    }
  });
});


/**
 * A Web Bot Auth agent as the world runs one: its key directory served by this test on 127.0.0.1
 * at the well-known path (signed with its own keys, as a publisher does, or not), the client
 * registered by the agent's origin, and requests signed with Cloudflare's `web-bot-auth` npm
 * signer exactly as its README shows (keyid = the key's JWK thumbprint, `@authority` covered,
 * created + expires, tag web-bot-auth), sent to `npm start`'s gateway.
 */
describe("a Web Bot Auth agent signing with Cloudflare's web-bot-auth package", () => {
  /** One agent: its Ed25519 key pair and its directory server. */
  interface Agent {
    readonly origin: string;
    readonly privateJwk: JsonWebKey;
    readonly server: Server;
  }
  const agents: Agent[] = [];

  /** Starts an agent whose directory lists its public key, its answer signed by that key when `signed`. */
  async function startAgent(signed: boolean): Promise<Agent> {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    let origin = '';
    const server = createServer((req, res) => {
      if (req.url !== KEY_DIRECTORY_PATH) return void res.writeHead(404).end();
      const body = JSON.stringify({ keys: [publicKey.export({ format: 'jwk' })] });
      const headers: Record<string, string> = { 'content-type': KEY_DIRECTORY_MEDIA_TYPE };
      const answer = (extra: Record<string, string>) => res.writeHead(200, { ...headers, ...extra }).end(body);
      if (!signed) return void answer({});
      void signDirectory(`${origin}${KEY_DIRECTORY_PATH}`, [privateKey], Math.floor(Date.now() / 1000)).then((s) => answer({ signature: s.signature, 'signature-input': s.signatureInput }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const agent = { origin, privateJwk: privateKey.export({ format: 'jwk' }) as JsonWebKey, server };
    agents.push(agent);
    return agent;
  }

  afterAll(() => Promise.all(agents.map((a) => new Promise<void>((resolve) => a.server.close(() => resolve())))));

  /** A GET of /api/echo signed as Cloudflare's README signs, with a Signature-Agent header when given. */
  async function agentCall(agent: Agent, signatureAgent?: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const url = `${gateway.url}/api/echo`;
    const extra: Record<string, string> = signatureAgent === undefined ? {} : { 'Signature-Agent': signatureAgent };
    const request = new Request(url, { headers: extra });
    const now = new Date();
    const headers = await signatureHeaders(request, await signerFromJWK(agent.privateJwk), { created: now, expires: new Date(now.getTime() + 300_000) });
    const response = await fetch(url, { headers: { ...extra, Signature: headers['Signature'], 'Signature-Input': headers['Signature-Input'] } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  test.each([
    ['a directory that signs its answer', true],
    ['a directory that does not sign it', false],
  ])('registered by its origin (%s), the agent gets through as its own client under web-bot-auth; a Signature-Agent naming another agent is refused', async (_, signed) => {
    const agent = await startAgent(signed);
    const created = await signetJson('clients', 'create', '--name', `Agent ${signed ? 'signed' : 'unsigned'}`, '--role', 'demo', '--network', '127.0.0.1', '--signature-agent', agent.origin);
    expect(created.code).toBe(0);
    const client = json(created.stdout) as { clientId: string; profile: string; keys: { thumbprint: string }[] };
    expect(client.profile).toBe('web-bot-auth');

    const plain = await agentCall(agent);
    expect(plain).toEqual({
      status: 200,
      body: expect.objectContaining({ authorizer: expect.objectContaining({ clientId: client.clientId, signetProfile: 'web-bot-auth', signetRequestBound: 'false' }) }),
    });
    const announced = await agentCall(agent, `"${agent.origin}"`);
    expect(announced.status).toBe(200);
    expect(announced.body).toMatchObject({ authorizer: { clientId: client.clientId } });

    const other = await agentCall(agent, '"https://another-agent.example"');
    expect(other).toEqual({ status: 401, body: expect.objectContaining({ error: 'signature_agent_mismatch' }) });
  });
});
