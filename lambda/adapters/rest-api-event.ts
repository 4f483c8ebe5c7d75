/**
 * REST API (v1) REQUEST authorizer events → the core's `SignedRequest` and candidate URLs.
 *
 * Also accepts REST proxy events and HTTP API payload 1.0 events (same shape). What v1 delivers:
 *
 * - `requestContext.path` is the path the client called, still percent-encoded: with `/{stage}`
 *   on the execute-api domain (`/prod/lambda-request`), with the base-path mapping on a custom
 *   domain (`/v1/payment`). With the Host header it rebuilds scheme, authority and path exactly.
 * - `path` is the same without the stage on execute-api, but keeps the base-path mapping on a
 *   custom domain. The path inside the API (for roles, and to append to `publicBaseUrl`) is `path`
 *   minus the base path, which is inferred from `resource` and `pathParameters` (the route API
 *   Gateway matched) or, failing that, taken from `publicBaseUrl`.
 * - There is no raw query: the decoded, unordered parameters are turned into a bounded list of
 *   plausible query strings (see query-candidates.ts), hence several candidate URLs.
 *
 * @example
 * const { request, targetUriCandidates, apiPath, methodArn } = fromRestApiAuthorizerEvent(event, { publicBaseUrl });
 */
import { headersFromRestApi } from './header-map';
import { queryCandidateSequence, queryParametersOf } from './query-candidates';
import { callerIpOf } from './source-ip';
import {
  AdaptedRequest,
  CandidateUris,
  TargetUriOptions,
  apiPathOfEncoded,
  authorityOf,
  adaptedRequest,
  decodePath,
  joinUrl,
  methodOf,
  parsePublicBaseUrl,
  schemeOf,
  stripBasePath,
  toSignedRequest,
} from './target-uri';

type StringMap = Readonly<Record<string, string | undefined | null>> | null | undefined;
type MultiStringMap = Readonly<Record<string, readonly (string | null)[] | undefined | null>> | null | undefined;

/**
 * The fields of a v1 event this adapter reads. `APIGatewayRequestAuthorizerEvent` and
 * `APIGatewayProxyEvent` fit.
 */
export interface RestApiEventLike {
  readonly methodArn?: string | null;
  readonly resource?: string | null;
  readonly path?: string | null;
  readonly httpMethod?: string | null;
  readonly headers?: StringMap;
  readonly multiValueHeaders?: MultiStringMap;
  readonly pathParameters?: StringMap;
  readonly queryStringParameters?: StringMap;
  readonly multiValueQueryStringParameters?: MultiStringMap;
  readonly requestContext?: {
    readonly path?: string | null;
    readonly stage?: string | null;
    readonly domainName?: string | null;
    readonly httpMethod?: string | null;
    readonly identity?: { readonly sourceIp?: string | null } | null;
  } | null;
  /** Proxy events only. */
  readonly body?: string | null;
}

/** A v1 event adapted: the request, its candidate URLs, the API path and the `methodArn` to answer for. */
export interface AdaptedRestRequest extends AdaptedRequest {
  /** The ARN the IAM policy must name (authorizer events only). */
  readonly methodArn?: string;
}

/**
 * Builds the `SignedRequest` for a REST API event, every plausible target URI, and the API path.
 * @throws SignetError `invalid_request` (no method, no host), `role_forbidden` (a `.`/`..` path segment, an encoded `/`)
 * @throws Error when `opts.publicBaseUrl` is not a valid base URL (a deployment mistake)
 */
export function fromRestApiAuthorizerEvent(event: RestApiEventLike, opts: TargetUriOptions = {}): AdaptedRestRequest {
  const context = event.requestContext ?? {};
  const method = methodOf(event.httpMethod ?? context.httpMethod);
  const headers = headersFromRestApi(event.headers, event.multiValueHeaders);
  const encodedPathInApi = encodedPathInApiOf(event, opts);
  const apiPath = apiPathOfRestApiEvent(event, opts);

  let urlWithoutQuery: string;
  if (opts.publicBaseUrl) {
    const base = parsePublicBaseUrl(opts.publicBaseUrl);
    urlWithoutQuery = joinUrl(base.origin, `${base.basePath}${encodedPathInApi}`);
  } else {
    const scheme = schemeOf(headers['x-forwarded-proto']);
    urlWithoutQuery = joinUrl(`${scheme}://${authorityOf(scheme, headers.host, context.domainName ?? undefined)}`, calledPathOf(event));
  }
  const parameters = queryParametersOf(event.queryStringParameters, event.multiValueQueryStringParameters);
  function* urls(): Generator<string> {
    for (const query of queryCandidateSequence(parameters)) yield query === '' ? urlWithoutQuery : `${urlWithoutQuery}?${query}`;
  }
  const sourceIp = callerIpOf(context.identity?.sourceIp);
  const hasBody = hasBodyOf(event);
  const adapted = adaptedRequest(new CandidateUris(urls()), (targetUri) => toSignedRequest(method, targetUri, headers, sourceIp, hasBody), apiPath);
  const methodArn = typeof event.methodArn === 'string' && event.methodArn !== '' ? event.methodArn : undefined;
  if (methodArn !== undefined) Object.defineProperty(adapted, 'methodArn', { value: methodArn, enumerable: true });
  return adapted;
}

