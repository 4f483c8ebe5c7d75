/**
 * The DynamoDB Local launcher used by the tests and `npm start`: it listens on 127.0.0.1 only,
 * persisted state survives a restart, stop() leaves no process behind, and a failed start says
 * what to check.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { dynamoDbLocalClientConfig, startDynamoDbLocal } from '../../local/dynamodb-local';
import { ensureClientTable } from '../../lambda/store/table-setup';

function isRunning(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The addresses of this machine that are not loopback. Link-local IPv6 addresses are left out
 * (they need a zone to be reached). Documented fallback: a machine with no other interface
 * still has 127.0.0.2 on Linux (all of 127.0.0.0/8 reaches `lo`), where a listener on the
 * wildcard address answers and one bound to 127.0.0.1 does not. Anywhere else the test fails.
 */
function nonLoopbackAddresses(): string[] {
  const addresses = Object.values(networkInterfaces())
    .flat()
    .filter((info) => info !== undefined && !info.internal && !(info.family === 'IPv6' && /^fe[89ab]/i.test(info.address)))
    .map((info) => info!.address);
  if (addresses.length > 0) return addresses;
  if (process.platform === 'linux') return ['127.0.0.2'];
  throw new Error('This machine has no non-loopback address to test DynamoDB Local\'s binding against; connect it to a network and run again.');
}

/** Opens a TCP connection and closes it: `connected`, `refused`, or the error code. */
function tcpConnect(host: string, port: number): Promise<string> {
  return new Promise((resolveOutcome) => {
    const socket = connect({ host, port, timeout: 3_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolveOutcome('connected');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolveOutcome('timed out');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolveOutcome(error.code === 'ECONNREFUSED' ? 'refused' : String(error.code)));
  });
}

test('listens on 127.0.0.1 only: a TCP connect to any other address of this machine is refused', async () => {
  const others = nonLoopbackAddresses();
  const ddb = await startDynamoDbLocal();
  try {
    expect(await tcpConnect('127.0.0.1', ddb.port)).toBe('connected');
    const outcomes = await Promise.all(others.map(async (address) => `${address} ${await tcpConnect(address, ddb.port)}`));
    expect(outcomes).toEqual(others.map((address) => `${address} refused`));
  } finally {
    await ddb.stop();
  }
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

    const second = await startDynamoDbLocal({ dbPath: join(dir, 'db') });
    const again = new DynamoDBClient(dynamoDbLocalClientConfig(second.endpoint));
    expect((await again.send(new ListTablesCommand({}))).TableNames).toEqual(['persisted']);
    expect(await ensureClientTable(again, 'persisted')).toBe('exists');
    again.destroy();
    await second.stop();
    expect(isRunning(second.pid)).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a start that does not answer in time fails with a message naming Java 17, and leaves no JVM', async () => {
  const before = new Set(javaPids());
  await expect(startDynamoDbLocal({ startTimeoutMs: 1 })).rejects.toThrow(/did not answer .* within 1 ms\. It needs Java 17 or newer/);
  expect(javaPids().filter((pid) => !before.has(pid))).toEqual([]);
});

test('a port already in use is refused before a JVM is spawned', async () => {
  const running = await startDynamoDbLocal();
  try {
    await expect(startDynamoDbLocal({ port: running.port })).rejects.toThrow(`port ${running.port} is already in use`);
  } finally {
    await running.stop();
  }
});

/** Process ids of DynamoDB Local JVMs that are children of this process. */
function javaPids(): number[] {
  const out = spawnSync('pgrep', ['-P', String(process.pid), '-f', 'DynamoDBLocal.jar'], { encoding: 'utf8' });
  return out.stdout.split('\n').filter(Boolean).map(Number);
}
