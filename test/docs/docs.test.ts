/**
 * The README and the guides in docs/ stay true to the code. The README is a front door: at most 200
 * lines, an opening that names every algorithm and profile the core verifies, exactly two commands,
 * one diagram, and a link to every guide. The guides: every error code with its status
 * (docs/errors.md), the settings table as lambda/settings.ts renders it (docs/configuration.md),
 * the local role catalogue as `npm start` configures it (docs/local-gateway.md), the scheme's
 * example as the core builds it (docs/scheme.md), every CLI command (docs/cli.md), every CLI
 * command and error code any document names, and every local link and anchor.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { DEFAULT_ROLE_CATALOGUE, ENV } from '../../lambda/config-env';
import { DEFAULT_STALE_IF_ERROR_MS } from '../../lambda/core/defaults';
import { withSettingsTable, withStackPropertiesTable } from '../../lambda/settings-docs';
import { REST_UNAUTHORIZED_ERROR } from '../../lambda/adapters/authorizer-response';
import { SIGNATURE_ALGORITHMS } from '../../lambda/core/algorithm-names';
import { ERROR_CODES } from '../../lambda/core/errors';
import { COVERAGE_PROFILES } from '../../lambda/core/profile-names';
import { signRequest } from '../../lambda/core/sign';
import { LOCAL_ROLE_CATALOGUE } from '../../local/role-catalogue';
import { INSTALL, PREREQUISITES } from '../../scripts/prerequisites.cjs';
import { COMMANDS } from '../../bin/cli';
import { isGroup } from '../../bin/commands/help';
import { nextTestKey } from '../support/test-keys';

const ROOT = resolve(__dirname, '..', '..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** Every Markdown document: the README, the benchmarks, the guides. */
const GUIDES = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
const DOCS: ReadonlyArray<readonly [string, string]> = ['README.md', 'BENCHMARKS.md', ...GUIDES].map((path) => [path, read(path)] as const);
const README = read('README.md');

/** The text of the section under `heading` (any level), up to the next heading of its level or above. */
function section(text: string, heading: string): string {
  const match = new RegExp(`^(#+) ${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n`, 'm').exec(text);
  if (match === null) throw new Error(`no "${heading}" heading`);
  const rest = text.slice(match.index + match[0].length);
  const end = new RegExp(`^#{1,${match[1].length}} `, 'm').exec(rest);
  return match[0] + (end === null ? rest : rest.slice(0, end.index));
}

/** Fenced code blocks, outside of which headings and links are read. */
const FENCE = /```(\w*)\n([\s\S]*?)\n```/g;

function fencedBlocks(text: string): { lang: string; body: string }[] {
  return [...text.matchAll(FENCE)].map((m) => ({ lang: m[1], body: m[2] }));
}

/** Rows of the markdown tables in `text`, as cell arrays (backticks kept). */
function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[-| ]+\|$/.test(line))
    .map((line) => line.slice(1, -1).split(/(?<!\\)\|/).map((cell) => cell.trim()));
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}

