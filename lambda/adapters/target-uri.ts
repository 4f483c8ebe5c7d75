/**
 * Rebuilding `@target-uri` (RFC 9421 §2.2.2) from what API Gateway tells us: the pieces both
 * adapters share. The rules per API type, and what cannot be recovered, are in docs/target-uri.md.
 */
import { fail } from '../core/errors';
import type { HeaderMap, SignedRequest } from '../core/types';
import type { ComponentEncoder } from './percent-encoding';

/** How the adapters turn an event back into the URL the client called. */
export interface TargetUriOptions {
  /**
   * The URL clients call, up to and including the base path: scheme, host, optional port and
   * path, no query, no fragment, e.g. `https://api.example.com/v1`. Set it when the event cannot
   * tell: an HTTP API behind a custom domain with an API mapping key, or any API behind a proxy or
   * CDN that changes the host or the path. The request's path inside the API is appended to it.
   * HTTP API: a `rawPath` that starts with its base path is taken as the full path as called
   * (the mapping key reached `rawPath`), so no route of the API should itself begin with the
   * base path's segments.
   * @default - built from the event: `{x-forwarded-proto}://{Host}{path as API Gateway delivered it}`
   */
  readonly publicBaseUrl?: string;
  /**
   * HTTP API only: remove a leading `/{stage}` from `rawPath` (when the stage is not `$default`)
   * before joining the path to `publicBaseUrl` and before the role check. Turn it off if your
   * routes really begin with a segment named like the stage and `rawPath` does not carry it.
   * @default true
   */
  readonly stripStage?: boolean;
}

/** The event turned into what the verifier and the role check need. */
export interface AdaptedRequest {
  /** The request for the core; its `targetUri` is `targetUriCandidates[0]`, the most likely URL. */
  readonly request: SignedRequest;
  /**
   * The other URLs the client may have signed, most likely first, built one by one only as they
   * are read (at most {@link MAX_TARGET_URI_CANDIDATES} with the request's own, no duplicates):
   * what the authorizer passes to the core, which reads it only after the key failed on the
   * request's own URL. Iterating again replays what was built.
   */
  readonly alternativeTargetUris: Iterable<string>;
  /**
   * Every URL the client may have signed, most likely first, never empty, at most
   * {@link MAX_TARGET_URI_CANDIDATES}. Each decodes, by API Gateway's own rules, to the same
   * method, path and parameters that reach the backend, so accepting any of them grants nothing
   * the true one would not. Reading it builds them all (tools and tests; the authorizer reads
   * {@link alternativeTargetUris}).
   */
  readonly targetUriCandidates: readonly string[];
  /**
   * The request's path inside the API, percent-decoded, without stage or base path, e.g.
   * `/api/echo`: what role patterns (`METHOD /path-glob`) are matched against.
   */
  readonly apiPath: string;
}

/**
 * The most URLs an adapter offers the verifier for one request. Each failed candidate costs one
 * RSA verification, so this bounds the work a forged request can cause. @default 8
 */
export const MAX_TARGET_URI_CANDIDATES = 8;

/** The stage name HTTP APIs serve at the root, without a path prefix. */
export const DEFAULT_STAGE = '$default';

/** A parsed `publicBaseUrl`. */
export interface PublicBase {
  /** `scheme://host[:port]`, host lower-cased, default port dropped. */
  readonly origin: string;
  /** The base path without a trailing slash, `''` when there is none, e.g. `/v1`. */
  readonly basePath: string;
}

let lastBase: { readonly text: string; readonly parsed: PublicBase } | undefined;

/** The longest publicBaseUrl taken: an origin and a base path are far shorter, and it travels in an environment of 4 KB. */
export const MAX_PUBLIC_BASE_URL_CHARS = 512;

/**
 * Why `text` cannot be a `publicBaseUrl`, or undefined when it can: the one rule, read by the
 * CDK constructs at synth (lib/signature-authorizer.ts), the configuration at cold start
 * (lambda/config.ts) and the adapters below, so a value synth accepts never fails at run time.
 */
