/**
 * The authorizer handler as Lambda runs it (lambda/handlers/authorizer.ts `httpApiHandler`, its
 * Powertools log line and EMF metrics included, output swallowed), on DynamoDB Local:
 *
 *   warm  — the client record is cached (default TTL 60 s): the decision makes no DynamoDB read,
 *           and no write: each key's last use is written once per 15 min per instance
 *           (SIGNET_LAST_USED_RECORD_INTERVAL_MS), during the untimed warm-up;
 *   agent — the warm path for Web Bot Auth agents: Ed25519 keys named by their JWK thumbprint
 *           (the keyid resolves through the thumbprint index, cached like a clientId), under the
 *           `web-bot-auth` profile (tag, created + expires, `@authority` covered);
 *   miss  — a second handler instance with SIGNET_CLIENT_CACHE_TTL_MS=0: every decision reads
 *           the record from DynamoDB Local (GetItem over HTTP to the JVM on this machine; the
 *           parsed public key stays cached by fingerprint, as it would in a warm container).
 *
 * Per call: wall time (hrtime) and CPU time of this process (process.cpuUsage, µs resolution).
 * The machine is shared, so wall-clock tails include time the process was not scheduled; CPU time
 * does not. But the process's CPU time counts every thread: V8's GC and compiler threads too, and
 * the kernel hands their time over in ticks (4 ms here), so a call of 0.07 ms wall can read 4 ms
 * of CPU. A call runs on one thread, so its own CPU time is at most both figures: the smaller of
 * the two is reported as the call's CPU (an upper bound of it), and what the other threads spent
 * is reported per request beside it, so nothing is left out of the cost.
 * DynamoDB commands are counted by a middleware on the handler's own SDK client.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { generateKeyPairSync, sign as signBytes, type KeyObject } from 'node:crypto';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../lambda/core/defaults';
import { thumbprintOfKey } from '../lambda/core/jwk-thumbprint';
import { ENV } from '../lambda/config-env';
import { fingerprintOf, generateRsaKeyPair, type PrivateKeyInfo } from '../lambda/core/keys';
import { DynamoClientStore } from '../lambda/store/client-store';
import { ensureClientTable } from '../lambda/store/table-setup';
import { dynamoDbLocalClientConfig, startDynamoDbLocal } from '../local/dynamodb-local';
import { loadAuthorizerHandler, withSilencedOutput, type AuthorizerModule, type CommandCounter } from './authorizer-handler-loader';
import { loadAverage } from './machine';
import { formatSummary, summarize, type LatencySummary } from './percentiles';
import { BENCH_HOST, signedAuthorizerEvent } from './signed-events';
import { authorizerEventOf, httpApiProxyEvent } from '../local/http-api-event';

export interface PathLatency {
  readonly wallMs: LatencySummary;
  /** CPU time of the process (every thread) during each call. */
  readonly cpuMs: LatencySummary;
  /** CPU time of each call itself, at most: the smaller of the process's CPU time and the call's wall time (it runs on one thread). */
  readonly callCpuMs: LatencySummary;
  /** CPU time the process's other threads (GC, compiler) spent during the calls beyond that, per call on average. */
  readonly otherThreadsCpuMsPerRequest: number;
  /** DynamoDB commands sent during the timed calls, per call. */
  readonly dynamoDbCallsPerRequest: number;
  /** Of which reads (GetItem / Query / BatchGetItem / Scan), per call. */
  readonly dynamoDbReadsPerRequest: number;
  /** Bytes the handler wrote to stdout and stderr (log lines, EMF metrics) during the timed calls, per call. */
  readonly bytesPerRequest: number;
  readonly requests: number;
}

export interface AuthorizerLatency {
  readonly warm: PathLatency;
  /** The warm path with Powertools logging and metrics switched off (to see what they cost). */
  readonly warmQuiet: PathLatency;
  /** The warm path of Web Bot Auth agents: thumbprint keyids, Ed25519, the `web-bot-auth` profile. */
  readonly agent?: PathLatency;
  readonly miss: PathLatency;
  readonly clients: number;
  readonly distinctRequests: number;
  readonly loadAverage: number;
}

