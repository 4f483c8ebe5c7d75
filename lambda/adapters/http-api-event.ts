/**
 * HTTP API (payload format 2.0) events → the core's `SignedRequest`.
 *
 * Works for Lambda authorizer events and for proxy (integration) events, which share the fields
 * used here. What HTTP API delivers, and so what this adapter can guarantee:
 *
 * - `rawQueryString` is the query exactly as sent (without `?`): used as it is.
 * - `rawPath` is percent-DECODED, and carries `/{stage}` for any stage other than `$default`.
 *   The client's bytes are re-created by re-encoding each segment the way URL libraries do
 *   ({@link PATH_ENCODERS}); a path whose client spelling differs (an encoded `/` or `?`, an
 *   encoded unreserved character, double encoding) cannot be rebuilt and will not verify.
 * - Behind a custom domain with an API mapping key, configure `publicBaseUrl` (e.g.
 *   `https://api.example.com/v1`). Reports disagree on whether `rawPath` then carries the key
 *   (`/v1/api/echo`) or only the stage (`/prod/api/echo`), so both are read: a `rawPath` that
 *   starts with the base path of `publicBaseUrl` is the full path as called, and the base path
 *   is removed from it; any other has its `/{stage}` removed. The rest is appended to
 *   `publicBaseUrl`.
 *
 * @example
 * const { request, targetUriCandidates, apiPath } = adaptHttpApiEvent(event, { publicBaseUrl: config.publicBaseUrl });
 */
import type { SignedRequest } from '../core/types';
import { headersFromHttpApi } from './header-map';
import {
  ComponentEncoder,
  RFC3986_STRICT,
  URI_COMPONENT,
  WHATWG_PATH_SEGMENT,
  WHATWG_PATH_SEGMENT_KEEP_CARET,
} from './percent-encoding';
import { callerIpOf } from './source-ip';
import {
  AdaptedRequest,
  TargetUriOptions,
  apiPathFor,
  authorityOf,
  CandidateUris,
  adaptedRequest,
  encodePath,
  joinUrl,
  methodOf,
  decodePath,
  parsePublicBaseUrl,
  schemeOf,
  stripBasePath,
  stripStagePrefix,
  toSignedRequest,
} from './target-uri';

/**
 * The fields of an HTTP API 2.0 event this adapter reads. Both `APIGatewayRequestAuthorizerEventV2`
 * and `APIGatewayProxyEventV2` fit.
 */
export interface HttpApiEventV2Like {
  readonly rawPath?: string | null;
  readonly rawQueryString?: string | null;
  readonly cookies?: readonly string[] | null;
  readonly headers?: Readonly<Record<string, string | undefined>> | null;
  readonly requestContext: {
    readonly domainName?: string | null;
    readonly stage?: string | null;
    readonly http: {
      readonly method: string;
      readonly path?: string | null;
      readonly sourceIp?: string | null;
    };
  };
  /** Proxy events only: the body as API Gateway passes it on. */
  readonly body?: string | null;
}

/**
 * How a decoded path is re-encoded, most likely first: WHATWG `new URL()` (current spec, then
 * older parsers that keep `^`), `encodeURIComponent` per segment, RFC 3986 unreserved only.
 * For ordinary paths all four agree and one candidate remains.
 */
export const PATH_ENCODERS: readonly ComponentEncoder[] = [
  WHATWG_PATH_SEGMENT,
  WHATWG_PATH_SEGMENT_KEEP_CARET,
  URI_COMPONENT,
  RFC3986_STRICT,
];

/**
 * Builds the `SignedRequest` for an HTTP API event, its candidate URLs and the API path for role
 * checks.
 * @throws SignetError `invalid_request` (no method, no host), `role_forbidden` (a `.`/`..` path segment)
 * @throws Error when `opts.publicBaseUrl` is not a valid base URL (a deployment mistake)
 */
