/**
 * The Signet authorizer Lambda: `httpApiHandler` for HTTP APIs (payload 2.0, simple responses)
 * and `restApiHandler` for REST APIs (REQUEST authorizer, IAM policy). The configuration comes
 * from the environment once per cold start; lambda/authorizer/create-authorizer.ts builds the
 * handlers from it, as the local gateway and the tests do with theirs.
 */
import { createAuthorizer } from '../authorizer/create-authorizer';
import { loadConfig } from '../config';
import { assertRuntimeSdk } from '../runtime-sdk';
import { flushingMetrics, powertoolsFor } from './entry';

assertRuntimeSdk(); // the runtime's SDK, not the pinned one: stop at init if it lacks what the code relies on

const powertools = powertoolsFor('authorizer');
const authorizer = createAuthorizer(loadConfig(), powertools);

export const httpApiHandler = flushingMetrics(powertools.metrics, authorizer.httpApiHandler);
export const restApiHandler = flushingMetrics(powertools.metrics, authorizer.restApiHandler);
