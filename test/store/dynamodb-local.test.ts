/**
 * The DynamoDB Local launcher used by the tests and `npm start`: it listens on 127.0.0.1 only,
 * persisted state survives a restart, stop() leaves no process behind, and a failed start says
 * what to check.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DYNAMODB_LOCAL_HOST, type DynamoDbLocal, dynamoDbLocalClientConfig, startDynamoDbLocal } from '../../local/dynamodb-local';
import { ensureClientTable } from '../../lambda/store/table-setup';
import { nonLoopbackAddresses, postRaw, probeAll, tcpConnect } from '../support/network';

function isRunning(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('an emulator started with the defaults (in memory, no port)', () => {
  // One JVM for both tests (a start costs about 2 s of CPU); neither creates a table.
  let ddb: DynamoDbLocal;
  beforeAll(async () => {
    ddb = await startDynamoDbLocal();
  });
  afterAll(() => ddb?.stop());

  test('listens on 127.0.0.1 only: a TCP connect to any other address of this machine is refused, a request naming another Host is 403', async () => {
    const others = nonLoopbackAddresses();
    expect(await tcpConnect('127.0.0.1', ddb.port)).toBe('connected');
    expect(await probeAll(others, ddb.port)).toEqual(others.map((address) => `${address} refused`));

    // A web page that resolves its own name to 127.0.0.1 (DNS rebinding) sends its name as Host.
    const listTables = (host: string) =>
      postRaw(
        ddb.port,
        {
          host,
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': 'DynamoDB_20120810.ListTables',
          authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00',
        },
        '{}',
      );
    for (const host of ['evil.example', `evil.example:${ddb.port}`, `127.0.0.2:${ddb.port}`, `127.0.0.1:${ddb.port + 1}`]) {
      const answer = await listTables(host);
      expect([host, answer.status, answer.json.__type]).toEqual([host, 403, 'com.amazonaws.dynamodb.v20120810#AccessDeniedException']);
      expect(answer.json.message).toContain(`only requests addressed to 127.0.0.1:${ddb.port}, localhost:${ddb.port} or [::1]:${ddb.port}`);
    }
    for (const host of [`127.0.0.1:${ddb.port}`, `localhost:${ddb.port}`]) {
      const answer = await listTables(host);
      expect([host, answer.status, Array.isArray(answer.json.TableNames)]).toEqual([host, 200, true]);
    }
  });

  test('without a port, the launcher binds one the system picks and says which: no window in which another process can take it', async () => {
    // The old way (find a free port, release it, let the JVM bind it a second later) lost the port to
    // another test process now and then; the gateway then refused to start with "port ... is in use".
    const args = spawnSync('ps', ['-o', 'args=', '-p', String(ddb.pid)], { encoding: 'utf8' }).stdout.trim().split(/\s+/);
    expect(args[args.indexOf('-port') + 1]).toBe('0');
    expect(ddb.port).toBeGreaterThan(0);
    expect(ddb.endpoint).toBe(`http://${DYNAMODB_LOCAL_HOST}:${ddb.port}`);
    const client = new DynamoDBClient(dynamoDbLocalClientConfig(ddb.endpoint));
    expect((await client.send(new ListTablesCommand({}))).TableNames).toEqual([]);
    client.destroy();
  });
});

test('keeps tables under dbPath across restarts, and stop() ends the JVM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'signet-ddb-'));
  try {
    const first = await startDynamoDbLocal({ dbPath: join(dir, 'db') });
    expect(first.endpoint).toBe(`http://127.0.0.1:${first.port}`);
    const client = new DynamoDBClient(dynamoDbLocalClientConfig(first.endpoint));
    expect(await ensureClientTable(client, 'persisted')).toBe('created');
    client.destroy();
    await first.stop();
    expect(isRunning(first.pid)).toBe(false);
    await first.stop(); // twice is fine
    // The registry's table: only this user reads it, also when the folder was made before with a wider mode.
    expect(statSync(join(dir, 'db')).mode & 0o777).toBe(0o700);
    chmodSync(join(dir, 'db'), 0o755);

    const second = await startDynamoDbLocal({ dbPath: join(dir, 'db') });
    const again = new DynamoDBClient(dynamoDbLocalClientConfig(second.endpoint));
    expect((await again.send(new ListTablesCommand({}))).TableNames).toEqual(['persisted']);
    expect(await ensureClientTable(again, 'persisted')).toBe('exists');
    again.destroy();
    expect(statSync(join(dir, 'db')).mode & 0o777).toBe(0o700);
    await second.stop();
    expect(isRunning(second.pid)).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a start that does not answer in time fails with a message naming Java 17, and leaves no JVM', async () => {
  const before = new Set(javaPids());
  await expect(startDynamoDbLocal({ startTimeoutMs: 1 })).rejects.toThrow(/did not (start listening|answer on \S+) within 1 ms\. It needs Java 17 or newer/);
  expect(javaPids().filter((pid) => !before.has(pid))).toEqual([]);
});

test('a port already in use is refused before a JVM is spawned', async () => {
  // Whatever holds the port would answer the readiness poll; a plain listener stands for it.
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, DYNAMODB_LOCAL_HOST, resolve));
  const port = (holder.address() as AddressInfo).port;
  const before = new Set(javaPids());
  try {
    await expect(startDynamoDbLocal({ port })).rejects.toThrow(`port ${port} is already in use`);
    expect(javaPids().filter((pid) => !before.has(pid))).toEqual([]);
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
});

/** Process ids of DynamoDB Local JVMs that are children of this process. */
function javaPids(): number[] {
  const out = spawnSync('pgrep', ['-P', String(process.pid), '-f', 'DynamoDBLocal.jar'], { encoding: 'utf8' });
  return out.stdout.split('\n').filter(Boolean).map(Number);
}
