/**
 * Every Lambda entry the stack deploys (lib/signet-function.ts LAMBDA_ENTRIES) has one shape,
 * read from its source: `const powertools = powertoolsFor('<service>')`, then each exported
 * handler is `flushingMetrics(powertools.metrics, createX(..., powertools))` (or a member of what
 * one `createX(...)` returned), with `createX` imported from beside the code it adapts. Nothing
 * else runs at module scope but imports and the runtime SDK check, so no entry builds clients,
 * logs by hand or publishes metrics of its own.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { LAMBDA_ENTRIES, PACKAGE_ROOT } from '../../lib/signet-function';
import { SERVICE_NAMES } from '../../lambda/observability';

/** What is wrong with an entry file's shape; [] when it follows the pattern. */
function entryShapeProblems(source: string, handlerNames: readonly string[]): string[] {
  const file = ts.createSourceFile('entry.ts', source, ts.ScriptTarget.Latest, true);
  const problems: string[] = [];
  const factories = new Map<string, string>(); // imported createX -> module
  const built = new Set<string>(); // consts holding what a createX(...) returned
  const exported = new Set<string>();
  let service: string | undefined;

  /** A `createX(..., powertools)` call whose createX comes from outside lambda/handlers. */
  const isFactoryCall = (node: ts.Expression): boolean => {
    if (!ts.isCallExpression(node) || !ts.isIdentifier(node.expression)) return false;
    const module = factories.get(node.expression.text);
    const last = node.arguments[node.arguments.length - 1];
    return module !== undefined && !module.startsWith('./') && last !== undefined && ts.isIdentifier(last) && last.text === 'powertools';
  };
  const isCallOf = (node: ts.Expression | undefined, name: string): node is ts.CallExpression =>
    node !== undefined && ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === name;

  for (const statement of file.statements) {
    const text = statement.getText(file).replace(/\s+/g, ' ').slice(0, 120);
    if (ts.isImportDeclaration(statement)) {
      const module = (statement.moduleSpecifier as ts.StringLiteral).text;
      const named = statement.importClause?.namedBindings;
      if (named !== undefined && ts.isNamedImports(named)) {
        for (const element of named.elements) if (/^create[A-Z]/.test(element.name.text)) factories.set(element.name.text, module);
      }
      continue;
    }
    if (ts.isExpressionStatement(statement) && isCallOf(statement.expression, 'assertRuntimeSdk')) continue;
    if (!ts.isVariableStatement(statement) || (statement.declarationList.flags & ts.NodeFlags.Const) === 0 || statement.declarationList.declarations.length !== 1) {
      problems.push(`module scope runs more than the entry pattern: ${text}`);
      continue;
    }
    const [declaration] = statement.declarationList.declarations;
    const name = declaration.name.getText(file);
    const value = declaration.initializer;
    const isExported = statement.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword) === true;
    if (!isExported && name === 'powertools' && isCallOf(value, 'powertoolsFor') && value.arguments.length === 1 && ts.isStringLiteral(value.arguments[0])) {
      service = value.arguments[0].text;
      continue;
    }
    if (!isExported && value !== undefined && isFactoryCall(value)) {
      built.add(name);
      continue;
    }
    const wrapped = isCallOf(value, 'flushingMetrics') ? value.arguments : undefined;
    const handler = wrapped?.[1];
    const flushesItsOwn = wrapped?.length === 2 && wrapped[0].getText(file) === 'powertools.metrics';
    const fromFactory = handler !== undefined && (isFactoryCall(handler) || (ts.isPropertyAccessExpression(handler) && ts.isIdentifier(handler.expression) && built.has(handler.expression.text)));
    if (isExported && flushesItsOwn && fromFactory) {
      exported.add(name);
      continue;
    }
    problems.push(`not the entry pattern (flushingMetrics(powertools.metrics, createX(..., powertools))): ${text}`);
  }
  if (service === undefined) problems.push("no `const powertools = powertoolsFor('<service>')`");
  else if (!(service in SERVICE_NAMES)) problems.push(`powertoolsFor('${service}') names no service of lambda/observability.ts`);
  for (const handler of handlerNames) if (!exported.has(handler)) problems.push(`\`${handler}\` is not exported as flushingMetrics over a createX factory`);
  return problems;
}

const entryFiles = new Map<string, string[]>();
for (const { file, handler } of Object.values(LAMBDA_ENTRIES)) entryFiles.set(file, [...(entryFiles.get(file) ?? []), handler]);

test.each([...entryFiles])('%s is the one-line entry pattern over a createX factory', (file, handlers) => {
  expect(entryShapeProblems(readFileSync(join(PACKAGE_ROOT, file), 'utf8'), handlers)).toEqual([]);
});

test('every file of lambda/handlers but the shared entry.ts is an entry the stack deploys', () => {
  const files = readdirSync(join(PACKAGE_ROOT, 'lambda/handlers')).map((name) => `lambda/handlers/${name}`);
  expect(files.filter((file) => file !== 'lambda/handlers/entry.ts').sort()).toEqual([...entryFiles.keys()].sort());
});

test('the shape check refuses what an entry must not be', () => {
  const header = "import { createThing } from '../thing/create-thing';\nimport { flushingMetrics, powertoolsFor } from './entry';\n";
  const good = `${header}const powertools = powertoolsFor('echo');\nexport const handler = flushingMetrics(powertools.metrics, createThing(powertools));\n`;
  expect(entryShapeProblems(good, ['handler'])).toEqual([]);
  // A handler not wrapped in the entry's flush, or wrapped over a hand-written function.
  expect(entryShapeProblems(`${header}const powertools = powertoolsFor('echo');\nexport const handler = createThing(powertools);\n`, ['handler'])).toHaveLength(2);
  expect(entryShapeProblems(`${header}const powertools = powertoolsFor('echo');\nexport const handler = flushingMetrics(powertools.metrics, async () => ({ statusCode: 200 }));\n`, ['handler'])).toHaveLength(2);
  // No Powertools of its own, or a service observability.ts does not name.
  expect(entryShapeProblems(`${header}export const handler = flushingMetrics(metrics, createThing(powertools));\n`, ['handler'])).toHaveLength(3);
  expect(entryShapeProblems(good.replace("'echo'", "'nope'"), ['handler'])).toEqual(["powertoolsFor('nope') names no service of lambda/observability.ts"]);
  // Module-level state or work besides the pattern.
  expect(entryShapeProblems(`${good}let cached: string | undefined;\n`, ['handler'])).toEqual(['module scope runs more than the entry pattern: let cached: string | undefined;']);
  // A factory defined in the handlers folder instead of beside the code it adapts.
  expect(entryShapeProblems(good.replace('../thing/create-thing', './create-thing'), ['handler'])).toHaveLength(2);
});
