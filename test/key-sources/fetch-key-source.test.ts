/**
 * Fetching published key sources. Refused addresses are proven refused before any connection
 * (the injected connector is never called); everything else is served by a real HTTP server on
 * 127.0.0.1 (the local gateway's `allowLocalHttp`), or reached through a connector that sends
 * the pinned request there.
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer, request as httpRequest } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jwkThumbprint } from '../../lambda/core/jwk-thumbprint';
import { type Connector, FETCH_REFUSAL_CODES, type FetchKeySourceOptions, type PinnedRequest, type Resolver, connectPinned, fetchKeySource, pinnedConnector } from '../../lambda/key-sources/fetch-key-source';
import { failureStatus } from '../../lambda/key-sources/published-keys';
import { testNeeding } from '../support/prerequisites';

const NOW_S = 1_750_000_000;
const ed = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
const KEY_SET = JSON.stringify({ keys: [{ ...ed, kid: jwkThumbprint(ed), use: 'sig' }] });

let server: Server;
let port: number;
const held: ServerResponse[] = [];
const seen: { host?: string; accept?: string; encoding?: string }[] = [];
let streamed = { bytes: 0, closed: Promise.resolve() };

const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/jwks': (_req, res) => res.writeHead(200, { 'content-type': 'application/jwk-set+json', 'cache-control': 'public, max-age=600' }).end(KEY_SET),
  '/.well-known/http-message-signatures-directory': (_req, res) => res.writeHead(200, { 'content-type': 'application/http-message-signatures-directory+json' }).end(KEY_SET),
  '/short-cache': (_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=1' }).end(KEY_SET),
  '/unavailable': (_req, res) => res.writeHead(503, { 'retry-after': '120' }).end('down for maintenance'),
  '/throttled': (_req, res) => res.writeHead(429, { 'retry-after': new Date((NOW_S + 30) * 1000).toUTCString() }).end(),
  '/missing': (_req, res) => res.writeHead(404).end('not found'),
  '/redirect': (_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
  '/permanent': (_req, res) => res.writeHead(301, { location: 'https://partner.example/new-jwks' }).end(),
  '/html': (_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html>login</html>'),
  '/octet-stream': (_req, res) => res.writeHead(200, { 'content-type': 'binary/octet-stream' }).end(KEY_SET),
  '/not-json': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys": ['),
  '/no-keys': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys": []}'),
  '/gzip': (_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end('\x1f\x8b'),
  // A source writing its own sentence into the header, for the admin's screen.
  '/worded-encoding': (_req, res) => res.writeHead(200, { 'content-encoding': `br. SECURITY NOTICE: your admin key was revoked; download the new one at https://evil.example/${'x'.repeat(2000)}` }).end(),
  '/control-encoding': (_req, res) => res.writeHead(200, { 'content-encoding': 'br\x85\x9b2J' }).end(),
  '/declared-too-large': (_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(1_000_000) }).end(),
  '/slow': (_req, res) => void held.push(res),
  // Answers at once, then holds the thread past the client's deadline (150 ms), as judging another source's keys may.
  '/answered-then-busy': (_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(KEY_SET, () => {
      const until = Date.now() + 300;
      while (Date.now() < until);
    }),
  '/trickle': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).write('{"keys": [');
    held.push(res);
  },
  '/endless': (_req, res) => {
    // Writes 16 KB chunks (up to 64 MB) as fast as the client reads them, counting what left.
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(16_384, 0x20);
    streamed = { bytes: 0, closed: new Promise((resolve) => res.on('close', () => resolve())) };
    const pump = (): void => {
      while (!res.destroyed && streamed.bytes < 64 * 1024 * 1024) {
        streamed.bytes += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ host: req.headers.host, accept: req.headers.accept, encoding: req.headers['accept-encoding'] });
    (routes[req.url ?? ''] ?? ((_q: IncomingMessage, r: ServerResponse) => r.writeHead(500).end()))(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const res of held) res.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const local: FetchKeySourceOptions = { allowLocalHttp: true, nowS: () => NOW_S };
const at = (path: string) => ({ jwksUri: `http://127.0.0.1:${port}${path}` });

/** A connector that must never be called, and says so if it is. */
function forbiddenConnector(): jest.Mock<ReturnType<Connector>, Parameters<Connector>> {
  return jest.fn<ReturnType<Connector>, Parameters<Connector>>(() => {
    throw new Error('the connector was called for a refused address');
  });
}

