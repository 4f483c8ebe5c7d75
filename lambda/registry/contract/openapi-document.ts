/**
 * docs/openapi/registry.json, generated from the route table (../route-table.ts: methods, paths,
 * parameters, bodies, statuses, callers), the contract's schemas (./schemas.ts, through zod's
 * JSON Schema output, draft 2020-12, the dialect of OpenAPI 3.1) and the routes' prose
 * (./route-prose.ts). `npm run -s openapi` writes the file; test/registry/openapi-generated.test.ts
 * fails when the committed one is stale.
 */
import * as z from 'zod/mini';
import { type ErrorStatus, PATH_PARAMETERS, QUERY_PARAMETERS, ROUTES, pathParameters } from '../route-table';
import { DOCUMENT_PROSE, PARAMETER_PROSE, ROUTE_PROSE } from './route-prose';
import * as schemas from './schemas';

/** The shared answer (`#/components/responses/...`) of each refusal status. */
const ERROR_RESPONSES: Readonly<Record<ErrorStatus, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'Unavailable',
};

/** The contract's schemas, as `components.schemas` (every schema registered with an `id`). */
export function componentSchemas(): Record<string, unknown> {
  void schemas; // registered in zod's global registry when the module loads
  const out = z.toJSONSchema(z.globalRegistry, { target: 'draft-2020-12', uri: (id) => `#/components/schemas/${id}` }) as { schemas: Record<string, unknown> };
  return tidy(out.schemas) as Record<string, unknown>;
}

/** A schema of the table: a `$ref` to its component when it has an id, else written out. */
function schemaOf(schema: z.ZodMiniType): unknown {
  const id = z.globalRegistry.get(schema)?.id;
  if (id !== undefined) return { $ref: `#/components/schemas/${id}` };
  return tidy(z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }));
}

function withDescription<T extends object>(value: T, description: string | undefined): T & { description?: string } {
  return description === undefined ? value : { ...value, description };
}

/** The `paths` of the document: one operation per route of the table, worded by its prose. */
function paths(): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const prose = ROUTE_PROSE[route.name];
    const item = (out[route.path] ??= {});
    const inPath = pathParameters(route.path);
    if (inPath.length > 0) {
      item.parameters = inPath.map((name) =>
        withDescription({ name, in: 'path', required: true, schema: schemaOf(PATH_PARAMETERS[name]) }, PARAMETER_PROSE[name]),
      );
    }
    const parameters = [
      ...route.query.map((name) => withDescription({ name, in: 'query', required: false, schema: schemaOf(QUERY_PARAMETERS[name]) }, prose.parameters?.[name])),
      ...(route.ifMatch ? [withDescription({ name: 'If-Match', in: 'header', required: false, schema: { type: 'string', examples: ['"3"'] } }, prose.ifMatch)] : []),
    ];
    const responses: Record<string, unknown> = {};
    for (const [status, schema] of Object.entries(route.responses)) {
      const words = prose.responses[status];
      if (words === undefined) throw new Error(`${route.name}: no prose for its ${status} answer`);
      responses[status] = {
        description: words.description,
        ...(words.headers === undefined
          ? {}
          : { headers: Object.fromEntries(Object.entries(words.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }])) }),
        content: { 'application/json': { schema: schemaOf(schema), examples: words.examples } },
      };
    }
    for (const status of route.errors) responses[status] = { $ref: `#/components/responses/${ERROR_RESPONSES[status]}` };
    item[route.method.toLowerCase()] = {
      operationId: route.name,
      tags: [prose.tag],
      summary: prose.summary,
      ...(prose.description === undefined ? {} : { description: prose.description }),
      ...(route.callers.only === 'operators' ? { 'x-signet-callers': 'operators' } : { 'x-signet-callers': 'operators and account admins' }),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(route.body === undefined
        ? {}
        : {
            requestBody: {
              required: route.body.required,
              content: { 'application/json': { schema: schemaOf(route.body.schema), ...(prose.requestExamples === undefined ? {} : { examples: prose.requestExamples }) } },
            },
          }),
      responses,
    };
  }
  return out;
}

/** The whole document. */
export function registryOpenApiDocument(): Record<string, unknown> {
  const { components, ...head } = DOCUMENT_PROSE;
  return { ...head, paths: paths(), components: { ...components, schemas: componentSchemas() } };
}

/** The document as the committed file holds it: two-space JSON and a final line break. */
export function registryOpenApiText(): string {
  return `${JSON.stringify(registryOpenApiDocument(), null, 2)}\n`;
}

/**
 * What zod adds that an OpenAPI document does not need: each schema's own `$schema` and `$id`
 * (the document places them), the safe-integer bounds of every integer, and `propertyNames:
 * { type: string }` on maps (JSON keys are strings anyway).
 */
function tidy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(tidy);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([key]) => key !== '$schema' && key !== '$id')
      .filter(([key, v]) => !(key === 'maximum' && v === Number.MAX_SAFE_INTEGER) && !(key === 'minimum' && v === Number.MIN_SAFE_INTEGER))
      .filter(([key, v]) => !(key === 'propertyNames' && JSON.stringify(v) === '{"type":"string"}'))
      .map(([key, v]) => [key, tidy(v)]),
  );
}
