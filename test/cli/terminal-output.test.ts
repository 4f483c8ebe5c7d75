/**
 * What a server says never drives the operator's terminal: a refused request's path, a message, a
 * client's name or id, a refusal and an HTTP status text reach the screen with every control
 * character (ESC, BEL, C1) and bidi override shown as `\uXXXX`; `--json` still prints the answer
 * exactly as it came. The commands run through the CLI's `main(argv)` against a stand-in registry
 * on 127.0.0.1 that answers whatever the test gives it.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPair } from '../../lambda/core/keys';
import { writeClientDir } from '../../local/client-dir';
import { writeStandInCredentials } from '../../local/secrets-manager-credentials';
import { failureTable } from '../../bin/commands/registry-output';
import { runSignetInProcess } from '../support/signet-in-process';

/** Characters a terminal acts on (line feeds aside: they separate the output's own lines). */
const ACTS_ON_TERMINAL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

const HOSTILE_PATH = '/api/\u001b]0;x\u0007\u001b[2J';
const FAILURES = {
  failures: [{ at: '2026-11-26T10:00:00.000Z', reason: 'role_forbidden', method: 'GET', path: HOSTILE_PATH, sourceIp: '203.0.113.7', message: 'not allowed \u009b2J \u202eevil' }],
  unauthenticated: { windowSeconds: 3600, windows: [{ start: '2026-11-26T10:00:00.000Z', counts: { signature_mismatch: 2, 'expired\u001b[2J': 1 } }] },
};
const CLIENT = { clientId: 'c_\u001b[2J', name: 'Acme\u0007\u200f\u2028', status: 'active', networkWhitelist: ['0.0.0.0'], roles: ['demo'], keys: [], version: 1 };
const REFUSAL = { error: 'forbidden\u001b[31m', message: `no access to GET ${HOSTILE_PATH}` };

let work: string;
let admin: string;
let registry: Server;
let endpoint: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'signet-terminal-output-'));
  admin = join(work, 'admin');
  writeClientDir(admin, 'c_Admin', generateKeyPair('ed25519'));
  registry = createServer((req, res) => {
    if (req.headers['x-amz-target'] !== undefined) {
      // As Secrets Manager answers an error: its name is the service's own text.
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify({ __type: 'Throttling\u001b]0;OWNED\u0007\u001b[2K\rsignet rotate: done', message: 'slow down' }));
      return;
    }
    const [status, body] = req.url === '/registry/clients/c_Evil/auth-failures' ? [200, FAILURES] : req.url === '/registry/clients/c_Evil' ? [200, CLIENT] : [403, REFUSAL];
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => registry.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

const signet = (...args: string[]) => runSignetInProcess([...args, '--endpoint', endpoint, '--admin', admin], process.env);

test('the failures table shows a refused path and message with their control characters escaped', async () => {
  const run = await signet('clients', 'failures', 'c_Evil');
  expect(run.code).toBe(0);
  expect(run.stdout).not.toMatch(ACTS_ON_TERMINAL);
  expect(run.stdout).toContain('GET /api/\\u001b]0;x\\u0007\\u001b[2J');
  expect(run.stdout).toContain('not allowed \\u009b2J \\u202eevil');
  // The refusals no key of the client signed (what a broken signer causes) are counted below the table.
  expect(run.stdout).toContain('1 recorded refusal\n\nAlso refused, whose signature no key of this client verified (counts per hour; anyone can cause these by naming it, and so does a request changed after it was signed):\n  2026-11-26T10:00:00.000Z  signature_mismatch 2, expired\\u001b[2J 1\n');
});

test("a client's summary and the open-network note on stderr show its id and name escaped", async () => {
  const run = await signet('clients', 'get', 'c_Evil');
  expect(run.code).toBe(0);
  expect(`${run.stdout}${run.stderr}`).not.toMatch(ACTS_ON_TERMINAL);
  expect(run.stdout).toContain('client    c_\\u001b[2J');
  expect(run.stdout).toContain('name      Acme\\u0007\\u200f\\u2028');
  expect(run.stderr).toContain('note: client c_\\u001b[2J accepts signed requests from every address');
});

test("a refusal's code and message are printed escaped on stderr", async () => {
  const run = await signet('clients', 'get', 'c_Other');
  expect(run.code).toBe(1);
  expect(run.stderr).not.toMatch(ACTS_ON_TERMINAL);
  expect(run.stderr).toContain('HTTP 403 forbidden\\u001b[31m: no access to GET /api/\\u001b]0;x\\u0007\\u001b[2J');
});

test('--json prints JSON that parses back to the answer exactly, with no character a terminal acts on (C1 and bidi escaped too)', async () => {
  const run = await signet('clients', 'failures', 'c_Evil', '--json');
  expect(run.code).toBe(0);
  expect(run.stdout).not.toMatch(ACTS_ON_TERMINAL);
  expect(JSON.parse(run.stdout)).toEqual(FAILURES);
});

test("signet request shows a server's status text and header values with their control characters escaped", async () => {
  // Node's HTTP server refuses to send these; a raw socket sends them as a hostile server would.
  const server = createTcpServer((socket) => {
    socket.once('data', () => {
      const head = Buffer.from('HTTP/1.1 200 \u001b]0;x\u0007\u001b[2J\r\nx-note: a\u009bb\r\ncontent-length: 3\r\nconnection: close\r\n\r\nok\n', 'latin1');
      socket.end(head);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
    const run = await runSignetInProcess(['request', '--client', admin, '-i', url], process.env);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(ACTS_ON_TERMINAL);
    expect(run.stdout.split('\n')[0]).toBe('HTTP 200 \\u001b]0;x\\u0007\\u001b[2J');
    expect(run.stdout).toContain('x-note: a\\u009bb');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a failures answer whose counted windows are not all objects still prints its table (the odd entries left out)', () => {
  const text = failureTable({ ...FAILURES, unauthenticated: { windowSeconds: 3600, windows: [null, 'x', { start: '2026-11-26T11:00:00.000Z', counts: { expired: 3 } }] } });
  expect(text).toContain('1 recorded refusal');
  expect(text).toContain('  2026-11-26T11:00:00.000Z  expired 3\n');
});

test("an error that quotes a service's answer (signet rotate's Secrets Manager) is printed escaped", async () => {
  const home = join(work, 'home');
  mkdirSync(home, { mode: 0o700 });
  writeStandInCredentials(join(home, 'secrets-manager-credentials.json'), { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' });
  const flags = ['--endpoint-secrets', endpoint, '--endpoint-dynamodb', endpoint, '--table', 't', '--secret-id', 's', '--settle-seconds', '0'];
  const run = await runSignetInProcess(['rotate', ...flags], { ...process.env, SIGNET_HOME: home });
  expect(run.code).toBe(1);
  // The SDK keeps the name up to its first ':'.
  expect(run.stderr).toContain('Secrets Manager answered Throttling\\u001b]0;OWNED\\u0007\\u001b[2K\\u000dsignet rotate.');
  expect(run.stderr).not.toMatch(ACTS_ON_TERMINAL);
});
