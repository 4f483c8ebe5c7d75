/**
 * The README stays true to the code: the quick start is exactly two commands, every error code
 * is listed with its status, every CLI command the docs name exists (and the README names them all), every Lambda environment variable with its default, the local role
 * catalogue as configured, the scheme example as the core builds it, and every local link exists.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_ROLE_CATALOGUE, ENV } from '../../lambda/config-env';
import {
  DEFAULT_CLIENT_CACHE_TTL_MS,
  DEFAULT_MAX_AGE_S,
  DEFAULT_MAX_SKEW_S,
  DEFAULT_ROTATION_GRACE_S,
  DEFAULT_RSA_BITS,
  DEFAULT_STALE_IF_ERROR_MS,
} from '../../lambda/core/defaults';
import { REST_UNAUTHORIZED_ERROR } from '../../lambda/adapters/authorizer-response';
import { ERROR_CODES } from '../../lambda/core/errors';
import { generateRsaKeyPair } from '../../lambda/core/keys';
import { signRequest } from '../../lambda/core/sign';
import { LOCAL_ROLE_CATALOGUE } from '../../local/role-catalogue';
import { INSTALL, PREREQUISITES } from '../../scripts/prerequisites.cjs';
import { COMMANDS } from '../../bin/cli';
import { isGroup } from '../../bin/commands/help';

const ROOT = resolve(__dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The text of a `## heading` section, up to the next `## `. */
function section(heading: string): string {
  const start = README.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`README has no "## ${heading}" section`);
  const end = README.indexOf('\n## ', start + 4);
  return README.slice(start, end === -1 ? undefined : end);
}

function fencedBlocks(text: string): { lang: string; body: string }[] {
  return [...text.matchAll(/```(\w*)\n([\s\S]*?)\n```/g)].map((m) => ({ lang: m[1], body: m[2] }));
}

/** Rows of the markdown tables in `text`, as cell arrays (backticks kept). */
function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[-| ]+\|$/.test(line))
    .map((line) => line.slice(1, -1).split(/(?<!\\)\|/).map((cell) => cell.trim()));
}

test('the quick start is exactly `npm install && npm start` and `npm test`', () => {
  const blocks = fencedBlocks(section('Quick start'));
  expect(blocks.map((b) => b.body.trim())).toEqual(['npm install && npm start', 'npm test']);
});

test('the quick start lists every prerequisite as scripts/prerequisites.cjs checks it, with its two install lines', () => {
  const quickStart = section('Quick start');
  const rows = tableRows(quickStart).filter((cells) => /^`[a-z]+`$/.test(cells[0]));
  expect(rows.map((cells) => [cells[0].slice(1, -1), cells[1]])).toEqual(PREREQUISITES.map((p) => [p.id, p.what]));
  expect(quickStart).toContain(`- Debian/Ubuntu: \`${INSTALL.debian}\``);
  expect(quickStart).toContain(`- macOS (Homebrew): \`${INSTALL.macos}\``);
});

test('every error code is listed once with its status, and no other code', () => {
  const rows = tableRows(section('Error codes')).filter((cells) => /^`[a-z_]+`$/.test(cells[0]));
  const listed = new Map(rows.map((cells) => [cells[0].slice(1, -1), Number(cells[1])]));
  expect(rows).toHaveLength(listed.size);
  // The core's codes, and the one a REST API's 401 body carries without a SignetError behind it.
  expect(Object.fromEntries(listed)).toEqual({ ...ERROR_CODES, [REST_UNAUTHORIZED_ERROR]: 401 });
  for (const cells of rows) expect(cells[2].length).toBeGreaterThan(10);
});

