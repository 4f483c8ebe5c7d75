/**
 * Load: mixed valid and invalid signed traffic through `npm start`'s local gateway (a child
 * process on its own SIGNET_HOME and port), 50 requests in flight at all times, a few thousand
 * distinct requests signed beforehand. Every request knows the answer it must get — status, and
 * the refusal code (`x-signet-error` from the gateway, `error` from the backend's body check) —
 * and every 200 must be the echo of that very request for the right client. Asserted: every one
 * classified correctly. Nothing about time is asserted.
 *
 * Besides the demo client, two clients are registered through the registry API (signed with the
 * admin key) for the refusals that need them: one whose whitelist excludes 127.0.0.1, one
 * disabled.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateRsaKeyPair, spkiPemOf, type PrivateKeyInfo } from '../../lambda/core/keys';
import { formatHttpDate } from '../../lambda/core/http-date';
import { signRequest } from '../../lambda/core/sign';
import { readClientDir } from '../../local/client-dir';
import { GatewayProcess, sendSigned, startGatewayProcess } from '../local/gateway-process';
import { handSign } from '../hostile/hostile-support';

const IN_FLIGHT = 50;
const REQUESTS = 3_000;

/**
 * For the setup requests: close the connection after the answer instead of keeping it in fetch's
 * pool. Signing the plan below keeps this process busy for seconds on a loaded machine; a pooled
 * connection idle that long is closed by the gateway (Node's keepAliveTimeout) while fetch, whose
 * own expiry timer cannot run meanwhile, still holds it, and the first request sent on it fails
 * with "other side closed".
 */
const NO_IDLE_CONNECTION = { connection: 'close' };

let home: string;
let gateway: GatewayProcess;
let demo: { clientId: string; key: PrivateKeyInfo };
let restricted: { clientId: string; key: PrivateKeyInfo };
let disabled: { clientId: string; key: PrivateKeyInfo };

beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-load-'));
  gateway = await startGatewayProcess(home);
  demo = readClientDir(path.join(home, 'demo'));
  const admin = readClientDir(path.join(home, 'admin'));
  const adminSigner = { clientId: admin.clientId, privateKey: admin.key.key };
  const register = async (name: string, networkWhitelist: string[]) => {
    const key = generateRsaKeyPair(2048);
    const res = await sendSigned(adminSigner, `${gateway.url}/registry/clients`, {
      body: JSON.stringify({ name, networkWhitelist, publicKey: spkiPemOf(key.publicKey), roles: ['demo'] }),
      headers: NO_IDLE_CONNECTION,
    });
    expect(res.status).toBe(201);
    return { clientId: res.body.clientId as string, key };
  };
  restricted = await register('Load: elsewhere only', ['203.0.113.0/24']);
  disabled = await register('Load: disabled', ['0.0.0.0']);
  const off = await sendSigned(adminSigner, `${gateway.url}/registry/clients/${disabled.clientId}/disable`, { method: 'POST', headers: NO_IDLE_CONNECTION });
  expect(off.status).toBe(200);
}, 240_000);

