/**
 * DynamoDB dies mid-run: the DynamoDB Local JVM is SIGKILLed while a stream of decisions is in
 * flight (nothing graceful: sockets reset, then connections are refused). Throughout:
 *   - an unknown clientId is never allowed (unknown_client while DynamoDB answers, then
 *     dependency_unavailable: fail closed, 503);
 *   - a registered client that was never cached is never allowed once DynamoDB is gone;
 *   - a cached client is allowed only while its record is younger than staleIfErrorMs (15 min) on
 *     the test's clock, and a forged signature for it is refused all along;
 *   - each fault leaves a clear ERROR log line (Powertools JSON) naming the client and the reason,
 *     and no log line carries a signature.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { newClientId } from '../../lambda/store/client-id';
import { DynamoDbLocal, dynamoDbLocalClientConfig, startDynamoDbLocal } from '../../local/dynamodb-local';
import { ensureClientTable } from '../../lambda/store/table-setup';
import type { AuthorizerRuntime } from '../../lambda/authorizer/runtime';
import { Signer, captureOutput, registerClient } from '../authorizer/support';
import { STALE_MS, TTL_MS, TestClock, decideAt, jsonLines, outcome, runtimeOn } from './fault-support';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

let ddb: DynamoDbLocal;
let setupClient: DynamoDBClient;
let authorizerClient: DynamoDBClient;
let runtime: AuthorizerRuntime;
let cached: Signer;
let neverCached: Signer;
let forger: Signer;
const clock: TestClock = { ms: Date.parse('2026-06-01T09:00:00Z') };

beforeAll(async () => {
  ddb = await startDynamoDbLocal();
  setupClient = new DynamoDBClient(dynamoDbLocalClientConfig(ddb.endpoint));
  const tableName = 'signet-faults-killed';
  await ensureClientTable(setupClient, tableName);
  const store = new DynamoClientStore({ tableName, client: setupClient, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  cached = await registerClient(store, { name: 'Cached partner' });
  neverCached = await registerClient(store, { name: 'Never cached' });
  forger = { clientId: cached.clientId, key: neverCached.key };
  authorizerClient = new DynamoDBClient(dynamoDbLocalClientConfig(ddb.endpoint));
  runtime = runtimeOn(tableName, ddb.endpoint, authorizerClient, clock);
});

afterAll(async () => {
  authorizerClient?.destroy();
  setupClient?.destroy();
  await ddb?.stop();
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

type Kind = 'cached' | 'forged' | 'unknown' | 'never-cached';

interface Observed {
  readonly kind: Kind;
  readonly phase: 'before the kill' | 'after the kill';
  readonly outcome: string;
}

test('SIGKILL of DynamoDB Local mid-run: unknown and uncached clients never allowed, the cached one only within the stale bound, clear logs', async () => {
  // Warm the cache for `cached` while DynamoDB answers.
  expect(outcome((await captureOutput(() => decideAt(runtime, clock, cached))).result)).toBe('allowed');
  const fetchedAtMs = clock.ms;
  const observed: Observed[] = [];
  let killed = false;
  const unknownIds = Array.from({ length: 40 }, () => newClientId());

  const { lines } = await captureOutput(async () => {
    const kinds: Kind[] = ['cached', 'forged', 'unknown', 'cached', 'never-cached'];
    const afterKill = () => observed.filter((o) => o.phase === 'after the kill').length;
    const worker = async (w: number) => {
      // Until 40 decisions have been made with DynamoDB gone (bounded, in case something hangs).
      for (let i = 0; i < 2_000 && afterKill() < 40; i++) {
        const kind = kinds[(i + w) % kinds.length];
        // The never-cached client is only asked for once DynamoDB is gone (asking before would cache it).
        if (kind === 'never-cached' && !killed) continue;
        const phase = killed ? 'after the kill' : 'before the kill';
        const signer = kind === 'forged' ? forger : kind === 'never-cached' ? neverCached : cached;
        const keyId = kind === 'unknown' ? unknownIds[(w * 7 + i) % unknownIds.length] : undefined;
        observed.push({ kind, phase, outcome: outcome(await decideAt(runtime, clock, signer, keyId)) });
      }
    };
    const workers = [0, 1, 2, 3].map(worker);
    // Kill once a few decisions have gone through, with the others in flight; from then on the
    // cached record is past its TTL, so every decision for it goes to DynamoDB first.
    while (observed.length < 12) await new Promise((r) => setTimeout(r, 5));
    process.kill(ddb.pid as number, 'SIGKILL');
    // Decisions made while the JVM is dying still count as "before"; "after" starts once it is gone.
    while (isAlive(ddb.pid as number)) await new Promise((r) => setTimeout(r, 2));
    killed = true;
    clock.ms = fetchedAtMs + TTL_MS + 1;
    await Promise.all(workers);
  });

  const after = observed.filter((o) => o.phase === 'after the kill');
  expect(after.length).toBeGreaterThanOrEqual(40);
  expect(new Set(after.map((o) => o.kind))).toEqual(new Set(['cached', 'forged', 'unknown', 'never-cached']));
  // Never allowed, whatever the phase.
  for (const o of observed.filter((x) => x.kind === 'unknown')) expect(['unknown_client', 'dependency_unavailable']).toContain(o.outcome);
  for (const o of observed.filter((x) => x.kind === 'never-cached')) expect(o.outcome).toBe('dependency_unavailable');
  for (const o of observed.filter((x) => x.kind === 'forged')) expect(o.outcome).toBe('signature_mismatch');
  // Once DynamoDB is gone, an unknown clientId is refused as unavailable, never as allowed or unknown.
  expect(after.filter((o) => o.kind === 'unknown').map((o) => o.outcome)).toEqual(after.filter((o) => o.kind === 'unknown').map(() => 'dependency_unavailable'));
  // The cached client keeps working: its record is stale but inside the bound.
  expect(observed.filter((x) => x.kind === 'cached').map((o) => o.outcome)).toEqual(observed.filter((x) => x.kind === 'cached').map(() => 'allowed'));

  const logs = jsonLines(lines);
  const errors = logs.filter((l) => l.level === 'ERROR');
  expect(errors).toContainEqual(
    expect.objectContaining({
      message: 'client registry unreachable; serving the cached record within the stale-if-error bound',
      clientId: cached.clientId,
      error: expect.objectContaining({ message: expect.stringContaining('DynamoDB did not answer') }),
    }),
  );
  expect(errors).toContainEqual(expect.objectContaining({ message: 'refused: fail closed', reason: 'dependency_unavailable', status: 503 }));
  expect(errors).toContainEqual(expect.objectContaining({ message: 'refused: fail closed', reason: 'dependency_unavailable', keyId: neverCached.clientId }));
  const text = lines.join('\n');
  expect(text).not.toMatch(/sig=:|signature-input|BEGIN/i);

  // Past the stale bound the cached client fails closed too, with the same clear line.
  clock.ms = fetchedAtMs + STALE_MS + 1;
  const late = await captureOutput(() => decideAt(runtime, clock, cached));
  expect(outcome(late.result)).toBe('dependency_unavailable');
  expect(jsonLines(late.lines)).toContainEqual(expect.objectContaining({ level: 'ERROR', message: 'refused: fail closed', reason: 'dependency_unavailable', keyId: cached.clientId }));
}, 180_000);
