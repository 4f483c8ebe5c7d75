/**
 * The registry's Lambda entry point, as a factory so tests and the local gateway can hand in a
 * store pointed at DynamoDB Local. It adapts API Gateway proxy events (HTTP API 2.0 and REST
 * v1) to {@link RegistryService}, and every outcome to a JSON response:
 * errors are `{error, message, requestId}` with the status of the code (lambda/core/errors.ts).
 *
 * Before any route runs:
 * - the authorizer context must name the acting client (the registry is never served unguarded);
 * - and say that the signature bound this exact request (403 `request_not_bound`): a
 *   `web-bot-auth` signature of the authority alone passes the authorizer, and whoever saw one
 *   could send its headers again with any other method and path within its window;
 * - the body is at most MAX_REGISTRY_BODY_BYTES (413 `payload_too_large`);
 * - the body matches the signed Content-Digest the authorizer passed on (the body half of the
 *   scheme: the authorizer never sees the body), else 400 `digest_mismatch`.
 *
 * One log line per request (Powertools JSON): route, clientId, accountId, actor and its account,
 * status, outcome, latency. A `role_not_allowed` refusal also lists `allowedRoles` in its body; a
 * `search_budget_exceeded` one carries `Retry-After`.
 * Bodies, query values and key material are never logged.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { checkSignedBody } from '../backend/signed-body';
import { AUTHORIZER_CACHE_TTL_HEADER, DEFAULT_CLIENT_CACHE_TTL_MS } from '../core/defaults';
import { SignetError, isSignetError } from '../core/errors';
import { RoleNotAllowedError } from './caller-scope';
import { RegistryService, type RegistryServiceDeps } from './registry-service';
import { SearchBudgetExceededError } from './search-budget';
import { inRegistryWords } from './store-refusals';
import { type RegistryEvent, type RegistryRequest, readRegistryEvent } from './registry-request';
import { type MatchedRoute, matchRoute } from './routes';
import { checkBodySize } from './validation';
import { SERVICE_NAMES } from '../observability';

/** The logger calls the handler makes (a Powertools `Logger` fits). */
export type RegistryLogger = Pick<Logger, 'info' | 'warn' | 'error'>;

export interface RegistryHandlerDeps extends RegistryServiceDeps {
  /** @default - a Powertools Logger with service name `signet-registry` */
  readonly logger?: RegistryLogger;
  /**
   * How long the authorizers in front of the API keep a client record (their client cache TTL),
   * sent on every write response as {@link AUTHORIZER_CACHE_TTL_HEADER}.
   * @default DEFAULT_CLIENT_CACHE_TTL_MS
   */
  readonly authorizerCacheTtlMs?: number;
  /**
   * The authorizer's `publicBaseUrl` (`SIGNET_PUBLIC_BASE_URL`): the registry finds the path
   * inside the API exactly as the authorizer does, and routes only on that path.
   * @default - none, as the authorizer's default
   */
  readonly publicBaseUrl?: string;
}


/** The proxy result; the same shape answers HTTP API 2.0 and REST v1. */
export type RegistryResult = APIGatewayProxyResult;

export type RegistryHandler = (event: RegistryEvent, context?: { readonly awsRequestId?: string }) => Promise<RegistryResult>;

/** Service name in the registry's log lines. */
export const REGISTRY_SERVICE_NAME = SERVICE_NAMES.registry;

const BASE_HEADERS = Object.freeze({
  'content-type': 'application/json',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
});