export function adaptHttpApiEvent(event: HttpApiEventV2Like, opts: TargetUriOptions = {}): AdaptedRequest {
  const context = event.requestContext;
  const method = methodOf(context?.http?.method);
  const headers = headersFromHttpApi(event.headers, event.cookies);
  const rawPath = rawPathOf(event);
  const pathInApi = pathInApiOf(event, opts);
  const apiPath = apiPathFor(pathInApi);
  const query = event.rawQueryString ? `?${event.rawQueryString}` : '';

  let origin: string;
  let basePath = '';
  let decodedPath: string;
  if (opts.publicBaseUrl) {
    ({ origin, basePath } = parsePublicBaseUrl(opts.publicBaseUrl));
    decodedPath = pathInApi;
  } else {
    const scheme = schemeOf(headers['x-forwarded-proto']);
    origin = `${scheme}://${authorityOf(scheme, headers.host, context.domainName ?? undefined)}`;
    decodedPath = rawPath;
  }
  const sourceIp = callerIpOf(context.http.sourceIp);
  const hasBody = hasBodyOf(event);
  return adaptedRequest(new CandidateUris(new PathSpellings(origin, basePath, decodedPath, query)), (targetUri) => toSignedRequest(method, targetUri, headers, sourceIp, hasBody), apiPath);
}

/**
 * The request's URL with its decoded path re-encoded by each of {@link PATH_ENCODERS} in turn, each
 * built when it is read. (A plain iterator, not a generator: this runs on every request, and a
 * generator's suspended frame cost more than the rest of the adapter.)
 */
class PathSpellings implements Iterator<string>, Iterable<string> {
  private index = 0;

  /** @param basePath from publicBaseUrl, already encoded: only `decodedPath`, which API Gateway decoded, is re-encoded */
  constructor(
    private readonly origin: string,
    private readonly basePath: string,
    private readonly decodedPath: string,
    private readonly query: string,
  ) {}

  [Symbol.iterator](): Iterator<string> {
    return this;
  }

  next(): IteratorResult<string> {
    if (this.index >= PATH_ENCODERS.length) return { done: true, value: undefined };
    const encoder = PATH_ENCODERS[this.index++];
    return { done: false, value: `${joinUrl(this.origin, this.basePath + encodePath(this.decodedPath, encoder))}${this.query}` };
  }
}

/**
 * The `SignedRequest` for an HTTP API authorizer (or 2.0 proxy) event, with the most likely
 * target URI. Use {@link adaptHttpApiEvent} to get every candidate URL and the API path.
 */
export function fromHttpApiAuthorizerEvent(event: HttpApiEventV2Like, opts: TargetUriOptions = {}): SignedRequest {
  return adaptHttpApiEvent(event, opts).request;
}

/**
 * The request's path inside the API (decoded, without `/{stage}`), e.g. `/api/echo`, for role checks.
 * @throws SignetError `role_forbidden` when a segment is `.` or `..`
 */
export function apiPathOfHttpApiEvent(event: HttpApiEventV2Like, opts: TargetUriOptions = {}): string {
  return apiPathFor(pathInApiOf(event, opts));
}

/** `rawPath` (decoded, with `/{stage}` for a named stage), always starting with `/`. */
function rawPathOf(event: HttpApiEventV2Like): string {
  const path = event.rawPath ?? event.requestContext?.http?.path;
  if (typeof path !== 'string' || path === '') return '/';
  return path.startsWith('/') ? path : `/${path}`;
}

/**
 * The decoded path inside the API: `rawPath` without the base path of `publicBaseUrl` when it
 * starts with it (the API mapping key reached `rawPath`: it is the full path as called), else
 * `rawPath` without `/{stage}` (unless `stripStage` is false).
 */
function pathInApiOf(event: HttpApiEventV2Like, opts: TargetUriOptions): string {
  const rawPath = rawPathOf(event);
  const afterBase = opts.publicBaseUrl ? pathAfterPublicBasePath(rawPath, opts.publicBaseUrl) : undefined;
  if (afterBase !== undefined) return afterBase;
  return opts.stripStage === false ? rawPath : stripStagePrefix(rawPath, event.requestContext?.stage ?? undefined);
}

/** `rawPath` (decoded) after the base path of `publicBaseUrl`, or undefined when there is none or it does not start with it. */
function pathAfterPublicBasePath(rawPath: string, publicBaseUrl: string): string | undefined {
  const { basePath } = parsePublicBaseUrl(publicBaseUrl);
  return basePath === '' ? undefined : stripBasePath(rawPath, decodePath(basePath));
}

/** Proxy events say whether there is a body; authorizer events do not (the core then reads the headers). */
function hasBodyOf(event: HttpApiEventV2Like): boolean | undefined {
  if (!('body' in event)) return undefined;
  return typeof event.body === 'string' && event.body.length > 0;
}
