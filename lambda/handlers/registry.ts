/**
 * The registry Lambda: every `/registry/...` route (docs/openapi/registry.json), behind the
 * Signet authorizer with the `registry:admin` role. Accepts HTTP API (payload 2.0) and REST (v1)
 * proxy events. The configuration comes from the environment once per cold start;
 * lambda/registry/create-registry.ts builds the store, roles and handler from it.
 */
import { loadConfig } from '../config';
import { createRegistry } from '../registry/create-registry';
import { assertRuntimeSdk } from '../runtime-sdk';
import { flushingMetrics, powertoolsFor } from './entry';

assertRuntimeSdk(); // the runtime's SDK, not the pinned one: stop at init if it lacks what the code relies on

const powertools = powertoolsFor('registry');

export const handler = flushingMetrics(powertools.metrics, createRegistry(loadConfig(), powertools));
