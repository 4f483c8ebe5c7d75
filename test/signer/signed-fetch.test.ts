/**
 * signedFetch over real HTTP against a tiny node:http server that verifies with the core
 * `verifyRequest` (and the body with `checkContentDigest`), its registry a map the test edits.
 * The key comes from the Secrets Manager stand-in through the real SDK client.
 */
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { DeleteSecretCommand } from '@aws-sdk/client-secrets-manager';
import { checkContentDigest } from '../../lambda/core/content-digest';
import { SignetError, fail, isSignetError } from '../../lambda/core/errors';
import { PrivateKeyInfo } from '../../lambda/core/keys';
import { SignedRequest } from '../../lambda/core/types';
import { VerificationKey, defaultVerifyPolicy, verifyRequest } from '../../lambda/core/verify';
import { REST_UNAUTHORIZED_ERROR } from '../../lambda/adapters/authorizer-response';
import { UNKNOWN_REASON_ERRORS, signatureFailureReason, signedFetch } from '../../lambda/signer/signed-fetch';
import { KEY_REFRESH_INTERVAL_MS, Signer, createSigner } from '../../lambda/signer/signer';
import { StandInFixture, createKeySecret, putKeySecret, startStandInFixture } from './helpers';
import { nextTestKey } from '../support/test-keys';

const k1 = nextTestKey();
const k2 = nextTestKey();
const k3 = nextTestKey();
const CLIENT = 'c_partner';

/**
 * How the verifier states a refusal: as the local gateway does (its code in a JSON body and in
 * `x-signet-error`), in a JSON body alone (as a backend may answer), a header, a challenge, or not
 * at all; or as a deployed API answers: an HTTP API refuses every signature with 403
 * `{"message":"Forbidden"}`, a REST API every authentication failure with 401 `unauthorized`
 * (its gateway response) and IP or role refusals with 403 and their code.
 */
type RefusalStyle = 'json' | 'json-body-only' | 'x-signet-error' | 'www-authenticate' | 'bare' | 'deployed-http-api' | 'deployed-rest-api';

interface Verifier {
  readonly origin: string;
  /** clientId -> registered keys. */
  readonly registry: Map<string, VerificationKey[]>;
  style: RefusalStyle;
  /** When set, the next `times` verified requests are refused with `code` anyway. */
  force?: { code: SignetError['code']; times: number };
  /** Requests received, with the verdict or refusal code. */
  readonly seen: Array<{ method: string; url: string; outcome: string; body: string }>;
  close(): Promise<void>;
}

const register = (...keys: PrivateKeyInfo[]): VerificationKey[] => keys.map((k) => ({ fingerprint: k.fingerprint, key: k.publicKey }));

async function startVerifier(): Promise<Verifier> {
  const verifier = { registry: new Map<string, VerificationKey[]>(), style: 'json' as RefusalStyle, seen: [] } as unknown as Verifier & { origin: string };
  const server: Server = createServer((req, res) => void handle(verifier, req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (verifier as { origin: string }).origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  verifier.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return verifier;
}

async function handle(verifier: Verifier, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  const signed: SignedRequest = { method: req.method!, targetUri: `http://${req.headers.host}${req.url}`, headers, hasBody: body.length > 0 };
  try {
    const verdict = await verifyRequest(signed, defaultVerifyPolicy(), (keyId) => verifier.registry.get(keyId) ?? fail('unknown_client', 'No client has this keyid.'));
    if (body.length > 0) checkContentDigest(verdict.contentDigest, body);
    if (verifier.force && verifier.force.times > 0) {
      verifier.force.times--;
      fail(verifier.force.code, 'Forced by the test.');
    }
    verifier.seen.push({ method: req.method!, url: req.url!, outcome: `ok:${verdict.fingerprint}`, body: body.toString() });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ fingerprint: verdict.fingerprint, body: body.toString() }));
  } catch (error) {
    if (!isSignetError(error)) throw error;
    verifier.seen.push({ method: req.method!, url: req.url!, outcome: error.code, body: body.toString() });
    const json = JSON.stringify(error.toJSON());
    switch (verifier.style) {
      case 'json':
        res.writeHead(error.status, { 'content-type': 'application/json', 'x-signet-error': error.code }).end(json);
        break;
      case 'json-body-only':
        res.writeHead(error.status, { 'content-type': 'application/json' }).end(json);
        break;
      case 'x-signet-error':
        res.writeHead(error.status, { 'x-signet-error': error.code, 'content-type': 'text/plain' }).end('refused');
        break;
      case 'www-authenticate':
        res.writeHead(error.status, { 'www-authenticate': `Signature error="${error.code}"`, 'content-type': 'text/plain' }).end('refused');
        break;
      case 'bare':
        res.writeHead(error.status, { 'content-type': 'application/json' }).end('{"message":"Unauthorized"}');
        break;
      case 'deployed-http-api':
        res.writeHead(403, { 'content-type': 'application/json' }).end('{"message":"Forbidden"}');
        break;
      case 'deployed-rest-api':
        if (error.status === 401) {
          res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: REST_UNAUTHORIZED_ERROR, message: 'The request signature could not be verified.', requestId: 'r-1' }));
        } else {
          res.writeHead(error.status, { 'content-type': 'application/json' }).end(json);
        }
        break;
    }
  }
}

