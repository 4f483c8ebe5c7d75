/**
 * `signet rotate` (bin/commands/rotate.ts) against DynamoDB Local and the stand-in, the way a
 * developer runs it next to `npm start`: services found through `$SIGNET_HOME/local.json`, the
 * demo key directory rewritten, an unfinished rotation completed, flags instead of the file.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetSecretValueCommand, RotateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { UsageError } from '../../bin/commands/args';
import { newStandInCredentials, writeStandInCredentials } from '../../local/secrets-manager-credentials';
import { type RotateIo, run } from '../../bin/commands/rotate';
import { DEFAULT_CLIENT_CACHE_TTL_MS } from '../../lambda/core/defaults';
import { spkiPemOf } from '../../lambda/core/keys';
import { parseSigningSecret } from '../../lambda/signer/signing-secret';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@aws-lambda-powertools/logger';
import { createAuthorizer } from '../../lambda/authorizer/create-authorizer';
import { loadConfig } from '../../lambda/config';
import { createRegistry } from '../../lambda/registry/create-registry';
import { writeClientDir } from '../../local/client-dir';
import { createGatewayListener } from '../../local/gateway';
import { testKey } from '../support/registry-fixtures';
import { authorizerFor, callWith, newRotatingClient, outcome, rotationFor, stagesOf, startRotationWorld, storeFor, systemClock, RotationWorld } from './harness';

let world: RotationWorld;
let home: string;
const savedHome = process.env.SIGNET_HOME;
let output: string[];

beforeAll(async () => {
  world = await startRotationWorld();
});
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'signet-rotate-'));
  process.env.SIGNET_HOME = home;
  // What `npm start` leaves in its home: the key pair its stand-in accepts.
  writeStandInCredentials(join(home, 'secrets-manager-credentials.json'), world.standIn.clientConfig.credentials);
  output = [];
  jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void output.push(args.join(' ')));
});
afterEach(() => {
  jest.restoreAllMocks();
  if (savedHome === undefined) delete process.env.SIGNET_HOME;
  else process.env.SIGNET_HOME = savedHome;
  rmSync(home, { recursive: true, force: true });
  world.standIn.setRotationHandler(undefined);
});

/** What a running `npm start` leaves in its home: local.json, and its pid (this process stands in for it). */
function writeLocalJson(demoSecretId: string, extra: Record<string, unknown> = {}): void {
  writeFileSync(join(home, 'gateway.pid'), `${process.pid}\n`);
  writeFileSync(
    join(home, 'local.json'),
    JSON.stringify({
      dynamoDbEndpoint: world.ddb.endpoint,
      secretsManagerEndpoint: world.standIn.endpoint,
      tableName: world.tableName,
      demoSecretId,
      region: 'us-east-1',
      ...extra,
    }),
  );
}

async function currentKey(secretId: string) {
  return parseSigningSecret((await world.sm.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString!);
}

test('with no argument rotates the demo secret through all four steps and rewrites $SIGNET_HOME/demo/', async () => {
  const clock = systemClock();
  const store = storeFor(world, clock);
  const demo = await newRotatingClient(world, store, clock);
  writeLocalJson(demo.secretName, { clientCacheTtlMs: 0 });

  expect(await run([])).toBe(0);

  const current = await currentKey(demo.secretName);
  expect(current.key.fingerprint).not.toBe(demo.initialKey.fingerprint);
  const dir = join(home, 'demo');
  expect(readFileSync(join(dir, 'private.pkcs8.b64'), 'utf8').trim()).toBe(current.secret.privateKey);
  expect(readFileSync(join(dir, 'public.pem'), 'utf8')).toBe(spkiPemOf(current.key.publicKey));
  expect(readFileSync(join(dir, 'client-id'), 'utf8').trim()).toBe(demo.clientId);
  for (const name of ['private.pkcs8.b64', 'private.pem']) expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);

  const deps = authorizerFor(store, clock);
  expect(outcome(await callWith(deps, demo.clientId, current.key, clock))).toBe('allowed');
  expect(outcome(await callWith(deps, demo.clientId, demo.initialKey, clock))).toBe('allowed');
  const text = output.join('\n');
  expect(text).toContain(`new key ${current.key.fingerprint} of client ${demo.clientId} is AWSCURRENT`);
  expect(text).toMatch(new RegExp(`previous key ${demo.initialKey.fingerprint} keeps verifying until \\d{4}-`));
  expect(text).toMatch(/\[1\/4\] createSecret: done[\s\S]*\[2\/4\] setSecret: done[\s\S]*\[3\/4\] testSecret: done[\s\S]*\[4\/4\] finishSecret: done/);
  expect(text).not.toContain(current.secret.privateKey.slice(0, 64));
});

