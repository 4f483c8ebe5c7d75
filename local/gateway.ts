/**
 * The local gateway's request path, playing an HTTP API with a Lambda authorizer:
 *
 *   route → authorizer (`httpApiHandler`, the deployed code) → registry or echo handler → HTTP
 *
 * - Routes: `/registry` and `/registry/...` → the registry handler; `/api/echo` → the echo
 *   backend; anything else → 404 before the authorizer runs (HTTP API matches routes first).
 * - An Allow passes the authorizer's context to the backend at `requestContext.authorizer.lambda`;
 *   the backend's result is mapped to HTTP as HTTP API maps payload 2.0 results.
 * - A refusal differs on purpose from a deployed HTTP API, which can only answer
 *   403 `{"message":"Forbidden"}` (lambda/adapters/authorizer-response.ts): the local gateway is
 *   for developers, so it answers the status of the code (401, 403, 5xx) with
 *   `{error, message, requestId}` and an `x-signet-error: <code>` header, taken from the
 *   authorizer's Deny context (`signetError`, `signetMessage`).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyEventV2WithLambdaAuthorizer,
  APIGatewayRequestAuthorizerEventV2,
} from 'aws-lambda';
import { CONTEXT_KEYS } from '../lambda/adapters/authorizer-context';
import { SIGNET_ERROR_HEADER } from '../lambda/core/defaults';
import { ERROR_CODES, SignetErrorCode } from '../lambda/core/errors';
import { authorizerEventOf, httpApiProxyEvent, withAuthorizerContext } from './http-api-event';

/** The largest request body accepted, as HTTP API's payload limit. @default 10 MiB */
export const MAX_LOCAL_BODY_BYTES = 10 * 1024 * 1024;

/** The header carrying a refusal's code (read by the signer's `signedFetch`). */

/** The authorizer's answer (simple response). */
export interface SimpleAuthorizerResult {
  readonly isAuthorized: boolean;
  readonly context?: Readonly<Record<string, unknown>>;
}

type BackendEvent = APIGatewayProxyEventV2WithLambdaAuthorizer<Record<string, unknown>>;

/** The Lambda handlers the gateway calls. */
export interface GatewayHandlers {
  readonly authorizer: (event: APIGatewayRequestAuthorizerEventV2) => Promise<SimpleAuthorizerResult>;
  readonly registry: (event: BackendEvent, context: { awsRequestId: string }) => Promise<unknown>;
  readonly echo: (event: BackendEvent, context: { awsRequestId: string }) => Promise<unknown>;
}

export interface GatewayOptions {
  /** One line per request (method, path, status, time) and handler failures. @default - silent */
  readonly log?: (line: string) => void;
  /** Clock in ms. @default Date.now */
  readonly nowMs?: () => number;
  /**
   * The URL the authorizer rebuilds every request on (`http://127.0.0.1:<port>`): a mismatch on a
   * request that names another host (`localhost`) says to sign that URL. @default - no such note
   */
  readonly publicUrl?: string;
}

/** The backend a path belongs to, or undefined (404). */
export function routeOf(rawPath: string): 'registry' | 'echo' | undefined {
  if (rawPath === '/registry' || rawPath.startsWith('/registry/')) return 'registry';
  if (rawPath === '/api/echo') return 'echo';
  return undefined;
}

/** A Node request listener serving the gateway. */
export function createGatewayListener(handlers: GatewayHandlers, options: GatewayOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  const nowMs = options.nowMs ?? Date.now;
  const log = options.log ?? (() => undefined);
  return (req, res) => {
    const started = nowMs();
    const requestId = randomBytes(10).toString('base64');
    void serve(req, requestId, started)
      .catch((error: unknown) => {
        log(`gateway failure: ${describe(error)}`);
        return refusal('internal_error', 'The local gateway failed unexpectedly; see its output.', requestId);
      })
      .then((reply) => {
        send(res, reply, requestId);
        log(`${req.method ?? '?'} ${pathOf(req.url)} ${reply.status}${reply.code ? ` ${reply.code}` : ''} ${nowMs() - started}ms`);
      });
  };

  async function serve(req: IncomingMessage, requestId: string, started: number): Promise<Reply> {
    const body = await readBody(req);
    if (body === undefined) {
      return refusal('payload_too_large', `The body is larger than ${MAX_LOCAL_BODY_BYTES} bytes, HTTP API's payload limit.`, requestId);
    }
    const event = httpApiProxyEvent(req, body, { requestId, nowMs: started });
    const route = routeOf(event.rawPath);
    if (route === undefined) {
      return { status: 404, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ message: 'Not Found' })) };
    }
    let decision: SimpleAuthorizerResult;
    try {
      decision = await handlers.authorizer(authorizerEventOf(event));
    } catch (error) {
      return authorizerFailure(error, requestId, log);
    }
    if (!decision.isAuthorized) return denial(decision.context ?? {}, requestId, hostNote(req.headers.host, options.publicUrl));
    const backendEvent = withAuthorizerContext(event as APIGatewayProxyEventV2, { ...(decision.context ?? {}) });
    try {
      return proxyReply(await handlers[route](backendEvent, { awsRequestId: requestId }));
    } catch (error) {
      log(`${route} handler failed: ${describe(error)}`);
      return { status: 500, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ message: 'Internal Server Error' })) };
    }
  }
}

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
  readonly body: Buffer;
  /** The refusal code, for the access line. */
  readonly code?: string;
}

/** A Signet refusal: the status of the code, `{error, message, requestId}`, `x-signet-error`. */
export function refusal(code: string, message: string, requestId: string): Reply {
  const status = code in ERROR_CODES ? ERROR_CODES[code as SignetErrorCode] : 403;
  return {
    status,
    headers: { 'content-type': 'application/json', [SIGNET_ERROR_HEADER]: code },
    body: Buffer.from(JSON.stringify({ error: code, message, requestId })),
    code,
  };
}

