/**
 * End to end over real HTTP against `npm start`'s gateway (local/main.ts in a child process, a
 * temporary SIGNET_HOME, a free port): the deployed authorizer, registry and echo handlers on
 * DynamoDB Local. A client is registered through the registry API signed with the bootstrapped
 * admin key; then signed GET and POST pass, and each kind of bad request is refused with the
 * status and code of lambda/core/errors.ts. Finally the gateway is stopped (no DynamoDB Local
 * left), started again on the same state (everything reused), and stopped again. This file's
 * gateway starts its own DynamoDB Local, as a plain `npm start` does; the last tests give one a
 * DynamoDB that is already running (SIGNET_DYNAMODB_ENDPOINT: the test run's), as every other
 * gateway test does, and one that does not answer.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run as rotate } from '../../bin/commands/rotate';
import { spkiPemOf } from '../../lambda/core/keys';
import { readClientDir } from '../../local/client-dir';
import { readLocalState } from '../../local/local-state';
import { ipv6LoopbackPort } from '../support/network';
import { localPaths } from '../../local/signet-home';
import { startLocalGateway } from '../../local/local-gateway';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { dynamoDbLocalClientConfig, findFreePort } from '../../local/dynamodb-local';
import { readStandInCredentials } from '../../local/secrets-manager-credentials';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { startTestDynamoDb } from '../support/dynamodb';
import { exampleRunners, runExample } from '../examples/example-runners';
import { testNeeding } from '../support/prerequisites';
import { GatewayProcess, TestSigner, gatewayTableName, isAlive, sendSigned, startGatewayProcess, waitUntilGone } from './gateway-process';
import { nextTestKey } from '../support/test-keys';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

jest.setTimeout(240_000);

let home: string;
let gateway: GatewayProcess;
let admin: TestSigner;
let demo: TestSigner;
/** The client registered through the registry API in the first test. */
let partner: TestSigner & { fingerprint: string };

function signerOf(dir: string): TestSigner {
  const client = readClientDir(dir);
  return { clientId: client.clientId, privateKey: client.key.key };
}

async function register(body: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  return sendSigned(admin, `${gateway.url}/registry/clients`, { body: JSON.stringify(body) });
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'signet-home-'));
  gateway = await startGatewayProcess(home, { dynamoDb: 'own' });
  admin = signerOf(join(home, 'admin'));
  demo = signerOf(join(home, 'demo'));
});

afterAll(async () => {
  await gateway?.stop('SIGKILL');
  rmSync(home, { recursive: true, force: true });
});

