/**
 * Support for the fault tests: an authorizer runtime built as the handler builds it (same config
 * reader, same store, same directory, real Powertools logger) but with a clock the test moves and
 * an SDK client the test owns, and decisions for freshly signed requests at that clock.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { adaptHttpApiEvent } from '../../lambda/adapters/http-api-event';
import type { Decision } from '../../lambda/authorizer/authorize';
import { AuthorizerRuntime } from '../../lambda/authorizer/runtime';
import { loadConfig } from '../../lambda/config';
import { ENV } from '../../lambda/config-env';
import { toDocumentClient } from '../../lambda/store/dynamodb-client';
import { HTTP_API_HOST, Signer, authorizerEnv, httpApiAuthorizerEvent, sign } from '../authorizer/support';

/** The bounds the fault tests configure (the defaults, spelled out). */
export const TTL_MS = 60_000;
export const STALE_MS = 15 * 60_000;

/** A clock in ms that only the test moves. */
export interface TestClock {
  ms: number;
}

/** The runtime the handler would build for `tableName`, on `client`, at `clock`. */
export function runtimeOn(tableName: string, endpoint: string, client: DynamoDBClient, clock: TestClock): AuthorizerRuntime {
  const config = loadConfig(
    // No failure records and no last-use writes: the tests count the registry's reads.
    authorizerEnv(tableName, endpoint, { [ENV.clientCacheTtlMs]: String(TTL_MS), [ENV.staleIfErrorMs]: String(STALE_MS), [ENV.recordAuthFailures]: 'false', [ENV.lastUsedRecordIntervalMs]: '0' }),
  );
  return new AuthorizerRuntime({
    config,
    doc: toDocumentClient(client),
    logger: new Logger({ serviceName: 'signet-authorizer', logLevel: 'INFO' }),
    nowMs: () => clock.ms,
  });
}

/** A GET to /api/echo signed by `signer` at the clock (optionally under another keyid), decided by `runtime`. */
export async function decideAt(runtime: AuthorizerRuntime, clock: TestClock, signer: Signer, keyId?: string): Promise<Decision> {
  const call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/echo`, created: Math.floor(clock.ms / 1000), keyId };
  const { headers } = sign(call, signer);
  return runtime.decide(adaptHttpApiEvent(httpApiAuthorizerEvent(call, { headers })));
}

/** 'allowed' or the refusal code. */
export function outcome(decision: Decision): string {
  return decision.allowed ? 'allowed' : decision.error.code;
}

/** Parsed JSON log lines (every line the authorizer writes is JSON). */
export function jsonLines(lines: readonly string[]): Record<string, unknown>[] {
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}
