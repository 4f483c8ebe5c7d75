/**
 * The layers of lambda/ point one way: entries (handlers) over the authorizer, registry and
 * rotation, over the store, over the domain (records, ports, registry rules), over core. Read
 * from the import statements of the source files, without loading any of them.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const LAMBDA = resolve(__dirname, '../../lambda');

/** Every .ts file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The relative module specifiers a file imports or re-exports (static, dynamic and require). */
export function importedSpecifiers(source: string): string[] {
  const found: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)['"](\.{1,2}\/[^'"]*)['"]/g;
  for (const match of source.matchAll(pattern)) found.push(match[1]);
  return found;
}

/** The folder of lambda/ a path lies in ('.' for files at lambda/'s top), or undefined outside lambda/. */
function folderOf(path: string): string | undefined {
  const rel = relative(LAMBDA, path);
  if (rel.startsWith('..')) return undefined;
  const parts = rel.split(sep);
  return parts.length === 1 ? '.' : parts[0];
}

/** lambda/'s folders and the folders each imports from, each edge with one file that makes it. */
function folderGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of sourceFiles(LAMBDA)) {
    const from = folderOf(file)!;
    const edges = graph.get(from) ?? new Map<string, string>();
    graph.set(from, edges);
    for (const specifier of importedSpecifiers(readFileSync(file, 'utf8'))) {
      const to = folderOf(resolve(dirname(file), specifier));
      if (to !== undefined && to !== from && !edges.has(to)) edges.set(to, `${relative(LAMBDA, file)} imports ${specifier}`);
    }
  }
  return graph;
}

/** The cycles among the folders (strongly connected components of more than one folder). */
function folderCycles(graph: Map<string, Map<string, string>>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indices.get(next)!));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return cycles;
}

const graph = folderGraph();

/** The imports of `folder` that reach any of `forbidden`, as "file imports specifier". */
function importsInto(folder: string, forbidden: readonly string[]): string[] {
  return [...(graph.get(folder) ?? new Map<string, string>()).entries()].filter(([to]) => forbidden.includes(to)).map(([, why]) => why);
}

describe('lambda/ layers', () => {
  test('the import reader sees static, type-only, re-exported, dynamic and required imports', () => {
    const source = [
      `import { a } from '../registry/a';`,
      `import type { B } from "../authorizer/b";`,
      `export { c } from '../rotation/c';`,
      `import '../handlers/d';`,
      `const e = await import('../handlers/e');`,
      `const f = require('./f');`,
      `import { g } from '@aws-sdk/lib-dynamodb';`,
    ].join('\n');
    expect(importedSpecifiers(source)).toEqual(['../registry/a', '../authorizer/b', '../rotation/c', '../handlers/d', '../handlers/e', './f']);
  });

  test('the store imports nothing from the layers above it: handlers, authorizer, registry, rotation', () => {
    expect(graph.has('store')).toBe(true);
    expect(importsInto('store', ['handlers', 'authorizer', 'registry', 'rotation'])).toEqual([]);
  });

  test('the domain rests on core alone, and core on nothing else in lambda/', () => {
    expect(graph.has('domain')).toBe(true);
    expect([...graph.get('domain')!.keys()].filter((to) => to !== 'core')).toEqual([]);
    expect([...graph.get('core')!.keys()]).toEqual([]);
  });

  test('the store is small stores held by composition: no store class extends another but the shared table base', () => {
    const chains = sourceFiles(join(LAMBDA, 'store')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/class\s+(\w+)\s+extends\s+(\w+)/g)].filter((m) => m[2] !== 'DynamoTable').map((m) => `${m[1]} extends ${m[2]}`),
    );
    expect(chains).toEqual([]);
  });

  test('the store and the domain name no HTTP route in what they say: the registry words their refusals', () => {
    const worded = ['store', 'domain'].flatMap((folder) =>
      sourceFiles(join(LAMBDA, folder)).flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => !/^\s*(\*|\/\/|\/\*\*)/.test(line) && /\b(GET|POST|PUT|PATCH|DELETE) \/registry/.test(line))
          .map((line) => `${relative(LAMBDA, file)}: ${line.trim()}`),
      ),
    );
    expect(worded).toEqual([]);
  });

  test('no two folders of lambda/ import each other, directly or round a cycle', () => {
    const cycles = folderCycles(graph);
    const explained = cycles.map((cycle) => cycle.flatMap((from) => cycle.filter((to) => graph.get(from)?.has(to)).map((to) => graph.get(from)!.get(to)!)));
    expect(explained).toEqual([]);
  });
});