describe('first start', () => {
  test('prints ready with a copy-paste request for the demo client, and writes the client directories and local.json', () => {
    expect(gateway.url).toBe(`http://127.0.0.1:${gateway.port}`);
    expect(gateway.output()).toContain(`npm run -s signet -- request --client ${join(home, 'demo')} '${gateway.url}/api/echo?x=1'`);
    expect(gateway.output()).toMatch(/admin client c_\S+ \(registry:admin, created\)/);
    // Unlike a deployment, it fetches key sources on this machine, and says so in one line.
    expect(gateway.output()).toContain('\n  key sources: http://127.0.0.1 and http://localhost accepted besides https (local gateway only); refreshed every 15 min\n');
    for (const who of ['admin', 'demo']) {
      for (const file of ['private.pkcs8.b64', 'private.pem', 'public.pem', 'client-id']) expect(existsSync(join(home, who, file))).toBe(true);
      expect(statSync(join(home, who, 'private.pem')).mode & 0o777).toBe(0o600);
      expect(statSync(join(home, who, 'private.pkcs8.b64')).mode & 0o777).toBe(0o600);
    }
    const state = readLocalState(localPaths(home));
    expect(Object.keys(JSON.parse(readFileSync(join(home, 'local.json'), 'utf8')))).toEqual([
      'dynamoDbEndpoint',
      'secretsManagerEndpoint',
      'tableName',
      'demoSecretId',
      'region',
      'clientCacheTtlMs',
      'rotationSettleMs',
      'gatewayUrl',
      'keySourceKeepDays',
      'dynamoDbOrigin',
    ]);
    // keySourceKeepDays: `signet rotate` counts the operators that can still sign (last_admin) as the gateway does.
    expect(state).toMatchObject({ tableName: 'signet-local-clients', demoSecretId: 'signet/local/demo', region: 'us-east-1', clientCacheTtlMs: 60_000, rotationSettleMs: 0, gatewayUrl: gateway.url, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS, dynamoDbOrigin: 'started' });
    expect(gateway.dynamoDbPid).toEqual(expect.any(Number));
    expect(isAlive(gateway.dynamoDbPid!)).toBe(true);
  });

  test("its DynamoDB Local answers only requests signed with the home's access key id: another user of the machine cannot write the registry's table", async () => {
    const { dynamoDbEndpoint, tableName } = readLocalState(localPaths(home));
    const send = async (credentials?: { accessKeyId: string; secretAccessKey: string }) => {
      const client = new DynamoDBClient({ ...dynamoDbLocalClientConfig(dynamoDbEndpoint, credentials), maxAttempts: 1 });
      try {
        return await client.send(new DescribeTableCommand({ TableName: tableName }));
      } finally {
        client.destroy();
      }
    };
    // Any key id but the home's (the placeholder every DynamoDB Local client used to send, or a guess): refused.
    await expect(send()).rejects.toMatchObject({ name: 'UnrecognizedClientException', $metadata: { httpStatusCode: 403 } });
    await expect(send({ accessKeyId: 'SIGNETLOCALGUESSGUESSGU', secretAccessKey: 'x' })).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
    // The key id is in the JVM's environment, which other users cannot read, not in its arguments, which they can.
    expect(readFileSync(`/proc/${gateway.dynamoDbPid}/cmdline`, 'utf8')).not.toContain(readStandInCredentials(join(home, 'secrets-manager-credentials.json')).accessKeyId);
    const answer = await send(readStandInCredentials(join(home, 'secrets-manager-credentials.json')));
    expect(answer.Table?.TableName).toBe(tableName);
  });

  test("[::1] at the gateway's port is the gateway's too: a browser that resolves localhost to ::1 is sent to 127.0.0.1", async () => {
    const port = new URL(gateway.url).port;
    // A machine without an IPv6 loopback has nothing there to hold (the gateway started all the same).
    if ((await ipv6LoopbackPort()) === undefined) return expect(fetch(`http://[::1]:${port}/portal/`)).rejects.toThrow();
    const answer = await fetch(`http://[::1]:${port}/portal/?x=1`, { redirect: 'manual' });
    expect({ status: answer.status, location: answer.headers.get('location') }).toEqual({ status: 308, location: `${gateway.url}/portal/?x=1` });
  });

  test('the demo client calls /api/echo out of the box', async () => {
    const answer = await sendSigned(demo, `${gateway.url}/api/echo?x=1`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ method: 'GET', path: '/api/echo', query: 'x=1', authorizer: { clientId: demo.clientId, roles: 'demo' } });
  });
});

