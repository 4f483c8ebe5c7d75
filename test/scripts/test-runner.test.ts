/**
 * `npm test` (scripts/test.cjs) is loud about skips: a skipped test fails the run unless
 * SIGNET_ALLOW_SKIP names the prerequisite it was skipped for, and allowed skips are still listed;
 * and a run leaves nothing in the temporary directory. Each case runs the real script on a
 * one-file fixture suite, with its own report file.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

jest.setTimeout(120_000);

const ROOT = resolve(__dirname, '..', '..');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'signet-test-runner-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs scripts/test.cjs on the fixture suite; `allow` is added to whatever this run allows. */
function runSuite(skipCase: string, allow: string[], env: Record<string, string> = {}): { code: number | null; out: string } {
  const outer = process.env.SIGNET_ALLOW_SKIP ?? '';
  const result = spawnSync(
    process.execPath,
    [join(ROOT, 'scripts', 'test.cjs'), '--testMatch', '**/fixtures/skip-policy/*.fixture.ts', '--maxWorkers=1'],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: {
        ...process.env,
        SKIP_POLICY_CASE: skipCase,
        SIGNET_ALLOW_SKIP: [outer, ...allow].filter((id) => id !== '').join(','),
        SIGNET_TEST_REPORT: join(dir, `${skipCase}-${allow.join('-')}.json`),
        ...env,
      },
    },
  );
  return { code: result.status, out: `${result.stdout}${result.stderr}` };
}

test('nothing skipped: exit 0 and the plain closing line; what the tests wrote to the temporary directory is gone', () => {
  const temp = join(dir, 'temp');
  mkdirSync(temp);
  const run = runSuite('none', [], { TMPDIR: temp });
  expect(run.out).toMatch(/^1 passed, 0 failed, 0 skipped$/m);
  expect(run.code).toBe(0);
  // Only Jest's cache of transformed files, which is meant to outlive a run.
  expect(readdirSync(temp).filter((name) => !name.startsWith('jest_'))).toEqual([]);
});

test('a test skipped for a missing prerequisite that is not allowed fails the run and is named', () => {
  const run = runSuite('prerequisite', []);
  expect(run.out).toMatch(/skipped \(NOT allowed\): .*needs a widget.* — widget missing: the widget is not installed/);
  expect(run.out).toMatch(/^1 passed, 0 failed, 1 skipped$/m);
  expect(run.code).toBe(1);
});

test('the same skip passes when SIGNET_ALLOW_SKIP names it, and is still listed with its reason', () => {
  const run = runSuite('prerequisite', ['widget']);
  expect(run.out).toMatch(/skipped \(allowed\): .*needs a widget.* — widget missing: the widget is not installed/);
  expect(run.code).toBe(0);
});

test('a skip that names no prerequisite (left in by hand) fails whatever is allowed', () => {
  const run = runSuite('plain', ['widget']);
  expect(run.out).toMatch(/skipped \(NOT allowed\): .*left skipped by hand — skipped in the code, with no prerequisite named/);
  expect(run.code).toBe(1);
});
