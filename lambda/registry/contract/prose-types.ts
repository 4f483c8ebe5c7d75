/**
 * The shape of the registry API's prose (./route-prose.ts): the words the route table
 * (../route-table.ts) does not hold. Read only by the OpenAPI generation.
 */

/** Named examples of a body, as OpenAPI writes them. */
export type Examples = Readonly<Record<string, { readonly summary?: string; readonly value: unknown }>>;

/** The words of one answer of a route. */
export interface ResponseProse {
  readonly description: string;
  /** Response headers (ETag, Location), each with its description. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly examples: Examples;
}

/** The words of one route. */
export interface RouteProse {
  /** The OpenAPI tag the route is listed under. */
  readonly tag: 'clients' | 'keys' | 'troubleshooting' | 'accounts';
  /** One sentence: what the route does. */
  readonly summary: string;
  readonly description?: string;
  /** Descriptions of the route's query parameters, by name. */
  readonly parameters?: Readonly<Record<string, string>>;
  /** The If-Match header's description, for routes that take it. */
  readonly ifMatch?: string;
  readonly requestExamples?: Examples;
  /** The words of each answer the route table lists, by status. */
  readonly responses: Readonly<Record<string, ResponseProse>>;
}

/** The document's head, security scheme and shared error answers. */
export interface DocumentProse {
  readonly [field: string]: unknown;
  readonly components: { readonly securitySchemes: unknown; readonly responses: Readonly<Record<string, unknown>> };
}
