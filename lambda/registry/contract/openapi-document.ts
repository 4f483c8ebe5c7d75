/**
 * docs/openapi/registry.json, generated: the routes as written in ./operations.ts, and the body
 * schemas from the contract (./schemas.ts) through zod's JSON Schema output (draft 2020-12, the
 * dialect of OpenAPI 3.1). `npm run -s openapi` writes the file; test/registry/openapi-generated.test.ts
 * fails when the committed one is stale.
 */
import * as z from 'zod/mini';
import { REGISTRY_OPERATIONS } from './operations';
import * as schemas from './schemas';

/** The contract's schemas, as `components.schemas` (every schema registered with an `id`). */
export function componentSchemas(): Record<string, unknown> {
  void schemas; // registered in zod's global registry when the module loads
  const out = z.toJSONSchema(z.globalRegistry, { target: 'draft-2020-12', uri: (id) => `#/components/schemas/${id}` }) as { schemas: Record<string, unknown> };
  return tidy(out.schemas) as Record<string, unknown>;
}

/** The whole document. */
export function registryOpenApiDocument(): Record<string, unknown> {
  const { components, ...head } = REGISTRY_OPERATIONS;
  return { ...head, components: { ...components, schemas: componentSchemas() } };
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