describe('a client registered through the registry API', () => {
  beforeAll(async () => {
    const pair = nextTestKey();
    const created = await register({ name: 'e2e partner', networkWhitelist: ['127.0.0.1', '::1'], publicKey: spkiPemOf(pair.publicKey), roles: ['demo'] });
    expect(created.status).toBe(201);
    expect(created.body.registration).toBe('created');
    partner = { clientId: created.body.clientId as string, privateKey: pair.key, fingerprint: pair.fingerprint };
  });

  test('signed GET with a query succeeds', async () => {
    const answer = await sendSigned(partner, `${gateway.url}/api/echo?b=2&a=1&a=3`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ method: 'GET', query: 'b=2&a=1&a=3', authorizer: { clientId: partner.clientId, keyFingerprint: partner.fingerprint } });
  });

  test('signed POST with a body succeeds, and the backend receives the exact body and its signed digest', async () => {
    const body = JSON.stringify({ order: 42, note: 'ünïcødé' });
    const answer = await sendSigned(partner, `${gateway.url}/api/echo`, { body });
    expect(answer.status).toBe(200);
    expect(answer.body.body).toBe(body);
    expect((answer.body.authorizer as Record<string, string>).contentDigest).toMatch(/^sha-256=:[A-Za-z0-9+/]+=*:$/);
  });

  test('a tampered body is refused by the backend: 400 digest_mismatch', async () => {
    const answer = await sendSigned(partner, `${gateway.url}/api/echo`, { body: '{"amount":1}', sentBody: '{"amount":9}' });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('digest_mismatch');
  });

  test('a wrong key is refused: 401 signature_mismatch, with x-signet-error and a request id', async () => {
    const answer = await sendSigned({ clientId: partner.clientId, privateKey: nextTestKey().key }, `${gateway.url}/api/echo`);
    expect(answer.status).toBe(401);
    expect(answer.code).toBe('signature_mismatch');
    expect(answer.body).toMatchObject({ error: 'signature_mismatch', message: expect.any(String), requestId: expect.any(String) });
  });

  test('an unknown client is refused: 401 unknown_client', async () => {
    const answer = await sendSigned({ clientId: 'c_NobodyHasThisId000000', privateKey: partner.privateKey }, `${gateway.url}/api/echo`);
    expect(answer.status).toBe(401);
    expect(answer.code).toBe('unknown_client');
  });

  test('a stale created is refused: 401 expired', async () => {
    const answer = await sendSigned(partner, `${gateway.url}/api/echo`, { created: Math.floor(Date.now() / 1000) - 3_600 });
    expect(answer.status).toBe(401);
    expect(answer.code).toBe('expired');
  });

  test('a role without permission is refused: 403 role_forbidden', async () => {
    const answer = await sendSigned(partner, `${gateway.url}/registry/clients`);
    expect(answer.status).toBe(403);
    expect(answer.code).toBe('role_forbidden');
  });

  test('an IP outside the whitelist is refused: 403 ip_not_allowed', async () => {
    const pair = nextTestKey();
    const created = await register({ name: 'elsewhere', networkWhitelist: ['203.0.113.0/24'], publicKey: spkiPemOf(pair.publicKey), roles: ['demo'] });
    expect(created.status).toBe(201);
    const answer = await sendSigned({ clientId: created.body.clientId as string, privateKey: pair.key }, `${gateway.url}/api/echo`);
    expect(answer.status).toBe(403);
    expect(answer.code).toBe('ip_not_allowed');
  });

  test('an unsigned request is refused with 401 missing_signature; an unknown route is 404 before any check', async () => {
    const unsigned = await fetch(`${gateway.url}/api/echo`);
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get('x-signet-error')).toBe('missing_signature');
    const nowhere = await fetch(`${gateway.url}/nowhere`);
    expect(nowhere.status).toBe(404);
    expect(nowhere.headers.get('x-signet-error')).toBeNull();
  });

  test('a registry write applies to the next request: disabled, the cached partner is refused at once; enabled, it passes again', async () => {
    const pair = nextTestKey();
    const created = await register({ name: 'to disable', networkWhitelist: ['127.0.0.1', '::1'], publicKey: spkiPemOf(pair.publicKey), roles: ['demo'] });
    const signer = { clientId: created.body.clientId as string, privateKey: pair.key };
    expect((await sendSigned(signer, `${gateway.url}/api/echo`)).status).toBe(200); // now cached (60 s TTL)
    const disable = await sendSigned(admin, `${gateway.url}/registry/clients/${signer.clientId}/disable`, { method: 'POST', body: '{}' });
    expect(disable.status).toBe(200);
    expect(disable.headers.get('x-signet-authorizer-cache-ttl')).toBe('0');
    const refused = await sendSigned(signer, `${gateway.url}/api/echo`);
    expect(refused.code).toBe('client_disabled');
    expect(refused.status).toBe(401);
    expect((await sendSigned(admin, `${gateway.url}/registry/clients/${signer.clientId}/enable`, { method: 'POST', body: '{}' })).status).toBe(200);
    expect((await sendSigned(signer, `${gateway.url}/api/echo`)).status).toBe(200);
  });

  test("the partner's refusals are readable through the registry's auth-failures route", async () => {
    const answer = await sendSigned(admin, `${gateway.url}/registry/clients/${partner.clientId}/auth-failures`);
    expect(answer.status).toBe(200);
    // Refused after the partner's own key signed: an entry. Refused before (anyone could send
    // those naming the partner): a count per reason and hour.
    const reasons = (answer.body.failures as { reason: string }[]).map((f) => f.reason);
    expect(reasons).toEqual(['role_forbidden']);
    const windows = (answer.body.unauthenticated as { windows: { counts: Record<string, number> }[] }).windows;
    const counted = new Set(windows.flatMap((w) => Object.keys(w.counts)));
    expect([...counted].sort()).toEqual(expect.arrayContaining(['expired', 'signature_mismatch']));
  });
});

