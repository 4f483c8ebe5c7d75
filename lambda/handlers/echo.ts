/**
 * The demo backend Lambda behind `/api/echo`: lambda/backend/echo.ts builds it (it has no
 * configuration), with the function's Powertools.
 */
import { createEcho } from '../backend/echo';
import { flushingMetrics, powertoolsFor } from './entry';

const powertools = powertoolsFor('echo');

export const handler = flushingMetrics(powertools.metrics, createEcho(powertools));
