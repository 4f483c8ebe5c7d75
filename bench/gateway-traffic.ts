/**
 * Signed traffic for `npm start`'s local gateway, signed beforehand, each request with the answer
 * it must get: valid calls to the echo backend and a catalogue of refusals, mixed by
 * {@link mixedTraffic}. The throughput benchmark (./gateway-throughput.ts) cycles a pool of it
 * under autocannon; the load test (test/load/mixed-traffic.test.ts) sends a few thousand once at a
 * fixed concurrency. Both send the same mix and check every answer with {@link answerProblem}.
 */
import { randomBytes, type KeyObject } from 'node:crypto';
import { signRequest } from '../lambda/core/sign';

/** A client that signs: its clientId (the keyid) and private key; a local/client-dir ClientDir fits. */
export interface TrafficSigner {
  readonly clientId: string;
  readonly key: { readonly key: KeyObject };
}

/** Where the traffic goes, when it is signed, and by whom. */
export interface TrafficSetup {
  /** The gateway's base URL, e.g. http://127.0.0.1:3000 (every request is signed for it). */
  readonly baseUrl: string;
  /** Unix seconds, the `created` of every valid request. */
  readonly created: number;
  /** The demo client (role `demo`, any address). */
  readonly demo: TrafficSigner;
  /** A client whose whitelist excludes 127.0.0.1; only the `IP not in the whitelist` refusal needs it. */
  readonly restricted?: TrafficSigner;
  /** A disabled client; only the `disabled client` refusal needs it. */
  readonly disabled?: TrafficSigner;
}

/** One request to send and the answer it must get. */
export interface PlannedRequest {
  readonly kind: string;
  readonly method: string;
  /** Path and query, sent to the setup's base URL. */
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly status: number;
  /** The refusal code expected (`x-signet-error`, or the backend's `error`); null for a 200 echo or a 404 without one. */
  readonly code: string | null;
  /** The `i` query value that makes the request unique and that a 200 echo must carry. */
  readonly tag: string;
  /** For a 200: the client the echo must name. */
  readonly clientId?: string;
}

/** The refusals, each named as reports count it. */
export const REFUSAL_KINDS = [
  'bad signature',
  'unknown client',
  'stale created',
  'created in the future',
  'tampered body',
  'body without digest',
  'role forbidden',
  'IP not in the whitelist',
  'disabled client',
  'no signature',
  'malformed Signature-Input',
  'alg hmac-sha256',
  'signed for another URL',
  'no such route',
] as const;

export type RefusalKind = (typeof REFUSAL_KINDS)[number];

/** The refusals a setup can make: those that need a restricted or a disabled client only when it has one. */
export function refusalsFor(setup: TrafficSetup): RefusalKind[] {
  return REFUSAL_KINDS.filter((kind) => (kind !== 'IP not in the whitelist' || setup.restricted !== undefined) && (kind !== 'disabled client' || setup.disabled !== undefined));
}

/**
 * The mixed traffic both the load test and the throughput benchmark send: `size` distinct
 * requests, 3 in 5 valid (GET and POST in turn), the others cycling through every refusal the
 * setup can make ({@link refusalsFor}).
 */
export function mixedTraffic(setup: TrafficSetup, size: number): PlannedRequest[] {
  const refusals = refusalsFor(setup);
  let refused = 0;
  return Array.from({ length: size }, (_, i) => (i % 5 < 3 ? validRequest(setup, i) : refusedRequest(setup, refusals[refused++ % refusals.length], i)));
}

function signedHeaders(setup: TrafficSetup, signer: TrafficSigner, method: string, path: string, body: string | undefined, created = setup.created, keyId = signer.clientId): Record<string, string> {
  const { headers } = signRequest({ method, url: `${setup.baseUrl}${path}`, body, keyId, privateKey: signer.key.key, created });
  return { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) };
}

function echoPath(i: number): string {
  return `/api/echo?i=r${i}`;
}

/** The demo client's `i`-th valid call: a GET with a query for even `i`, a POST with a JSON body for odd. */
export function validRequest(setup: TrafficSetup, i: number): PlannedRequest {
  const tag = `r${i}`;
  const expected = { status: 200, code: null, tag, clientId: setup.demo.clientId };
  if (i % 2 === 0) {
    const path = `${echoPath(i)}&q=a%20b`;
    return { kind: 'valid GET', method: 'GET', path, headers: signedHeaders(setup, setup.demo, 'GET', path, undefined), ...expected };
  }
  const path = echoPath(i);
  const body = JSON.stringify({ order: i, amount: (i * 37) % 1000, currency: 'EUR' });
  return { kind: 'valid POST', method: 'POST', path, body, headers: signedHeaders(setup, setup.demo, 'POST', path, body), ...expected };
}