test('every Lambda environment variable is documented with its default', () => {
  const rows = new Map(tableRows(section('Configuration')).map((cells) => [cells[0].replace(/`/g, ''), cells[1]]));
  expect([...rows.keys()].filter((name) => name.startsWith('SIGNET_')).sort()).toEqual(Object.values(ENV).sort());
  const defaults: Record<string, number | boolean> = {
    [ENV.maxAgeS]: DEFAULT_MAX_AGE_S,
    [ENV.maxSkewS]: DEFAULT_MAX_SKEW_S,
    [ENV.clientCacheTtlMs]: DEFAULT_CLIENT_CACHE_TTL_MS,
    [ENV.staleIfErrorMs]: DEFAULT_STALE_IF_ERROR_MS,
    [ENV.rotationGraceS]: DEFAULT_ROTATION_GRACE_S,
    [ENV.rotationKeyBits]: DEFAULT_RSA_BITS,
    [ENV.allowLegacy]: false,
    [ENV.replayProtection]: false,
    [ENV.recordAuthFailures]: true,
  };
  for (const [name, value] of Object.entries(defaults)) expect({ name, cell: rows.get(name) }).toEqual({ name, cell: `\`${String(value)}\`` });
  expect(rows.get(ENV.roleCatalogue)).toContain(`\`${JSON.stringify(DEFAULT_ROLE_CATALOGUE)}\``);
});

test('the local role catalogue table is the one npm start configures', () => {
  const rows = tableRows(section('The local gateway (`npm start`)')).filter((cells) => cells.length === 3 && cells[0].startsWith('`'));
  // Every backquoted pattern before the parenthesised explanation.
  const documented = Object.fromEntries(rows.map((cells) => [cells[0].replace(/`/g, ''), [...cells[1].replace(/ \(.*$/, '').matchAll(/`([^`]+)`/g)].map((m) => m[1])]));
  expect(documented).toEqual(LOCAL_ROLE_CATALOGUE);
});

test("the scheme's example is what the core signs: same base, same Content-Digest, Date and Signature-Input", () => {
  const text = section('The scheme');
  const blocks = fencedBlocks(text).filter((b) => b.lang === '');
  const base = blocks.find((b) => b.body.startsWith('"@method"'))!.body;
  const headerLines = blocks.find((b) => b.body.startsWith('Content-Digest:'))!.body.split('\n');
  const { headers, base: coreBase } = signRequest({
    method: 'POST',
    url: 'https://api.example.com/api/echo?x=1',
    body: '{"hello":"world"}',
    keyId: 'c_9qC8Fq0vYxkT2mWn4sLd1A',
    privateKey: generateRsaKeyPair().key,
    created: 1767225600,
  });
  expect(base).toBe(coreBase);
  expect(headerLines.slice(0, 3)).toEqual([
    `Content-Digest: ${headers['content-digest']}`,
    `Date: ${headers.date}`,
    `Signature-Input: ${headers['signature-input']}`,
  ]);
});

test('the request path is drawn in Mermaid, and the sections code points to exist', () => {
  expect(fencedBlocks(section('The request path')).some((b) => b.lang === 'mermaid')).toBe(true);
  // lambda/core/verify.ts sends users to the README's "The scheme".
  expect(README).toContain('\n## The scheme\n');
  for (const heading of ['The body half', 'Deploy', 'Configuration', 'Troubleshooting checklist', 'Signing examples for partners']) {
    expect(() => section(heading)).not.toThrow();
  }
});

test('every relative link points to a file in the repository', () => {
  const links = [...README.matchAll(/\]\(((?!https?:|#)[^)#]+)(#[^)]*)?\)/g)].map((m) => m[1]);
  expect(links).toEqual(expect.arrayContaining(['examples/sign.sh', 'examples/sign.py', 'examples/Sign.java', 'examples/sign.mjs', 'docs/deploy.md']));
  for (const link of links) expect({ link, exists: existsSync(join(ROOT, link)) }).toEqual({ link, exists: true });
});

/** Every `signet <command> [<subcommand>]` a document names, as [command, subcommand | undefined]. */
function namedCommands(text: string): Array<[string, string | undefined]> {
  const found: Array<[string, string | undefined]> = [];
  for (const m of text.matchAll(/\bsignet(?: --)? ([a-z]+)(?: ((?:[a-z]+)(?:\\?\|[a-z]+)*))?/g)) {
    const subs = m[2]?.split(/\\?\|/) ?? [undefined];
    for (const sub of subs) found.push([m[1], sub]);
  }
  return found;
}

const DOCS = ['README.md', 'docs/partners.md', 'docs/deploy.md', 'docs/portal.md'].map((path) => [path, readFileSync(join(ROOT, path), 'utf8')] as const);

test("the partner guide's signing step starts with the Node example: it needs nothing beyond Node", () => {
  const guide = DOCS.find(([path]) => path === 'docs/partners.md')![1];
  const step = guide.slice(guide.indexOf('## 4.'), guide.indexOf('## 5.'));
  const firstCommand = /```sh\n(\S+ \S+)/.exec(step)?.[1];
  expect(firstCommand).toBe('node examples/sign.mjs');
});

test('every CLI command and subcommand a document names exists', () => {
  for (const [path, text] of DOCS) {
    const named = namedCommands(text);
    if (path === 'README.md') expect(named.length).toBeGreaterThan(30);
    for (const [name, sub] of named) {
      if (name === 'help') {
        // `signet help [command]`
        expect({ path, sub, exists: sub === undefined || sub in COMMANDS }).toEqual({ path, sub, exists: true });
        continue;
      }
      const command = COMMANDS[name];
      expect({ path, name, exists: command !== undefined }).toEqual({ path, name, exists: true });
      const help = command.HELP;
      if (isGroup(help)) expect({ path, name, sub, exists: sub !== undefined && sub in help.subcommands }).toEqual({ path, name, sub, exists: true });
    }
  }
});

test("the README's CLI table lists every command, and the README names every subcommand", () => {
  const tableCommands = tableRows(section('The `signet` CLI'))
    .map((cells) => /^`([a-z]+)/.exec(cells[0])?.[1])
    .filter((name): name is string => name !== undefined);
  expect([...new Set(tableCommands)].sort()).toEqual(Object.keys(COMMANDS).sort());
  const named = new Set(namedCommands(README).map(([name, sub]) => `${name} ${sub ?? ''}`.trim()));
  const tableRowsText = section('The `signet` CLI');
  for (const [name, command] of Object.entries(COMMANDS)) {
    const help = command.HELP;
    if (!isGroup(help)) continue;
    for (const sub of Object.keys(help.subcommands)) {
      const inTable = new RegExp(`\`${name} [a-z|\\\\]*\\b${sub}\\b`).test(tableRowsText);
      expect({ command: `${name} ${sub}`, documented: named.has(`${name} ${sub}`) || inTable }).toEqual({ command: `${name} ${sub}`, documented: true });
    }
  }
});

test('every error code a guide names in backticks is a real code', () => {
  for (const [path, text] of DOCS) {
    // Snake-case words in backticks are error codes, except ids (`acct_default`).
    for (const m of text.matchAll(/`((?!acct_)[a-z]+(?:_[a-z]+)+)`/g)) {
      expect({ path, code: m[1], known: m[1] in ERROR_CODES }).toEqual({ path, code: m[1], known: true });
    }
  }
});