describe("the gateway's terminal", () => {
  test('one short line per request (the refusal code when refused), no JSON log lines unless --verbose, and no Node-version notice from the pinned SDK', () => {
    const out = gateway.output();
    expect(out).toMatch(/\nGET \/api\/echo 200 \d+ms\n/);
    expect(out).toMatch(/\nGET \/api\/echo 401 signature_mismatch \d+ms\n/);
    expect(out).not.toContain('"level":"INFO"');
    expect(out).not.toContain('NodeVersionSupportWarning');
    expect(out).toContain("Each request below on one line; `npm start -- --verbose` adds the handlers' JSON log lines.");
  });
});

describe('the partner examples (examples/) against the gateway', () => {
  describe.each(exampleRunners().map((runner) => [runner.label, runner] as const))('%s', (_label, runner) => {
    const maybe = testNeeding(runner.needs);

    maybe(`--send: a signed GET and POST as the demo client are answered 200`, () => {
      const keyFile = join(home, 'demo', 'private.pkcs8.b64');
      const get = runExample(runner, ['--send', keyFile, demo.clientId, 'GET', `${gateway.url}/api/echo?from=example`]);
      expect(get.stdout.split('\n')[0]).toBe('HTTP 200');
      expect(get.code).toBe(0);
      expect(JSON.parse(get.stdout.split('\n')[1])).toMatchObject({ query: 'from=example', authorizer: { clientId: demo.clientId } });

      const bodyFile = join(home, `example-body-${runner.label.length}.json`);
      writeFileSync(bodyFile, '{"from": "example"}');
      const post = runExample(runner, ['--send', keyFile, demo.clientId, 'POST', `${gateway.url}/api/echo`, bodyFile]);
      expect(post.stdout.split('\n')[0]).toBe('HTTP 200');
      expect(JSON.parse(post.stdout.split('\n')[1])).toMatchObject({ method: 'POST', body: '{"from": "example"}' });
    });
  });

  testNeeding('openssl')('sign.sh --send to localhost: refused, and told to call 127.0.0.1 as `signet request` tells', () => {
    const sh = exampleRunners().find((runner) => runner.label.includes('sign.sh'))!;
    const result = runExample(sh, ['--send', join(home, 'demo', 'private.pkcs8.b64'), demo.clientId, 'GET', `http://localhost:${gateway.port}/api/echo?x=1`]);
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n')[0]).toBe('HTTP 401');
    expect(result.stderr).toContain(`note: the request was signed for http://localhost:${gateway.port}/api/echo?x=1, but a local Signet gateway rebuilds the URL with 127.0.0.1 (its SIGNET_PUBLIC_BASE_URL), so the signature cannot match: call http://127.0.0.1:${gateway.port}/api/echo?x=1`);
  });
});

