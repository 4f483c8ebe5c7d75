/**
 * lambda/core keeps no mutable state in its modules: every cache or scratch buffer is a field of a
 * value its user builds and holds (a Verifier, a PublicKeyCache). Each module's top-level
 * declarations, read with the TypeScript parser, are refused when they are a `let` or `var`, or a
 * `const` holding a mutable collection (Map, Set, WeakMap, WeakSet, a cache, a buffer, an array)
 * that is not declared read-only (`ReadonlyMap`, `ReadonlySet`, `readonly T[]`, `as const`,
 * `Object.freeze`). Constant tables stay allowed.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const CORE = path.resolve(__dirname, '../../lambda/core');

/** Constructors whose instances can be changed after the module has loaded. */
const MUTABLE_CONSTRUCTORS = /^(Map|Set|WeakMap|WeakSet|Array|BoundedCache|BoundedMemo|Buffer|Uint8Array|Uint16Array|Uint32Array|Int32Array|Float64Array|ArrayBuffer)$/;
/** Calls that make such instances. */
const MUTABLE_FACTORIES = /^(Buffer\.(alloc|allocUnsafe|from|concat)|Array\.from|new Array)$/;

/** Whether the declared type says read-only (ReadonlyMap, ReadonlySet, readonly T[], Readonly<…>). */
function declaredReadOnly(type: ts.TypeNode | undefined, source: ts.SourceFile): boolean {
  return type !== undefined && /^(Readonly|readonly )/.test(type.getText(source));
}

/** Why the initializer makes mutable state, or undefined when it does not. */
function mutableInitializer(expression: ts.Expression, source: ts.SourceFile): string | undefined {
  if (ts.isAsExpression(expression)) return expression.type.getText(source) === 'const' || declaredReadOnly(expression.type, source) ? undefined : mutableInitializer(expression.expression, source);
  if (ts.isParenthesizedExpression(expression)) return mutableInitializer(expression.expression, source);
  if (ts.isNewExpression(expression)) {
    const name = expression.expression.getText(source);
    return MUTABLE_CONSTRUCTORS.test(name) ? `new ${name}` : undefined;
  }
  if (ts.isArrayLiteralExpression(expression)) return 'an array';
  if (ts.isCallExpression(expression)) {
    const callee = expression.expression.getText(source);
    if (callee === 'Object.freeze') return undefined;
    if (MUTABLE_FACTORIES.test(callee)) return callee;
    // `[...].map(...)`, `[...].filter(...)`: an array again.
    if (ts.isPropertyAccessExpression(expression.expression) && ts.isArrayLiteralExpression(expression.expression.expression)) return 'an array';
  }
  return undefined;
}

/** Every top-level declaration of `text` that holds mutable state, as "name: why". */
export function moduleState(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const flags = statement.declarationList.flags;
    for (const declaration of statement.declarationList.declarations) {
      const name = declaration.name.getText(source);
      if (!(flags & ts.NodeFlags.Const)) {
        found.push(`${name}: a module-level ${flags & ts.NodeFlags.Let ? 'let' : 'var'}`);
        continue;
      }
      if (declaration.initializer === undefined || declaredReadOnly(declaration.type, source)) continue;
      const why = mutableInitializer(declaration.initializer, source);
      if (why !== undefined) found.push(`${name}: ${why}, not declared read-only`);
    }
  }
  return found;
}

describe('module-level state in lambda/core', () => {
  it('is found by the scan: let, var, mutable collections, caches and buffers; read-only tables pass', () => {
    const text = [
      'let count = 0;',
      'var legacy;',
      'const memo = new Map<string, number>();',
      'const cache = new BoundedCache<string, string>(4);',
      'const scratch = Buffer.alloc(16);',
      'const list = [1, 2];',
      'const squares = [1, 2].map((n) => n * n);',
      'const TABLE = [1, 2] as const;',
      'const NAMES: ReadonlySet<string> = new Set(["a"]);',
      'const ROWS: readonly number[] = [1];',
      'const FROZEN = Object.freeze({ a: 1 });',
      'const LIMIT = 3;',
      'function f() { let inner = new Map(); return inner; }',
    ].join('\n');
    expect(moduleState('example.ts', text)).toEqual([
      'count: a module-level let',
      'legacy: a module-level var',
      'memo: new Map, not declared read-only',
      'cache: new BoundedCache, not declared read-only',
      'scratch: Buffer.alloc, not declared read-only',
      'list: an array, not declared read-only',
      'squares: an array, not declared read-only',
    ]);
  });

  it('is none: caches and buffers are fields of values', () => {
    const files = fs.readdirSync(CORE).filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'));
    expect(files.length).toBeGreaterThan(30);
    const found = files.flatMap((name) => moduleState(name, fs.readFileSync(path.join(CORE, name), 'utf8')).map((what) => `${name} ${what}`));
    expect(found).toEqual([]);
  });
});
