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

test('signet --help lists every command; an unknown one exits 2 and says where the list is', async () => {
  const top = await cli('--help');
  expect(top.code).toBe(0);
  for (const name of Object.keys(COMMANDS)) expect(top.stdout).toMatch(new RegExp(`\\n  ${name} +\\S`));
  const unknown = await cli('help', 'nosuch');
  expect(unknown).toEqual({ code: 2, stdout: '', stderr: 'signet: unknown command "nosuch". Run `signet --help` for the commands.\n' });
});

describe('a mistyped command, subcommand or flag names the nearest one and exits 2, printing no help', () => {
  test.each([
    [['client', 'list'], 'signet: unknown command "client". Did you mean "clients"? Run `signet --help` for the commands.'],
    [['acounts', 'audit', 'acct_default'], 'signet: unknown command "acounts". Did you mean "accounts"?'],
    [['clients', 'lst'], 'signet clients: unknown subcommand "lst". Did you mean "list"? It takes: create, list, get, show, update, disable, enable, find, failures, audit.'],
    [['keys', 'expring'], 'signet keys: unknown subcommand "expring". Did you mean "expiring"?'],
    [['help', 'clients', 'adit'], 'signet clients: unknown subcommand "adit". Did you mean "audit"?'],
    [['help', 'clients', 'zzzzzz'], 'signet clients: unknown subcommand "zzzzzz". It takes:'],
    [['clients', 'list', '--serch', 'acme'], 'signet clients list: unknown flag --serch. Did you mean --search?\nUsage: signet clients list'],
    [['request', '--verbos', '/api/echo'], 'signet request: unknown flag --verbos. Did you mean --verbose?'],
    [['keygen', '--out', 'd', '--forse'], 'signet keygen: unknown flag --forse. Did you mean --force?'],
    [['accounts', 'audit', 'acct_default', '--limt', '5'], 'signet accounts audit: unknown flag --limit'.replace('--limit', '--limt. Did you mean --limit?')],
  ])('signet %j', async (argv, expected) => {
    const result = await cli(...argv);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(expected);
    expect(result.stderr).not.toContain('Commands:');
    expect(result.stderr).not.toContain("'--");
  });

  test('a flag far from every flag gets no guess, still exit 2', async () => {
    const result = await cli('clients', 'list', '--xyzzyplugh');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^signet clients list: unknown flag --xyzzyplugh\.\nUsage: /);
  });

  test('a flag value that starts with "--" is the value, not a mistyped flag', async () => {
    const result = await cli('clients', 'list', '--cursor', '--not-a-flag', '--endpoint', 'http://127.0.0.1:9', '--admin', '/no/such/dir');
    expect(result.stderr).not.toContain('unknown flag');
  });
});

test('`signet help clients audit` is the audit help, and every subcommand of every group resolves to its own help', async () => {
  const audit = await cli('help', 'clients', 'audit');
  expect(audit.code).toBe(0);
  expect(audit.stdout).toMatch(/^signet clients audit: who changed what in one client/);
  for (const [words] of LEAVES) {
    const result = await cli('help', ...words.split(' '));
    expect({ words, code: result.code, head: result.stdout.split(':')[0] }).toEqual({ words, code: 0, head: `signet ${words}` });
  }
});

test('a usage mistake prints the usage of that subcommand (exit 2)', async () => {
  const result = await cli('clients', 'get');
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('Usage: signet clients get CLIENT_ID');
});

test('every help renders (no flag without a meaning)', () => {
  for (const [words] of LEAVES) expect(helpFor(words.split(' '))).toHaveProperty('text');
});

test('the group help names its subcommands as they are called (get, update), not in other words', async () => {
  const result = await cli('clients', '--help');
  expect(result.stdout.split('\n')[0]).toBe("signet clients: the registry's clients: create, list, get, show, update, disable, enable, find, and read refusals and audit");
});

test('--version means the same on every command that takes it', () => {
  const versions = LEAVES.flatMap(([, help]) => (help.flags.version === undefined ? [] : [JSON.stringify(help.flags.version)]));
  expect(versions.length).toBeGreaterThanOrEqual(6);
  expect(new Set(versions).size).toBe(1);
});

test('the bin itself: `signet keygen --help` exits 0 with the flags (it used to fail with "Unknown option")', () => {
  const result = spawnSync(process.execPath, ['--no-warnings', '-r', 'tsx/cjs', 'bin/signet.ts', 'keygen', '--help'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(result.status).toBe(0);
  expect(result.stdout).toContain('--force');
  expect(result.stderr).toBe('');
});
