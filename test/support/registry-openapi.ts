/**
 * Checks JSON values against the registry's OpenAPI 3.1 document (docs/openapi/registry.json)
 * with a small JSON Schema 2020-12 subset validator: $ref, anyOf, type, enum, const, properties,
 * required, additionalProperties, minProperties, items, minItems, maxItems, minLength,
 * maxLength, pattern, minimum, maximum, format date-time. A keyword outside that subset makes
 * the validator throw, so the document cannot rely on a rule these tests silently skip.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export type Schema = Record<string, unknown>;

export interface OpenApiDocument {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, unknown>>;
  readonly components: { schemas: Record<string, Schema>; responses: Record<string, Schema> };
}

export const OPENAPI_PATH = join(__dirname, '..', '..', 'docs', 'openapi', 'registry.json');

export function loadRegistryOpenApi(): OpenApiDocument {
  return JSON.parse(readFileSync(OPENAPI_PATH, 'utf8')) as OpenApiDocument;
}

const ANNOTATIONS = new Set(['description', 'title', 'examples', 'default', '$comment', 'summary']);
const SUPPORTED = new Set([
  '$ref',
  'anyOf',
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'minProperties',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'format',
]);
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Every problem of `value` against `schema`, as `path: problem` lines (empty when valid). */
export function validate(doc: OpenApiDocument, schema: Schema, value: unknown, path = '$'): string[] {
  for (const keyword of Object.keys(schema)) {
    if (!SUPPORTED.has(keyword) && !ANNOTATIONS.has(keyword)) throw new Error(`validator does not support "${keyword}" (at ${path})`);
  }
  if (typeof schema.$ref === 'string') {
    const rest = Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$ref'));
    return [...validate(doc, resolveRef(doc, schema.$ref), value, path), ...validate(doc, rest, value, path)];
  }
  const problems: string[] = [];
  const here = (problem: string) => problems.push(`${path}: ${problem}`);
  if (Array.isArray(schema.anyOf)) {
    const tries = (schema.anyOf as Schema[]).map((branch) => validate(doc, branch, value, path));
    if (tries.every((t) => t.length > 0)) here(`matches none of anyOf: ${tries.map((t) => t.join('; ')).join(' | ')}`);
  }

  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((t) => hasType(value, t))) {
      here(`expected ${types.join(' or ')}, got ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}`);
      return problems;
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => e === value)) here(`${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  if (schema.const !== undefined && schema.const !== value) here(`must be ${JSON.stringify(schema.const)}`);

  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) here(`shorter than ${schema.minLength}`);
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) here(`longer than ${schema.maxLength}`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) here(`does not match ${schema.pattern}`);
    if (schema.format === 'date-time' && (!ISO_INSTANT.test(value) || !Number.isFinite(Date.parse(value)))) here('is not an RFC 3339 date-time');
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) here(`below ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) here(`above ${schema.maximum}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) here(`fewer than ${schema.minItems} items`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) here(`more than ${schema.maxItems} items`);
    if (schema.items !== undefined) value.forEach((item, i) => problems.push(...validate(doc, schema.items as Schema, item, `${path}[${i}]`)));
  }
  if (isObject(value)) {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const name of (schema.required ?? []) as string[]) if (!(name in value)) here(`missing required "${name}"`);
    if (typeof schema.minProperties === 'number' && Object.keys(value).length < schema.minProperties) here(`fewer than ${schema.minProperties} properties`);
    for (const [name, item] of Object.entries(value)) {
      if (properties[name] !== undefined) problems.push(...validate(doc, properties[name], item, `${path}.${name}`));
      else if (schema.additionalProperties === false) here(`unexpected property "${name}"`);
      else if (isObject(schema.additionalProperties)) problems.push(...validate(doc, schema.additionalProperties, item, `${path}.${name}`));
    }
  }
  return problems;
}

/** Resolves a local `#/...` reference. */
export function resolveRef(doc: OpenApiDocument, ref: string): Schema {
  if (!ref.startsWith('#/')) throw new Error(`only local refs are supported: ${ref}`);
  let node: unknown = doc;
  for (const part of ref.slice(2).split('/')) {
    node = isObject(node) ? node[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    if (node === undefined) throw new Error(`unresolved ref ${ref}`);
  }
  return node as Schema;
}

/** The OpenAPI operation for a concrete method and path (matching `{param}` templates). */
export function findOperation(doc: OpenApiDocument, method: string, path: string): { template: string; operation: Schema } | undefined {
  for (const [template, item] of Object.entries(doc.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    const operation = item[method.toLowerCase()];
    if (pattern.test(path) && isObject(operation)) return { template, operation };
  }
  return undefined;
}

/** The JSON schema of an operation's response for `status` (following `$ref`s to components.responses). */
export function responseSchema(doc: OpenApiDocument, operation: Schema, status: number): Schema | undefined {
  const responses = operation.responses as Record<string, Schema>;
  let response = responses[String(status)];
  if (response === undefined) return undefined;
  if (typeof response.$ref === 'string') response = resolveRef(doc, response.$ref);
  return (response.content as Record<string, { schema: Schema }>)['application/json'].schema;
}

/** The JSON schema of an operation's request body. */
export function requestSchema(operation: Schema): Schema | undefined {
  const body = operation.requestBody as { content: Record<string, { schema: Schema }> } | undefined;
  return body?.content['application/json'].schema;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    default:
      throw new Error(`unknown type ${type}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
