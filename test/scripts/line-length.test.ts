/**
 * No source line over 300 characters: a reader (or a diff) sees a whole line. Long prose and
 * test vectors are split into concatenated strings. Scans every source file (TypeScript,
 * JavaScript, the page's HTML and CSS, the examples in other languages, shell scripts) of the
 * folders that hold code and of the repository's root; JSON fixtures and Markdown are not scanned.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const SCANNED = ['lambda', 'lib', 'bin', 'local', 'portal', 'scripts', 'bench', 'test', 'examples', '.ci'];
/** Source files by ending: the code of every language the repository holds. */
const SOURCE = /\.(ts|js|cjs|mjs|html|css|sh|py|go|java)$/;
/** The root's own source (configuration), besides the folders above. */
const ROOT_FILES = ['eslint.config.mjs', 'jest.config.js'];
const MAX_LINE_CHARS = 300;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return SOURCE.test(entry.name) || entry.name === 'run' ? [path] : [];
  });
}

/** `file:line (n characters)` for every line of `text` longer than the limit. */
function longLines(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) => ([...line].length > MAX_LINE_CHARS ? [`${file}:${i + 1} (${[...line].length} characters)`] : []));
}

test('finds a line one character over the limit, and none at the limit', () => {
  expect(longLines('x.ts', `${'a'.repeat(MAX_LINE_CHARS)}\n${'b'.repeat(MAX_LINE_CHARS + 1)}`)).toEqual([`x.ts:2 (${MAX_LINE_CHARS + 1} characters)`]);
});

test(`no source line in ${[...SCANNED, ...ROOT_FILES].join(', ')} is over ${MAX_LINE_CHARS} characters`, () => {
  const files = [...SCANNED.flatMap((dir) => sourceFiles(join(ROOT, dir))), ...ROOT_FILES.map((file) => join(ROOT, file))];
  expect(files.length).toBeGreaterThan(100);
  // Every kind of source is among them: a pattern that stopped matching one would go unnoticed.
  for (const ending of ['.ts', '.cjs', '.mjs', '.html', '.css', '.sh', '.go', '.java', '.py']) expect(files.some((f) => f.endsWith(ending))).toBe(true);
  expect(files.flatMap((file) => longLines(relative(ROOT, file), readFileSync(file, 'utf8')))).toEqual([]);
});