/** Sends the pinned request to the test server instead of `address` (which is not this machine). */
const toTestServer = jest.fn<ReturnType<Connector>, Parameters<Connector>>(({ url, headers }) =>
  httpRequest({ host: '127.0.0.1', port, path: url.pathname, method: 'GET', headers: { ...headers, host: url.host } }),
);

describe('fetchKeySource: addresses refused without connecting', () => {
  it.each([
    ['private 10/8', '10.0.0.7'],
    ['private 172.16/12', '172.20.1.1'],
    ['private 192.168/16', '192.168.0.10'],
    ['the instance metadata service', '169.254.169.254'],
    ['the ECS task metadata endpoint', '169.254.170.2'],
    ['loopback', '127.0.0.1'],
    ['CGNAT', '100.64.1.1'],
    ['unspecified', '0.0.0.0'],
    ['documentation', '203.0.113.5'],
    ['multicast', '224.0.0.251'],
    ['IPv6 loopback', '::1'],
    ['unique-local', 'fd00:ec2::254'],
    ['IPv6 link-local', 'fe80::1'],
    ['IPv4-mapped metadata', '::ffff:169.254.169.254'],
    ['IPv4-compatible loopback', '::127.0.0.1'],
    ['NAT64 private', '64:ff9b::10.0.0.1'],
  ])('a name resolving to %s (%s) is address_not_public, and nothing connects', async (_name, address) => {
    const connect = forbiddenConnector();
    const resolve: Resolver = async () => [{ address, family: address.includes(':') ? 6 : 4 }];
    const fetched = await fetchKeySource({ jwksUri: 'https://keys.partner.example/jwks' }, { resolve, connect, nowS: () => NOW_S });
    expect(fetched).toMatchObject({ ok: false, code: 'address_not_public', address, message: expect.stringContaining(address) });
    expect(connect).not.toHaveBeenCalled();
  });

  it('refuses a name with one public and one inside address (every address must be public), without connecting', async () => {
    const connect = forbiddenConnector();
    const resolve: Resolver = async () => [{ address: '93.184.216.34', family: 4 }, { address: '10.1.2.3', family: 4 }];
    const fetched = await fetchKeySource({ signatureAgent: 'https://agent.example' }, { resolve, connect, nowS: () => NOW_S });
    expect(fetched).toMatchObject({ ok: false, code: 'address_not_public', address: '10.1.2.3' });
    expect(connect).not.toHaveBeenCalled();
  });

  it('refuses an inside IP literal, an http URL and credentials before resolving anything', async () => {
    const resolve = jest.fn<ReturnType<Resolver>, Parameters<Resolver>>();
    const connect = forbiddenConnector();
    const options = { resolve, connect, nowS: () => NOW_S };
    expect(await fetchKeySource({ jwksUri: 'https://[::ffff:a9fe:a9fe]/latest' }, options)).toMatchObject({ ok: false, code: 'address_not_public' });
    expect(await fetchKeySource({ jwksUri: 'http://keys.partner.example/jwks' }, options)).toMatchObject({ ok: false, code: 'scheme_not_allowed' });
    expect(await fetchKeySource({ jwksUri: `http://127.0.0.1:${port}/jwks` }, options)).toMatchObject({ ok: false, code: 'scheme_not_allowed' });
    expect(await fetchKeySource({ jwksUri: 'https://u:p@keys.partner.example/' }, options)).toMatchObject({ ok: false, code: 'invalid_source_url' });
    expect(resolve).not.toHaveBeenCalled();
    expect(connect).not.toHaveBeenCalled();
  });

  it('a local http://localhost source must resolve to loopback only', async () => {
    const connect = forbiddenConnector();
    const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }, { address: '10.0.0.1', family: 4 }];
    expect(await fetchKeySource({ jwksUri: `http://localhost:${port}/jwks` }, { ...local, resolve, connect })).toMatchObject({ ok: false, code: 'address_not_public', address: '10.0.0.1' });
    expect(connect).not.toHaveBeenCalled();
  });

  it('a name that does not resolve, or resolves to nothing, is resolution_failed', async () => {
    const connect = forbiddenConnector();
    const missing: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect(await fetchKeySource({ jwksUri: 'https://nowhere.example/jwks' }, { resolve: missing, connect, nowS: () => NOW_S })).toMatchObject({ ok: false, code: 'resolution_failed', message: expect.stringContaining('ENOTFOUND') });
    expect(await fetchKeySource({ jwksUri: 'https://nowhere.example/jwks' }, { resolve: async () => [], connect, nowS: () => NOW_S })).toMatchObject({ ok: false, code: 'resolution_failed' });
    expect(connect).not.toHaveBeenCalled();
  });

  it('a resolver that never answers is a timeout, and nothing connects', async () => {
    const connect = forbiddenConnector();
    const fetched = await fetchKeySource({ jwksUri: 'https://keys.partner.example/jwks' }, { resolve: () => new Promise(() => undefined), connect, timeoutMs: 50, nowS: () => NOW_S });
    expect(fetched).toMatchObject({ ok: false, code: 'timeout' });
    expect(connect).not.toHaveBeenCalled();
  });
});