/**
 * The request's path inside the API (decoded, without stage or base path), e.g. `/api/echo`, for role checks.
 * @throws SignetError `role_forbidden` when a segment is `.` or `..`, or holds an encoded `/`
 */
export function apiPathOfRestApiEvent(event: RestApiEventLike, opts: TargetUriOptions = {}): string {
  return apiPathOfEncoded(encodedPathInApiOf(event, opts));
}

/** The path as the client called it (encoded): `requestContext.path`, else `path`. */
function calledPathOf(event: RestApiEventLike): string {
  return withSlash(event.requestContext?.path ?? event.path);
}

/** `path` as API Gateway delivered it (encoded; no stage, but a custom domain's base path). */
function deliveredPathOf(event: RestApiEventLike): string {
  return withSlash(event.path ?? event.requestContext?.path);
}

function withSlash(path: string | null | undefined): string {
  if (typeof path !== 'string' || path === '') return '/';
  return path.startsWith('/') ? path : `/${path}`;
}

/**
 * The encoded path inside the API (`''` for the root called without a slash):
 * 1. called through the stage (`requestContext.path` = `/{stage}` + `path`): `path`;
 * 2. else `path` minus the base path inferred from `resource` + `pathParameters` (the route that
 *    API Gateway matched, so the most reliable source);
 * 3. else `path` minus the base path of `publicBaseUrl`, when it starts with it;
 * 4. else `path`.
 */
function encodedPathInApiOf(event: RestApiEventLike, opts: TargetUriOptions): string {
  const path = deliveredPathOf(event);
  const stage = event.requestContext?.stage;
  const called = event.requestContext?.path;
  if (stage && typeof called === 'string' && calledThroughStage(called, path, stage)) return path;
  const inferred = inferBasePath(path, event.resource, event.pathParameters);
  if (inferred !== undefined) return path.slice(inferred.length);
  if (opts.publicBaseUrl) {
    const stripped = stripBasePath(path, parsePublicBaseUrl(opts.publicBaseUrl).basePath);
    if (stripped !== undefined) return stripped;
  }
  return path;
}

function calledThroughStage(called: string, path: string, stage: string): boolean {
  const prefix = `/${stage}`;
  if (called === `${prefix}${path}`) return true;
  return path === '/' && called === prefix;
}

/**
 * The base-path mapping in front of `path`, found by matching the route API Gateway chose
 * (`resource` with its `{param}` / `{proxy+}` filled from `pathParameters`) against the end of
 * `path`, segment by segment, comparing decoded text. Undefined when they do not line up.
 */
export function inferBasePath(path: string, resource: string | null | undefined, pathParameters: StringMap): string | undefined {
  if (typeof resource !== 'string' || !resource.startsWith('/')) return undefined;
  let missing = false;
  const filled = resource.replace(/\{([^{}+]+)\+?\}/g, (_, name: string) => {
    const value = pathParameters?.[name];
    if (typeof value !== 'string') missing = true;
    return value ?? '';
  });
  if (missing) return undefined;
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const pathSegments = trimmed.split('/');
  if (filled === '/') return trimmed === '/' ? '' : trimmed;
  const routeSegments = filled.replace(/\/$/, '').split('/').slice(1);
  if (routeSegments.length >= pathSegments.length) return undefined;
  const tail = pathSegments.slice(pathSegments.length - routeSegments.length);
  if (!sameSegments(tail, routeSegments)) return undefined;
  return pathSegments.slice(0, pathSegments.length - routeSegments.length).join('/');
}

function sameSegments(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((segment, i) => decodePath(segment) === decodePath(b[i]));
}

function hasBodyOf(event: RestApiEventLike): boolean | undefined {
  if (!('body' in event)) return undefined;
  return typeof event.body === 'string' && event.body.length > 0;
}
