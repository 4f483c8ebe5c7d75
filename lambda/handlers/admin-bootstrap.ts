/**
 * The admin bootstrap Lambda: the service token of the custom resource that registers the first
 * `registry:admin` client at deploy. The configuration comes from the environment once per cold
 * start; lambda/bootstrap/admin-bootstrap.ts builds the handler from it.
 */
import { createAdminBootstrap } from '../bootstrap/admin-bootstrap';
import { loadConfig } from '../config';
import { assertRuntimeSdk } from '../runtime-sdk';
import { flushingMetrics, powertoolsFor } from './entry';

assertRuntimeSdk(); // the runtime's SDK, not the pinned one: stop at init if it lacks what the code relies on

const powertools = powertoolsFor('adminBootstrap');

export const handler = flushingMetrics(powertools.metrics, createAdminBootstrap(loadConfig(), powertools));
