/**
 * What `npm publish` needs from package.json, checked without the network: a scoped name (the
 * unscoped `signet` on npm is an unrelated package), public access for it (a scoped package is
 * restricted unless told otherwise), no `private` flag, the `signet` CLI; and the docs, examples
 * and tests import the package under that name, never a bare `signet/<entry>`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  private?: boolean;
  publishConfig?: { access?: string };
  bin?: Record<string, string>;
  exports: Record<string, unknown>;
};

test('the package is published under a scoped name, publicly, with the signet CLI', () => {
  expect(manifest.name).toMatch(/^@[a-z0-9-]+\/signet$/);
  expect(manifest.publishConfig?.access).toBe('public');
  expect(manifest.private).toBeUndefined();
  expect(Object.keys(manifest.bin ?? {})).toEqual(['signet']);
});

test('the docs, examples and tests import its entry points under the package name', () => {
  const entries = Object.keys(manifest.exports).filter((key) => key !== './package.json').map((key) => key.slice(2));
  expect(entries).toEqual(['cdk', 'signer', 'backend']);
  const bare = new RegExp(`(?<![@\\w/.-])signet/(${entries.join('|')})\\b`);
  const offenders: string[] = [];
  for (const file of textFiles(['README.md', 'docs', 'examples', 'test', 'lib'])) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (bare.test(line)) offenders.push(`${relative(ROOT, file)}:${index + 1}`);
      });
  }
  expect(offenders).toEqual([]);
});

/** The Markdown and source files under `paths` (relative to the repository). */
function textFiles(paths: readonly string[]): string[] {
  return paths.flatMap((path) => {
    const full = join(ROOT, path);
    if (/\.\w+$/.test(path)) return [full];
    return readdirSync(full, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.(md|ts|mjs|cjs|js|py|go|java|sh)$/.test(entry.name))
      .map((entry) => join(entry.parentPath, entry.name));
  });
}
