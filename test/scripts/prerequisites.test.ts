/**
 * `npm start` and `npm test` check the machine first and say the same thing when a prerequisite
 * is missing: what it is, what needs it, and the Debian/Ubuntu and macOS install lines. Each case
 * runs the real entry point with a PATH that holds only Node and a shell.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { INSTALL } from '../../scripts/prerequisites.cjs';

jest.setTimeout(60_000);

const ROOT = resolve(__dirname, '..', '..');
let bin: string;
let home: string;
beforeAll(() => {
  bin = mkdtempSync(join(tmpdir(), 'signet-bare-path-'));
  home = mkdtempSync(join(tmpdir(), 'signet-bare-home-'));
  symlinkSync(process.execPath, join(bin, 'node'));
  symlinkSync('/bin/sh', join(bin, 'sh'));
});
afterAll(() => {
  rmSync(bin, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

function runBare(args: string[]): { code: number | null; out: string } {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, PATH: bin, SIGNET_HOME: home, SIGNET_ALLOW_SKIP: '' } });
  return { code: result.status, out: `${result.stdout}${result.stderr}` };
}

test('npm start without Java: exit 1 before anything starts, naming Java, how to install it alone, and how to do without it', () => {
  const run = runBare([join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'local', 'main.ts')]);
  expect(run.out).toContain("Missing prerequisite 'java': a Java 17 or newer JDK");
  expect(run.out).toContain('Debian/Ubuntu: sudo apt-get update && sudo apt-get install -y openjdk-17-jdk-headless\n');
  expect(run.out).toContain('macOS:         brew install openjdk@17\n');
  expect(run.out).toContain('set SIGNET_DYNAMODB_ENDPOINT: npm start then needs no Java');
  // Not the tools only npm test needs.
  expect(run.out).not.toContain('chromium');
  expect(run.out).not.toContain('Starting Signet');
  expect(run.code).toBe(1);
});

test('npm test without Java, Python or OpenSSL: exit 1 before Jest starts, each named with the same install lines', () => {
  const run = runBare([join(ROOT, 'scripts', 'test.cjs')]);
  for (const id of ['java', 'python', 'openssl']) expect(run.out).toContain(`Missing prerequisite '${id}'`);
  expect(run.out).toContain(`Everything npm test needs, at once:\n  Debian/Ubuntu: ${INSTALL.debian}\n  macOS:         ${INSTALL.macos}`);
  expect(run.out).toMatch(/SIGNET_ALLOW_SKIP=[a-z,]*java[a-z,]* npm test/);
  expect(run.out).toMatch(/^0 passed, \d+ failed, 0 skipped$/m);
  expect(run.code).toBe(1);
});
