/**
 * Serving the portal's files (lambda/portal/static-site.ts) and the Lambda adapter
 * (lambda/portal/portal-handler.ts, `createPortal`) on realistic HTTP API 2.0 and REST v1 events: the index,
 * the modules with their content types, the CSP on every answer, the relative redirect that keeps
 * a stage, 304 on a matching ETag, HEAD, 405 and 404 (each logged with its method and path).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { createPortal } from '../../lambda/portal/portal-handler';
import { SERVICE_NAMES } from '../../lambda/observability';
import { PORTAL_CSP, PORTAL_SCRIPT_FILE, loadPortalAssets, portalPathOf, servePortal } from '../../lambda/portal/static-site';
import { buildPortalScript } from '../../lib/portal-bundle';
import { PORTAL_DIR } from './portal-modules';

const assets = loadPortalAssets(PORTAL_DIR, { [PORTAL_SCRIPT_FILE]: buildPortalScript() });
const logger = new Logger({ serviceName: SERVICE_NAMES.portal, logLevel: 'SILENT' });
const handler = createPortal(assets, { logger });

function v2(rawPath: string, method = 'GET', headers: Record<string, string> = {}): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: `${method} /portal/{proxy+}`,
    rawPath,
    rawQueryString: '',
    headers: { host: 'abc.execute-api.eu-west-1.amazonaws.com', ...headers },
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc',
      domainName: 'abc.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'abc',
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'test' },
      requestId: 'r',
      routeKey: `${method} /portal/{proxy+}`,
      stage: '$default',
      time: '05/Jan/2026:09:30:00 +0000',
      timeEpoch: 0,
    },
    isBase64Encoded: false,
  };
}

function v1(path: string, method = 'GET', headers: Record<string, string> = {}): APIGatewayProxyEvent {
  return {
    resource: '/portal/{proxy+}',
    path,
    httpMethod: method,
    headers: { Host: 'abc.execute-api.eu-west-1.amazonaws.com', ...headers },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { stage: 'prod', path: `/prod${path}`, httpMethod: method, requestId: 'r' } as APIGatewayProxyEvent['requestContext'],
  };
}

test('loads every page file and module, not package.json', () => {
  expect([...assets.keys()].sort()).toEqual(['index.html', 'portal.css', PORTAL_SCRIPT_FILE]);
  // The page's TypeScript is bundled, never served as it is.
  expect(assets.has('portal.ts')).toBe(false);
});

test.each([
  ['HTTP API', v2('/portal/')],
  ['REST', v1('/portal/')],
])('%s: /portal/ is index.html with the CSP and security headers', async (_api, event) => {
  const res = await handler(event);
  expect(res.statusCode).toBe(200);
  expect(res.body).toBe(readFileSync(join(PORTAL_DIR, 'index.html'), 'utf8'));
  expect(res.headers).toMatchObject({
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': PORTAL_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cache-control': 'no-cache',
  });
  expect(res.isBase64Encoded).toBe(false);
});

test('the CSP allows only the portal itself', () => {
  expect(PORTAL_CSP).toBe("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'");
});

test('modules and the stylesheet get their content types', async () => {
  expect((await handler(v2('/portal/portal.js'))).headers?.['content-type']).toBe('text/javascript; charset=utf-8');
  expect((await handler(v2('/portal/portal.css'))).headers?.['content-type']).toBe('text/css; charset=utf-8');
  expect((await handler(v1('/portal/portal.css'))).body).toBe(readFileSync(join(PORTAL_DIR, 'portal.css'), 'utf8'));
});

test('/portal redirects to portal/index.html (relative: a stage in front is kept)', async () => {
  for (const event of [v2('/portal'), v2('/prod/portal'), v1('/portal')]) {
    const res = await handler(event);
    expect(res.statusCode).toBe(308);
    expect(res.headers?.location).toBe('portal/index.html');
  }
});

test('a matching ETag gets 304 without a body; HEAD gets the headers without a body', async () => {
  const first = await handler(v2('/portal/portal.css'));
  const etag = String(first.headers?.etag);
  expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
  const again = await handler(v2('/portal/portal.css', 'GET', { 'if-none-match': etag }));
  expect([again.statusCode, again.body]).toEqual([304, '']);
  const rest = await handler(v1('/portal/portal.css', 'GET', { 'If-None-Match': `W/"x", ${etag}` }));
  expect(rest.statusCode).toBe(304);
  const head = await handler(v2('/portal/portal.css', 'HEAD'));
  expect([head.statusCode, head.body, head.headers?.etag]).toEqual([200, '', etag]);
  expect((await handler(v2('/portal/portal.css', 'GET', { 'if-none-match': '"other"' }))).statusCode).toBe(200);
});

test('writes are 405 with Allow; unknown files, package.json and traversal are 404; each is logged', async () => {
  const logged = jest.spyOn(logger, 'info');
  const post = await handler(v2('/portal/', 'POST'));
  expect(logged).toHaveBeenLastCalledWith('portal: no file served', { status: 405, method: 'POST', path: '/portal/' });
  expect([post.statusCode, post.headers?.allow]).toEqual([405, 'GET, HEAD']);
  for (const path of ['/portal/nope.js', '/portal/package.json', '/portal/../lambda/config.ts', '/portal/sub/portal.js', '/portal/%2e%2e/x']) {
    const res = await handler(v2(path));
    expect([path, res.statusCode]).toEqual([path, 404]);
    expect(res.headers?.['content-security-policy']).toBe(PORTAL_CSP);
  }
  expect(logged.mock.calls.map(([, fields]) => (fields as { status: number }).status)).toEqual([405, 404, 404, 404, 404, 404]);
  logged.mockRestore();
});

test('portalPathOf finds the mount point after a stage, and nothing else', () => {
  expect(portalPathOf('/portal')).toBe('/portal');
  expect(portalPathOf('/prod/portal/portal.css')).toBe('/portal/portal.css');
  expect(portalPathOf('/portalx')).toBeUndefined();
  expect(portalPathOf('/api/echo')).toBeUndefined();
  expect(servePortal({ method: 'get', path: '/portal/' }, assets).status).toBe(200);
});

test('a folder without index.html or the core bundle is a packaging mistake, said plainly', () => {
  expect(() => loadPortalAssets(join(PORTAL_DIR, '..', 'docs'))).toThrow(/has no index\.html; the portal files were not packaged/);
  expect(() => loadPortalAssets(PORTAL_DIR)).toThrow(`The client portal folder ${PORTAL_DIR} has no ${PORTAL_SCRIPT_FILE}; the portal files were not packaged.`);
});