describe('one gateway per SIGNET_HOME', () => {
  test('a second gateway on the same state refuses to start and starts nothing', async () => {
    await expect(startGatewayProcess(home, { dynamoDb: 'own' })).rejects.toThrow(/Another local gateway \(pid \d+\) is using this SIGNET_HOME/);
    const again = await sendSigned(demo, `${gateway.url}/api/echo`);
    expect(again.status).toBe(200);
  });
});

describe('signet rotate next to npm start', () => {
  test('signs with the stand-in credentials npm start wrote ($SIGNET_HOME/secrets-manager-credentials.json, 0600), rotates the demo key with no wait, and says so; the gateway (60 s client cache) takes the new key on the next request', async () => {
    expect(statSync(join(home, 'secrets-manager-credentials.json')).mode & 0o777).toBe(0o600);
    const before = readClientDir(join(home, 'demo'));
    // The gateway holds the demo's record in its cache (60 s) before the rotation.
    expect((await sendSigned(demo, `${gateway.url}/api/echo`)).status).toBe(200);
    const savedHome = process.env.SIGNET_HOME;
    process.env.SIGNET_HOME = home;
    const lines: string[] = [];
    const slept: number[] = [];
    try {
      expect(await rotate([], { print: (line) => lines.push(line), sleep: async (ms) => void slept.push(ms), interactive: false })).toBe(0);
    } finally {
      if (savedHome === undefined) delete process.env.SIGNET_HOME;
      else process.env.SIGNET_HOME = savedHome;
    }
    expect(slept).toEqual([]);
    const text = lines.join('\n');
    expect(text).toContain('[4/4] finishSecret: make the new key AWSCURRENT and start the old key\'s grace (no wait: the local gateway learns the new key at once) ...');
    expect(text).toContain('no wait: the local gateway (npm start) forgot its cached client records when the new key became AWSCURRENT');
    expect(text).not.toMatch(/waiting|s left until/);
    const after = readClientDir(join(home, 'demo'));
    expect(after.clientId).toBe(before.clientId);
    expect(after.key.fingerprint).not.toBe(before.key.fingerprint);
    demo = signerOf(join(home, 'demo'));
    const answer = await sendSigned(demo, `${gateway.url}/api/echo`);
    expect({ status: answer.status, code: answer.code }).toEqual({ status: 200, code: null });
  });
});

describe('stop and start again', () => {
  test('SIGTERM stops the gateway and DynamoDB Local; a second start reuses the clients, keys, registrations and stand-in credentials', async () => {
    const credentials = readFileSync(join(home, 'secrets-manager-credentials.json'), 'utf8');
    const firstDynamoDbPid = gateway.dynamoDbPid;
    expect(await gateway.stop('SIGTERM')).toBe(0);
    expect(await waitUntilGone(firstDynamoDbPid!)).toBe(true);
    expect(existsSync(join(home, 'local.json'))).toBe(false);
    expect(existsSync(join(home, 'gateway.pid'))).toBe(false);

    gateway = await startGatewayProcess(home, { dynamoDb: 'own' });
    expect(gateway.dynamoDbPid).not.toBe(firstDynamoDbPid);
    expect(gateway.output()).toContain(`admin client ${admin.clientId} (registry:admin, reused)`);
    expect(gateway.output()).toContain(`demo client  ${demo.clientId} (demo, reused)`);
    expect(signerOf(join(home, 'demo')).clientId).toBe(demo.clientId);
    expect(readFileSync(join(home, 'secrets-manager-credentials.json'), 'utf8')).toBe(credentials);

    const fromBefore = await sendSigned(partner, `${gateway.url}/api/echo`, { body: '{"again":true}' });
    expect(fromBefore.status).toBe(200);
    const listed = await sendSigned(admin, `${gateway.url}/registry/clients`);
    expect((listed.body.clients as { clientId: string }[]).map((c) => c.clientId)).toEqual(
      expect.arrayContaining([admin.clientId, demo.clientId, partner.clientId]),
    );
  });

  test('Ctrl-C (SIGINT) stops it too, leaving no DynamoDB Local process', async () => {
    const dynamoDbPid = gateway.dynamoDbPid;
    expect(await gateway.stop('SIGINT')).toBe(0);
    expect(await waitUntilGone(dynamoDbPid!)).toBe(true);
    expect(gateway.output()).toContain('SIGINT: stopping');
  });
});

