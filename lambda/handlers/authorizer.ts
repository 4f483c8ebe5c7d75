/**
 * The Signet authorizer Lambda: `httpApiHandler` for HTTP APIs (payload 2.0, simple responses)
 * and `restApiHandler` for REST APIs (REQUEST authorizer, IAM policy). The configuration comes
 * from the environment once per cold start; lambda/authorizer/create-authorizer.ts builds the
 * handlers from it, as the local gateway and the tests do with theirs.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { createAuthorizer } from '../authorizer/create-authorizer';
import { loadConfig } from '../config';
import { METRICS_NAMESPACE, SERVICE_NAMES } from '../observability';
import { assertRuntimeSdk } from '../runtime-sdk';

assertRuntimeSdk(); // the runtime's SDK, not the pinned one: stop at init if it lacks what the code relies on

const logger = new Logger({ serviceName: SERVICE_NAMES.authorizer });
// Metrics' own warnings go through the logger, so every line the function writes is JSON.
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAMES.authorizer, logger });

export const { httpApiHandler, restApiHandler } = createAuthorizer(loadConfig(), { logger, metrics });