test('completes an unfinished rotation with its own token instead of starting another', async () => {
  const clock = systemClock();
  const store = storeFor(world, clock);
  const demo = await newRotatingClient(world, store, clock);
  writeLocalJson(demo.secretName, { clientCacheTtlMs: 0 });
  const rotation = rotationFor(world, clock, store);
  world.standIn.setRotationHandler(async (event) => {
    if (event.Step === 'testSecret') throw new Error('interrupted');
    return rotation.run(event);
  });
  await expect(world.sm.send(new RotateSecretCommand({ SecretId: demo.secretName }))).rejects.toThrow(/failed at step testSecret/);
  const token = Object.keys(await stagesOf(world, demo.secretName)).find((v) => v !== demo.initialVersionId)!;

  expect(await run([])).toBe(0);
  expect(await stagesOf(world, demo.secretName)).toEqual({ [demo.initialVersionId]: ['AWSPREVIOUS'], [token]: ['AWSCURRENT'] });
  expect(output.join('\n')).toContain(`an unfinished rotation (version ${token}) was found and completed`);
  expect(output.join('\n')).toMatch(/createSecret: unchanged[\s\S]*setSecret: unchanged/);
});

test('--secret-id with every endpoint flag passes over a local.json left by a gateway that is gone, and leaves the demo directory alone', async () => {
  const clock = systemClock();
  const store = storeFor(world, clock);
  const other = await newRotatingClient(world, store, clock);
  writeLocalJson('signet/local/demo');
  writeFileSync(join(home, 'gateway.pid'), `${spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout}\n`);
  const code = await run([
    '--secret-id', other.secretName,
    '--endpoint-dynamodb', world.ddb.endpoint,
    '--endpoint-secrets', world.standIn.endpoint,
    '--table', world.tableName,
    '--settle-seconds', '0',
    '--grace-seconds', '600',
  ]);
  expect(code).toBe(0);
  const current = await currentKey(other.secretName);
  const record = (await store.getClient(other.clientId, { consistentRead: true }))!;
  const previous = record.keys.find((k) => k.fingerprint === other.initialKey.fingerprint)!;
  expect(Date.parse(previous.notAfter!) - Date.parse(record.keys.find((k) => k.fingerprint === current.key.fingerprint)!.addedAt)).toBeGreaterThanOrEqual(600_000);
  expect(Date.parse(previous.notAfter!) - Date.parse(record.keys.find((k) => k.fingerprint === current.key.fingerprint)!.addedAt)).toBeLessThan(900_000);
  expect(() => statSync(join(home, 'demo'))).toThrow();
});

/** A sleep that records each wait and returns at once (the command's real wait is setTimeout). */
function recordingSleep(): { waits: number[]; sleep: (ms: number) => Promise<void> } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms) };
}

/** The command's output as a pipe gets it (a line every 10 s of the countdown), waiting with `sleep`. */
function quietIo(sleep: (ms: number) => Promise<void>): RotateIo {
  return { print: (line) => console.log(line), sleep, interactive: false };
}

