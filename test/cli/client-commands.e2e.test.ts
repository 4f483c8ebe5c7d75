/**
 * `signet request`, `signet clients` and `signet keys`, run as a user runs them (the bin, in a
 * child process), against `npm start`'s gateway in another child process with a temporary
 * SIGNET_HOME. Defaults (demo client, admin key, local endpoint) come from SIGNET_HOME and PORT.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from '../../local/dynamodb-local';
import { GatewayProcess, gatewayEnv, runSignet, startGatewayProcess } from '../local/gateway-process';

jest.setTimeout(240_000);

let home: string;
let gateway: GatewayProcess;
let env: NodeJS.ProcessEnv;
let work: string;

function signet(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  return runSignet(args, env);
}

function json(stdout: string): Record<string, unknown> {
  return JSON.parse(stdout) as Record<string, unknown>;
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'signet-cli-home-'));
  work = mkdtempSync(join(tmpdir(), 'signet-cli-work-'));
  gateway = await startGatewayProcess(home);
  env = gatewayEnv(home, gateway.port);
});

afterAll(async () => {
  await gateway?.stop();
  rmSync(home, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('signet request', () => {
  test('signs as the demo client by default and prints the status line and the body (exit 0)', () => {
    const result = signet('request', `${gateway.url}/api/echo?x=1`);
    expect(result.code).toBe(0);
    const [status, body] = result.stdout.split('\n');
    expect(status).toBe('HTTP 200 OK');
    expect(JSON.parse(body)).toMatchObject({ method: 'GET', query: 'x=1', authorizer: { roles: 'demo' } });
  });

  test('-X POST -d @FILE sends the file bytes as JSON; -H adds headers; -i prints the response headers', () => {
    const file = join(work, 'order.json');
    writeFileSync(file, '{"order": 7,\n "items": ["a"]}\n');
    const result = signet('request', '--client', join(home, 'demo'), '-X', 'post', '-d', `@${file}`, '-H', 'X-Trace: t1', '-i', `${gateway.url}/api/echo`);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^HTTP 200 OK\n(.+\n)*content-type: application\/json\n/);
    const body = JSON.parse(result.stdout.split('\n\n')[1]) as Record<string, unknown>;
    expect(body).toMatchObject({ method: 'POST', body: readFileSync(file, 'utf8') });
  });

  test('--key FILE --client-id ID works like --client DIR; a path alone goes to the local gateway', () => {
    const clientId = readFileSync(join(home, 'demo', 'client-id'), 'utf8').trim();
    const result = signet('request', '--key', join(home, 'demo', 'private.pkcs8.b64'), '--client-id', clientId, '-d', 'plain text', '/api/echo');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout.split('\n')[1])).toMatchObject({ method: 'POST', body: 'plain text', authorizer: { clientId } });
  });

  test('a refusal prints its status and code and exits 1', () => {
    const result = signet('request', `${gateway.url}/registry/clients`);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^HTTP 403 Forbidden\n/);
    expect(JSON.parse(result.stdout.split('\n')[1])).toMatchObject({ error: 'role_forbidden' });
  });

  test('an unreachable gateway says to start it (exit 1); bad usage exits 2', async () => {
    const deadPort = await findFreePort();
    const down = runSignet(['request', '/api/echo'], gatewayEnv(home, deadPort));
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/could not reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)\. Is the local gateway running\? Start it with `npm start`/);
    expect(signet('request').code).toBe(2);
    const both = signet('request', '--client', join(home, 'demo'), '--key', 'k', '/api/echo');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('not both');
  });
});

describe('signet clients', () => {
  let clientId: string;
  const partnerDir = (): string => join(work, 'partner');

  beforeAll(() => {
    const created = signet('clients', 'create', '--name', 'cli partner', '--role', 'demo', '--network', '127.0.0.1', '--network', '::1', '--out', partnerDir());
    expect(created.code).toBe(0);
    const body = json(created.stdout);
    expect(body).toMatchObject({ name: 'cli partner', roles: ['demo'], networkWhitelist: ['127.0.0.1', '::1'], registration: 'created', version: 1 });
    clientId = body.clientId as string;
  });

  test('create --out writes a usable client directory', () => {
    expect(readFileSync(join(partnerDir(), 'client-id'), 'utf8').trim()).toBe(clientId);
    expect(statSync(join(partnerDir(), 'private.pem')).mode & 0o777).toBe(0o600);
    const result = signet('request', '--client', partnerDir(), '/api/echo');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`"clientId":"${clientId}"`);
  });

  test('create with --public-key registers an existing key; the same key again is skipped', () => {
    signet('keygen', '--out', join(work, 'own'));
    const first = signet('clients', 'create', '--name', 'own key', '--role', 'demo', '--network', '0.0.0.0', '--public-key', join(work, 'own', 'public.pem'));
    expect(first.code).toBe(0);
    const again = signet('clients', 'create', '--name', 'own key again', '--role', 'demo', '--network', '0.0.0.0', '--public-key', join(work, 'own', 'public.pem'));
    expect(again.code).toBe(0);
    expect(json(again.stdout)).toMatchObject({ clientId: json(first.stdout).clientId, registration: 'skipped' });
  });

  test('list and get', () => {
    const list = signet('clients', 'list', '--limit', '100');
    expect(list.code).toBe(0);
    expect((json(list.stdout).clients as { clientId: string }[]).map((c) => c.clientId)).toContain(clientId);
    const get = signet('clients', 'get', clientId);
    expect(get.code).toBe(0);
    expect(json(get.stdout)).toMatchObject({ clientId, status: 'active' });
  });

  test('update reads the version itself; a stale --version is refused with 409 version_conflict', () => {
    const updated = signet('clients', 'update', clientId, '--name', 'renamed partner', '--network', '127.0.0.1', '--network', '10.0.0.0/8');
    expect(updated.code).toBe(0);
    expect(json(updated.stdout)).toMatchObject({ name: 'renamed partner', networkWhitelist: ['127.0.0.1', '10.0.0.0/8'], version: 2 });
    const stale = signet('clients', 'update', clientId, '--version', '1', '--name', 'lost update');
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/^HTTP 409 version_conflict: /);
  });

  test('disable and enable', () => {
    const disabled = signet('clients', 'disable', clientId);
    expect(disabled.code).toBe(0);
    expect(json(disabled.stdout).status).toBe('disabled');
    const enabled = signet('clients', 'enable', clientId);
    expect(enabled.code).toBe(0);
    expect(json(enabled.stdout).status).toBe('active');
  });

  test('find by public key and by fingerprint', () => {
    const byKey = signet('clients', 'find', '--public-key', join(partnerDir(), 'public.pem'));
    expect(byKey.code).toBe(0);
    const found = (json(byKey.stdout).clients as { clientId: string; keys: { fingerprint: string }[] }[])[0];
    expect(found.clientId).toBe(clientId);
    const byFingerprint = signet('clients', 'find', '--fingerprint', found.keys[0].fingerprint);
    expect((json(byFingerprint.stdout).clients as { clientId: string }[])[0].clientId).toBe(clientId);
  });

  test('failures lists the reasons a client was refused', () => {
    const refused = signet('request', '--client', partnerDir(), '/registry/clients');
    expect(refused.code).toBe(1);
    const failures = signet('clients', 'failures', clientId);
    expect(failures.code).toBe(0);
    expect((json(failures.stdout).failures as { reason: string }[]).map((f) => f.reason)).toContain('role_forbidden');
  });

  test('registry errors are printed with status and code: 404 not_found, 400 private_key_submitted', () => {
    const missing = signet('clients', 'get', 'c_NobodyHasThisId000000');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^HTTP 404 not_found: /);
    const leaked = signet('clients', 'create', '--name', 'oops', '--role', 'demo', '--network', '0.0.0.0', '--public-key', join(partnerDir(), 'private.pem'));
    expect(leaked.code).toBe(1);
    expect(leaked.stderr).toMatch(/^HTTP 400 private_key_submitted: /);
    expect(leaked.stderr).not.toContain(readFileSync(join(partnerDir(), 'private.pkcs8.b64'), 'utf8').trim().slice(0, 40));
  });

  test('--endpoint and --admin reach any registry; a non-admin key is refused with 403 role_forbidden', () => {
    const explicit = signet('clients', 'get', clientId, '--endpoint', `${gateway.url}/`, '--admin', join(home, 'admin'));
    expect(explicit.code).toBe(0);
    const notAdmin = signet('clients', 'list', '--admin', join(home, 'demo'));
    expect(notAdmin.code).toBe(1);
    expect(notAdmin.stderr).toMatch(/^HTTP 403 role_forbidden: /);
  });

  test('usage mistakes exit 2', () => {
    expect(signet('clients').code).toBe(2);
    expect(signet('clients', 'get').code).toBe(2);
    expect(signet('clients', 'create', '--name', 'x', '--role', 'demo', '--network', '0.0.0.0').code).toBe(2);
    expect(signet('clients', 'update', clientId).code).toBe(2);
    expect(signet('clients', 'list', '--bogus').code).toBe(2);
  });

  describe('signet keys', () => {
    test('add a second key (with a not-after), then remove it', () => {
      signet('keygen', '--out', join(work, 'next'));
      const added = signet('keys', 'add', clientId, '--public-key', join(work, 'next', 'public.pem'), '--not-after', '2099-01-01T00:00:00Z');
      expect(added.code).toBe(0);
      const keys = json(added.stdout).keys as { fingerprint: string; notAfter?: string }[];
      expect(keys).toHaveLength(2);
      const next = keys.find((k) => k.notAfter !== undefined)!;
      expect(next.notAfter).toBe('2099-01-01T00:00:00.000Z');

      const removed = signet('keys', 'remove', clientId, next.fingerprint);
      expect(removed.code).toBe(0);
      expect((json(removed.stdout).keys as unknown[]).length).toBe(1);
    });

    test('removing the last key is refused (409 last_key)', () => {
      const only = (json(signet('clients', 'get', clientId).stdout).keys as { fingerprint: string }[])[0];
      const result = signet('keys', 'remove', clientId, only.fingerprint);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^HTTP 409 last_key: /);
    });

    test('expiring lists keys older than N days (0: every key; default 90: none of these new ones)', () => {
      const all = signet('keys', 'expiring', '--older-than-days', '0', '--limit', '100');
      expect(all.code).toBe(0);
      expect(json(all.stdout)).toMatchObject({ olderThanDays: 0 });
      expect((json(all.stdout).keys as { clientId: string }[]).map((k) => k.clientId)).toContain(clientId);
      const due = signet('keys', 'expiring');
      expect(json(due.stdout)).toEqual({ olderThanDays: 90, keys: [] });
    });

    test('usage mistakes exit 2', () => {
      expect(signet('keys').code).toBe(2);
      expect(signet('keys', 'add', clientId).code).toBe(2);
      expect(signet('keys', 'remove', clientId).code).toBe(2);
    });
  });
});
