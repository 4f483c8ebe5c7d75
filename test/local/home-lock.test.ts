/** One local gateway per SIGNET_HOME. */
import { spawn, spawnSync } from 'node:child_process';
import fs, { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrapLocal } from '../../local/bootstrap';
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

test('of gateways starting at once on one home exactly one takes the lock, and nothing else is left in the home', async () => {
  // Four processes wait for the same instant, then each takes the lock; a holder keeps it until
  // every process has answered (its stdin closes), so a late start meets a live holder.
  const script = `
    const { lockHome } = require(${JSON.stringify(require.resolve('../../local/home-lock'))});
    const start = Number(process.argv[1]);
    while (Date.now() < start) {}
    try { lockHome(process.argv[2]); process.stdout.write('held\\n'); } catch (error) { process.stdout.write('refused: ' + error.message + '\\n'); }
    process.stdin.resume();`;
  const start = Date.now() + 2500;
  const children = Array.from({ length: 4 }, () => spawn(process.execPath, ['-r', require.resolve('tsx/cjs'), '-e', script, String(start), pidFile], { stdio: ['pipe', 'pipe', 'inherit'] }));
  const answers = await Promise.all(
    children.map(
      (child) =>
        new Promise<string>((done) => {
          let out = '';
          child.stdout.on('data', (chunk: Buffer) => {
            out += chunk.toString();
            if (out.endsWith('\n')) done(out.trimEnd());
          });
          child.on('close', (code) => done(`exited ${code}: ${out}`)); // a start that died fails the test, not its timeout
        }),
    ),
  );
  await Promise.all(children.map((child) => new Promise((exited) => (child.on('close', exited), child.stdin.end()))));
  expect(answers.filter((answer) => answer === 'held')).toHaveLength(1);
  for (const answer of answers.filter((a) => a !== 'held')) expect(answer).toMatch(/^refused: Another local gateway (\(pid \d+\) is using|is starting on) this SIGNET_HOME/);
  expect(readdirSync(dir)).toEqual(['gateway.pid']);
});

test('where the file system has no hard links the pid file is created exclusively; one just made and still empty is a start under way, an old empty one is taken over', () => {
  const link = jest.spyOn(fs, 'linkSync').mockImplementation(() => {
    throw Object.assign(new Error('operation not permitted'), { code: 'EPERM' });
  });
  try {
    const lock = lockHome(pidFile);
    expect(link).toHaveBeenCalled();
    expect(readFileSync(pidFile, 'utf8').trim()).toBe(String(process.pid));
    expect(() => lockHome(pidFile, process.ppid)).toThrow(new RegExp(`pid ${process.pid}\\) is using this SIGNET_HOME`));
    lock.release();
    writeFileSync(pidFile, '');
    expect(() => lockHome(pidFile, process.ppid)).toThrow(/Another local gateway is starting on this SIGNET_HOME/);
    utimesSync(pidFile, new Date(Date.now() - 10_000), new Date(Date.now() - 10_000));
    lockHome(pidFile).release();
    expect(readdirSync(dir)).toEqual([]);
  } finally {
    link.mockRestore();
  }
});

test('a pid file naming 0 (the process group, which always answers) is no holder', () => {
  writeFileSync(pidFile, '0\n');
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

test('a symbolic link at the pid file is replaced, never written through', () => {
  const victim = join(dir, 'victim.txt');
  writeFileSync(victim, 'not yours\n');
  symlinkSync(victim, pidFile);
  const lock = lockHome(pidFile);
  expect(readFileSync(victim, 'utf8')).toBe('not yours\n');
  expect(lstatSync(pidFile).isSymbolicLink()).toBe(false);
  expect(readFileSync(pidFile, 'utf8').trim()).toBe(String(process.pid));
  lock.release();
});

test('a home that is a symbolic link, or that other users can write, is refused before anything starts or is written', async () => {
  const real = join(dir, 'real');
  mkdirSync(real, { mode: 0o700 });
  const linked = join(dir, 'linked');
  symlinkSync(real, linked);
  await expect(bootstrapLocal({ home: linked })).rejects.toThrow(`${linked} is a symbolic link, which another user may be able to point elsewhere; nothing was written.`);
  const shared = join(dir, 'shared');
  mkdirSync(shared);
  chmodSync(shared, 0o777);
  await expect(bootstrapLocal({ home: shared })).rejects.toThrow(`${shared} is writable by other users (mode 0777)`);
  for (const home of [real, shared]) expect(existsSync(join(home, 'gateway.pid'))).toBe(false);
});
