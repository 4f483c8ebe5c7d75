/**
 * The gateway's routing and its mapping of handler results to HTTP, over a real HTTP server.
 * The handlers here are small stand-ins that answer as the real ones do (the real ones, on
 * DynamoDB Local, are exercised in local-gateway.e2e.test.ts).
 */
import { AddressInfo } from 'node:net';
import { Server, createServer, request } from 'node:http';
import { AuthorizerFailure, httpApiDenyResponse } from '../../lambda/adapters/authorizer-response';
import { GatewayHandlers, MAX_LOCAL_BODY_BYTES, createGatewayListener, routeOf } from '../../local/gateway';

type Calls = { authorizer: unknown[]; registry: unknown[]; echo: unknown[] };

let server: Server;
let base: string;
let calls: Calls;
let authorize: GatewayHandlers['authorizer'];
let lines: string[];

beforeAll(async () => {
  const handlers: GatewayHandlers = {
    authorizer: (event) => {
      calls.authorizer.push(event);
      return authorize(event);
    },
    registry: async (event) => {
      calls.registry.push(event);
      return { statusCode: 201, headers: { ETag: '"1"', 'content-type': 'application/json' }, body: '{"ok":true}' };
    },
    echo: async (event) => {
      calls.echo.push(event);
      if (event.rawQueryString === 'boom') throw new Error('backend bug');
      if (event.rawQueryString === 'plain') return { plain: 'object' };
      if (event.rawQueryString === 'swapped') return { statusCode: 400, headers: { 'content-type': 'application/json' }, body: '{"error":"digest_mismatch","message":"The body is not the one signed."}' };
      if (event.rawQueryString === 'odd') return { statusCode: 409, body: '{"error":"Not A Code\\n"}' };
      return { statusCode: 200, headers: { 'content-type': 'application/octet-stream' }, cookies: ['a=1', 'b=2'], body: Buffer.from([0, 255]).toString('base64'), isBase64Encoded: true };
    },
  };
  server = createServer(createGatewayListener(handlers, { log: (line) => lines.push(line) }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  calls = { authorizer: [], registry: [], echo: [] };
  lines = [];
  authorize = async () => ({ isAuthorized: true, context: { clientId: 'c_x', roles: 'demo', keyFingerprint: 'f', contentDigest: '' } });
});

test.each([
  ['/registry', 'registry'],
  ['/registry/clients/c_1/keys', 'registry'],
  ['/api/echo', 'echo'],
  ['/api/echo/more', undefined],
  ['/registryx', undefined],
  ['/', undefined],
])('routeOf(%s) is %s', (path, route) => {
  expect(routeOf(path)).toBe(route);
});

test('an unknown route is 404 and never reaches the authorizer', async () => {
  const res = await fetch(`${base}/elsewhere`);
  expect(res.status).toBe(404);
  expect(await res.json()).toEqual({ message: 'Not Found' });
  expect(calls.authorizer).toHaveLength(0);
});

test('an Allow runs the backend with the context; its status, headers and cookies are answered', async () => {
  const res = await fetch(`${base}/api/echo?x=1`);
  expect(res.status).toBe(200);
  expect(Buffer.from(await res.arrayBuffer())).toEqual(Buffer.from([0, 255]));
  expect(res.headers.get('set-cookie')).toBe('a=1, b=2');
  expect(res.headers.get('apigw-requestid')).toMatch(/\S+/);
  expect((calls.echo[0] as { requestContext: { authorizer: { lambda: unknown } } }).requestContext.authorizer.lambda).toMatchObject({ clientId: 'c_x' });
  expect((calls.authorizer[0] as { body?: unknown }).body).toBeUndefined();
  expect(lines[0]).toMatch(/^GET \/api\/echo 200 \d+ms$/);
});

test('registry paths go to the registry handler', async () => {
  const res = await fetch(`${base}/registry/clients`, { method: 'POST', body: '{}' });
  expect(res.status).toBe(201);
  expect(res.headers.get('etag')).toBe('"1"');
  expect(calls.registry).toHaveLength(1);
  expect(calls.echo).toHaveLength(0);
});

test("a backend's refusal names its code in the access line (what the client was told), and only a code", async () => {
  expect((await fetch(`${base}/api/echo?swapped`)).status).toBe(400);
  expect((await fetch(`${base}/api/echo?odd`)).status).toBe(409);
  expect(lines).toEqual([expect.stringMatching(/^GET \/api\/echo 400 digest_mismatch \d+ms$/), expect.stringMatching(/^GET \/api\/echo 409 \d+ms$/)]);
});

test('a result without statusCode is a JSON 200, as HTTP API treats it', async () => {
  const res = await fetch(`${base}/api/echo?plain`);
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ plain: 'object' });
});