let fx: StandInFixture;
let verifier: Verifier;
beforeAll(async () => {
  fx = await startStandInFixture();
  verifier = await startVerifier();
});
afterAll(async () => {
  await verifier.close();
  await fx.stop();
});
beforeEach(() => {
  verifier.registry.clear();
  verifier.seen.length = 0;
  verifier.style = 'json';
  verifier.force = undefined;
});

/** A signer on a secret holding k1, with its cache warm and a long max age: only a 401 makes it read again. */
async function warmSigner(nowMs?: () => number): Promise<{ signer: Signer; secretId: string }> {
  const secretId = await createKeySecret(fx.sm, CLIENT, k1);
  const signer = createSigner({ secretId, secretsManager: fx.sm, maxAgeMs: 3_600_000, nowMs });
  await signer.keyFingerprint();
  return { signer, secretId };
}

/**
 * A signer's clock that stands a minute behind and moves only when the test moves it: its
 * signatures stay within the verifier's max age and skew until it has moved by more than 90 s.
 */
function testClock(): { now: () => number; advance: (ms: number) => void } {
  let nowMs = Date.now() - 60_000;
  return { now: () => nowMs, advance: (ms) => (nowMs += ms) };
}

interface TestServer {
  readonly origin: string;
  /** Requests received so far, as `METHOD path`. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** A server on 127.0.0.1 that answers every request with `answer`, after reading its body. */
async function startServer(answer: (res: ServerResponse) => void): Promise<TestServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method!} ${req.url!}`);
    req.resume().on('end', () => answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** What an HTTP API answers for any refusal, and a backend may answer too after acting on a request. */
const answerForbidden = (res: ServerResponse): void => void res.writeHead(403, { 'content-type': 'application/json' }).end('{"message":"Forbidden"}');

describe('signedFetch', () => {
  it('sends a signed GET and a signed POST whose body digest the server checks', async () => {
    const { signer } = await warmSigner();
    verifier.registry.set(CLIENT, register(k1));
    const get = await signedFetch(signer, `${verifier.origin}/api/echo?x=1&y=a%20b#fragment`);
    expect(get.status).toBe(200);
    const post = await signedFetch(signer, `${verifier.origin}/api/echo`, {
      method: 'post',
      headers: { 'content-type': 'application/json', date: 'Thu, 01 Jan 1970 00:00:00 GMT' },
      body: '{"order":1}',
    });
    expect(post.status).toBe(200);
    expect(await post.json()).toEqual({ fingerprint: k1.fingerprint, body: '{"order":1}' });
    const patch = await signedFetch(signer, `${verifier.origin}/api/echo`, { method: 'patch', body: Buffer.from([1, 2, 3]) });
    expect(patch.status).toBe(200);
    // A URL with credentials is refused, as fetch refuses it: they would not be signed.
    await expect(signedFetch(signer, `${verifier.origin.replace('//', '//user:pw@')}/api/echo`)).rejects.toThrow('signedFetch refuses a URL with credentials');
    // A `?` before an empty query is not sent, so it is not signed either.
    expect((await signedFetch(signer, `${verifier.origin}/api/echo?`)).status).toBe(200);
    expect(verifier.seen.map((s) => [s.method, s.url])).toEqual([
      ['GET', '/api/echo?x=1&y=a%20b'],
      ['POST', '/api/echo'],
      ['PATCH', '/api/echo'],
      ['GET', '/api/echo'],
    ]);
  });

  it('does not follow a redirect: the signature and the body go nowhere but the URL signed, and the 307 is the answer', async () => {
    const { signer } = await warmSigner();
    verifier.registry.set(CLIENT, register(k1));
    // Another origin's redirect (an open redirect, say) to a host that would keep what it is sent.
    const redirecting = createServer((_req, res) => res.writeHead(307, { location: `${verifier.origin}/collect` }).end());
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/api/pay`;
      const res = await signedFetch(signer, url, { method: 'POST', body: '{"amount":100}' });
      expect([res.status, res.headers.get('location')]).toEqual([307, `${verifier.origin}/collect`]);
      expect(verifier.seen).toEqual([]);
      // A caller that asks for a redirect to fail gets that.
      await expect(signedFetch(signer, url, { redirect: 'error' })).rejects.toThrow('fetch failed');
      expect(verifier.seen).toEqual([]);
    } finally {
      redirecting.closeAllConnections();
      await new Promise((resolve) => redirecting.close(resolve));
    }
  });

  it('rolls over: a 401 signature_mismatch after a rotation refreshes the key once and the retry succeeds', async () => {
    const { signer, secretId } = await warmSigner();
    await putKeySecret(fx.sm, secretId, CLIENT, k2); // rotation finished: k2 is AWSCURRENT
    verifier.registry.set(CLIENT, register(k2)); // and k1's grace is over
    const gets = fx.gets();
    const res = await signedFetch(signer, `${verifier.origin}/api/echo`, { method: 'POST', body: 'same body twice' });
    expect(res.status).toBe(200);
    expect(verifier.seen.map((s) => s.outcome)).toEqual(['signature_mismatch', `ok:${k2.fingerprint}`]);
    expect(verifier.seen[1]!.body).toBe('same body twice');
    expect(fx.gets() - gets).toBe(1);
    expect(await signer.keyFingerprint()).toBe(k2.fingerprint);
  });

  it.each<RefusalStyle>(['x-signet-error', 'www-authenticate', 'bare'])('reads the reason from %s (bare: none, as API Gateway answers a request it refused itself) and rolls over', async (style) => {
    const { signer, secretId } = await warmSigner();
    await putKeySecret(fx.sm, secretId, CLIENT, k2);
    verifier.registry.set(CLIENT, register(k2));
    verifier.style = style;
    const res = await signedFetch(signer, `${verifier.origin}/api/echo`);
    expect(res.status).toBe(200);
    expect(verifier.seen.map((s) => s.outcome)).toEqual(['signature_mismatch', `ok:${k2.fingerprint}`]);
  });

  it.each<[RefusalStyle, number]>([
    ['deployed-http-api', 403],
    ['deployed-rest-api', 401],
  ])('rolls a GET over once behind a %s, which refuses with %i and no reason', async (style, status) => {
    const clock = testClock();
    const { signer, secretId } = await warmSigner(clock.now);
    await putKeySecret(fx.sm, secretId, CLIENT, k2);
    verifier.registry.set(CLIENT, register(k2));
    verifier.style = style;
    const gets = fx.gets();
    const res = await signedFetch(signer, `${verifier.origin}/api/echo`);
    expect(res.status).toBe(200);
    expect(verifier.seen.map((s) => s.outcome)).toEqual(['signature_mismatch', `ok:${k2.fingerprint}`]);
    expect(fx.gets() - gets).toBe(1);
    // Still refused after the refresh (the next read being due): that refusal is returned, after one read and one resend.
    clock.advance(KEY_REFRESH_INTERVAL_MS);
    await putKeySecret(fx.sm, secretId, CLIENT, k3);
    verifier.registry.set(CLIENT, register(k1));
    verifier.seen.length = 0;
    const refused = await signedFetch(signer, `${verifier.origin}/api/echo`);
    expect(refused.status).toBe(status);
    expect(verifier.seen.map((s) => s.outcome)).toEqual(['signature_mismatch', 'signature_mismatch']);
    expect(fx.gets() - gets).toBe(2);
  });

  it.each<[RefusalStyle, number]>([
    ['deployed-http-api', 403],
    ['deployed-rest-api', 401],
  ])('behind a %s, a POST refused with %i and no reason is sent once, and the next one is signed with the refreshed key', async (style, status) => {
    const { signer, secretId } = await warmSigner();
    await putKeySecret(fx.sm, secretId, CLIENT, k2);
    verifier.registry.set(CLIENT, register(k2));
    verifier.style = style;
    const refused = await signedFetch(signer, `${verifier.origin}/api/echo`, { method: 'POST', body: 'after a rotation' });
    expect(refused.status).toBe(status);
    expect(verifier.seen.map((s) => s.outcome)).toEqual(['signature_mismatch']);
    const next = await signedFetch(signer, `${verifier.origin}/api/echo`, { method: 'POST', body: 'after a rotation' });
    expect(next.status).toBe(200);
    expect(verifier.seen.map((s) => s.outcome)).toEqual(['signature_mismatch', `ok:${k2.fingerprint}`]);
  });

  it('does not send a POST twice when the backend itself answers 403 {"message":"Forbidden"}, but resends a GET so answered after a rotation', async () => {
    const backend = await startServer(answerForbidden);
    try {
      const { signer, secretId } = await warmSigner();
      await putKeySecret(fx.sm, secretId, CLIENT, k2); // a newer key the signer has not read yet
      const post = await signedFetch(signer, `${backend.origin}/api/orders`, { method: 'POST', body: '{"order":1}' });
      expect(post.status).toBe(403);
      expect(backend.requests).toEqual(['POST /api/orders']);
      expect(await signer.keyFingerprint()).toBe(k2.fingerprint);

      const rotated = await warmSigner();
      await putKeySecret(fx.sm, rotated.secretId, CLIENT, k2);
      backend.requests.length = 0;
      expect((await signedFetch(rotated.signer, `${backend.origin}/api/orders`)).status).toBe(403);
      expect(backend.requests).toEqual(['GET /api/orders', 'GET /api/orders']);
    } finally {
      await backend.close();
    }
  });

  it('does not send a POST twice when a 401 names a key reason only in its body (a backend may answer so after acting), but resends a GET', async () => {
    const { signer, secretId } = await warmSigner();
    await putKeySecret(fx.sm, secretId, CLIENT, k2);
    verifier.registry.set(CLIENT, register(k2));
    verifier.style = 'json-body-only';
    const post = await signedFetch(signer, `${verifier.origin}/api/echo`, { method: 'POST', body: 'once only' });
    expect(post.status).toBe(401);
    expect(verifier.seen.map((s) => s.outcome)).toEqual(['signature_mismatch']);
    // The key was still read again, so the caller's own retry is signed with the newer one.
    expect(await signer.keyFingerprint()).toBe(k2.fingerprint);

    const rotated = await warmSigner();
    await putKeySecret(fx.sm, rotated.secretId, CLIENT, k2);
    verifier.seen.length = 0;
    expect((await signedFetch(rotated.signer, `${verifier.origin}/api/echo`)).status).toBe(200);
    expect(verifier.seen.map((s) => s.outcome)).toEqual(['signature_mismatch', `ok:${k2.fingerprint}`]);
  });

  it('resends a PATCH refused without a reason when the caller opts in with resendNonIdempotentOnBareRefusal', async () => {
    const { signer, secretId } = await warmSigner();
    await putKeySecret(fx.sm, secretId, CLIENT, k2);
    verifier.registry.set(CLIENT, register(k2));
    verifier.style = 'deployed-http-api';
    const res = await signedFetch(signer, `${verifier.origin}/api/echo`, { method: 'PATCH', body: 'x', resendNonIdempotentOnBareRefusal: true });
    expect(res.status).toBe(200);
    expect(verifier.seen.map((s) => s.outcome)).toEqual(['signature_mismatch', `ok:${k2.fingerprint}`]);
  });

  it('resends a POST refused with key_expired once, with the refreshed key', async () => {
    const { signer, secretId } = await warmSigner();
    await putKeySecret(fx.sm, secretId, CLIENT, k2);
    verifier.registry.set(CLIENT, register(k1, k2));
    verifier.force = { code: 'key_expired', times: 1 };
    const gets = fx.gets();
    const res = await signedFetch(signer, `${verifier.origin}/api/echo`, { method: 'POST', body: 'once' });
    expect(res.status).toBe(200);
    expect(verifier.seen.map((s) => [s.outcome, s.body])).toEqual([
      ['key_expired', 'once'],
      [`ok:${k2.fingerprint}`, 'once'],
    ]);
    expect(fx.gets() - gets).toBe(1);
  });

  it('reads the key once per refresh interval: a second refusal within it is returned as is, one after it reads again', async () => {
    const backend = await startServer(answerForbidden);
    try {
      const clock = testClock();
      const { signer } = await warmSigner(clock.now);
      const gets = fx.gets();
      expect((await signedFetch(signer, `${backend.origin}/a`)).status).toBe(403);
      clock.advance(KEY_REFRESH_INTERVAL_MS - 1);
      expect((await signedFetch(signer, `${backend.origin}/b`)).status).toBe(403);
      expect(fx.gets() - gets).toBe(1);
      clock.advance(1);
      expect((await signedFetch(signer, `${backend.origin}/c`)).status).toBe(403);
      expect(fx.gets() - gets).toBe(2);
      expect(backend.requests).toEqual(['GET /a', 'GET /b', 'GET /c']);
    } finally {
      await backend.close();
    }
  });

  it('returns a 403 whose JSON body never ends at once, having read little of it, and the connection closes when the caller cancels it', async () => {
    const total = 64 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let written = 0;
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const backend = await startServer((res) => {
      res.on('close', closed);
      res.writeHead(403, { 'content-type': 'application/json' }); // chunked: no Content-Length
      const pump = (): void => {
        while (written < total && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    try {
      const signer = createSigner({ clientId: CLIENT, privateKey: k1.pkcs8Base64 });
      const res = await signedFetch(signer, `${backend.origin}/api/echo`);
      expect(res.status).toBe(403);
      expect(written).toBeLessThan(total / 4);
      await res.body?.cancel();
      await connectionClosed;
      expect(written).toBeLessThan(total / 4);
    } finally {
      await backend.close();
    }
  });

  it('behind a deployed REST API, a 403 naming a role refusal neither refreshes nor resends', async () => {
    const { signer, secretId } = await warmSigner();
    await putKeySecret(fx.sm, secretId, CLIENT, k2);
    verifier.registry.set(CLIENT, register(k1));
    verifier.style = 'deployed-rest-api';
    verifier.force = { code: 'role_forbidden', times: 1 };
    const gets = fx.gets();
    const res = await signedFetch(signer, `${verifier.origin}/api/echo`);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'role_forbidden' });
    expect(verifier.seen).toHaveLength(1);
    expect(fx.gets() - gets).toBe(0);
  });

  it('takes the REST gateway response\'s own code for "reason unknown"', () => {
    expect(UNKNOWN_REASON_ERRORS.has(REST_UNAUTHORIZED_ERROR)).toBe(true);
  });

  it('rolls over on key_expired', async () => {
    const { signer, secretId } = await warmSigner();
    await putKeySecret(fx.sm, secretId, CLIENT, k2);
    verifier.registry.set(CLIENT, register(k1, k2));
    verifier.force = { code: 'key_expired', times: 1 };
    const res = await signedFetch(signer, `${verifier.origin}/api/echo`);
    expect(res.status).toBe(200);
    expect(verifier.seen.map((s) => s.outcome)).toEqual(['key_expired', `ok:${k2.fingerprint}`]);
  });

  it('rolls over to a new clientId on unknown_client', async () => {
    const { signer, secretId } = await warmSigner();
    await putKeySecret(fx.sm, secretId, 'c_new_client', k2);
    verifier.registry.set('c_new_client', register(k2));
    const res = await signedFetch(signer, `${verifier.origin}/api/echo`);
    expect(res.status).toBe(200);
    expect(verifier.seen.map((s) => s.outcome)).toEqual(['unknown_client', `ok:${k2.fingerprint}`]);
  });

  it('retries at most once: a refreshed key that is still refused returns that 401', async () => {
    const { signer, secretId } = await warmSigner();
    await putKeySecret(fx.sm, secretId, CLIENT, k2);
    verifier.registry.set(CLIENT, register(k3)); // neither k1 nor k2
    const gets = fx.gets();
    const res = await signedFetch(signer, `${verifier.origin}/api/echo`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'signature_mismatch' });
    expect(verifier.seen.map((s) => s.outcome)).toEqual(['signature_mismatch', 'signature_mismatch']);
    expect(fx.gets() - gets).toBe(1);
  });

  it('does not resend when the refreshed key is the one that was refused', async () => {
    const { signer } = await warmSigner();
    verifier.registry.set(CLIENT, register(k3));
    const gets = fx.gets();
    const res = await signedFetch(signer, `${verifier.origin}/api/echo`);
    expect(res.status).toBe(401);
    expect(verifier.seen).toHaveLength(1);
    expect(fx.gets() - gets).toBe(1);
  });

  it('neither refreshes nor resends for a refusal a new key cannot fix, or a 403 naming a role refusal', async () => {
    const { signer, secretId } = await warmSigner();
    await putKeySecret(fx.sm, secretId, CLIENT, k2);
    verifier.registry.set(CLIENT, register(k1));
    const gets = fx.gets();
    verifier.force = { code: 'expired', times: 1 };
    expect((await signedFetch(signer, `${verifier.origin}/api/echo`)).status).toBe(401);
    verifier.force = { code: 'role_forbidden', times: 1 };
    expect((await signedFetch(signer, `${verifier.origin}/api/echo`)).status).toBe(403);
    expect(verifier.seen).toHaveLength(2);
    expect(fx.gets() - gets).toBe(0);
  });

  it('returns the 401 when the refresh itself fails', async () => {
    const { signer, secretId } = await warmSigner();
    await fx.sm.send(new DeleteSecretCommand({ SecretId: secretId, ForceDeleteWithoutRecovery: true }));
    verifier.registry.set(CLIENT, register(k2));
    const res = await signedFetch(signer, `${verifier.origin}/api/echo`);
    expect(res.status).toBe(401);
    expect(verifier.seen).toHaveLength(1);
  });

  it('signs with a static key and never resends (refresh cannot change it)', async () => {
    const signer = createSigner({ clientId: CLIENT, privateKey: k1.pkcs8Base64 });
    verifier.registry.set(CLIENT, register(k2));
    expect((await signedFetch(signer, `${verifier.origin}/api/echo`)).status).toBe(401);
    expect(verifier.seen).toHaveLength(1);
  });

  it('refuses a body it cannot digest before sending anything', async () => {
    const { signer } = await warmSigner();
    const init = { method: 'POST', body: new URLSearchParams({ a: '1' }) as unknown as string };
    await expect(signedFetch(signer, `${verifier.origin}/api/echo`, init)).rejects.toThrow(TypeError);
    expect(verifier.seen).toHaveLength(0);
  });
});

describe('signatureFailureReason', () => {
  const res = (status: number, headers: Record<string, string>, body = '') => new Response(body, { status, headers });
  it.each<[string, Response, string | undefined]>([
    ['x-signet-error', res(401, { 'x-signet-error': 'key_expired' }), 'key_expired'],
    ['WWW-Authenticate error=', res(401, { 'www-authenticate': 'Signature realm="api", error="signature_mismatch"' }), 'signature_mismatch'],
    ['JSON error', res(401, { 'content-type': 'application/json' }, '{"error":"unknown_client","message":"x"}'), 'unknown_client'],
    ['JSON without error', res(401, { 'content-type': 'application/json' }, '{"message":"Unauthorized"}'), undefined],
    ['non-JSON body', res(401, { 'content-type': 'text/plain' }, 'error: signature_mismatch'), undefined],
    ['a header that is not a code', res(401, { 'x-signet-error': 'Bad Thing!' }), undefined],
  ])('%s', async (_label, response, expected) => {
    expect(await signatureFailureReason(response)).toBe(expected);
    expect(response.bodyUsed).toBe(false);
  });

  /**
   * A JSON refusal whose body starts with `head`, then sends `chunks` more chunks of 1 KiB, one a
   * read (none: it never ends); notes the bytes sent after `head`, and whether it was cancelled.
   */
  function streamed(head: string, chunks?: number): { response: Response; cancelled: () => boolean; sent: () => number } {
    let cancelled = false;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(new TextEncoder().encode(head)),
      pull: (controller) => {
        if (chunks === undefined) return new Promise(() => undefined);
        if (sent === chunks * 1024) return controller.close();
        sent += 1024;
        controller.enqueue(new Uint8Array(1024).fill(0x61));
      },
      cancel: () => void (cancelled = true),
    });
    return { response: new Response(body, { status: 403, headers: { 'content-type': 'application/json' } }), cancelled: () => cancelled, sent: () => sent };
  }

  it('states no reason for a body longer than 16 KiB without Content-Length, and stops reading it', async () => {
    const refusal = streamed('{"error":"signature_mismatch","padding":"', 4096);
    expect(await signatureFailureReason(refusal.response)).toBeUndefined();
    expect(refusal.sent()).toBeLessThanOrEqual(18 * 1024);
    expect(refusal.cancelled()).toBe(false); // the caller's body is still theirs
    await refusal.response.body?.cancel();
    expect(refusal.cancelled()).toBe(true);
  });

  it('states no reason for a body still arriving after 2 s', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
    try {
      const reason = signatureFailureReason(streamed('{"error":"signature_mismatch"').response);
      const settled = () => Promise.race([reason, new Promise((resolve) => setImmediate(() => resolve('still reading')))]);
      await jest.advanceTimersByTimeAsync(1_999);
      expect(await settled()).toBe('still reading');
      await jest.advanceTimersByTimeAsync(1);
      expect(await settled()).toBeUndefined();
    } finally {
      jest.useRealTimers();
    }
  });
});