/** The `i`-th request (its tag `r<i>`) refused as `kind` says. */
export function refusedRequest(setup: TrafficSetup, kind: RefusalKind, i: number): PlannedRequest {
  const tag = `r${i}`;
  const path = echoPath(i);
  const get = (headers: Record<string, string>, status: number, code: string | null, sentPath = path): PlannedRequest => ({ kind, method: 'GET', path: sentPath, headers, status, code, tag });
  const demoGet = (signedPath = path, created = setup.created, keyId?: string) => signedHeaders(setup, setup.demo, 'GET', signedPath, undefined, created, keyId);
  const body = JSON.stringify({ order: i, amount: 100 });
  switch (kind) {
    case 'bad signature': {
      const headers = demoGet();
      const bytes = Buffer.from(headers.signature.slice('sig=:'.length, -1), 'base64');
      bytes[i % bytes.length] ^= 0x80;
      return get({ ...headers, signature: `sig=:${bytes.toString('base64')}:` }, 401, 'signature_mismatch');
    }
    case 'unknown client':
      return get(demoGet(path, setup.created, `c_${randomBytes(16).toString('base64url')}`), 401, 'unknown_client');
    case 'stale created':
      return get(demoGet(path, setup.created - 3_600), 401, 'expired');
    case 'created in the future':
      return get(demoGet(path, setup.created + 3_600), 401, 'clock_skew');
    case 'tampered body':
      return { kind, method: 'POST', path, body: body.replace('100', '999'), headers: signedHeaders(setup, setup.demo, 'POST', path, body), status: 400, code: 'digest_mismatch', tag };
    case 'body without digest':
      // Validly signed over method, target URI and date, as for no body; then sent with one.
      return { kind, method: 'POST', path, body, headers: { ...signedHeaders(setup, setup.demo, 'POST', path, undefined), 'content-type': 'application/json' }, status: 401, code: 'digest_required', tag };
    case 'role forbidden': {
      const registryPath = `/registry/clients?i=${tag}`;
      return get(demoGet(registryPath), 403, 'role_forbidden', registryPath);
    }
    case 'IP not in the whitelist':
      return get(signedHeaders(setup, needed(setup.restricted, kind), 'GET', path, undefined), 403, 'ip_not_allowed');
    case 'disabled client':
      return get(signedHeaders(setup, needed(setup.disabled, kind), 'GET', path, undefined), 401, 'client_disabled');
    case 'no signature':
      return get({ date: demoGet().date }, 401, 'missing_signature');
    case 'malformed Signature-Input': {
      const headers = demoGet();
      return get({ ...headers, 'signature-input': headers['signature-input'].replace(';created=', ';;created=') }, 401, 'malformed_signature_input');
    }
    case 'alg hmac-sha256': {
      const headers = demoGet();
      return get({ ...headers, 'signature-input': headers['signature-input'].replace('rsa-v1_5-sha256', 'hmac-sha256') }, 401, 'unsupported_algorithm');
    }
    case 'signed for another URL':
      return get(demoGet(`${path}&amount=1`), 401, 'signature_mismatch', `${path}&amount=1000`);
    case 'no such route': {
      const missing = `/api/nothing-here?i=${tag}`;
      return get(demoGet(missing), 404, null, missing);
    }
  }
}

function needed(signer: TrafficSigner | undefined, kind: RefusalKind): TrafficSigner {
  if (signer === undefined) throw new Error(`The "${kind}" refusal needs its client in the traffic setup.`);
  return signer;
}

/**
 * What is wrong with the answer to `planned`, or undefined when it is the one expected: the status;
 * for a 200, the echo of this very request for its client; for a refusal, its code, from the
 * `x-signet-error` header or else the backend's `error` field.
 */
export function answerProblem(planned: PlannedRequest, status: number, body: string, signetError: string | undefined): string | undefined {
  const what = `${planned.kind} ${planned.tag}`;
  if (status !== planned.status) return `${what}: status ${status}, expected ${planned.status} (${body.slice(0, 200)})`;
  if (status === 200) {
    const echo = jsonOf(body) as { query?: string; authorizer?: { clientId?: string } } | undefined;
    if (echo === undefined) return `${what}: the 200 body is not JSON`;
    if (!echo.query?.split('&').includes(`i=${planned.tag}`)) return `${what}: the echo is of another request`;
    if (echo.authorizer?.clientId !== planned.clientId) return `${what}: the echo names client ${echo.authorizer?.clientId}`;
    return undefined;
  }
  if (planned.code === null) return undefined;
  const code = signetError ?? (jsonOf(body) as { error?: string } | undefined)?.error;
  return code === planned.code ? undefined : `${what}: code ${String(code)}, expected ${planned.code}`;
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
