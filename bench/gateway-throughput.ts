/**
 * The local gateway end to end (`npm start`'s local/main.ts in a child process: Node HTTP server →
 * payload 2.0 event → the deployed authorizer handler → the echo backend with its body check),
 * driven by autocannon from this process over real HTTP on 127.0.0.1.
 *
 * A pool of distinct requests is signed beforehand with the demo client's key (`created` = now,
 * well inside the 300 s window for the whole run; replay protection is off locally, so the pool is
 * cycled). Each pool entry knows the answer it must get; every response is checked in autocannon's
 * onResponse: status, the `x-signet-error` code of a refusal (or the backend's `error` field), and
 * for a 200 that the echo is of this very request (its `i=` query) for the demo client. Anything
 * else is a misclassification. Two runs: all valid (the throughput figure), then mixed valid and
 * invalid: the mix the load test sends too (./gateway-traffic.ts mixedTraffic, 3 in 5 valid), with the
 * same check.
 *
 * Both processes share this machine's CPUs: autocannon's own CPU use is part of the picture.
 */
import fs from 'node:fs';
import { type PlannedRequest, type TrafficSetup, answerProblem, mixedTraffic, validRequest } from './gateway-traffic';
import { loadAverage } from './machine';
import { median } from './percentiles';
import { startGatewayChild } from './local-gateway-process';

// autocannon ships no types.
 
const autocannon = require('autocannon') as (opts: Record<string, unknown>) => Promise<AutocannonResult>;

