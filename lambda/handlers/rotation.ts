/**
 * The rotation Lambda: Secrets Manager invokes it for the four steps of a rotation, and
 * CloudFormation as the custom resource that checks its client is registered before the first
 * rotation runs. The configuration comes from the environment once per cold start;
 * lambda/rotation/create-rotation-function.ts builds the clients, store and steps from it.
 */
import { loadConfig } from '../config';
import { createRotationFunction } from '../rotation/create-rotation-function';
import { assertRuntimeSdk } from '../runtime-sdk';
import { flushingMetrics, powertoolsFor } from './entry';

assertRuntimeSdk(); // the runtime's SDK, not the pinned one: stop at init if it lacks what the code relies on

const powertools = powertoolsFor('rotation');

export const handler = flushingMetrics(powertools.metrics, createRotationFunction(loadConfig(), powertools));
