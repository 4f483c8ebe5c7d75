/**
 * docs/openapi/registry.json is the registry's contract: it lists exactly the handler's routes,
 * every example in it is valid against its own schemas, and its error codes are Signet's codes
 * with their statuses. (The handler tests check real requests and answers against it.)
 */
import { ERROR_CODES } from '../../lambda/core/errors';
import { SIGNATURE_ALGORITHMS } from '../../lambda/core/algorithms';
import { ROUTES } from '../../lambda/registry/route-table';
import { REGISTRY_ROUTES } from '../../lambda/registry/routes';
import { type Schema, loadRegistryOpenApi, resolveRef, validate } from '../support/registry-openapi';

const doc = loadRegistryOpenApi();
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

interface ExampleCase {
  readonly where: string;
  readonly schema: Schema;
  readonly value: unknown;
}

/** Every (schema, example) pair in the document: media-type examples and schema `examples`. */
function examples(): ExampleCase[] {
  const cases: ExampleCase[] = [];
  const media = (where: string, content: Record<string, { schema: Schema; examples?: Record<string, { value: unknown }> }> | undefined) => {
    const json = content?.['application/json'];
    for (const [name, example] of Object.entries(json?.examples ?? {})) cases.push({ where: `${where} (${name})`, schema: json!.schema, value: example.value });
  };
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method] as Schema | undefined;
      if (op === undefined) continue;
      const body = op.requestBody as { content: Parameters<typeof media>[1] } | undefined;
      media(`${method.toUpperCase()} ${path} request`, body?.content);
      for (const [status, response] of Object.entries(op.responses as Record<string, Schema>)) {
        const resolved = typeof response.$ref === 'string' ? resolveRef(doc, response.$ref) : response;
        media(`${method.toUpperCase()} ${path} ${status}`, resolved.content as Parameters<typeof media>[1]);
      }
    }
  }
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    for (const value of (schema.examples as unknown[] | undefined) ?? []) cases.push({ where: `schema ${name}`, schema, value });
  }
  return cases;
}

test('is OpenAPI 3.1 and lists exactly the handler\'s routes', () => {
  expect(doc.openapi).toBe('3.1.0');
  const documented = Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m] !== undefined).map((m) => `${m.toUpperCase()} ${path}`));
  expect([...documented].sort()).toEqual([...REGISTRY_ROUTES].sort());
});

test('every operation has an operationId, documents 401/403 from the authorizer, and every $ref resolves', () => {
  const text = JSON.stringify(doc);
  for (const [, ref] of text.matchAll(/"\$ref":"([^"]+)"/g)) expect(() => resolveRef(doc, ref)).not.toThrow();
  for (const item of Object.values(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method] as { operationId?: string; responses: Record<string, unknown> } | undefined;
      if (op === undefined) continue;
      expect(op.operationId).toMatch(/^[a-z][A-Za-z]+$/);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403', '500', '503']));
    }
  }
});

test('every operation is its route table entry: parameters, body, answers and who may call it', () => {
  for (const route of ROUTES) {
    const item = doc.paths[route.path];
    const op = item[route.method.toLowerCase()] as Schema & { parameters?: Array<{ name: string; in: string }>; responses: Record<string, unknown> };
    expect({ route: route.name, id: op.operationId, callers: op['x-signet-callers'] }).toEqual({
      route: route.name,
      id: route.name,
      callers: route.callers.only === 'operators' ? 'operators' : 'operators and account admins',
    });
    const pathNames = ((item.parameters ?? []) as Array<{ name: string }>).map((p) => p.name);
    expect(pathNames).toEqual([...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
    expect((op.parameters ?? []).map((p) => p.name)).toEqual([...route.query, ...(route.ifMatch ? ['If-Match'] : [])]);
    expect(op.requestBody === undefined).toBe(route.body === undefined);
    expect(Object.keys(op.responses).map(Number).sort()).toEqual([...Object.keys(route.responses).map(Number), ...route.errors].sort());
  }
});

test('the prose is current: every algorithm named, no seed procedure, an HTTP API refusal is 403 Forbidden', () => {
  const text = JSON.stringify(doc);
  const info = (doc as unknown as { info: { description: string } }).info.description;
  for (const algorithm of SIGNATURE_ALGORITHMS) expect({ algorithm, named: info.includes(`\`${algorithm}\``) }).toEqual({ algorithm, named: true });
  expect(text).not.toMatch(/seed|RSA public keys|needs a plain RSA key/i);
  const unauthorized = (doc.components.responses.Unauthorized as { description: string }).description;
  expect(unauthorized).toMatch(/HTTP API answers a refused signature with 403 `\{"message":"Forbidden"\}`/);
});

const cases = examples();
test('there are examples for requests, answers and errors', () => {
  expect(cases.length).toBeGreaterThan(40);
});

test.each(cases.map((c) => [c.where, c] as const))('example %s is valid against its schema', (_where, c) => {
  expect(validate(doc, c.schema, c.value)).toEqual([]);
});

test('error codes in the document are Signet\'s codes, shown under the status each maps to', () => {
  const documented = (doc.components.schemas.Error.properties as { error: { enum: string[] } }).error.enum;
  for (const code of documented) expect(Object.keys(ERROR_CODES)).toContain(code);
  for (const [name, response] of Object.entries(doc.components.responses)) {
    const statuses = new Set<number>();
    for (const item of Object.values(doc.paths)) {
      for (const method of METHODS) {
        for (const [status, r] of Object.entries(((item[method] as Schema | undefined)?.responses ?? {}) as Record<string, Schema>)) {
          if (r.$ref === `#/components/responses/${name}`) statuses.add(Number(status));
        }
      }
    }
    const exampleCodes = Object.values((response.content as { 'application/json': { examples: Record<string, { value: { error: keyof typeof ERROR_CODES } }> } })['application/json'].examples).map((e) => e.value.error);
    for (const code of exampleCodes) for (const status of statuses) expect(`${code} -> ${ERROR_CODES[code]}`).toBe(`${code} -> ${status}`);
  }
});

describe('the subset validator catches what it must (so the checks above can fail)', () => {
  const client = (doc.paths['/registry/clients/{clientId}'].get as { responses: Record<string, { content: { 'application/json': { examples: { client: { value: Record<string, unknown> } } } } }> })
    .responses['200'].content['application/json'].examples.client.value;
  const schema = { $ref: '#/components/schemas/Client' };

  test.each([
    ['a missing required field', (c: Record<string, unknown>) => delete c.clientId, /missing required "clientId"/],
    ['an extra field', (c: Record<string, unknown>) => (c.secret = 'x'), /unexpected property "secret"/],
    ['a value outside an enum', (c: Record<string, unknown>) => (c.status = 'paused'), /is not one of/],
    ['a wrong type', (c: Record<string, unknown>) => (c.version = '1'), /expected integer/],
    ['a pattern mismatch', (c: Record<string, unknown>) => (c.clientId = 'client-1'), /does not match/],
    ['a bad date-time', (c: Record<string, unknown>) => (c.createdAt = 'yesterday'), /date-time/],
    ['an empty key list', (c: Record<string, unknown>) => (c.keys = []), /fewer than 1 items/],
  ])('%s', (_name, mutate, problem) => {
    const copy = JSON.parse(JSON.stringify(client)) as Record<string, unknown>;
    mutate(copy);
    expect(validate(doc, schema, copy).join('\n')).toMatch(problem);
  });

  test('an unsupported keyword is an error, not a silent pass', () => {
    expect(() => validate(doc, { oneOf: [] }, 1)).toThrow(/does not support "oneOf"/);
  });
});
