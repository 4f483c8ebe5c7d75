/**
 * The key source refresher Lambda: EventBridge invokes it every `keySourceRefreshMinutes` to fetch
 * the published key sources that are due and write their keys into the clients' records. The
 * configuration comes from the environment once per cold start;
 * lambda/key-sources/create-refresh-key-sources-handler.ts builds the store, fetcher and refresher.
 */
import { loadConfig } from '../config';
import { createRefreshKeySourcesHandler } from '../key-sources/create-refresh-key-sources-handler';
import { assertRuntimeSdk } from '../runtime-sdk';
import { flushingMetrics, powertoolsFor } from './entry';

assertRuntimeSdk(); // the runtime's SDK, not the pinned one: stop at init if it lacks what the code relies on

const powertools = powertoolsFor('keySourceRefresher');

export const handler = flushingMetrics(powertools.metrics, createRefreshKeySourcesHandler(loadConfig(), powertools));