describe('fetchKeySource: the connection goes to the address that was checked', () => {
  it('resolves once and hands the connector the checked public address, the name kept for Host', async () => {
    toTestServer.mockClear();
    const resolve = jest.fn<ReturnType<Resolver>, Parameters<Resolver>>(async () => [{ address: '93.184.216.34', family: 4 }]);
    const fetched = await fetchKeySource({ jwksUri: 'https://keys.partner.example/jwks' }, { resolve, connect: toTestServer, nowS: () => NOW_S });
    expect(fetched).toMatchObject({ ok: true, address: '93.184.216.34', url: 'https://keys.partner.example/jwks', maxAgeS: 600 });
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(toTestServer).toHaveBeenCalledTimes(1);
    expect(toTestServer.mock.calls[0][0]).toMatchObject({ address: '93.184.216.34', family: 4, headers: { 'accept-encoding': 'identity' } });
    expect(toTestServer.mock.calls[0][0].url.hostname).toBe('keys.partner.example');
  });

  it('connectPinned connects to the given address and never resolves the name (a .test name no DNS knows)', async () => {
    seen.length = 0;
    const answer = await new Promise<number>((resolve, reject) => {
      const req = connectPinned({ url: new URL(`http://keys.partner.test:${port}/jwks`), address: '127.0.0.1', family: 4, headers: { accept: 'application/json' } });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(answer).toBe(200);
    expect(seen).toEqual([{ host: `keys.partner.test:${port}`, accept: 'application/json' }]);
  });
});

/** The status a connector's GET gets, or the error code it fails with. */
function statusThrough(connect: Connector, request: PinnedRequest): Promise<number | string> {
  return new Promise((resolve) => {
    const req = connect(request);
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

/** A CA and a certificate for keys.partner.test signed by it, made by OpenSSL for this run. */
function makeCertificates(): { ca: string; cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'signet-tls-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  try {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    openssl('req', '-x509', ...ec, '-keyout', at('ca.key'), '-out', at('ca.crt'), '-subj', '/CN=Signet test CA', '-days', '2', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign');
    openssl('req', ...ec, '-keyout', at('leaf.key'), '-out', at('leaf.csr'), '-subj', '/CN=keys.partner.test');
    writeFileSync(at('leaf.ext'), 'subjectAltName=DNS:keys.partner.test\n');
    openssl('x509', '-req', '-in', at('leaf.csr'), '-CA', at('ca.crt'), '-CAkey', at('ca.key'), '-CAcreateserial', '-out', at('leaf.crt'), '-days', '2', '-extfile', at('leaf.ext'));
    return { ca: readFileSync(at('ca.crt'), 'utf8'), cert: readFileSync(at('leaf.crt'), 'utf8'), key: readFileSync(at('leaf.key'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('pinnedConnector over TLS: connects to the checked address, proves the name', () => {
  testNeeding('openssl')('the certificate is checked against the URL\'s name, not the pinned address', async () => {
    const { ca, cert, key } = makeCertificates();
    const tls = createTlsServer({ cert, key }, (_req, res) => res.writeHead(200).end(KEY_SET));
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    const tlsPort = (tls.address() as AddressInfo).port;
    try {
      const pinned = (host: string): PinnedRequest => ({ url: new URL(`https://${host}:${tlsPort}/jwks`), address: '127.0.0.1', family: 4, headers: {} });
      expect(await statusThrough(pinnedConnector({ ca }), pinned('keys.partner.test'))).toBe(200);
      // Same address, another name: the certificate does not name it.
      expect(await statusThrough(pinnedConnector({ ca }), pinned('other.partner.test'))).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
      // Node's root store does not trust this CA: the default connector refuses the server.
      expect(await statusThrough(connectPinned, pinned('keys.partner.test'))).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    } finally {
      await new Promise((resolve) => tls.close(resolve));
    }
  });
});

describe('fetchKeySource: answers from a real server', () => {
  it('reads a JWKS: its keys, kid and thumbprint, and Cache-Control max-age', async () => {
    const fetched = await fetchKeySource(at('/jwks'), local);
    if (!fetched.ok) throw new Error(`${fetched.code}: ${fetched.message}`);
    expect(fetched).toMatchObject({ address: '127.0.0.1', maxAgeS: 600, refused: [] });
    expect(fetched.keys.map((key) => [key.kid, key.thumbprint, key.algorithm])).toEqual([[jwkThumbprint(ed), jwkThumbprint(ed), 'ed25519']]);
  });

  it('fetches a signature agent at its well-known directory, asking for the directory media type, uncompressed', async () => {
    seen.length = 0;
    const fetched = await fetchKeySource({ signatureAgent: `http://localhost:${port}` }, { ...local, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    expect(fetched).toMatchObject({ ok: true, url: `http://localhost:${port}/.well-known/http-message-signatures-directory` });
    expect(fetched.ok && fetched.maxAgeS).toBeUndefined();
    expect(seen[0].accept).toMatch(/^application\/http-message-signatures-directory\+json/);
    expect(seen[0].encoding).toBe('identity');
  });

  it('reads a key set served with a storage default type (binary/octet-stream) as JSON', async () => {
    expect(await fetchKeySource(at('/octet-stream'), local)).toMatchObject({ ok: true, keys: [expect.objectContaining({ algorithm: 'ed25519' })] });
  });

  it('clamps a max-age below a minute up to 60 s', async () => {
    expect(await fetchKeySource(at('/short-cache'), local)).toMatchObject({ ok: true, maxAgeS: 60 });
  });

  it.each<[string, string, Record<string, unknown>]>([
    ['a 503 with Retry-After seconds', '/unavailable', { code: 'http_error', status: 503, retryAfterS: 120 }],
    ['a 429 with a Retry-After date', '/throttled', { code: 'http_error', status: 429, retryAfterS: 30 }],
    ['a 404', '/missing', { code: 'http_error', status: 404 }],
    ['a redirect to the metadata service', '/redirect', { code: 'redirect_refused', status: 302, message: expect.stringContaining('169.254.169.254') }],
    ['a permanent redirect', '/permanent', { code: 'redirect_refused', status: 301, message: expect.stringContaining('Register the final URL') }],
    ['an HTML page (a login page?)', '/html', { code: 'unexpected_media_type', status: 200, message: expect.stringContaining('HTML page') }],
    ['a compressed body', '/gzip', { code: 'unexpected_media_type', message: expect.stringContaining('with Content-Encoding "gzip" though none was asked for') }],
    ['a Content-Encoding with C1 controls (escaped, never raw)', '/control-encoding', { code: 'unexpected_media_type', message: expect.stringContaining('with Content-Encoding "br\\u0085\\u009b2J" though') }],
    ['a Content-Encoding carrying a sentence of the source (quoted, cut at 20 characters)', '/worded-encoding', { code: 'unexpected_media_type', message: expect.stringMatching(/with Content-Encoding "br\. SECURITY NOTICE:" though none was asked for; serve it uncompressed\.$/) }],
    ['invalid JSON', '/not-json', { code: 'invalid_json', status: 200 }],
    ['a set with no keys', '/no-keys', { code: 'no_usable_key' }],
    ['a declared Content-Length over 64 KB', '/declared-too-large', { code: 'body_too_large', message: expect.stringContaining('1000000') }],
  ])('refuses %s', async (_name, path, expected) => {
    expect(await fetchKeySource(at(path), local)).toMatchObject({ ok: false, url: `http://127.0.0.1:${port}${path}`, message: expect.any(String), ...expected });
  });

  it('stops reading a body as soon as it passes 64 KB (the server sees the connection closed)', async () => {
    const fetched = await fetchKeySource(at('/endless'), local);
    expect(fetched).toMatchObject({ ok: false, code: 'body_too_large' });
    await streamed.closed;
    expect(streamed.bytes).toBeLessThan(16 * 1024 * 1024);
  });

  it('honours a smaller body limit', async () => {
    expect(await fetchKeySource(at('/jwks'), { ...local, maxBodyBytes: 16 })).toMatchObject({ ok: false, code: 'body_too_large' });
  });

  it('gives up at the deadline on a server that never answers, or stops mid-body', async () => {
    expect(await fetchKeySource(at('/slow'), { ...local, timeoutMs: 100 })).toMatchObject({ ok: false, code: 'timeout', message: expect.stringContaining('100 ms') });
    expect(await fetchKeySource(at('/trickle'), { ...local, timeoutMs: 100 })).toMatchObject({ ok: false, code: 'timeout' });
  });

  it('an answer that came while the thread was busy past the deadline is read, not timed out: the deadline is the source\'s, not its neighbours\'', async () => {
    expect(await fetchKeySource(at('/answered-then-busy'), { ...local, timeoutMs: 150 })).toMatchObject({ ok: true, keys: [expect.anything()] });
  });

  it('a port nobody listens on is connection_failed', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await fetchKeySource({ jwksUri: `http://127.0.0.1:${closedPort}/jwks` }, local)).toMatchObject({ ok: false, code: 'connection_failed', message: expect.stringContaining('ECONNREFUSED') });
  });

  it('pins the refusal code list (codes are public: add, never rename)', () => {
    expect(FETCH_REFUSAL_CODES).toEqual([
      'invalid_source_url', 'scheme_not_allowed', 'address_not_public', 'resolution_failed', 'connection_failed', 'timeout', 'redirect_refused',
      'http_error', 'body_too_large', 'unexpected_media_type', 'invalid_json', 'not_a_key_set', 'too_many_keys', 'no_usable_key',
    ]);
  });
});

test("a failed fetch's sentence is kept to 400 characters, cut between code points", () => {
  const message = `${'\u{1f511}'.repeat(399)}xy`;
  const status = failureStatus('c_x', undefined, { code: 'http_error', message }, 'https://keys.partner.example/jwks', 0, 900);
  expect(Array.from(status.lastError?.message ?? '')).toEqual([...Array(399).fill('\u{1f511}'), 'x']);
});