afterAll(async () => {
  await gateway?.stop();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

/** One request to send and the answer it must get. */
interface Planned {
  readonly kind: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly status: number;
  /** Refusal code expected; null for a 200 echo (or a 404 with no code). */
  readonly code: string | null;
  /** For a 200: the `i` query value the echo must carry, and the client it must name. */
  readonly tag: string;
  readonly clientId?: string;
}

function signed(signer: { clientId: string; key: PrivateKeyInfo }, method: string, pathAndQuery: string, body: string | undefined, created: number, keyId = signer.clientId): Record<string, string> {
  const { headers } = signRequest({ method, url: `${gateway.url}${pathAndQuery}`, body, keyId, privateKey: signer.key.key, created });
  return { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) };
}

/** The plan: REQUESTS distinct requests, 60% valid, the rest spread over 14 kinds of refusal. */
function plan(): Planned[] {
  const now = Math.floor(Date.now() / 1000);
  const out: Planned[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const tag = `r${i}`;
    const echo = `/api/echo?i=${tag}`;
    const body = JSON.stringify({ i, amount: (i * 31) % 500 });
    const slot = i % 25;
    if (slot < 8) {
      out.push({ kind: 'valid GET', method: 'GET', path: `${echo}&q=a%20b`, headers: signed(demo, 'GET', `${echo}&q=a%20b`, undefined, now), status: 200, code: null, tag, clientId: demo.clientId });
    } else if (slot < 15) {
      out.push({ kind: 'valid POST', method: 'POST', path: echo, body, headers: signed(demo, 'POST', echo, body, now), status: 200, code: null, tag, clientId: demo.clientId });
    } else {
      const refusal = slot - 15; // 0..9, plus four more kinds on odd rounds
      const round = Math.floor(i / 25) % 2;
      out.push(invalid(refusal + (round === 1 && refusal < 4 ? 10 : 0), i, tag, echo, body, now));
    }
  }
  return out;
}

function invalid(kind: number, i: number, tag: string, echo: string, body: string, now: number): Planned {
  const get = (headers: Record<string, string>, status: number, code: string | null, name: string, p = echo): Planned => ({ kind: name, method: 'GET', path: p, headers, status, code, tag });
  switch (kind) {
    case 0: {
      const h = signed(demo, 'GET', echo, undefined, now);
      const bytes = Buffer.from(h.signature.slice(5, -1), 'base64');
      bytes[i % bytes.length] ^= 0x80;
      return get({ ...h, signature: `sig=:${bytes.toString('base64')}:` }, 401, 'signature_mismatch', 'bad signature');
    }
    case 1:
      return get(signed(demo, 'GET', echo, undefined, now, `c_${randomBytes(16).toString('base64url')}`), 401, 'unknown_client', 'unknown client');
    case 2:
      return get(signed(demo, 'GET', echo, undefined, now - 3_600), 401, 'expired', 'stale created');
    case 3:
      return get(signed(demo, 'GET', echo, undefined, now + 3_600), 401, 'clock_skew', 'created in the future');
    case 4:
      return { kind: 'tampered body', method: 'POST', path: echo, body: body.replace('"amount"', '"amounT"'), headers: signed(demo, 'POST', echo, body, now), status: 400, code: 'digest_mismatch', tag };
    case 5: {
      // A body, and a signature that does not cover content-digest (validly signed otherwise).
      const url = `${gateway.url}${echo}`;
      const date = formatHttpDate(now);
      const { headers } = handSign({
        method: 'POST',
        url,
        headers: { date, 'content-type': 'application/json' },
        signatureInput: `sig=("@method" "@target-uri" "date");created=${now};keyid="${demo.clientId}";alg="rsa-v1_5-sha256"`,
        key: demo.key.key,
      });
      return { kind: 'body without digest', method: 'POST', path: echo, body, headers, status: 401, code: 'digest_required', tag };
    }
    case 6:
      return get(signed(demo, 'GET', `/registry/clients?i=${tag}`, undefined, now), 403, 'role_forbidden', 'role forbidden', `/registry/clients?i=${tag}`);
    case 7:
      return get(signed(restricted, 'GET', echo, undefined, now), 403, 'ip_not_allowed', 'IP not in the whitelist');
    case 8:
      return get(signed(disabled, 'GET', echo, undefined, now), 401, 'client_disabled', 'disabled client');
    case 9: {
      const h = signed(demo, 'GET', echo, undefined, now);
      return get({ date: h.date }, 401, 'missing_signature', 'no signature');
    }
    case 10: {
      const h = signed(demo, 'GET', echo, undefined, now);
      return get({ ...h, 'signature-input': h['signature-input'].replace(';created=', ';;created=') }, 401, 'malformed_signature_input', 'malformed Signature-Input');
    }
    case 11: {
      const h = signed(demo, 'GET', echo, undefined, now);
      return get({ ...h, 'signature-input': h['signature-input'].replace('rsa-v1_5-sha256', 'hmac-sha256') }, 401, 'unsupported_algorithm', 'alg hmac-sha256');
    }
    case 12: {
      // Signed for one URL, sent to another.
      const h = signed(demo, 'GET', `${echo}&amount=1`, undefined, now);
      return get(h, 401, 'signature_mismatch', 'signed for another URL', `${echo}&amount=1000`);
    }
    default:
      return get(signed(demo, 'GET', `/api/nothing-here?i=${tag}`, undefined, now), 404, null, 'no such route', `/api/nothing-here?i=${tag}`);
  }
}

/** What is wrong with the answer to `p`, or undefined. */
async function check(p: Planned, response: Response): Promise<string | undefined> {
  const text = await response.text();
  if (response.status !== p.status) return `${p.kind} ${p.tag}: status ${response.status}, expected ${p.status} (${text.slice(0, 200)})`;
  if (p.status === 200) {
    const echo = JSON.parse(text) as { query?: string; authorizer?: { clientId?: string } };
    if (!echo.query?.split('&').includes(`i=${p.tag}`)) return `${p.kind} ${p.tag}: the echo is of another request`;
    if (echo.authorizer?.clientId !== p.clientId) return `${p.kind} ${p.tag}: the echo names client ${echo.authorizer?.clientId}`;
    return undefined;
  }
  if (p.code === null) return undefined;
  let code = response.headers.get('x-signet-error');
  if (code === null) {
    try {
      code = (JSON.parse(text) as { error?: string }).error ?? null;
    } catch {
      code = null;
    }
  }
  return code === p.code ? undefined : `${p.kind} ${p.tag}: code ${code}, expected ${p.code}`;
}

test(`${REQUESTS} mixed valid and invalid signed requests at concurrency ${IN_FLIGHT}: every one classified correctly`, async () => {
  const planned = plan();
  expect(new Set(planned.map((p) => `${p.method} ${p.path} ${p.headers.signature ?? ''}`)).size).toBe(REQUESTS);
  const kinds = new Map<string, number>();
  const wrong: string[] = [];
  let next = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const worker = async () => {
    for (let i = next++; i < planned.length; i = next++) {
      const p = planned[i];
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        const response = await fetch(`${gateway.url}${p.path}`, { method: p.method, headers: p.headers, body: p.body });
        const problem = await check(p, response);
        if (problem !== undefined) wrong.push(problem);
      } catch (error) {
        // fetch's own message is only "fetch failed"; the cause says what happened to the connection.
        const { message, cause } = error as Error;
        wrong.push(`${p.kind} ${p.tag}: ${message}${cause === undefined ? '' : ` (${String(cause)})`}`);
      } finally {
        inFlight -= 1;
      }
      kinds.set(p.kind, (kinds.get(p.kind) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  expect(maxInFlight).toBe(IN_FLIGHT);
  expect([...kinds.keys()]).toHaveLength(16); // valid GET, valid POST and 14 kinds of refusal
  expect(wrong.slice(0, 20)).toEqual([]);
  expect(wrong).toHaveLength(0);
}, 600_000);
