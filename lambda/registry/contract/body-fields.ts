/**
 * The fields a request body may and must carry, read from its schema in the contract
 * (./schemas.ts), so the registry's checks and docs/openapi/registry.json cannot disagree on them.
 */
import type * as z from 'zod/mini';

/** A body's fields in the contract's order, and which of them are required. */
export interface BodyFields {
  readonly allowed: readonly string[];
  readonly required: readonly string[];
}

/** The fields of an object schema (z.strictObject) of the contract. */
export function bodyFields(schema: z.ZodMiniObject): BodyFields {
  const shape = schema._zod.def.shape;
  const allowed = Object.keys(shape);
  return { allowed, required: allowed.filter((name) => shape[name]._zod.optin !== 'optional') };
}
