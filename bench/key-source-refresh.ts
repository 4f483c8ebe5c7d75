/**
 * What a scheduled refresh of 1,000 key sources costs: the refresher (createKeySourceRefresher, as
 * the scheduled function runs it) against DynamoDB Local and a JWKS server on 127.0.0.1 (each
 * source one path, one Ed25519 key), fetched with `allowLocalHttp` through the real fetcher.
 *
 *   unchanged — every source publishes the keys the client has: per source a due-list share, two
 *               GetItems, the key owners' BatchGetItem and one transaction (keysFetchedAt + status);
 *   rotated   — every source adds a key: per source the same reads, then the key-set replacement
 *               (record, ownership and thumbprint items, audit entry, status) in one transaction.
 *
 * Per run: wall time, CPU of this process, DynamoDB calls by command and the capacity consumed
 * (each call sent with ReturnConsumedCapacity=TOTAL by a middleware; DynamoDB Local computes it
 * as DynamoDB does), and what that costs per 1,000 sources at list prices:
 *   - Lambda arm64: $0.0000133334 per GB-second (./lambda-cost.ts), at REFRESHER_MEMORY_MB, billed
 *     on the run's wall time (fetching is waiting: a run is not CPU-bound);
 *   - DynamoDB on-demand, us-east-1: $0.625 per million write request units, $0.125 per million
 *     read request units (https://aws.amazon.com/dynamodb/pricing/on-demand/; transactional
 *     items count twice, which the consumed capacity already says).
 * Loopback answers in well under a millisecond; a real source takes tens to hundreds: with the
 * refresher's concurrency (16 fetches at once) 1,000 sources at 200 ms each add about 12.5 s of wall
 * time, which {@link estimateRefreshCost} prices beside the measured run.
 *
 * Run alone: `npx tsx bench/key-source-refresh.ts`.
 */
import { generateKeyPairSync } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../lambda/core/defaults';
import { jwkThumbprint } from '../lambda/core/jwk-thumbprint';
import type { JsonWebKey } from '../lambda/core/keys';
import { fetchKeySource } from '../lambda/key-sources/fetch-key-source';
import { DEFAULT_REFRESH_CONCURRENCY, type RefreshRunSummary, createKeySourceRefresher } from '../lambda/key-sources/key-source-refresher';
import { selectPublishedKeys, successStatus } from '../lambda/key-sources/published-keys';
import { DynamoClientStore } from '../lambda/store/client-store';
import { DynamoKeySourceStore } from '../lambda/store/key-source-store';
import { ensureClientTable } from '../lambda/store/table-setup';
import { dynamoDbLocalClientConfig, startDynamoDbLocal } from '../local/dynamodb-local';
import { ARM64_PRICE_PER_GB_S } from './lambda-cost';

/** The refresher's memory size assumed for the cost (a small, I/O-bound function). */
export const REFRESHER_MEMORY_MB = 256;
/** USD per million on-demand write request units, us-east-1. */
export const DYNAMODB_PRICE_PER_MILLION_WRU = 0.625;
/** USD per million on-demand read request units, us-east-1. */
export const DYNAMODB_PRICE_PER_MILLION_RRU = 0.125;
/** A real source's answer time assumed for the internet estimate. */
export const ASSUMED_FETCH_MS = 200;

export interface RefreshRunCost {
  readonly name: string;
  readonly summary: RefreshRunSummary;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly calls: Readonly<Record<string, number>>;
  readonly readUnits: number;
  readonly writeUnits: number;
}

export interface KeySourceRefreshCost {
  readonly sources: number;
  readonly runs: readonly RefreshRunCost[];
}

interface Recorded {
  readonly command: string;
  readonly readUnits: number;
  readonly writeUnits: number;
}

const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'TransactWriteItemsCommand', 'BatchWriteItemCommand']);

