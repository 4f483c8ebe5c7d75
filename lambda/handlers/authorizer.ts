/**
 * The Signet authorizer Lambda: `httpApiHandler` for HTTP APIs (payload 2.0, simple responses)
 * and `restApiHandler` for REST APIs (REQUEST authorizer, IAM policy). Parse the event, decide
 * through the core, shape the answer; everything else lives in lambda/authorizer/.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { APIGatewayRequestAuthorizerEvent, APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { adaptHttpApiEvent } from '../adapters/http-api-event';
import { fromRestApiAuthorizerEvent } from '../adapters/rest-api-event';
import { parsePublicBaseUrl } from '../adapters/target-uri';
import { httpApiAllowResponse, httpApiRefusal, restAllowPolicy, restRefusal } from '../adapters/authorizer-response';
import { AuthorizerRuntime } from '../authorizer/runtime';
import { loadConfig } from '../config';
import { METRICS_NAMESPACE, SERVICE_NAMES } from '../observability';
import { DYNAMODB_REQUEST_TIMEOUT_MS } from '../core/defaults';
import { createDocumentClient } from '../store/dynamodb-client';
import type { Decision } from '../authorizer/authorize';

const logger = new Logger({ serviceName: SERVICE_NAMES.authorizer });
// Metrics' own warnings go through the logger, so every line the function writes is JSON.
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAMES.authorizer, logger });
const config = loadConfig();
// Short timeout and one retry: a slow registry must end in stale-if-error or fail closed, well inside API Gateway's limit.
const doc = createDocumentClient({ endpoint: config.dynamoDbEndpoint, requestTimeoutMs: DYNAMODB_REQUEST_TIMEOUT_MS, maxAttempts: 2 });
const runtime = new AuthorizerRuntime({ config, doc, logger, metrics });
const targetUriOptions = { publicBaseUrl: config.publicBaseUrl };
// A base URL the adapters cannot use (not http(s), with user info) fails the cold start, not every request.
if (config.publicBaseUrl !== undefined) parsePublicBaseUrl(config.publicBaseUrl);

/** Forgets the cached client records (the local gateway calls it after a registry write). */
export function forgetCachedClients(): void {
  runtime.directory.forgetAll();
}

export async function httpApiHandler(event: APIGatewayRequestAuthorizerEventV2) {
  try {
    const decision = await runtime.decideEvent(() => adaptHttpApiEvent(event, targetUriOptions));
    return decision.allowed ? httpApiAllowResponse(allowFacts(decision)) : httpApiRefusal(decision.error);
  } finally {
    metrics.publishStoredMetrics();
  }
}

export async function restApiHandler(event: APIGatewayRequestAuthorizerEvent) {
  try {
    let methodArn = event.methodArn;
    const decision = await runtime.decideEvent(() => {
      const adapted = fromRestApiAuthorizerEvent(event, targetUriOptions);
      methodArn = adapted.methodArn ?? methodArn;
      return adapted;
    });
    return decision.allowed ? restAllowPolicy(methodArn, allowFacts(decision)) : restRefusal(methodArn, decision.error, decision.clientId);
  } finally {
    metrics.publishStoredMetrics();
  }
}

function allowFacts(decision: Extract<Decision, { allowed: true }>) {
  return {
    clientId: decision.clientId,
    roles: decision.roles,
    accountId: decision.accountId,
    keyFingerprint: decision.fingerprint,
    contentDigest: decision.contentDigest,
  };
}
