/** One local gateway per SIGNET_HOME. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lockHome } from '../../local/home-lock';

let dir: string;
let pidFile: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'signet-lock-'));
  pidFile = join(dir, 'gateway.pid');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('takes the lock, refuses a second holder while the first is alive, and releases', () => {
  const lock = lockHome(pidFile);
  expect(readFileSync(pidFile, 'utf8').trim()).toBe(String(process.pid));
  // Another process (our parent, alive) claiming the same home is refused, naming our pid.
  expect(() => lockHome(pidFile, process.ppid)).toThrow(new RegExp(`pid ${process.pid}\\) is using this SIGNET_HOME`));
  lock.release();
  lock.release();
  expect(existsSync(pidFile)).toBe(false);
});

test('a pid file left by a process that is gone is taken over', () => {
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  writeFileSync(pidFile, `${gone.stdout}\n`);
  const lock = lockHome(pidFile);
  expect(readFileSync(pidFile, 'utf8').trim()).toBe(String(process.pid));
  lock.release();
});

test('release leaves a pid file that is no longer ours', () => {
  const lock = lockHome(pidFile);
  writeFileSync(pidFile, '1\n');
  lock.release();
  expect(readFileSync(pidFile, 'utf8')).toBe('1\n');
});
