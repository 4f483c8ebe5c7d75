/**
 * `createAuthorizer(config, dependencies)`: the Signet authorizer's two API Gateway entry points
 * built from a checked configuration and what they talk to, like `createRegistryHandler`. The
 * Lambda entry (lambda/handlers/authorizer.ts) calls it with `loadConfig()` and Powertools, and
 * publishes the metrics it counted after each invocation; the local gateway and the tests call it
 * with their own configuration, in the same process, without setting environment variables or
 * re-loading modules.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type {
  APIGatewayAuthorizerWithContextResult,
  APIGatewayRequestAuthorizerEvent,
  APIGatewayRequestAuthorizerEventV2,
  APIGatewaySimpleAuthorizerWithContextResult,
} from 'aws-lambda';
import type { SignetAllowContext, SignetDenyContext } from '../adapters/authorizer-context';
import { httpApiAllowResponse, httpApiRefusal, restAllowPolicy, restRefusal } from '../adapters/authorizer-response';
import { adaptHttpApiEvent } from '../adapters/http-api-event';
import { fromRestApiAuthorizerEvent } from '../adapters/rest-api-event';
import { parsePublicBaseUrl } from '../adapters/target-uri';
import type { SignetConfig } from '../config';
import { DYNAMODB_REQUEST_TIMEOUT_MS } from '../core/defaults';
import { createDocumentClient } from '../store/dynamodb-client';
import type { Decision } from './authorize';
import { AuthorizerRuntime } from './runtime';

export interface AuthorizerDependencies {
  readonly logger: Logger;
  /**
   * Where the Allowed/Denied/StaleRecordServed counts go: added up in memory and added here at
   * most once a minute, or at once on a refusal. The handlers never publish: the caller does after
   * each invocation (the Lambda entry with `flushingMetrics`, lambda/handlers/entry.ts); none: not counted.
   */
  readonly metrics?: Metrics;
  /**
   * The DynamoDB client. @default one for `config.dynamoDbEndpoint` with a short timeout and one
   * retry: a slow registry must end in stale-if-error or fail closed, well inside API Gateway's limit.
   */
  readonly doc?: DynamoDBDocumentClient;
  /** Clock in ms. @default Date.now */
  readonly nowMs?: () => number;
}

export interface SignetAuthorizer {
  /** HTTP API (payload 2.0, simple responses). */
  httpApiHandler(event: APIGatewayRequestAuthorizerEventV2): Promise<APIGatewaySimpleAuthorizerWithContextResult<SignetAllowContext | SignetDenyContext>>;
  /** REST API (REQUEST authorizer, IAM policy; a 401 throws `Unauthorized`). */
  restApiHandler(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerWithContextResult<SignetAllowContext | SignetDenyContext>>;
  /** Forgets the cached client records (the local gateway calls it after a registry write). */
  forgetCachedClients(): void;
  /** Resolves once the writes a decision started without waiting (the keys' last use) have ended. */
  settled(): Promise<void>;
}

/**
 * @throws Error when `config.publicBaseUrl` cannot be used: a cold start fails, not every request
 */
export function createAuthorizer(config: SignetConfig, dependencies: AuthorizerDependencies): SignetAuthorizer {
  const { logger, metrics } = dependencies;
  if (config.publicBaseUrl !== undefined) parsePublicBaseUrl(config.publicBaseUrl);
  const doc = dependencies.doc ?? createDocumentClient({ endpoint: config.dynamoDbEndpoint, requestTimeoutMs: DYNAMODB_REQUEST_TIMEOUT_MS, maxAttempts: 2 });
  const runtime = new AuthorizerRuntime({ config, doc, logger, metrics, nowMs: dependencies.nowMs });
  const targetUriOptions = { publicBaseUrl: config.publicBaseUrl };

  return {
    // The runtime adds its counts to the metrics when due; the caller publishes them after the invocation.
    async httpApiHandler(event) {
      const decision = await runtime.decideEvent(() => adaptHttpApiEvent(event, targetUriOptions));
      return decision.allowed ? httpApiAllowResponse(allowFacts(decision)) : httpApiRefusal(decision.error);
    },
    async restApiHandler(event) {
      let methodArn = event.methodArn;
      const decision = await runtime.decideEvent(() => {
        const adapted = fromRestApiAuthorizerEvent(event, targetUriOptions);
        methodArn = adapted.methodArn ?? methodArn;
        return adapted;
      });
      return decision.allowed ? restAllowPolicy(methodArn, allowFacts(decision)) : restRefusal(methodArn, decision.error, decision.clientId);
    },
    forgetCachedClients() {
      runtime.directory.forgetAll();
    },
    settled() {
      return runtime.settled();
    },
  };
}

function allowFacts(decision: Extract<Decision, { allowed: true }>) {
  return {
    clientId: decision.clientId,
    roles: decision.roles,
    accountId: decision.accountId,
    keyFingerprint: decision.fingerprint,
    contentDigest: decision.contentDigest,
    profile: decision.profile,
    requestBound: decision.requestBound,
  };
}
