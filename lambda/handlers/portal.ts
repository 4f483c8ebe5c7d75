/**
 * The client portal Lambda: serves portal/ (index.html, portal.css, the ES modules) on
 * `GET /portal` and `GET /portal/{file}`. The files are copied next to the bundle at synth
 * (lib/client-portal.ts) and read once per cold start.
 */
import { join } from 'node:path';
import { createPortalHandler } from '../portal/portal-handler';
import { loadPortalAssets } from '../portal/static-site';

export const handler = createPortalHandler(loadPortalAssets(join(__dirname, 'portal')));
