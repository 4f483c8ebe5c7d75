/**
 * The project stands alone: nothing its code, tests, scripts or CI read lies outside the
 * repository (and node_modules). This scans every code file in the folders that run and fails on
 * a path that leaves the repository: a relative path (string literal, import, or
 * `resolve(__dirname, ...)` segments) that resolves above the root, the sibling folder the
 * developers read from, or a path of this machine, in code or in a comment.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const SCANNED = ['lambda', 'lib', 'bin', 'local', 'bench', 'scripts', 'test', 'portal', 'examples', '.ci'];
const CODE = new Set(['.ts', '.js', '.cjs', '.mjs', '.cts', '.mts', '.html', '.sh', '.java', '.py', '.go', '']);
/**
 * The folders of the machine the scan runs on, which belong to it and never to the project: the
 * top folder the repository is checked out under, the home folder and the temporary folder.
 * Derived where the scan runs, so no machine's paths are written here.
 */
const MACHINE_ROOTS = [...new Set([`${sep}${ROOT.split(sep)[1]}`, homedir(), tmpdir()])].filter((dir) => dir !== sep && dir !== '').map((dir) => `${dir.replace(/[\\/]+$/, '')}${sep}`);
/** A machine folder where a path starts: not inside another path or a URL. */
const MACHINE_PATH = new RegExp(`(?<![\\w.~/-])(?:${MACHINE_ROOTS.map((dir) => dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})[^\\s'"\`)]*`, 'g');
const SIBLING = ['..', 'shared'].join('/');
/** Files whose absolute or outside paths are data, never read; each with why. */
const NOT_READ: Record<string, string> = {
  'test/scripts/self-contained.test.ts': 'this scanner, and the escapes it is tested on',
};

function codeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = join(dir, name);
    if (name === 'node_modules' || name === 'cdk.out') return [];
    if (statSync(file).isDirectory()) return codeFiles(file);
    return CODE.has(extname(name)) ? [file] : [];
  });
}

const STRING = /'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\$]|\\.)*)`/g;
const DIRNAME_CALL = /(?:resolve|join)\(\s*__dirname\s*((?:,\s*'[^'\n]*'\s*)+)\)/g;

function outside(path: string): boolean {
  const rel = relative(ROOT, path);
  return rel === '..' || rel.startsWith(`..${sep}`) || resolve(ROOT, rel) !== path;
}

/** Every path in `text` (the contents of `file`) that leaves the repository, with its line. */
export function escapes(file: string, text: string): string[] {
  const found: string[] = [];
  const lineOf = (index: number): number => text.slice(0, index).split('\n').length;
  for (const match of text.matchAll(STRING)) {
    const value = match[1] ?? match[2] ?? match[3] ?? '';
    const at = `${relative(ROOT, file)}:${lineOf(match.index)}`;
    if (value.includes(SIBLING)) found.push(`${at} reads the sibling folder: ${value}`);
    else if (value.startsWith('../') && outside(resolve(dirname(file), value))) found.push(`${at} leaves the repository: ${value}`);
  }
  // In strings and comments alike: a path of this machine means nothing to another reader.
  for (const match of text.matchAll(MACHINE_PATH)) found.push(`${relative(ROOT, file)}:${lineOf(match.index)} names a path of this machine: ${match[0]}`);
  for (const match of text.matchAll(DIRNAME_CALL)) {
    const segments = [...match[1].matchAll(/'([^'\n]*)'/g)].map((m) => m[1]);
    if (outside(resolve(dirname(file), ...segments))) found.push(`${relative(ROOT, file)}:${lineOf(match.index)} leaves the repository: ${match[0]}`);
  }
  return found;
}

test('the scanner catches each kind of escape and passes paths inside the repository', () => {
  const file = join(ROOT, 'test', 'adapters', 'fixtures.ts');
  const bad = [
    `const a = path.resolve(__dirname, '../../../${SIBLING.slice(3)}/fixtures');`,
    `const b = '${SIBLING}/vectors/rfc9421.md';`,
    `const c = resolve(__dirname, '..', '..', '..', 'elsewhere');`,
    `import x from '../../../outside';`,
    `const d = '${join(homedir(), 'key.pem')}';`,
    `const e = '${join(tmpdir(), 'notes.md')}';`,
    `// the bugs are listed in ${join(tmpdir(), 'notes.md')}`,
    `/* see ${join(ROOT, 'README.md')} */`,
  ];
  for (const line of bad) expect({ line, found: escapes(file, line).length > 0 }).toEqual({ line, found: true });
  const good = [
    `const a = path.resolve(__dirname, '../fixtures/apigateway');`,
    `const b = resolve(__dirname, '..', '..', 'examples');`,
    `import x from '../../lambda/core/keys';`,
    `const route = '/registry/clients';`,
    `// https://example.com${join(tmpdir(), 'x')} is a URL, not a file here`,
    `const key = 'c_${tmpdir().replace(/\W/g, '')}';`,
  ];
  for (const line of good) expect({ line, found: escapes(file, line) }).toEqual({ line, found: [] });
});

test('no code in the repository reads outside it', () => {
  const files = SCANNED.flatMap((dir) => codeFiles(join(ROOT, dir))).filter((file) => NOT_READ[relative(ROOT, file)] === undefined);
  expect(files.length).toBeGreaterThan(100);
  expect(files.flatMap((file) => escapes(file, readFileSync(file, 'utf8')))).toEqual([]);
});