/** Builds the registry handler around its dependencies. */
export function createRegistryHandler(deps: RegistryHandlerDeps): RegistryHandler {
  const service = new RegistryService(deps);
  const logger = deps.logger ?? new Logger({ serviceName: REGISTRY_SERVICE_NAME });
  // On every answer: after a write, how long authorizers may still decide with the record as it
  // was; on a read, how long a change made now would take to reach them (`signet rotate` sizes its wait by it).
  const cacheTtlHeaders = { [AUTHORIZER_CACHE_TTL_HEADER]: String(Math.ceil((deps.authorizerCacheTtlMs ?? DEFAULT_CLIENT_CACHE_TTL_MS) / 1000)) };
  const pathOptions = deps.publicBaseUrl === undefined ? {} : { publicBaseUrl: deps.publicBaseUrl };

  return async (event, context) => {
    const startedMs = performance.now();
    let request: RegistryRequest | undefined;
    let route: MatchedRoute | undefined;
    try {
      request = readRegistryEvent(event, context?.awsRequestId, pathOptions);
      if (request.actor === undefined) {
        throw new SignetError(
          'internal_error',
          'The registry was called without the Signet authorizer in front of it, so the caller is unknown. Protect the registry routes with the Signet authorizer.',
        );
      }
      if (!request.actorRequestBound) {
        throw new SignetError(
          'request_not_bound',
          "The registry takes only requests whose signature covers their method and path (@method and @target-uri, or @authority, @path and @query): this signature says who sent the request, not what it asked for. Sign registry requests with those components (signet sign does).",
        );
      }
      route = matchRoute(request.method, request.apiPath);
      checkBodySize(request.body.length);
      checkSignedBody(event);
      const response = await service.handle(route, request);
      const created = (response.body as { clientId?: unknown }).clientId;
      const fields = logFields(request, route, response.status, 'ok', startedMs);
      logger.info('registry request', route.clientId === undefined && typeof created === 'string' ? { ...fields, clientId: created } : fields);
      return {
        statusCode: response.status,
        headers: { ...BASE_HEADERS, ...cacheTtlHeaders, ...response.headers },
        body: JSON.stringify(response.body),
      };
    } catch (thrown) {
      const error = isSignetError(thrown)
        ? inRegistryWords(thrown)
        : new SignetError('internal_error', 'The registry failed unexpectedly. The error has been logged; retry, and report it if it persists.', { cause: thrown });
      const fields = logFields(request, route, error.status, error.code, startedMs);
      if (error.status >= 500) logger.error('registry request failed', { ...fields, cause: describeCause(error.cause) });
      else logger.warn('registry request refused', fields);
      const requestId = request?.requestId ?? event.requestContext?.requestId ?? context?.awsRequestId ?? '';
      return {
        statusCode: error.status,
        headers: { ...BASE_HEADERS, ...(error instanceof SearchBudgetExceededError ? { 'retry-after': String(error.retryAfterS) } : {}) },
        body: JSON.stringify({ error: error.code, message: error.message, ...(error instanceof RoleNotAllowedError ? { allowedRoles: error.allowedRoles } : {}), requestId }),
      };
    }
  };
}

function logFields(
  request: RegistryRequest | undefined,
  route: MatchedRoute | undefined,
  status: number,
  outcome: string,
  startedMs: number,
): Record<string, string | number> {
  return {
    route: route?.template ?? `${request?.method ?? '?'} (no route)`,
    ...(route?.clientId !== undefined ? { clientId: route.clientId.slice(0, 64) } : {}),
    ...(route?.fingerprint !== undefined ? { fingerprint: route.fingerprint.slice(0, 64) } : {}),
    ...(route?.accountId !== undefined ? { accountId: route.accountId.slice(0, 64) } : {}),
    ...(request?.actor !== undefined ? { actor: request.actor.slice(0, 64) } : {}),
    ...(request?.actorAccountId !== undefined ? { actorAccountId: request.actorAccountId.slice(0, 64) } : {}),
    status,
    outcome,
    latencyMs: Math.round((performance.now() - startedMs) * 10) / 10,
    requestId: request?.requestId ?? '',
  };
}

/** The name and message of an unexpected error's cause (SDK and programming errors; never a body). */
function describeCause(cause: unknown): { name: string; message: string } | undefined {
  if (!(cause instanceof Error)) return undefined;
  return { name: cause.name, message: cause.message.slice(0, 300) };
}