test.each([
  ['signature_mismatch', 401],
  ['expired', 401],
  ['ip_not_allowed', 403],
  ['role_forbidden', 403],
])('a Deny with %s answers %i, {error, message, requestId} and x-signet-error', async (code, status) => {
  authorize = async () => httpApiDenyResponse({ code, message: `Because "${code}".` });
  const res = await fetch(`${base}/api/echo`);
  expect(res.status).toBe(status);
  expect(res.headers.get('x-signet-error')).toBe(code);
  const body = (await res.json()) as Record<string, string>;
  expect(body).toEqual({ error: code, message: `Because '${code}'.`, requestId: res.headers.get('apigw-requestid') });
  expect(calls.echo).toHaveLength(0);
});

test("the authorizer's fail-closed error keeps its 5xx status; any other throw is a 500, and nothing reaches the backend", async () => {
  authorize = async () => {
    throw new AuthorizerFailure('dependency_unavailable');
  };
  const failClosed = await fetch(`${base}/api/echo`);
  expect(failClosed.status).toBe(503);
  expect(failClosed.headers.get('x-signet-error')).toBe('dependency_unavailable');

  authorize = async () => {
    throw new TypeError('bug');
  };
  const crashed = await fetch(`${base}/api/echo`);
  expect(crashed.status).toBe(500);
  expect(((await crashed.json()) as { error: string }).error).toBe('internal_error');
  expect(calls.echo).toHaveLength(0);
  expect(lines.some((line) => line.includes('authorizer failed: TypeError: bug'))).toBe(true);
});

test('a backend that throws answers 500 Internal Server Error, as HTTP API does', async () => {
  const res = await fetch(`${base}/api/echo?boom`);
  expect(res.status).toBe(500);
  expect(await res.json()).toEqual({ message: 'Internal Server Error' });
});

test("a body over HTTP API's payload limit is 413 payload_too_large before the authorizer", async () => {
  const res = await fetch(`${base}/api/echo`, { method: 'POST', body: Buffer.alloc(MAX_LOCAL_BODY_BYTES + 1) });
  expect(res.status).toBe(413);
  expect(res.headers.get('x-signet-error')).toBe('payload_too_large');
  expect(calls.authorizer).toHaveLength(0);
});

test('a signature_mismatch on a request naming another host (localhost) says which URL the gateway rebuilds; other refusals and the right host get no note', async () => {
  const local = createServer();
  await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(local.address() as AddressInfo).port}`;
  local.on('request', createGatewayListener({ authorizer: (event) => authorize(event), registry: async () => ({}), echo: async () => ({}) }, { publicUrl: url }));
  const messageFor = (host: string) =>
    new Promise<string>((resolve, reject) => {
      const req = request(`${url}/api/echo`, { headers: { host } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve((JSON.parse(text) as { message: string }).message));
      });
      req.on('error', reject);
      req.end();
    });
  try {
    authorize = async () => httpApiDenyResponse({ code: 'signature_mismatch', message: 'No key verifies.' });
    const port = new URL(url).port;
    expect(await messageFor(`localhost:${port}`)).toBe(`No key verifies. This local gateway rebuilds every URL on ${url}; the request named host "localhost:${port}": sign ${url}/… instead.`);
    expect(await messageFor(`127.0.0.1:${port}`)).toBe('No key verifies.');
    authorize = async () => httpApiDenyResponse({ code: 'expired', message: 'Too old.' });
    expect(await messageFor(`localhost:${port}`)).toBe('Too old.');
  } finally {
    await new Promise((resolve) => local.close(resolve));
  }
});

test('the access line shows a request target as routed, without its query or the user and password of an absolute-form target', async () => {
  authorize = async () => httpApiDenyResponse({ code: 'expired', message: 'Too old.' });
  const { port } = new URL(base);
  const send = (path: string) =>
    new Promise<void>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end();
    });
  await send(`http://alice:S3CRET@127.0.0.1:${port}/api/echo?token=abc`);
  // A password holding "@" ends at the authority's last "@"; one holding "/" or "?" is not shown at all.
  await send(`http://bob:p@ssW0RD@127.0.0.1:${port}/api/echo`);
  await send(`http://carol:pa/SSWD@127.0.0.1:${port}/api/echo`);
  await send(`http://dave:HUNTER2?rest@127.0.0.1:${port}/api/echo`);
  // An "@" after a "?" may be in a query rather than after a password: not shown either.
  await send(`http://127.0.0.1:${port}?next=a@b.example`);
  // Routed as it came (an absolute-form target is no route here: 404), without its user and password.
  const absolute = lines.filter((line) => line.startsWith('GET http://'));
  expect(absolute).toEqual([
    expect.stringMatching(new RegExp(`^GET http://127\\.0\\.0\\.1:${port}/api/echo 404 `)),
    expect.stringMatching(new RegExp(`^GET http://127\\.0\\.0\\.1:${port}/api/echo 404 `)),
    expect.stringMatching(/^GET http:\/\/\(a target holding "@", not shown\) 404 /),
    expect.stringMatching(/^GET http:\/\/\(a target holding "@", not shown\) 404 /),
    expect.stringMatching(/^GET http:\/\/\(a target holding "@", not shown\) 404 /),
  ]);
  expect(lines.join('\n')).not.toMatch(/S3CRET|alice|token=abc|bob|ssW0RD|carol|SSWD|dave|HUNTER2/);
});
