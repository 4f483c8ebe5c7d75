/**
 * The modules of lambda/ import one another without a cycle: every import (type-only ones too,
 * and re-exports) of every .ts file under lambda/, resolved to the file it names, forms a graph
 * that a depth-first search walks without coming back to a module on its own path.
 */
import fs from 'node:fs';
import path from 'node:path';

const LAMBDA = path.resolve(__dirname, '../../lambda');

/** `import ... from '...'`, `export ... from '...'`, `import '...'`, `import('...')`, `require('...')`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The file a relative specifier names (`./x` → x.ts or x/index.ts), or undefined for a package. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  const found = [`${base}.ts`, path.join(base, 'index.ts'), base].find((candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile());
  if (found === undefined) throw new Error(`${path.relative(LAMBDA, from)} imports ${specifier}, which names no file`);
  return found;
}

/** Comments removed, so that an import shown in a doc comment is not read as one. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const match of withoutComments(fs.readFileSync(file, 'utf8')).matchAll(SPECIFIER)) {
      const target = resolveSpecifier(file, match[1]);
      if (target !== undefined && target.startsWith(LAMBDA + path.sep)) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** Every cycle found (each as the modules on it, relative to lambda/), at most one per back edge. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const onPath: string[] = [];
  const visit = (node: string): void => {
    onPath.push(node);
    for (const next of graph.get(node) ?? []) {
      const at = onPath.indexOf(next);
      if (at >= 0) found.push([...onPath.slice(at), next].map((f) => path.relative(LAMBDA, f)));
      else if (!done.has(next)) visit(next);
    }
    onPath.pop();
    done.add(node);
  };
  for (const node of graph.keys()) if (!done.has(node)) visit(node);
  return found;
}

describe('the import graph of lambda/', () => {
  const graph = importGraph(sourceFiles(LAMBDA));

  it('is read from every module, with the edges the sources declare', () => {
    expect(graph.size).toBeGreaterThan(50);
    const edges = (file: string) => (graph.get(path.join(LAMBDA, file)) ?? []).map((f) => path.relative(LAMBDA, f));
    expect(edges('core/verify.ts')).toEqual(expect.arrayContaining(['core/verify-policy.ts', 'core/profiles.ts']));
    expect(edges('core/profiles.ts')).toEqual(expect.arrayContaining(['core/profile-names.ts']));
  });

  it('has no cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('finds a cycle when there is one (the search itself)', () => {
    const a = path.join(LAMBDA, 'a.ts');
    const b = path.join(LAMBDA, 'b.ts');
    const c = path.join(LAMBDA, 'c.ts');
    expect(cycles(new Map([[a, [b]], [b, [c]], [c, [a]]]))).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
    expect(cycles(new Map([[a, [b, c]], [b, [c]], [c, []]]))).toEqual([]);
  });
});