describe('on a DynamoDB the user already runs (SIGNET_DYNAMODB_ENDPOINT, SIGNET_TABLE_NAME)', () => {
  test('the gateway keeps its clients in the given table there, starts no DynamoDB Local, and leaves that DynamoDB running when it stops', async () => {
    const given = await startTestDynamoDb();
    const otherHome = mkdtempSync(join(tmpdir(), 'signet-home-given-'));
    const tableName = gatewayTableName(otherHome);
    try {
      const other = await startGatewayProcess(otherHome, { seedKeys: true, dynamoDb: 'run' });
      expect(other.output()).toContain(`\n  DynamoDB on ${given.endpoint} (SIGNET_DYNAMODB_ENDPOINT; table ${tableName}; not started nor stopped by this gateway)\n`);
      expect(other.output()).not.toContain('DynamoDB Local pid');
      expect(other.dynamoDbPid).toBeUndefined();
      expect(readLocalState(localPaths(otherHome))).toMatchObject({ dynamoDbEndpoint: given.endpoint, tableName, dynamoDbOrigin: 'given' });
      const otherDemo = signerOf(join(otherHome, 'demo'));
      expect((await sendSigned(otherDemo, `${other.url}/api/echo`)).status).toBe(200);

      expect(await other.stop('SIGTERM')).toBe(0);
      expect(other.output()).toContain(`SIGTERM: stopping the gateway and the Secrets Manager stand-in (the DynamoDB on ${given.endpoint} keeps running) ...\nstopped.\n`);
      // The table outlives the gateway, with the clients it registered: the next start finds them.
      const store = new DynamoClientStore({ tableName, client: given.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
      expect(await store.getClient(otherDemo.clientId)).toMatchObject({ clientId: otherDemo.clientId, name: 'local demo' });
    } finally {
      await given.stop();
      rmSync(otherHome, { recursive: true, force: true });
    }
  });

  test('a port in use stops the start before any service starts or any file is written', async () => {
    const otherHome = mkdtempSync(join(tmpdir(), 'signet-home-port-taken-'));
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    // A DynamoDB that does not answer: had the services started first, the start would fail on it instead.
    const endpoint = `http://127.0.0.1:${await findFreePort()}`;
    try {
      await expect(startLocalGateway({ home: otherHome, port, dynamoDb: { endpoint, tableName: 'signet-local-clients' } })).rejects.toThrow(
        `Port ${port} on 127.0.0.1 is in use. Stop what uses it, or start on another port: PORT=3001 npm start`,
      );
      expect(readdirSync(otherHome)).toEqual([]);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
      rmSync(otherHome, { recursive: true, force: true });
    }
  });

  test('one that does not answer stops the start with a sentence naming the variable and what to do; nothing is left running or written', async () => {
    const otherHome = mkdtempSync(join(tmpdir(), 'signet-home-unanswered-'));
    const endpoint = `http://127.0.0.1:${await findFreePort()}`;
    try {
      await expect(startLocalGateway({ home: otherHome, port: 0, dynamoDb: { endpoint, tableName: 'signet-local-clients' } })).rejects.toThrow(
        `SIGNET_DYNAMODB_ENDPOINT=${endpoint} does not answer as DynamoDB (ECONNREFUSED). Start that DynamoDB first, or unset SIGNET_DYNAMODB_ENDPOINT to have npm start run DynamoDB Local itself.`,
      );
      expect(existsSync(join(otherHome, 'local.json'))).toBe(false);
      expect(existsSync(join(otherHome, 'gateway.pid'))).toBe(false);
    } finally {
      rmSync(otherHome, { recursive: true, force: true });
    }
  });
});
