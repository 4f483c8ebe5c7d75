/**
 * Signed requests for the benchmarks, and the HTTP API (payload 2.0) authorizer events API
 * Gateway would build for them. Events come from the local gateway's own builder
 * (local/http-api-event.ts), which turns a Node request into what HTTP API delivers.
 */
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import type { KeyObject } from 'node:crypto';
import { signRequest } from '../lambda/core/sign';
import { authorizerEventOf, httpApiProxyEvent } from '../local/http-api-event';

/** The host the benchmark requests are signed for. */
export const BENCH_HOST = 'api.bench.example';

export interface BenchCall {
  readonly method: string;
  /** Path and query, e.g. `/api/echo?n=1`. */
  readonly pathAndQuery: string;
  readonly body?: string;
  readonly keyId: string;
  readonly privateKey: KeyObject;
  /** Unix seconds. */
  readonly created: number;
  /** The caller's address. @default 203.0.113.10 */
  readonly sourceIp?: string;
}

/** The headers a client sends for `call` (signature headers, host, and content headers for a body). */
export function signedHeaders(call: BenchCall, host = BENCH_HOST): Record<string, string> {
  const { headers } = signRequest({
    method: call.method,
    url: `https://${host}${call.pathAndQuery}`,
    body: call.body,
    keyId: call.keyId,
    privateKey: call.privateKey,
    created: call.created,
  });
  const out: Record<string, string> = { host, 'user-agent': 'signet-bench/1', 'x-forwarded-proto': 'https', ...headers };
  if (call.body !== undefined) {
    out['content-type'] = 'application/json';
    out['content-length'] = String(Buffer.byteLength(call.body));
  }
  return out;
}

/** The HTTP API authorizer event for `call` (no body: API Gateway never gives it to the authorizer). */
export function signedAuthorizerEvent(call: BenchCall): APIGatewayRequestAuthorizerEventV2 {
  const headers = signedHeaders(call);
  const rawHeaders = Object.entries(headers).flat();
  const proxy = httpApiProxyEvent(
    { method: call.method, url: call.pathAndQuery, rawHeaders, socket: { remoteAddress: call.sourceIp ?? '203.0.113.10' } },
    Buffer.from(call.body ?? ''),
    { requestId: 'bench', nowMs: call.created * 1000, apiId: 'bench' },
  );
  return authorizerEventOf(proxy);
}