function anchorsOf(text: string): Set<string> {
  return new Set([...text.replace(FENCE, '').matchAll(/^#+ (.+)$/gm)].map((m) => anchorOf(m[1])));
}

describe('the README, a front door', () => {
  test('is at most 200 lines', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(200);
  });

  test('opens by naming every algorithm the core verifies and both profiles', () => {
    const opening = README.slice(0, README.indexOf('\n## '));
    for (const name of [...SIGNATURE_ALGORITHMS, ...COVERAGE_PROFILES]) expect({ name, named: opening.includes(`\`${name}\``) }).toEqual({ name, named: true });
    expect(opening).not.toMatch(/RSA private key|RSA signature/);
  });

  test('the quick start is exactly `npm install && npm start` and `npm test`', () => {
    const blocks = fencedBlocks(section(README, 'Quick start'));
    expect(blocks.map((b) => b.body.trim())).toEqual(['npm install && npm start', 'npm test']);
  });

  test('the quick start lists every prerequisite as scripts/prerequisites.cjs checks it, with its two install lines', () => {
    const quickStart = section(README, 'Quick start');
    const rows = tableRows(quickStart).filter((cells) => /^`[a-z]+`$/.test(cells[0]));
    expect(rows.map((cells) => [cells[0].slice(1, -1), cells[1]])).toEqual(PREREQUISITES.map((p) => [p.id, p.what]));
    expect(quickStart).toContain(`- Debian/Ubuntu: \`${INSTALL.debian}\``);
    expect(quickStart).toContain(`- macOS (Homebrew): \`${INSTALL.macos}\``);
  });

  test('draws the request path as its one diagram, in Mermaid', () => {
    expect(fencedBlocks(README).filter((b) => b.lang === 'mermaid')).toHaveLength(1);
    expect(fencedBlocks(section(README, 'The request path')).some((b) => b.lang === 'mermaid')).toBe(true);
  });

  test('links to every guide in docs/, the benchmarks and the registry API', () => {
    const links = new Set([...README.matchAll(/\]\(([^)#]+)(?:#[^)]*)?\)/g)].map((m) => m[1]));
    for (const path of [...GUIDES, 'BENCHMARKS.md', 'docs/openapi/registry.json']) expect({ path, linked: links.has(path) }).toEqual({ path, linked: true });
  });
});

test('every error code is listed once with its status, and no other code', () => {
  const rows = tableRows(read('docs/errors.md')).filter((cells) => /^`[a-z_]+`$/.test(cells[0]));
  const listed = new Map(rows.map((cells) => [cells[0].slice(1, -1), Number(cells[1])]));
  expect(rows).toHaveLength(listed.size);
  // The core's codes, and the one a REST API's 401 body carries without a SignetError behind it.
  expect(Object.fromEntries(listed)).toEqual({ ...ERROR_CODES, [REST_UNAUTHORIZED_ERROR]: 401 });
  for (const cells of rows) expect(cells[2].length).toBeGreaterThan(10);
});

test('the configuration table is the settings table of lambda/settings.ts, every variable once (regenerate: npm run -s docs:settings)', () => {
  const configuration = read('docs/configuration.md');
  expect(configuration).toBe(withSettingsTable(configuration));
  const variables = tableRows(configuration).map((cells) => cells[0].replace(/`/g, '')).filter((name) => name.startsWith('SIGNET_'));
  expect(variables.sort()).toEqual(Object.values(ENV).sort());
  const rows = new Map(tableRows(configuration).map((cells) => [cells[0].replace(/`/g, ''), cells[2]]));
  expect(rows.get(ENV.staleIfErrorMs)).toBe(`\`${DEFAULT_STALE_IF_ERROR_MS}\``);
  expect(rows.get(ENV.roleCatalogue)).toBe(`\`${JSON.stringify(DEFAULT_ROLE_CATALOGUE)}\``);
});

test('the stack properties of docs/deploy.md are the context settings of lambda/settings.ts, rendered from the table (regenerate: npm run -s docs:settings)', () => {
  const deploy = read('docs/deploy.md');
  expect(deploy).toBe(withStackPropertiesTable(deploy));
  const rows = new Map(tableRows(section(deploy, 'Stack properties')).map((cells) => [cells[0], cells[1]]));
  expect(rows.get('`staleIfError` (`staleIfErrorMs`)')).toBe(`15 min (\`${DEFAULT_STALE_IF_ERROR_MS}\`)`);
  expect(rows.get('`stackName` (context only)')).toBe('`Signet`');
});

test('the local role catalogue table is the one npm start configures', () => {
  const rows = tableRows(section(read('docs/local-gateway.md'), 'The local role catalogue')).filter((cells) => cells.length === 3 && cells[0].startsWith('`'));
  // Every backquoted pattern before the parenthesised explanation.
  const documented = Object.fromEntries(rows.map((cells) => [cells[0].replace(/`/g, ''), [...cells[1].replace(/ \(.*$/, '').matchAll(/`([^`]+)`/g)].map((m) => m[1])]));
  expect(documented).toEqual(LOCAL_ROLE_CATALOGUE);
});

test("the scheme's example is what the core signs: same base, same Content-Digest, Date and Signature-Input", () => {
  const blocks = fencedBlocks(read('docs/scheme.md')).filter((b) => b.lang === '');
  const base = blocks.find((b) => b.body.startsWith('"@method"'))!.body;
  const headerLines = blocks.find((b) => b.body.startsWith('Content-Digest:'))!.body.split('\n');
  const { headers, base: coreBase } = signRequest({
    method: 'POST',
    url: 'https://api.example.com/api/echo?x=1',
    body: '{"hello":"world"}',
    keyId: 'c_9qC8Fq0vYxkT2mWn4sLd1A',
    privateKey: nextTestKey().key,
    created: 1767225600,
  });
  expect(base).toBe(coreBase);
  expect(headerLines.slice(0, 3)).toEqual([
    `Content-Digest: ${headers['content-digest']}`,
    `Date: ${headers.date}`,
    `Signature-Input: ${headers['signature-input']}`,
  ]);
});

test('the scheme guide names every algorithm the core verifies, and both profiles', () => {
  const scheme = read('docs/scheme.md');
  for (const name of [...SIGNATURE_ALGORITHMS, ...COVERAGE_PROFILES]) expect({ name, named: scheme.includes(`\`${name}\``) }).toEqual({ name, named: true });
});

test('every document the code sends a reader to exists', () => {
  const sources = ['lambda', 'bin', 'local', 'lib'].flatMap((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
      .map((entry) => join(entry.parentPath, entry.name)),
  );
  const named = sources.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/\b(docs\/[a-z0-9-]+\.md|BENCHMARKS\.md)\b/g)].map((m) => ({ file: relative(ROOT, file), doc: m[1] })));
  expect(named.length).toBeGreaterThan(3);
  for (const { file, doc } of named) expect({ file, doc, exists: existsSync(join(ROOT, doc)) }).toEqual({ file, doc, exists: true });
});

test('every relative link points to a file in the repository, and every anchor to a heading', () => {
  let checked = 0;
  for (const [path, text] of DOCS) {
    for (const m of text.replace(FENCE, '').matchAll(/\]\(((?!https?:|mailto:)[^)#\s]*)(?:#([^)\s]*))?\)/g)) {
      const target = m[1] === '' ? path : relative(ROOT, resolve(ROOT, dirname(path), m[1]));
      expect({ path, link: m[0], exists: existsSync(join(ROOT, target)) }).toEqual({ path, link: m[0], exists: true });
      if (m[2] !== undefined && target.endsWith('.md')) expect({ path, link: m[0], anchor: anchorsOf(read(target)).has(m[2]) }).toEqual({ path, link: m[0], anchor: true });
      checked += 1;
    }
  }
  expect(checked).toBeGreaterThan(50);
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

test("the partner guide's signing step starts with the Node example: it needs nothing beyond Node", () => {
  const guide = read('docs/partners.md');
  const step = guide.slice(guide.indexOf('## 4.'), guide.indexOf('## 5.'));
  const firstCommand = /```sh\n(\S+ \S+)/.exec(step)?.[1];
  expect(firstCommand).toBe('node examples/sign.mjs');
});

test('every CLI command and subcommand a document names exists', () => {
  expect(DOCS.flatMap(([, text]) => namedCommands(text)).length).toBeGreaterThan(30);
  for (const [path, text] of DOCS) {
    for (const [name, sub] of namedCommands(text)) {
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

test("docs/cli.md's table lists every command, and the guide names every subcommand", () => {
  const cli = read('docs/cli.md');
  const tableCommands = tableRows(cli)
    .map((cells) => /^`([a-z]+)/.exec(cells[0])?.[1])
    .filter((name): name is string => name !== undefined);
  expect([...new Set(tableCommands)].sort()).toEqual(Object.keys(COMMANDS).sort());
  const named = new Set(namedCommands(cli).map(([name, sub]) => `${name} ${sub ?? ''}`.trim()));
  for (const [name, command] of Object.entries(COMMANDS)) {
    const help = command.HELP;
    if (!isGroup(help)) continue;
    for (const sub of Object.keys(help.subcommands)) {
      const inTable = new RegExp(`\`${name} [a-z|\\\\]*\\b${sub}\\b`).test(cli);
      expect({ command: `${name} ${sub}`, documented: named.has(`${name} ${sub}`) || inTable }).toEqual({ command: `${name} ${sub}`, documented: true });
    }
  }
});

/** Snake-case words in backticks that are not error codes, each with where it comes from. */
const NOT_CODES: Record<string, string> = {
  quote_plus: "Python's urllib function (docs/target-uri.md)",
};

test('every error code a document names in backticks is a real code', () => {
  for (const [path, text] of DOCS) {
    // Snake-case words in backticks are error codes, except ids (`acct_default`).
    for (const m of text.matchAll(/`((?!acct_)[a-z]+(?:_[a-z]+)+)`/g)) {
      if (NOT_CODES[m[1]] !== undefined) continue;
      expect({ path, code: m[1], known: m[1] in ERROR_CODES }).toEqual({ path, code: m[1], known: true });
    }
  }
});