test('the settle wait comes from local.json clientCacheTtlMs', async () => {
  const clock = systemClock();
  const store = storeFor(world, clock);
  const demo = await newRotatingClient(world, store, clock);
  writeLocalJson(demo.secretName, { clientCacheTtlMs: 1_500 });
  const { waits, sleep } = recordingSleep();
  expect(await run([], quietIo(sleep))).toBe(0);
  expect(output.join('\n')).toContain('waiting 2 s so the gateway');
  expect(output.join('\n')).toMatch(/ 2 s left until the gateway's cached client record holds the new key\n.*waited: the gateway now knows the new key/);
  // Counted from when the key was added, so at most the TTL (less if the steps took a while).
  expect(waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1_500);
  const current = await currentKey(demo.secretName);
  const record = (await store.getClient(demo.clientId, { consistentRead: true }))!;
  expect(record.keys.map((k) => [k.fingerprint, k.notAfter === undefined])).toEqual([
    [demo.initialKey.fingerprint, false],
    [current.key.fingerprint, true],
  ]);
});

test('signs with $SIGNET_HOME/secrets-manager-credentials.json: without it, it says to start the gateway; another home\'s key pair is refused by the stand-in', async () => {
  const clock = systemClock();
  const demo = await newRotatingClient(world, storeFor(world, clock), clock);
  writeLocalJson(demo.secretName, { clientCacheTtlMs: 0 });
  const credentialsFile = join(home, 'secrets-manager-credentials.json');
  rmSync(credentialsFile);
  await expect(run([])).rejects.toThrow(/secrets-manager-credentials\.json does not exist: start the local gateway \(`npm start`\) with this SIGNET_HOME first/);

  writeStandInCredentials(credentialsFile, newStandInCredentials());
  await expect(run([])).rejects.toThrow(/Secrets Manager answered UnrecognizedClientException\. Check the credentials the request is signed with/);
  expect(await stagesOf(world, demo.secretName)).toEqual({ [demo.initialVersionId]: ['AWSCURRENT'] });
});

test('without clientCacheTtlMs in local.json the settle wait is the authorizer cache default (60 s), counted down', async () => {
  const clock = systemClock();
  const store = storeFor(world, clock);
  const demo = await newRotatingClient(world, store, clock);
  writeLocalJson(demo.secretName);
  const { waits, sleep } = recordingSleep();
  expect(await run([], quietIo(sleep))).toBe(0);
  expect(output.join('\n')).toMatch(/waiting \d+ s so the gateway/);
  // From the key's addedAt: the TTL less the few seconds the steps took, in 10 s ticks.
  const waited = waits.reduce((a, b) => a + b, 0);
  expect(waited).toBeLessThanOrEqual(DEFAULT_CLIENT_CACHE_TTL_MS);
  expect(waited).toBeGreaterThan(DEFAULT_CLIENT_CACHE_TTL_MS / 2);
  expect(Math.max(...waits)).toBeLessThanOrEqual(10_000);
});

test('--endpoint: the wait is the authorizer client cache TTL that API reports (its registry, signed as --admin), counted down', async () => {
  const clock = systemClock();
  const store = storeFor(world, clock);
  const demo = await newRotatingClient(world, store, clock);
  writeLocalJson(demo.secretName);
  // An API as a deployment serves it: the deployed authorizer and registry handlers, a 45 s client cache.
  const adminKey = testKey(0);
  const admin = await store.createClient({ name: 'operator', networkWhitelist: ['127.0.0.1', '::1'], roles: ['registry:admin'], key: { fingerprint: adminKey.fingerprint, spkiPem: spkiPemOf(adminKey.publicKey) } }, 'test');
  writeClientDir(join(home, 'operator'), admin.record.clientId, adminKey);
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({ SIGNET_TABLE_NAME: world.tableName, SIGNET_DYNAMODB_ENDPOINT: world.ddb.endpoint, SIGNET_PUBLIC_BASE_URL: url, SIGNET_CLIENT_CACHE_TTL_MS: '45000', AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' });
  const silent = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
  const authorizer = createAuthorizer(config, { logger: silent });
  const registry = createRegistry(config, { logger: silent });
  server.on('request', createGatewayListener({ authorizer: (event) => authorizer.httpApiHandler(event), registry, echo: async () => ({ statusCode: 200, body: '{}' }) }));
  try {
    const { waits, sleep } = recordingSleep();
    expect(await run(['--endpoint', url, '--admin', join(home, 'operator')], quietIo(sleep))).toBe(0);
    const text = output.join('\n');
    expect(text).toContain(`the API at ${url} reports an authorizer client cache TTL of 45 s`);
    expect(text).toMatch(/waiting 4\d s so the gateway/);
    const waited = waits.reduce((a, b) => a + b, 0);
    expect(waited).toBeLessThanOrEqual(45_000);
    expect(waited).toBeGreaterThan(30_000);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  await expect(run(['--endpoint', url, '--settle-seconds', '5'])).rejects.toThrow('give --settle-seconds or --endpoint, not both');
});

test('without local.json and flags it says to start the gateway; bad flags are usage errors', async () => {
  await expect(run([])).rejects.toThrow(/local\.json does not exist: start the local gateway first \(`npm start`\)/);
  await expect(run(['--bits', '1024'])).rejects.toBeInstanceOf(UsageError);
  await expect(run(['--settle-seconds', 'soon'])).rejects.toBeInstanceOf(UsageError);
  await expect(run(['extra'])).rejects.toBeInstanceOf(UsageError);
  await expect(run(['--nope'])).rejects.toBeInstanceOf(UsageError);
});
