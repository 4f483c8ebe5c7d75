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
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spkiPemOf, type PrivateKeyInfo } from '../../lambda/core/keys';
import { readClientDir } from '../../local/client-dir';
import { GatewayProcess, sendSigned, startGatewayProcess } from '../local/gateway-process';
import { PlannedRequest, REFUSAL_KINDS, TrafficSetup, answerProblem, mixedTraffic } from '../../bench/gateway-traffic';
import { nextTestKey } from '../support/test-keys';

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
  gateway = await startGatewayProcess(home, { seedKeys: true });
  demo = readClientDir(path.join(home, 'demo'));
  const admin = readClientDir(path.join(home, 'admin'));
  const adminSigner = { clientId: admin.clientId, privateKey: admin.key.key };
  const register = async (name: string, networkWhitelist: string[]) => {
    const key = nextTestKey();
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

/** The plan: REQUESTS distinct requests of the mix the throughput benchmark sends too (every kind of refusal). */
function plan(): PlannedRequest[] {
  const setup: TrafficSetup = { baseUrl: gateway.url, created: Math.floor(Date.now() / 1000), demo, restricted, disabled };
  return mixedTraffic(setup, REQUESTS);
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
        const problem = answerProblem(p, response.status, await response.text(), response.headers.get('x-signet-error') ?? undefined);
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
  expect([...kinds.keys()].sort()).toEqual(['valid GET', 'valid POST', ...REFUSAL_KINDS].sort());
  expect(wrong.slice(0, 20)).toEqual([]);
  expect(wrong).toHaveLength(0);
}, 600_000);