interface AutocannonResult {
  requests: { average: number; total: number; sent: number };
  latency: { p50: number; p90: number; p99: number; average: number; max: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  '4xx': number;
  '5xx': number;
}

export interface LoadRun {
  readonly label: string;
  readonly connections: number;
  readonly durationS: number;
  readonly requests: number;
  readonly requestsPerS: number;
  readonly latencyMs: { p50: number; p90: number; p99: number; max: number };
  readonly misclassified: number;
  readonly errors: number;
  readonly byKind: Record<string, number>;
  /** Median latency per kind of request, ms (measured from the request's setup to its response). */
  readonly p50ByKindMs: Record<string, number>;
  readonly firstMisclassified?: string;
  /** CPU time of the gateway process per response, ms (from /proc; independent of other load). */
  readonly gatewayCpuMsPerRequest?: number;
  /** CPU time of this process (autocannon) per response, ms. */
  readonly clientCpuMsPerRequest: number;
}

export interface GatewayThroughput {
  readonly valid: LoadRun;
  readonly mixed: LoadRun;
  readonly distinctRequests: number;
  readonly loadAverage: number;
}

export interface GatewayThroughputOptions {
  readonly connections?: number;
  /** Seconds of the all-valid run. @default 10 */
  readonly validSeconds?: number;
  /** Seconds of the mixed run. @default 6 */
  readonly mixedSeconds?: number;
  /** Distinct signed requests per pool. @default 1200 */
  readonly poolSize?: number;
}

/** Valid requests only, GET and POST with a JSON body in turn. */
function validPool(setup: TrafficSetup, size: number): PlannedRequest[] {
  return Array.from({ length: size }, (_, i) => validRequest(setup, i));
}


/** User + system CPU seconds of a process, from /proc/<pid>/stat (Linux); undefined elsewhere. */
function processCpuS(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of proc(5) (utime, stime), counted after the command name: indexes 11 and 12.
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

async function drive(url: string, pool: readonly PlannedRequest[], label: string, connections: number, durationS: number, gatewayPid: number): Promise<LoadRun> {
  const { hostname, port } = new URL(url);
  let next = 0;
  let misclassified = 0;
  let firstMisclassified: string | undefined;
  const byKind: Record<string, number> = {};
  const latencies: Record<string, number[]> = {};
  const gatewayCpu0 = processCpuS(gatewayPid);
  const clientCpu0 = process.cpuUsage();
  const result = await autocannon({
    url,
    connections,
    duration: durationS,
    pipelining: 1,
    timeout: 30,
    requests: [
      {
        setupRequest: (req: Record<string, unknown>, context: Record<string, unknown>) => {
          const entry = pool[next++ % pool.length];
          context.entry = entry;
          context.startedNs = process.hrtime.bigint();
          return {
            ...req,
            method: entry.method,
            path: entry.path,
            headers: { host: `${hostname}:${port}`, ...entry.headers },
            body: entry.body ?? Buffer.alloc(0),
          };
        },
        onResponse: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, unknown>) => {
          const entry = context.entry as PlannedRequest;
          byKind[entry.kind] = (byKind[entry.kind] ?? 0) + 1;
          (latencies[entry.kind] ??= []).push(Number(process.hrtime.bigint() - (context.startedNs as bigint)) / 1e6);
          const header = headers['x-signet-error'];
          const wrong = answerProblem(entry, status, body, typeof header === 'string' ? header : undefined);
          if (wrong !== undefined) {
            misclassified += 1;
            firstMisclassified ??= wrong;
          }
        },
      },
    ],
  });
  const checked = Object.values(byKind).reduce((a, b) => a + b, 0);
  const gatewayCpu1 = processCpuS(gatewayPid);
  const clientCpu = process.cpuUsage(clientCpu0);
  const p50ByKindMs = Object.fromEntries(Object.entries(latencies).map(([kind, values]) => [kind, median(values)]));
  return {
    label,
    connections,
    durationS: result.duration,
    requests: checked,
    requestsPerS: checked / result.duration,
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    // A request without a checked response (socket error, timeout) counts as misclassified too.
    misclassified: misclassified + result.errors + result.timeouts,
    errors: result.errors + result.timeouts,
    byKind,
    p50ByKindMs,
    firstMisclassified,
    gatewayCpuMsPerRequest: gatewayCpu0 === undefined || gatewayCpu1 === undefined ? undefined : ((gatewayCpu1 - gatewayCpu0) * 1000) / checked,
    clientCpuMsPerRequest: (clientCpu.user + clientCpu.system) / 1000 / checked,
  };
}

export async function measureGatewayThroughput(options: GatewayThroughputOptions = {}): Promise<GatewayThroughput> {
  const connections = options.connections ?? 50;
  const poolSize = options.poolSize ?? 1200;
  const gateway = await startGatewayChild();
  try {
    const setup: TrafficSetup = { baseUrl: gateway.url, created: Math.floor(Date.now() / 1000), demo: gateway.demo };
    const valid = validPool(setup, poolSize);
    const mixed = mixedTraffic(setup, poolSize);
    // Warm-up: caches, JIT, keep-alive sockets (not reported).
    await drive(gateway.url, valid, 'warm-up', connections, 2, gateway.pid);
    const validRun = await drive(gateway.url, valid, 'valid', connections, options.validSeconds ?? 10, gateway.pid);
    const mixedRun = await drive(gateway.url, mixed, 'mixed', connections, options.mixedSeconds ?? 6, gateway.pid);
    return { valid: validRun, mixed: mixedRun, distinctRequests: poolSize, loadAverage: loadAverage() };
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- gateway output (tail) ---\n${gateway.tail()}`, { cause: error });
  } finally {
    await gateway.stop();
  }
}

function runLine(r: LoadRun): string[] {
  const kinds = Object.entries(r.byKind)
    .map(([k, n]) => `${k} ${n} (p50 ${r.p50ByKindMs[k].toFixed(1)} ms)`)
    .join(', ');
  const cpu = r.gatewayCpuMsPerRequest === undefined ? '' : `gateway CPU ${r.gatewayCpuMsPerRequest.toFixed(3)} ms/request, `;
  return [
    `${r.label}: ${Math.round(r.requestsPerS)} req/s over ${r.durationS} s at ${r.connections} connections, latency p50 ${r.latencyMs.p50} ms, p90 ${r.latencyMs.p90} ms, p99 ${r.latencyMs.p99} ms; ` +
      `${r.requests} responses checked, ${r.misclassified} misclassified${r.firstMisclassified ? ` (first: ${r.firstMisclassified})` : ''}`,
    `  ${cpu}autocannon CPU ${r.clientCpuMsPerRequest.toFixed(3)} ms/request; by kind: ${kinds}`,
  ];
}

export function printGatewayThroughput(r: GatewayThroughput): string[] {
  return [...runLine(r.valid), ...runLine(r.mixed), `(${r.distinctRequests} distinct signed requests per pool; load average ${r.loadAverage.toFixed(2)})`];
}

if (require.main === module) {
  measureGatewayThroughput().then((r) => console.log(printGatewayThroughput(r).join('\n')));
}