export interface AuthorizerLatencyOptions {
  /** Registered clients the requests are spread over. @default 8 */
  readonly clients?: number;
  /** Distinct pre-signed requests. @default 1000 */
  readonly distinctRequests?: number;
  /** Timed warm calls. @default 5000 */
  readonly warmRequests?: number;
  /** Timed cache-miss calls. @default 600 */
  readonly missRequests?: number;
}

const ROLE_CATALOGUE = { partner: ['GET /api/*', 'POST /api/*'] };

export async function measureAuthorizerLatency(options: AuthorizerLatencyOptions = {}): Promise<AuthorizerLatency> {
  const clientCount = options.clients ?? 8;
  const distinct = options.distinctRequests ?? 1000;
  const ddb = await startDynamoDbLocal();
  const sdk = new DynamoDBClient(dynamoDbLocalClientConfig(ddb.endpoint));
  try {
    const tableName = 'signet-bench';
    await ensureClientTable(sdk, tableName);
    const store = new DynamoClientStore({ tableName, client: sdk, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
    const signers: { clientId: string; key: PrivateKeyInfo }[] = [];
    for (let i = 0; i < clientCount; i++) {
      const key = generateRsaKeyPair(2048);
      const { record } = await store.createClient(
        {
          name: `Bench partner ${i}`,
          networkWhitelist: ['0.0.0.0'],
          roles: ['partner'],
          key: { fingerprint: key.fingerprint, spkiPem: key.publicKey.export({ type: 'spki', format: 'pem' }) as string },
        },
        'bench',
      );
      signers.push({ clientId: record.clientId, key });
    }

    const agents: { thumbprint: string; key: KeyObject }[] = [];
    for (let i = 0; i < clientCount; i++) {
      const { publicKey, privateKey } = generateKeyPairSync('ed25519');
      await store.createClient(
        {
          name: `Bench agent ${i}`,
          networkWhitelist: ['0.0.0.0'],
          roles: ['partner'],
          profile: 'web-bot-auth',
          key: { fingerprint: fingerprintOf(publicKey), spkiPem: publicKey.export({ type: 'spki', format: 'pem' }) as string, algorithm: 'ed25519' },
        },
        'bench',
      );
      agents.push({ thumbprint: thumbprintOfKey(publicKey), key: privateKey });
    }

    const created = Math.floor(Date.now() / 1000);
    const events = Array.from({ length: distinct }, (_, i) => {
      const signer = signers[i % signers.length];
      const body = i % 2 === 0 ? JSON.stringify({ order: i, amount: (i * 37) % 1000, currency: 'EUR' }) : undefined;
      return signedAuthorizerEvent({
        method: body === undefined ? 'GET' : 'POST',
        pathAndQuery: `/api/orders?n=${i}&q=a%20b`,
        body,
        keyId: signer.clientId,
        privateKey: signer.key.key,
        created,
      });
    });

    const agentEvents = Array.from({ length: distinct }, (_, i) => agentEvent(agents[i % agents.length], `/api/orders?n=${i}`, created));

    const env = {
      [ENV.tableName]: tableName,
      [ENV.dynamoDbEndpoint]: ddb.endpoint,
      [ENV.roleCatalogue]: JSON.stringify(ROLE_CATALOGUE),
      // As deployed (lib/signet-function.ts): INFO logs, metrics on; the output is swallowed.
      POWERTOOLS_LOG_LEVEL: 'INFO',
      POWERTOOLS_SERVICE_NAME: 'signet-authorizer',
      POWERTOOLS_METRICS_NAMESPACE: 'Signet',
      AWS_REGION: 'us-east-1',
      // A deployed function's name, as long as CloudFormation makes them: every EMF line carries it.
      AWS_LAMBDA_FUNCTION_NAME: 'SignetStack-AuthorizerFunction0A0AD979-AbCdEf123456',
    };
    const warm = loadAuthorizerHandler(env);
    const cold = loadAuthorizerHandler({ ...env, [ENV.clientCacheTtlMs]: '0' });
    const quiet = loadAuthorizerHandler({ ...env, POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' });

    const { result } = await withSilencedOutput(async (written) => {
      const timeCalls = (handler: AuthorizerModule, commands: CommandCounter, n: number, from = 0, pool = events) => timeCallsOf(handler, commands, written, pool, n, from);
      // Fill both warm caches and let the JIT settle (not timed).
      await timeCalls(warm.handler, warm.commands, Math.min(events.length, 1500));
      await timeCalls(quiet.handler, quiet.commands, Math.min(events.length, 1500));
      await timeCalls(warm.handler, warm.commands, Math.min(agentEvents.length, 1500), 0, agentEvents);
      // The two warm variants in alternating rounds, so a change in the machine's load hits both alike.
      const warmRounds: Samples[] = [];
      const quietRounds: Samples[] = [];
      const agentRounds: Samples[] = [];
      const perRound = Math.ceil((options.warmRequests ?? 5000) / 5);
      for (let round = 0; round < 5; round++) {
        warmRounds.push(await timeCalls(warm.handler, warm.commands, perRound, round * perRound));
        quietRounds.push(await timeCalls(quiet.handler, quiet.commands, perRound, round * perRound));
        agentRounds.push(await timeCalls(warm.handler, warm.commands, perRound, round * perRound, agentEvents));
      }
      await timeCalls(cold.handler, cold.commands, 100);
      const missPath = await timeCalls(cold.handler, cold.commands, options.missRequests ?? 600);
      return { warmPath: summarizePath(warmRounds), quietPath: summarizePath(quietRounds), agentPath: summarizePath(agentRounds), missPath: summarizePath([missPath]) };
    });
    return { warm: result.warmPath, warmQuiet: result.quietPath, agent: result.agentPath, miss: result.missPath, clients: clientCount, distinctRequests: distinct, loadAverage: loadAverage() };
  } finally {
    sdk.destroy();
    await ddb.stop();
  }
}

/**
 * A Web Bot Auth agent's GET as the drafts' agents sign it: label `sig1`, `@authority` covered,
 * `created` and `expires` (five minutes), the keyid its key's JWK thumbprint, tag `web-bot-auth`.
 */
function agentEvent(agent: { thumbprint: string; key: KeyObject }, pathAndQuery: string, created: number): ReturnType<typeof signedAuthorizerEvent> {
  const params = `("@authority");created=${created};expires=${created + 300};keyid="${agent.thumbprint}";alg="ed25519";tag="web-bot-auth"`;
  const base = `"@authority": ${BENCH_HOST}\n"@signature-params": ${params}`;
  const signature = signBytes(null, Buffer.from(base), agent.key).toString('base64');
  const headers = { host: BENCH_HOST, 'user-agent': 'signet-bench-agent/1', 'x-forwarded-proto': 'https', 'signature-input': `sig1=${params}`, signature: `sig1=:${signature}:` };
  const proxy = httpApiProxyEvent(
    { method: 'GET', url: pathAndQuery, rawHeaders: Object.entries(headers).flat(), socket: { remoteAddress: '203.0.113.20' } },
    Buffer.alloc(0),
    { requestId: 'bench', nowMs: created * 1000, apiId: 'bench' },
  );
  return authorizerEventOf(proxy);
}

/** Raw timings of a run of calls. */
interface Samples {
  readonly wall: number[];
  readonly cpu: number[];
  /** min(cpu, wall) of each call: see the file's header. */
  readonly callCpu: number[];
  readonly calls: number;
  readonly reads: number;
  readonly bytes: number;
}

/** Calls the handler `n` times over `events` (cycling from `from`), timing each call; every call must be allowed. */
async function timeCallsOf(
  handler: AuthorizerModule,
  commands: CommandCounter,
  written: () => number,
  events: readonly ReturnType<typeof signedAuthorizerEvent>[],
  n: number,
  from = 0,
): Promise<Samples> {
  // Filled in place, allocated before the first call: growing arrays while timing would promote
  // their copies to the old generation, and the handler would be charged with the GC they cause.
  const wall = new Float64Array(n);
  const cpu = new Float64Array(n);
  const callCpu = new Float64Array(n);
  const callsBefore = commands.total;
  const readsBefore = commands.reads;
  const bytesBefore = written();
  for (let i = 0; i < n; i++) {
    const event = events[(from + i) % events.length];
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const response = await handler.httpApiHandler(event);
    const t1 = process.hrtime.bigint();
    const c1 = process.cpuUsage(c0);
    if (!response.isAuthorized) {
      throw new Error(`benchmark request refused: ${JSON.stringify(response.context)}`);
    }
    const wallMs = Number(t1 - t0) / 1e6;
    const cpuMs = (c1.user + c1.system) / 1e3;
    wall[i] = wallMs;
    cpu[i] = cpuMs;
    callCpu[i] = Math.min(cpuMs, wallMs);
  }
  return { wall: Array.from(wall), cpu: Array.from(cpu), callCpu: Array.from(callCpu), calls: commands.total - callsBefore, reads: commands.reads - readsBefore, bytes: written() - bytesBefore };
}

function summarizePath(runs: readonly Samples[]): PathLatency {
  const wall = runs.flatMap((r) => r.wall);
  const cpu = runs.flatMap((r) => r.cpu);
  const callCpu = runs.flatMap((r) => r.callCpu);
  const total = (samples: readonly number[]) => samples.reduce((a, b) => a + b, 0);
  const calls = runs.reduce((n, r) => n + r.calls, 0);
  const reads = runs.reduce((n, r) => n + r.reads, 0);
  const bytes = runs.reduce((n, r) => n + r.bytes, 0);
  return {
    wallMs: summarize(wall),
    cpuMs: summarize(cpu),
    callCpuMs: summarize(callCpu),
    otherThreadsCpuMsPerRequest: (total(cpu) - total(callCpu)) / cpu.length,
    dynamoDbCallsPerRequest: calls / wall.length,
    dynamoDbReadsPerRequest: reads / wall.length,
    bytesPerRequest: bytes / wall.length,
    requests: wall.length,
  };
}

export function printAuthorizerLatency(r: AuthorizerLatency): string[] {
  return [
    `warm cache hit, wall: ${formatSummary(r.warm.wallMs)}`,
    `warm cache hit, CPU of the call:  ${formatSummary(r.warm.callCpuMs)}`,
    `warm cache hit, CPU of the process (every thread): ${formatSummary(r.warm.cpuMs)}; the other threads (GC, compiler) ${r.warm.otherThreadsCpuMsPerRequest.toFixed(3)} ms per call`,
    `warm cache hit, logs and metrics off, CPU of the call: ${formatSummary(r.warmQuiet.callCpuMs)}; of the process: p99 ${r.warmQuiet.cpuMs.p99.toFixed(3)} ms`,
    `warm path DynamoDB reads per request: ${r.warm.dynamoDbReadsPerRequest} (all DynamoDB calls: ${r.warm.dynamoDbCallsPerRequest}, counted on the handler's SDK client; the keys' last use is written at most once per client and key per 15 min per instance)`,
    ...(r.agent === undefined
      ? []
      : [
          `warm cache hit, Web Bot Auth agent (thumbprint keyid, Ed25519), CPU of the call: ${formatSummary(r.agent.callCpuMs)}; of the process: p99 ${r.agent.cpuMs.p99.toFixed(3)} ms`,
          `agent warm path DynamoDB reads per request: ${r.agent.dynamoDbReadsPerRequest} (all DynamoDB calls: ${r.agent.dynamoDbCallsPerRequest})`,
        ]),
    `warm path bytes written per allowed request (log lines and EMF metrics): ${r.warm.bytesPerRequest.toFixed(1)}`,
    `cache miss (DynamoDB Local GetItem), wall: ${formatSummary(r.miss.wallMs)}`,
    `cache miss (DynamoDB Local GetItem), CPU:  ${formatSummary(r.miss.cpuMs)}`,
    `cache miss DynamoDB reads per request: ${r.miss.dynamoDbReadsPerRequest}`,
    `(${r.clients} clients, ${r.distinctRequests} distinct signed requests, half GET half POST; load average ${r.loadAverage.toFixed(2)})`,
  ];
}

if (require.main === module) {
  measureAuthorizerLatency().then((r) => console.log(printAuthorizerLatency(r).join('\n')));
}
