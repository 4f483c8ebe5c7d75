/**
 * Every command and subcommand answers `--help` (and `signet help <command> [sub]`) with its
 * usage, every flag it accepts with a meaning, and an example; run in-process through the same
 * main() as the bin, plus the bin itself for the command whose --help used to fail.
 */
import { COMMANDS, helpFor, main } from '../../bin/cli';
import { CommandHelp, isGroup } from '../../bin/commands/help';
import { REPO_ROOT } from '../local/gateway-process';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Runs main() and returns what it printed. */
async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const log = jest.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void (stdout += `${parts.join(' ')}\n`));
  const error = jest.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => void (stderr += `${parts.join(' ')}\n`));
  try {
    return { code: await main(argv), stdout, stderr };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

/** [words, help] for every command and subcommand. */
const LEAVES: Array<[string, CommandHelp]> = Object.entries(COMMANDS).flatMap(([name, command]) =>
  isGroup(command.HELP) ? Object.entries(command.HELP.subcommands).map(([sub, help]): [string, CommandHelp] => [`${name} ${sub}`, help]) : [[name, command.HELP] as [string, CommandHelp]],
);

test('the commands are the ones docs/cli.md documents', () => {
  expect(Object.keys(COMMANDS)).toEqual(['keygen', 'sign', 'verify', 'explain', 'request', 'clients', 'keys', 'accounts', 'rotate']);
  expect(LEAVES.length).toBeGreaterThan(20);
});

test('`signet --version` prints the version of the package it runs from, and the usage says so', async () => {
  const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  expect(await cli('--version')).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  expect((await cli('help')).stdout).toContain('`signet --version`');
});

describe.each(LEAVES)('signet %s --help', (words, help) => {
  test('prints the usage, every flag the command parses with a meaning, and an example (exit 0)', async () => {
    const result = await cli(...words.split(' '), '--help');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(`signet ${words}: ${help.summary}`);
    expect(result.stdout).toContain(`Usage: signet ${words}`);
    for (const [key, option] of Object.entries(help.options)) {
      const flag = key.length === 1 ? `-${key}` : `--${key}`;
      const line = result.stdout.split('\n').find((l) => new RegExp(`(^|[ ,])${flag.replace(/[-]/g, '\\-')}( |$)`).test(l));
      expect({ flag, line: line !== undefined }).toEqual({ flag, line: true });
      if (typeof option.default === 'string') expect(result.stdout).toContain(`(default: ${option.default})`);
    }
    expect(result.stdout).toMatch(/\nExamples?:\n {2}signet \S+/);
    expect(help.examples.every((e) => e.startsWith(words.split(' ')[0]))).toBe(true);
  });

  test('`signet help` gives the same text, and -h too', async () => {
    const viaFlag = await cli(...words.split(' '), '--help');
    expect((await cli('help', ...words.split(' '))).stdout).toBe(viaFlag.stdout);
    expect((await cli(...words.split(' '), '-h')).stdout).toBe(viaFlag.stdout);
  });
});

test.each(Object.keys(COMMANDS).filter((name) => isGroup(COMMANDS[name].HELP)))('signet %s --help lists its subcommands', async (name) => {
  const result = await cli(name, '--help');
  expect(result.code).toBe(0);
  const group = COMMANDS[name].HELP;
  if (!isGroup(group)) throw new Error('not a group');
  for (const [sub, help] of Object.entries(group.subcommands)) expect(result.stdout).toMatch(new RegExp(`\\n  ${sub} +${help.summary.slice(0, 20).replace(/[()[\]|.*+?]/g, '\\$&')}`));
});

test('signet --help lists every command; an unknown one exits 2 with the list', async () => {
  const top = await cli('--help');
  expect(top.code).toBe(0);
  for (const name of Object.keys(COMMANDS)) expect(top.stdout).toMatch(new RegExp(`\\n  ${name} +\\S`));
  const unknown = await cli('help', 'nosuch');
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain('unknown command "nosuch"');
});

test('a usage mistake prints the usage of that subcommand (exit 2)', async () => {
  const result = await cli('clients', 'get');
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('Usage: signet clients get CLIENT_ID');
});

test('every help renders (no flag without a meaning)', () => {
  for (const [words] of LEAVES) expect(() => helpFor(words.split(' '))).not.toThrow();
});

test('the bin itself: `signet keygen --help` exits 0 with the flags (it used to fail with "Unknown option")', () => {
  const result = spawnSync(process.execPath, ['--no-warnings', '-r', 'tsx/cjs', 'bin/signet.ts', 'keygen', '--help'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(result.status).toBe(0);
  expect(result.stdout).toContain('--force');
  expect(result.stderr).toBe('');
});
