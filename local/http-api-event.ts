/**
 * Node HTTP request → the events an HTTP API (payload format 2.0, `$default` stage) hands its
 * Lambdas, so the local gateway runs the very handlers that run in AWS:
 *
 * - {@link httpApiProxyEvent}: the integration (proxy) event, as the backend receives it.
 * - {@link authorizerEventOf}: the Lambda authorizer's REQUEST event (the same fields, no body:
 *   API Gateway never gives the authorizer the body).
 * - {@link withAuthorizerContext}: the proxy event with the authorizer's context at
 *   `requestContext.authorizer.lambda`, as the backend sees it after an Allow.
 *
 * What HTTP API does, and so what is done here:
 * - `rawPath` is the path percent-decoded (the authorizer's adapter re-encodes it);
 *   `rawQueryString` is the query exactly as sent, without `?`.
 * - Header names are lower-cased and a repeated header's values are joined with `,`;
 *   `Cookie` moves into `cookies[]`.
 * - `queryStringParameters` holds decoded values, repeated names joined with `,`.
 * - `requestContext.http.sourceIp` is the TCP peer (`::ffff:` of IPv4-mapped addresses dropped);
 *   `X-Forwarded-For` is never trusted.
 * - A body is passed as text when its content type is textual and its bytes are UTF-8, else as
 *   Base64 with `isBase64Encoded: true`; the backend decodes it back to the exact bytes.
 */
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyEventV2WithLambdaAuthorizer,
  APIGatewayRequestAuthorizerEventV2,
} from 'aws-lambda';

/** The parts of a Node `IncomingMessage` the event is built from. */
export interface NodeRequestLike {
  readonly method?: string;
  /** Path and query as sent (`/api/echo?x=1`). */
  readonly url?: string;
  /** Alternating names and values, as received. */
  readonly rawHeaders: readonly string[];
  readonly socket: { readonly remoteAddress?: string };
}

export interface LocalEventOptions {
  /** API Gateway's request id (also answered as `apigw-requestid`). */
  readonly requestId: string;
  /** Request time, ms since the epoch. */
  readonly nowMs: number;
  /** The API id in ARNs and the request context. @default 'local' */
  readonly apiId?: string;
}

/** The stage of a local HTTP API: `$default`, so paths carry no stage prefix. */
export const LOCAL_STAGE = '$default';

/** Account id written into the local route ARN and request context. */
export const LOCAL_ACCOUNT_ID = '000000000000';

const TEXT_TYPES = /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded|[\w.+-]*\+(json|xml))\b)/i;

/** The proxy event for a request and its body bytes. */
export function httpApiProxyEvent(req: NodeRequestLike, body: Buffer, options: LocalEventOptions): APIGatewayProxyEventV2 {
  const method = (req.method ?? 'GET').toUpperCase();
  const target = req.url ?? '/';
  const queryAt = target.indexOf('?');
  const encodedPath = queryAt === -1 ? target : target.slice(0, queryAt);
  const rawQueryString = queryAt === -1 ? '' : target.slice(queryAt + 1);
  const rawPath = safeDecode(encodedPath.startsWith('/') ? encodedPath : `/${encodedPath}`);
  const { headers, cookies } = headersOf(req.rawHeaders);
  const sourceIp = sourceIpOf(req.socket.remoteAddress);
  const domainName = (headers.host ?? '').replace(/:\d+$/, '') || 'localhost';
  const queryStringParameters = queryParametersOf(rawQueryString);
  const time = new Date(options.nowMs);

  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(queryStringParameters !== undefined ? { queryStringParameters } : {}),
    requestContext: {
      accountId: LOCAL_ACCOUNT_ID,
      apiId: options.apiId ?? 'local',
      domainName,
      domainPrefix: domainName.split('.')[0],
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp, userAgent: headers['user-agent'] ?? '' },
      requestId: options.requestId,
      routeKey: '$default',
      stage: LOCAL_STAGE,
      time: clfTime(time),
      timeEpoch: options.nowMs,
    },
    ...bodyFields(body, headers['content-type']),
  };
}

/** The authorizer's REQUEST event for a proxy event: the same request, without the body. */
export function authorizerEventOf(event: APIGatewayProxyEventV2): APIGatewayRequestAuthorizerEventV2 {
  const { body: _body, isBase64Encoded: _b64, ...request } = event;
  const ctx = event.requestContext;
  return {
    ...request,
    type: 'REQUEST',
    routeArn: `arn:aws:execute-api:us-east-1:${ctx.accountId}:${ctx.apiId}/${ctx.stage}/${ctx.http.method}${event.rawPath}`,
    identitySource: event.headers.signature !== undefined ? [event.headers.signature] : [],
    pathParameters: {},
    stageVariables: {},
  } as APIGatewayRequestAuthorizerEventV2;
}

/** The proxy event as the backend sees it after an Allow: the context at `requestContext.authorizer.lambda`. */
export function withAuthorizerContext<C>(event: APIGatewayProxyEventV2, context: C): APIGatewayProxyEventV2WithLambdaAuthorizer<C> {
  return { ...event, requestContext: { ...event.requestContext, authorizer: { lambda: context } } };
}

/** The socket's peer address as HTTP API reports it: IPv4-mapped IPv6 (`::ffff:a.b.c.d`) becomes `a.b.c.d`. */
export function sourceIpOf(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined || remoteAddress === '') return '';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(remoteAddress);
  return mapped ? mapped[1] : remoteAddress;
}

/** Lower-cased names; repeated fields joined with `,`; `cookie` split into `cookies[]`. */
function headersOf(rawHeaders: readonly string[]): { headers: Record<string, string>; cookies: string[] } {
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  const cookies: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    const value = rawHeaders[i + 1];
    if (name === 'cookie') {
      cookies.push(...value.split(';').map((c) => c.trim()).filter((c) => c !== ''));
      continue;
    }
    headers[name] = name in headers ? `${headers[name]},${value}` : value;
  }
  return { headers: { ...headers }, cookies };
}

function queryParametersOf(raw: string): Record<string, string> | undefined {
  if (raw === '') return undefined;
  const params: Record<string, string> = {};
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = safeDecode(eq === -1 ? part : part.slice(0, eq));
    const value = safeDecode(eq === -1 ? '' : part.slice(eq + 1));
    params[name] = Object.prototype.hasOwnProperty.call(params, name) ? `${params[name]},${value}` : value;
  }
  return params;
}

function bodyFields(body: Buffer, contentType: string | undefined): { body?: string; isBase64Encoded: boolean } {
  if (body.length === 0) return { isBase64Encoded: false };
  if (contentType !== undefined && TEXT_TYPES.test(contentType.trim())) {
    const text = body.toString('utf8');
    if (Buffer.from(text, 'utf8').equals(body)) return { body: text, isBase64Encoded: false };
  }
  return { body: body.toString('base64'), isBase64Encoded: true };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `12/Mar/2020:19:03:58 +0000`, the request context's `time` format. */
function clfTime(date: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${pad(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`;
}
