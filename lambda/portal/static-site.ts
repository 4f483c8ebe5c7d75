/**
 * Serving the client portal's static files (portal/): one answer for the deployed portal Lambda
 * (lambda/handlers/portal.ts) and the local gateway (local/portal-assets.ts).
 *
 * - `GET /portal` redirects to `portal/index.html` (relative, so a REST stage or base path is
 *   kept; and a URL with a file name matches `/portal/{proxy+}` on every API type);
 *   `GET /portal/` is index.html too; `GET /portal/<file>` serves a file of the portal folder;
 *   HEAD is GET without the body; other methods get 405; anything else under /portal is 404.
 * - Every answer carries a strict Content-Security-Policy: scripts and styles only from the
 *   portal itself (no inline code, no third party), network calls only to the same origin (the
 *   registry), no framing. The page holds an admin's signing key, so nothing else may run there.
 * - Files are read once, with an ETag; `Cache-Control: no-cache` makes browsers revalidate, so a
 *   deploy is seen at once (the files are a few tens of KB).
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { extname, join } from 'node:path';

/** The path the portal is served under (after any stage or base path). */
export const PORTAL_PATH = '/portal';

/** Content types of the files served; other files of the folder (package.json) are not served. */
export const PORTAL_CONTENT_TYPES: Readonly<Record<string, string>> = Object.freeze({
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
});

/** The portal's Content-Security-Policy: its own scripts and styles, calls to its own origin only. */
export const PORTAL_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** Headers on every portal answer. */
export const PORTAL_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': PORTAL_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
});

/** One file, read once. */
export interface PortalAsset {
  readonly body: Buffer;
  readonly contentType: string;
  readonly etag: string;
}

/** File name (e.g. `portal.js`) → file. */
export type PortalAssets = ReadonlyMap<string, PortalAsset>;

/** The page's script: portal/*.ts and the core it uses, bundled (lib/portal-bundle.ts), never a file in the repository. */
export const PORTAL_SCRIPT_FILE = 'portal.js';

/**
 * Reads every servable file of the portal folder, plus `built` files made at start (the local
 * gateway builds portal.js; the deployed portal finds it in its folder).
 * @throws Error when the folder is missing, or has no index.html or portal.js (a packaging mistake)
 */
export function loadPortalAssets(dir: string, built: Readonly<Record<string, string>> = {}): PortalAssets {
  const bodies = new Map<string, Buffer>();
  for (const name of readdirSync(dir)) if (isServable(name)) bodies.set(name, readFileSync(join(dir, name)));
  for (const [name, text] of Object.entries(built)) if (isServable(name)) bodies.set(name, Buffer.from(text, 'utf8'));
  const assets = new Map<string, PortalAsset>();
  for (const name of [...bodies.keys()].sort()) {
    const body = bodies.get(name) as Buffer;
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    assets.set(name, { body, contentType: PORTAL_CONTENT_TYPES[extname(name)], etag });
  }
  for (const needed of ['index.html', PORTAL_SCRIPT_FILE]) {
    if (!assets.has(needed)) throw new Error(`The client portal folder ${dir} has no ${needed}; the portal files were not packaged.`);
  }
  return assets;
}

/** A file the portal serves: a known type (.html, .css, .js) and a plain name. */
function isServable(name: string): boolean {
  return PORTAL_CONTENT_TYPES[extname(name)] !== undefined && /^[a-z0-9][a-z0-9.-]*$/.test(name);
}

/** What the portal answers needs from a request. */
export interface PortalRequest {
  readonly method: string;
  /** The request path from the portal's mount point on (`/portal`, `/portal/portal.js`), without the query. */
  readonly path: string;
  readonly ifNoneMatch?: string;
}

/** A portal answer: text bodies only (every file is UTF-8 text). */
export interface PortalReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * The part of `path` from `/portal` on, or undefined when the path is not the portal's.
 * A stage or base path in front (`/prod/portal/...`) is allowed; `/portalx` is not the portal.
 */
export function portalPathOf(path: string): string | undefined {
  const at = path.search(/\/portal(\/|$)/);
  return at === -1 ? undefined : path.slice(at);
}

/** Answers one request for the portal. */
export function servePortal(request: PortalRequest, assets: PortalAssets): PortalReply {
  const method = request.method.toUpperCase();
  const path = request.path;
  if (method !== 'GET' && method !== 'HEAD') {
    return text(405, 'The client portal is static: use GET.', { allow: 'GET, HEAD' });
  }
  if (path === PORTAL_PATH) {
    return { status: 308, headers: { ...PORTAL_SECURITY_HEADERS, location: 'portal/index.html', 'cache-control': 'no-cache' }, body: '' };
  }
  const name = path === `${PORTAL_PATH}/` ? 'index.html' : path.startsWith(`${PORTAL_PATH}/`) ? path.slice(PORTAL_PATH.length + 1) : '';
  const asset = assets.get(name);
  if (asset === undefined) return text(404, 'No such file in the client portal. Open /portal/.');
  const headers = { ...PORTAL_SECURITY_HEADERS, 'content-type': asset.contentType, etag: asset.etag, 'cache-control': 'no-cache' };
  if (request.ifNoneMatch !== undefined && request.ifNoneMatch.split(',').some((tag) => tag.trim() === asset.etag || tag.trim() === '*')) {
    return { status: 304, headers, body: '' };
  }
  return { status: 200, headers, body: method === 'HEAD' ? '' : asset.body.toString('utf8') };
}

function text(status: number, message: string, extra: Record<string, string> = {}): PortalReply {
  return { status, headers: { ...PORTAL_SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...extra }, body: message };
}