export function publicBaseUrlProblem(text: string): string | undefined {
  if (text.length > MAX_PUBLIC_BASE_URL_CHARS) {
    return `publicBaseUrl is ${text.length} characters, over ${MAX_PUBLIC_BASE_URL_CHARS}: it travels in the functions' environment, which Lambda limits to 4 KB in all; give the origin and the base path only`;
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `publicBaseUrl must be an absolute URL like https://api.example.com/v1; got ${JSON.stringify(text.slice(0, 200))}`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `publicBaseUrl must use https (or http for local runs); got ${JSON.stringify(text.slice(0, 200))}`;
  if (url.search || url.hash || text.includes('?') || text.includes('#')) return `publicBaseUrl must not carry a query or a fragment; got ${JSON.stringify(text.slice(0, 200))}`;
  if (url.username || url.password) return 'publicBaseUrl must not carry user information (user:password@): clients sign the URL they call, which has none';
  return undefined;
}

/**
 * Parses `publicBaseUrl` (remembering the last one, since it is the same on every request).
 * @throws Error naming the problem: a deployment mistake, not a request error
 */
export function parsePublicBaseUrl(text: string): PublicBase {
  if (lastBase?.text === text) return lastBase.parsed;
  const problem = publicBaseUrlProblem(text);
  if (problem !== undefined) throw new Error(`${problem}.`);
  const url = new URL(text);
  const parsed: PublicBase = { origin: `${url.protocol}//${url.host}`, basePath: url.pathname.replace(/\/+$/, '') };
  lastBase = { text, parsed };
  return parsed;
}

/**
 * The scheme the client used: the last value of `X-Forwarded-Proto` (the one the proxy nearest to
 * Signet wrote; earlier ones may be the client's own) when it is `http`, else `https` (API Gateway
 * endpoints only speak TLS).
 */
export function schemeOf(forwardedProto: string | undefined): 'https' | 'http' {
  if (forwardedProto === undefined) return 'https';
  const last = forwardedProto.slice(forwardedProto.lastIndexOf(',') + 1).trim().toLowerCase();
  return last === 'http' ? 'http' : 'https';
}

const HOST_NAME = /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*\.?$/;
const IP_LITERAL = /^\[[0-9a-f:.]+\]$/;

/**
 * The authority the client called: the `Host` header, else the event's domain name; lower-cased,
 * with the scheme's default port removed (as URL parsers serialise it).
 * @throws SignetError `invalid_request` when neither is a host name
 */
export function authorityOf(scheme: 'https' | 'http', hostHeader: string | undefined, domainName: string | undefined): string {
  const authority = cleanAuthority(scheme, hostHeader) ?? cleanAuthority(scheme, domainName);
  if (authority === undefined) {
    fail('invalid_request', 'The request carries no usable Host header or domain name, so the URL it was signed for cannot be rebuilt.');
  }
  return authority;
}

function cleanAuthority(scheme: 'https' | 'http', text: string | undefined): string | undefined {
  if (typeof text !== 'string') return undefined;
  const value = text.trim().toLowerCase();
  if (value === '' || value.length > 300) return undefined;
  const port = /:(\d{1,5})$/.exec(value);
  const host = port ? value.slice(0, port.index) : value;
  if (!HOST_NAME.test(host) && !IP_LITERAL.test(host)) return undefined;
  if (port === null) return host;
  const defaultPort = scheme === 'https' ? '443' : '80';
  return Number(port[1]) === Number(defaultPort) ? host : `${host}:${Number(port[1])}`;
}

/**
 * Removes a leading `/{stage}` from a path. The rest keeps its leading slash; a path that was
 * exactly `/{stage}` leaves `''` (the stage root was called without a trailing slash).
 */
export function stripStagePrefix(path: string, stage: string | undefined): string {
  if (!stage || stage === DEFAULT_STAGE) return path;
  const prefix = `/${stage}`;
  if (path === prefix) return '';
  return path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : path;
}

/** Removes a leading base path (`/v1`) when the path starts with it on a segment boundary. */
export function stripBasePath(path: string, basePath: string): string | undefined {
  if (basePath === '') return path;
  if (path === basePath) return '';
  return path.startsWith(`${basePath}/`) ? path.slice(basePath.length) : undefined;
}

/** Encodes a decoded path segment by segment; `/` stays the separator. */
export function encodePath(decodedPath: string, encoder: ComponentEncoder): string {
  return decodedPath.split('/').map((segment) => encoder.encode(segment)).join('/');
}

/**
 * Percent-decodes a path segment by segment; a segment that is not valid percent-encoded UTF-8
 * is kept as it is.
 */
export function decodePath(encodedPath: string): string {
  return encodedPath
    .split('/')
    .map((segment) => {
      if (!segment.includes('%')) return segment;
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    })
    .join('/');
}

/**
 * The decoded path the role check matches, from the path inside the API (`''` means the root).
 * @throws SignetError `role_forbidden` when a segment is `.` or `..` after decoding: the gateway's
 *   route and the role pattern could then disagree about which resource is meant. URL parsers
 *   remove such segments before sending, so only a hand-made request carries them.
 */
export function apiPathFor(decodedPathInApi: string): string {
  const path = decodedPathInApi === '' ? '/' : decodedPathInApi;
  // A `.` or `..` segment starts the path or follows a `/`: without either, there is none to look for.
  if (path.charCodeAt(0) === 0x2e /* . */ || path.includes('/.')) {
    for (const segment of path.split('/')) {
      if (segment === '.' || segment === '..') {
        fail('role_forbidden', "The request path contains a '.' or '..' segment (possibly percent-encoded); Signet refuses such paths. Call the resource by its plain path.");
      }
    }
  }
  return path.startsWith('/') ? path : `/${path}`;
}

/**
 * The path the role check matches, from a path inside the API as the client encoded it (REST API's
 * `path`), decoded segment by segment.
 * @throws SignetError `role_forbidden` when a segment holds an encoded `/` (`%2F`): decoded, it would be
 *   two segments to the role check where the gateway routed one (`/orders/1%2Fitems` is the route
 *   `/orders/{id}`, not `/orders/{id}/items`); and as {@link apiPathFor}
 */
export function apiPathOfEncoded(encodedPathInApi: string): string {
  if (encodedPathInApi.includes('%') && /%2f/i.test(encodedPathInApi)) {
    fail('role_forbidden', "The request path contains an encoded '/' (%2F) inside a segment; Signet refuses such paths, because the gateway's route and the role check would read them differently. Call the resource by its plain path.");
  }
  return apiPathFor(decodePath(encodedPathInApi));
}

/** `origin + path`, with `/` when both the base path and the rest are empty. */
export function joinUrl(origin: string, path: string): string {
  return `${origin}${path === '' ? '/' : path}`;
}

/** The candidates of a {@link CandidateUris} from `start` on; each iteration reads them again from there. */
class CandidatesFrom implements Iterable<string> {
  constructor(
    private readonly uris: CandidateUris,
    private readonly start: number,
  ) {}

  [Symbol.iterator](): Iterator<string> {
    let index = this.start;
    return {
      next: (): IteratorResult<string> => {
        const uri = this.uris.at(index++);
        return uri === undefined ? { done: true, value: undefined } : { done: false, value: uri };
      },
    };
  }
}

/**
 * The candidate URLs of one request, from a lazy sequence: the first is read at once (it is the
 * request's `targetUri`), each further one only when something iterates that far. Duplicates are
 * dropped (keeping the first) and at most {@link MAX_TARGET_URI_CANDIDATES} are kept.
 */
export class CandidateUris {
  private readonly built: string[] = [];
  private readonly source: Iterator<string>;
  private exhausted = false;
  /** The others, built as they are read (one object, made with the set: this runs on every request). */
  readonly alternatives: Iterable<string> = new CandidatesFrom(this, 1);

  /** @param candidates most likely first; must yield at least one URL */
  constructor(candidates: Iterable<string>) {
    this.source = candidates[Symbol.iterator]();
    if (this.at(0) === undefined) throw new Error('CandidateUris needs at least one URL.');
  }

  /** The most likely URL. */
  get first(): string {
    return this.built[0];
  }

  /** All of them (builds every one). */
  all(): string[] {
    return [...new CandidatesFrom(this, 0)];
  }

  /** The URL at `index`, building the ones before it as needed; undefined past the last. */
  at(index: number): string | undefined {
    while (index >= this.built.length && !this.exhausted) {
      const next = this.built.length < MAX_TARGET_URI_CANDIDATES ? this.source.next() : undefined;
      if (next === undefined || next.done === true) this.exhausted = true;
      else if (!this.built.includes(next.value)) this.built.push(next.value);
    }
    return this.built[index];
  }
}

/** An {@link AdaptedRequest}: its fields, and every candidate built from the set only when asked. */
class CandidateRequest implements AdaptedRequest {
  readonly alternativeTargetUris: Iterable<string>;

  constructor(
    private readonly candidates: CandidateUris,
    readonly request: SignedRequest,
    readonly apiPath: string,
  ) {
    this.alternativeTargetUris = candidates.alternatives;
  }

  get targetUriCandidates(): string[] {
    return this.candidates.all();
  }
}

/** The adapted request around `candidates`: the request on the first URL, the others left lazy. */
export function adaptedRequest(
  candidates: CandidateUris,
  request: (targetUri: string) => SignedRequest,
  apiPath: string,
): AdaptedRequest {
  return new CandidateRequest(candidates, request(candidates.first), apiPath);
}

const METHOD_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,32}$/;

/**
 * The request method as API Gateway reports it (already upper-case for real requests).
 * @throws SignetError `invalid_request` when it is missing or not an HTTP token
 */
export function methodOf(method: unknown): string {
  if (typeof method !== 'string' || !METHOD_TOKEN.test(method)) {
    fail('invalid_request', 'The event carries no valid HTTP method, so the signed request cannot be rebuilt.');
  }
  return method;
}

/** Assembles a `SignedRequest`, leaving out `sourceIp` / `hasBody` when unknown. */
export function toSignedRequest(
  method: string,
  targetUri: string,
  headers: HeaderMap,
  sourceIp: string | undefined,
  hasBody: boolean | undefined,
): SignedRequest {
  // One literal per case (no spread of temporary objects): this runs on every request.
  if (sourceIp !== undefined) return hasBody === undefined ? { method, targetUri, headers, sourceIp } : { method, targetUri, headers, sourceIp, hasBody };
  return hasBody === undefined ? { method, targetUri, headers } : { method, targetUri, headers, hasBody };
}
