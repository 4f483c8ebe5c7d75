/**
 * The client portal Lambda: serves portal/ (index.html, portal.css, the ES modules) on
 * `GET /portal` and `GET /portal/{file}`. The files are copied next to the bundle at synth
 * (lib/client-portal.ts) and read once per cold start; lambda/portal/portal-handler.ts builds the
 * handler over them, with the function's Powertools.
 */
import { join } from 'node:path';
import { createPortal } from '../portal/portal-handler';
import { loadPortalAssets } from '../portal/static-site';
import { flushingMetrics, powertoolsFor } from './entry';

const powertools = powertoolsFor('portal');

export const handler = flushingMetrics(powertools.metrics, createPortal(loadPortalAssets(join(__dirname, 'portal')), powertools));
