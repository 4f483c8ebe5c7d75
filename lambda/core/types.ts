/**
 * Transport-neutral shapes shared by the core and its adapters.
 */

/**
 * Header fields of a request: names lower-cased, repeated fields already combined with `, `
 * (RFC 9110 §5.3). Adapters build this from API Gateway events or Node requests.
 */
export type HeaderMap = Readonly<Record<string, string | undefined>>;

/** A request as the verifier sees it, whatever door it came through. */
export interface SignedRequest {
  /** The method as received (the base uses it as-is; RFC 9421 §2.2.1). */
  readonly method: string;
  /** The full URL as the client called it: scheme, authority, path and query (RFC 9421 §2.2.2). */
  readonly targetUri: string;
  /** Header fields, lower-cased names. */
  readonly headers: HeaderMap;
  /** The caller's IP address as the gateway saw it, if known. */
  readonly sourceIp?: string;
  /**
   * Whether the request carries a body. When undefined it is derived from the headers:
   * `Content-Length` > 0 or any `Transfer-Encoding`.
   */
  readonly hasBody?: boolean;
}

/** One covered component identifier (RFC 9421 §2): a name, and its parameters (e.g. `name` for @query-param). */
export interface ComponentId {
  /** Lower-case field name, or a derived component name starting with `@`. */
  readonly name: string;
  readonly params: ReadonlyMap<string, unknown>;
  /** The identifier as it appears in the base: `"name"` plus serialized parameters. */
  readonly serialized: string;
}