export async function measureKeySourceRefresh(options: { sources?: number } = {}): Promise<KeySourceRefreshCost> {
  const sourceCount = options.sources ?? 1000;
  const ddb = await startDynamoDbLocal();
  const sdk = new DynamoDBClient(dynamoDbLocalClientConfig(ddb.endpoint));
  const recorded: Recorded[] = [];
  sdk.middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const consumed = [(result.output as { ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] }).ConsumedCapacity ?? []]
        .flat()
        .reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
      const command = String(context.commandName);
      recorded.push({ command, readUnits: WRITES.has(command) ? 0 : consumed, writeUnits: WRITES.has(command) ? consumed : 0 });
      return result;
    },
    { step: 'initialize', name: 'benchConsumedCapacity' },
  );
  // Each source: one path serving its key set, which a run may change.
  const published = new Map<string, JsonWebKey[]>();
  const server: Server = createServer((req, res) => {
    const keys = published.get(req.url ?? '');
    if (keys === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let nowMs = Date.parse('2026-04-05T09:30:00.000Z');
  const fetch = (source: Parameters<typeof fetchKeySource>[0]) => fetchKeySource(source, { allowLocalHttp: true, nowS: () => Math.floor(nowMs / 1000) });
  const newJwk = (): JsonWebKey => {
    const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }) as JsonWebKey;
    return { ...jwk, kid: jwkThumbprint(jwk) };
  };
  try {
    const tableName = 'signet-bench-key-sources';
    await ensureClientTable(sdk, tableName);
    const clients = new DynamoClientStore({ tableName, client: sdk, now: () => new Date(nowMs), keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
    const sources = new DynamoKeySourceStore({ tableName, client: sdk, now: () => new Date(nowMs) }, clients);
    // Registered as the registry does: fetched once, the keys selected, the client created with them.
    for (let start = 0; start < sourceCount; start += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, sourceCount - start) }, async (_, j) => {
          const path = `/jwks-${start + j}`;
          published.set(path, [newJwk()]);
          const source = { jwksUri: `${base}${path}` };
          const fetched = await fetch(source);
          if (!fetched.ok) throw new Error(`${path}: ${fetched.message}`);
          const at = new Date(nowMs).toISOString();
          const selection = await selectPublishedKeys(fetched, { at, owners: (fps) => sources.keyOwners(fps), requireSignedDirectories: false, directory: false });
          const status = successStatus('', fetched, selection.refused, nowMs, 900);
          await clients.createClient(
            { name: `bench source ${start + j}`, networkWhitelist: ['0.0.0.0'], roles: ['demo'], published: { source, keys: selection.keys, fetchedAt: at, status } },
            'bench',
          );
        }),
      );
    }
    const refresher = createKeySourceRefresher({ store: sources, fetch, nowMs: () => nowMs, refreshIntervalS: 900, requireSignedDirectories: false });
    const run = async (name: string): Promise<RefreshRunCost> => {
      nowMs += 900_000; // every source is due again
      recorded.length = 0;
      const started = performance.now();
      const cpuStart = process.cpuUsage();
      const summary = await refresher.refreshDue();
      const used = process.cpuUsage(cpuStart);
      const wallMs = performance.now() - started;
      if (summary.checked !== sourceCount) throw new Error(`${name}: checked ${summary.checked} of ${sourceCount} sources`);
      const calls: Record<string, number> = {};
      for (const r of recorded) calls[r.command] = (calls[r.command] ?? 0) + 1;
      return {
        name,
        summary,
        wallMs,
        cpuMs: (used.user + used.system) / 1000,
        calls,
        readUnits: recorded.reduce((sum, r) => sum + r.readUnits, 0),
        writeUnits: recorded.reduce((sum, r) => sum + r.writeUnits, 0),
      };
    };
    const unchanged = await run('unchanged (same keys at every source)');
    for (const keys of published.values()) keys.push(newJwk());
    const rotated = await run('rotated (every source adds a key)');
    return { sources: sourceCount, runs: [unchanged, rotated] };
  } finally {
    await new Promise((resolve) => server.close(resolve));
    sdk.destroy();
    await ddb.stop();
  }
}

/** USD per 1,000 sources refreshed, for a run of `sources` sources taking `wallMs`, with its consumed capacity. */
export function estimateRefreshCost(run: RefreshRunCost, sources: number, extraWallMs = 0): { lambdaUsd: number; dynamoUsd: number; totalUsd: number; gbSeconds: number } {
  const scale = 1000 / sources;
  const gbSeconds = ((Math.ceil(run.wallMs + extraWallMs) / 1000) * REFRESHER_MEMORY_MB) / 1024;
  const lambdaUsd = gbSeconds * ARM64_PRICE_PER_GB_S * scale;
  const dynamoUsd = ((run.writeUnits * DYNAMODB_PRICE_PER_MILLION_WRU + run.readUnits * DYNAMODB_PRICE_PER_MILLION_RRU) / 1e6) * scale;
  return { lambdaUsd, dynamoUsd, totalUsd: lambdaUsd + dynamoUsd, gbSeconds: gbSeconds * scale };
}

export function printKeySourceRefresh(cost: KeySourceRefreshCost): string[] {
  const internetMs = Math.ceil(cost.sources / DEFAULT_REFRESH_CONCURRENCY) * ASSUMED_FETCH_MS;
  return cost.runs.flatMap((run) => {
    const measured = estimateRefreshCost(run, cost.sources);
    const internet = estimateRefreshCost(run, cost.sources, internetMs);
    const s = run.summary;
    return [
      `${run.name}: ${s.checked} checked, ${s.refreshed} refreshed, ${s.unchanged} unchanged, ${s.failed} failed; +${s.keysAdded} / -${s.keysRemoved} keys`,
      `  wall ${(run.wallMs / 1000).toFixed(2)} s (${(run.wallMs / cost.sources).toFixed(2)} ms a source); CPU of the refresher's process ${(run.cpuMs / 1000).toFixed(2)} s`,
      `  DynamoDB: ${Object.entries(run.calls).map(([command, n]) => `${n} ${command.replace(/Command$/, '')}`).join(', ')}; ${run.readUnits.toFixed(0)} read units, ${run.writeUnits.toFixed(0)} write units`,
      `  per 1,000 sources: Lambda ${measured.gbSeconds.toFixed(2)} GB-s $${measured.lambdaUsd.toFixed(6)} + DynamoDB $${measured.dynamoUsd.toFixed(6)} = $${measured.totalUsd.toFixed(6)}` +
        ` (with ${ASSUMED_FETCH_MS} ms sources: +${(internetMs / 1000).toFixed(1)} s, $${internet.totalUsd.toFixed(6)})`,
    ];
  });
}

if (require.main === module) {
  void measureKeySourceRefresh().then((cost) => {
    for (const line of printKeySourceRefresh(cost)) console.log(line);
  });
}
