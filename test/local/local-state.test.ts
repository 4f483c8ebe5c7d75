/** $SIGNET_HOME/local.json, read by `signet rotate`. */
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultEndpoint, readLocalState, removeLocalState, runningGatewayUrl, writeLocalState } from '../../local/local-state';

let dir: string;
let path: string;
/** The file, and the pid file of the gateway that wrote it: this process, alive. */
let paths: { localState: string; pidFile: string };
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'signet-state-'));
  path = join(dir, 'local.json');
  paths = { localState: path, pidFile: join(dir, 'gateway.pid') };
  writeFileSync(paths.pidFile, `${process.pid}\n`);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const STATE = {
  dynamoDbEndpoint: 'http://127.0.0.1:1',
  secretsManagerEndpoint: 'http://127.0.0.1:2',
  tableName: 't',
  demoSecretId: 'signet/local/demo',
  region: 'us-east-1',
};

test('holds exactly the five fields, in order, and reads back; clientCacheTtlMs is optional', () => {
  writeLocalState(path, { ...STATE, extra: 'dropped' } as typeof STATE);
  expect(Object.keys(JSON.parse(readFileSync(path, 'utf8')))).toEqual(['dynamoDbEndpoint', 'secretsManagerEndpoint', 'tableName', 'demoSecretId', 'region']);
  expect(readLocalState(paths)).toEqual(STATE);
  writeLocalState(path, { ...STATE, clientCacheTtlMs: 60_000 });
  expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ ...STATE, clientCacheTtlMs: 60_000 });
  expect(readLocalState(paths)).toEqual({ ...STATE, clientCacheTtlMs: 60_000 });
  removeLocalState(path);
  expect(() => readLocalState(paths)).toThrow(/does not exist: start the local gateway first/);
});

test('an incomplete or broken file says to restart npm start', () => {
  writeFileSync(path, JSON.stringify({ ...STATE, tableName: '' }));
  expect(() => readLocalState(paths)).toThrow(/lacks tableName; restart the local gateway/);
  writeFileSync(path, '{');
  expect(() => readLocalState(paths)).toThrow(/not valid JSON/);
});

test("the gateway's URL is kept for a CLI that cannot reach its default; anything but a loopback http URL is not read", () => {
  expect(runningGatewayUrl(paths)).toBeUndefined();
  writeLocalState(path, { ...STATE, gatewayUrl: 'http://127.0.0.1:46687' });
  expect(runningGatewayUrl(paths)).toBe('http://127.0.0.1:46687');
  writeLocalState(path, { ...STATE, gatewayUrl: 'http://attacker.example:80' });
  expect(runningGatewayUrl(paths)).toBeUndefined();
  writeFileSync(path, '{');
  expect(runningGatewayUrl(paths)).toBeUndefined();
});

test("the gateway's keep bound of published keys is kept for `signet rotate`; anything but a whole number of days from 1 is not read", () => {
  writeLocalState(path, { ...STATE, keySourceKeepDays: 30 });
  expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ ...STATE, keySourceKeepDays: 30 });
  expect(readLocalState(paths).keySourceKeepDays).toBe(30);
  for (const bad of [0, 1.5, '30']) {
    writeFileSync(path, JSON.stringify({ ...STATE, keySourceKeepDays: bad }));
    expect(readLocalState(paths)).toEqual(STATE);
  }
});

test('is written aside and renamed in, mode 0600: a symbolic link left at its path is replaced, never written through', () => {
  const victim = join(dir, 'victim.txt');
  writeFileSync(victim, 'not yours\n');
  symlinkSync(victim, path);
  writeLocalState(path, STATE);
  expect(readFileSync(victim, 'utf8')).toBe('not yours\n');
  expect(lstatSync(path).isSymbolicLink()).toBe(false);
  expect(statSync(path).mode & 0o777).toBe(0o600);
  expect(readLocalState(paths)).toEqual(STATE);
});

test("whether the gateway started its DynamoDB Local itself is kept, so `signet rotate` signs as the gateway does; anything but started or given is not read", () => {
  writeLocalState(path, { ...STATE, dynamoDbOrigin: 'started' });
  expect(readLocalState(paths).dynamoDbOrigin).toBe('started');
  writeLocalState(path, { ...STATE, dynamoDbOrigin: 'given' });
  expect(readLocalState(paths).dynamoDbOrigin).toBe('given');
  writeFileSync(path, JSON.stringify({ ...STATE, dynamoDbOrigin: 'yes' }));
  expect(readLocalState(paths)).toEqual(STATE);
});

test("client commands go by default to the gateway of $SIGNET_HOME at the port it recorded, unless PORT names one; without a running gateway, to port 3000", () => {
  expect(defaultEndpoint({ SIGNET_HOME: dir })).toBe('http://127.0.0.1:3000');
  writeLocalState(path, { ...STATE, gatewayUrl: 'http://127.0.0.1:3001' });
  expect(defaultEndpoint({ SIGNET_HOME: dir })).toBe('http://127.0.0.1:3001');
  expect(defaultEndpoint({ SIGNET_HOME: dir, PORT: '4000' })).toBe('http://127.0.0.1:4000');
  // Another home's gateway is not this one's.
  expect(defaultEndpoint({ SIGNET_HOME: join(dir, 'elsewhere') })).toBe('http://127.0.0.1:3000');
  removeLocalState(path);
  expect(defaultEndpoint({ SIGNET_HOME: dir })).toBe('http://127.0.0.1:3000');
});

test('a file left by a gateway that is gone is not read: its ports may be anyone\'s now, and the tools would send them the home\'s credentials', () => {
  writeLocalState(path, { ...STATE, gatewayUrl: 'http://127.0.0.1:3001' });
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  for (const pidFile of [`${gone.stdout}\n`, undefined]) {
    if (pidFile === undefined) rmSync(paths.pidFile);
    else writeFileSync(paths.pidFile, pidFile);
    expect(() => readLocalState(paths)).toThrow(/local\.json was left by a local gateway that is no longer running .*Start the gateway again \(`npm start`\)/);
    expect(runningGatewayUrl(paths)).toBeUndefined();
    expect(defaultEndpoint({ SIGNET_HOME: dir })).toBe('http://127.0.0.1:3000');
  }
});
