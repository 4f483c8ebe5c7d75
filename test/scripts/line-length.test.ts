/**
 * No source line over 300 characters: a reader (or a diff) sees a whole line. Long prose and
 * test vectors are split into concatenated strings. Scans every TypeScript file of the folders
 * that hold code (JSON fixtures are data and are not scanned).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const SCANNED = ['lambda', 'lib', 'bin', 'local', 'portal', 'scripts', 'bench', 'test'];
const MAX_LINE_CHARS = 300;

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : typeScriptFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `file:line (n characters)` for every line of `text` longer than the limit. */
function longLines(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) => ([...line].length > MAX_LINE_CHARS ? [`${file}:${i + 1} (${[...line].length} characters)`] : []));
}

test('finds a line one character over the limit, and none at the limit', () => {
  expect(longLines('x.ts', `${'a'.repeat(MAX_LINE_CHARS)}\n${'b'.repeat(MAX_LINE_CHARS + 1)}`)).toEqual([`x.ts:2 (${MAX_LINE_CHARS + 1} characters)`]);
});

test(`no TypeScript line in ${SCANNED.join(', ')} is over ${MAX_LINE_CHARS} characters`, () => {
  const files = SCANNED.flatMap((dir) => typeScriptFiles(join(ROOT, dir)));
  expect(files.length).toBeGreaterThan(100);
  expect(files.flatMap((file) => longLines(relative(ROOT, file), readFileSync(file, 'utf8')))).toEqual([]);
});
