/**
 * The client portal on `npm start`: `/portal/` is served by the local gateway, from the
 * repository's portal/ folder, with the same answers as the deployed portal Lambda
 * (lambda/portal/static-site.ts). Every other path goes on to the gateway (authorizer, then the
 * registry or echo handler), exactly as before.
 *
 * The page signs its registry calls for the URL it was loaded from, and the local authorizer
 * rebuilds signed URLs from `http://127.0.0.1:<port>`. So the portal opened under another name
 * for the same server (`http://localhost:3000/portal/`) is redirected to that address first;
 * otherwise every signature would fail with signature_mismatch.
 *
 * @example
 * listener = withPortal(createGatewayListener(handlers, { log }), { baseUrl: url, log });
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { type PortalAssets, PORTAL_PATH, PORTAL_SCRIPT_FILE, loadPortalAssets, portalPathOf, servePortal } from '../lambda/portal/static-site';
import { buildPortalScript } from '../lib/portal-bundle';

/** The portal's files in the repository. */
export const PORTAL_DIR = resolve(__dirname, '..', 'portal');

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

export interface LocalPortalOptions {
  /** The gateway's base URL (`http://127.0.0.1:<port>`), the address signatures are checked against. */
  readonly baseUrl: string;
  /** @default PORTAL_DIR */
  readonly dir?: string;
  /** One line per portal request. @default - silent */
  readonly log?: (line: string) => void;
}

/** The portal's URL for a gateway base URL: `http://127.0.0.1:3000/portal/` (npm start's ready message). */
export function portalUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/$/, '')}${PORTAL_PATH}/`;
}

/**
 * A listener that answers `/portal` and `/portal/...` itself and hands everything else to `next`.
 * The files are read, and portal.js built from the page's TypeScript and the core, on the first portal request
 * (restart `npm start` after editing them or the core).
 */
export function withPortal(next: Listener, options: LocalPortalOptions): Listener {
  const log = options.log ?? (() => undefined);
  const canonicalHost = new URL(options.baseUrl).host;
  let assets: PortalAssets | undefined;
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (!path.startsWith(PORTAL_PATH) || portalPathOf(path) !== path) {
      next(req, res);
      return;
    }
    if (req.headers.host !== canonicalHost) {
      res.writeHead(307, { location: `${options.baseUrl.replace(/\/$/, '')}${path}`, 'content-length': '0' }).end();
      log(`${req.method ?? '?'} ${path} 307 (to ${canonicalHost}, the address signatures are checked against)`);
      return;
    }
    try {
      assets ??= loadPortalAssets(options.dir ?? PORTAL_DIR, { [PORTAL_SCRIPT_FILE]: buildPortalScript() });
    } catch (error) {
      // The gateway keeps serving the API; the page says what is wrong, and so does the terminal.
      const message = `The client portal could not be built: ${(error as Error).message}`;
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'content-length': String(Buffer.byteLength(message)) });
      res.end(message);
      req.resume();
      log(`${req.method ?? '?'} ${path} 500 ${message}`);
      return;
    }
    const ifNoneMatch = typeof req.headers['if-none-match'] === 'string' ? req.headers['if-none-match'] : undefined;
    const reply = servePortal({ method: req.method ?? 'GET', path, ifNoneMatch }, assets);
    const body = Buffer.from(reply.body, 'utf8');
    res.writeHead(reply.status, { ...reply.headers, 'content-length': String(body.length) });
    res.end(body);
    req.resume();
    log(`${req.method ?? '?'} ${path} ${reply.status}`);
  };
}