function denial(context: Readonly<Record<string, unknown>>, requestId: string, hostMismatch: string | undefined): Reply {
  const code = typeof context[CONTEXT_KEYS.error] === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(context[CONTEXT_KEYS.error] as string)
    ? (context[CONTEXT_KEYS.error] as string)
    : 'unknown_refusal';
  const message = typeof context[CONTEXT_KEYS.message] === 'string' ? (context[CONTEXT_KEYS.message] as string) : 'The authorizer refused the request.';
  return refusal(code, code === 'signature_mismatch' && hostMismatch !== undefined ? `${message} ${hostMismatch}` : message, requestId);
}

/** A request target for the access line, as it was routed: no query, and no user or password an absolute-form target may carry. */
function pathOf(target: string | undefined): string {
  const given = target ?? '/';
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(given);
  if (scheme === null) return given.split('?')[0];
  // An absolute-form target: a user and password, which may hold "@", "?" or "#" themselves, end at
  // the last "@" before the first "/" (or "\\"); the query is dropped after that.
  const rest = given.slice(scheme[0].length);
  const end = rest.search(/[/\\]/);
  const authority = end < 0 ? rest : rest.slice(0, end);
  const at = authority.lastIndexOf('@');
  const shown = (scheme[0] + authority.slice(at + 1) + (end < 0 ? '' : rest.slice(end))).split('?')[0];
  // An "@" still there may end a password that holds a "/" (which a URL cannot), and one after a "?"
  // or "#" may be in a query rather than after a password: show none of either.
  return shown.includes('@') || /[?#]/.test(authority.slice(0, Math.max(at, 0))) ? `${scheme[0]}(a target holding "@", not shown)` : shown;
}

/** How the gateway's note on a request naming another host begins (a client that reads it need not say it again). */
export const HOST_NOTE_START = 'This local gateway rebuilds every URL on';

/** The note for a request that names another host than the one the authorizer rebuilds URLs on, else undefined. */
function hostNote(host: string | undefined, publicUrl: string | undefined): string | undefined {
  if (publicUrl === undefined || host === undefined) return undefined;
  const expected = new URL(publicUrl).host;
  if (host.toLowerCase() === expected) return undefined;
  return `${HOST_NOTE_START} ${publicUrl}; the request named host ${JSON.stringify(host.slice(0, 100))}: sign ${publicUrl}/… instead.`;
}

/** The authorizer threw: its own fail-closed codes (AuthorizerFailure) keep their status; anything else is a 500. */
function authorizerFailure(error: unknown, requestId: string, log: (line: string) => void): Reply {
  const code = (error as { code?: unknown })?.code;
  if ((error as { name?: unknown })?.name === 'AuthorizerFailure' && typeof code === 'string' && code in ERROR_CODES) {
    return refusal(code, 'The signature check could not be completed (the registry is unreachable and nothing cached may be used). Nothing was let through; retry later.', requestId);
  }
  log(`authorizer failed: ${describe(error)}`);
  return refusal('internal_error', 'The authorizer failed unexpectedly; see the gateway output. Nothing was let through.', requestId);
}

/** A payload 2.0 result → HTTP: a structured result, or any other value as a JSON 200. */
function proxyReply(result: unknown): Reply {
  if (typeof result !== 'object' || result === null || typeof (result as { statusCode?: unknown }).statusCode !== 'number') {
    const text = typeof result === 'string' ? result : JSON.stringify(result ?? null);
    return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(text) };
  }
  const r = result as {
    statusCode: number;
    headers?: Record<string, string | number | boolean>;
    multiValueHeaders?: Record<string, (string | number | boolean)[]>;
    cookies?: string[];
    body?: string;
    isBase64Encoded?: boolean;
  };
  const headers: Record<string, string | string[]> = {};
  for (const [name, values] of Object.entries(r.multiValueHeaders ?? {})) headers[name.toLowerCase()] = values.map(String);
  for (const [name, value] of Object.entries(r.headers ?? {})) headers[name.toLowerCase()] = String(value);
  if (r.cookies !== undefined && r.cookies.length > 0) headers['set-cookie'] = [...r.cookies];
  const body = r.body === undefined ? Buffer.alloc(0) : Buffer.from(r.body, r.isBase64Encoded ? 'base64' : 'utf8');
  const code = r.statusCode >= 400 ? refusalCodeOf(body) : undefined;
  return { status: r.statusCode, headers, body, ...(code !== undefined ? { code } : {}) };
}

/** The code of a backend's refusal body (`{"error": "digest_mismatch", ...}`), for the access line; undefined for any other body. */
function refusalCodeOf(body: Buffer): string | undefined {
  if (body.length > 16_384) return undefined;
  try {
    const error = (JSON.parse(body.toString('utf8')) as { error?: unknown } | null)?.error;
    return typeof error === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(error) ? error : undefined;
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, reply: Reply, requestId: string): void {
  if (res.headersSent) return;
  res.writeHead(reply.status, { ...reply.headers, 'apigw-requestid': requestId, 'content-length': String(reply.body.length) });
  res.end(reply.body);
}

/** The whole body, or undefined when it exceeds {@link MAX_LOCAL_BODY_BYTES}. */
async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    // Past the limit, keep draining (so the client reads the 413) but stop keeping bytes.
    if (size <= MAX_LOCAL_BODY_BYTES) chunks.push(chunk as Buffer);
  }
  return size > MAX_LOCAL_BODY_BYTES ? undefined : Buffer.concat(chunks);
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
