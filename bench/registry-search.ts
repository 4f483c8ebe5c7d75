/**
 * What one page of a registry search costs an account of 5,000 clients (the most a search reads,
 * MAX_SEARCHED_CLIENTS), against DynamoDB Local: the registry handler as the Lambda runs it
 * (createRegistryHandler, its log line swallowed), called by the account's admin.
 *
 *   plain    — `GET /registry/clients?limit=50`: one Query page and the page's keys' last use;
 *   search   — `?q=bench&limit=50`: the whole account read (Queries on the list index), matched,
 *              ordered, one page's keys' last use;
 *   lastUsed — `?q=bench&sort=lastUsedAt&limit=50`: the same, plus the last use of every match's
 *              keys (BatchGetItem, 100 keys a call).
 *
 * Per page: DynamoDB calls by command, items read, read capacity consumed (each call sent with
 * ReturnConsumedCapacity=TOTAL by a middleware on the handler's SDK client; DynamoDB Local computes
 * it as DynamoDB does: 4 KB per read unit, half for an eventually consistent read), wall time, and
 * the CPU time of this process (the registry's own work: DynamoDB Local is another process).
 * Each run is a different caller, so no run draws on another's search budget.
 *
 * Run alone: `npx tsx bench/registry-search.ts` (about a minute to register the clients).
 */
import { createHash, createPublicKey, randomBytes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { allowContext } from '../lambda/adapters/authorizer-context';
import { ACCOUNT_ADMIN_ROLE, DEFAULT_ROLE_CATALOGUE } from '../lambda/config-env';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../lambda/core/defaults';
import { compileRoleCatalogue } from '../lambda/core/role-policy';
import { MAX_SEARCHED_CLIENTS } from '../lambda/registry/client-search';
import { createRegistryHandler } from '../lambda/registry/registry-handler';
import { DynamoClientStore } from '../lambda/store/client-store';
import { ensureClientTable } from '../lambda/store/table-setup';
import { dynamoDbLocalClientConfig, startDynamoDbLocal } from '../local/dynamodb-local';
import { formatSummary, summarize, type LatencySummary } from './percentiles';

/** The title of this section in BENCHMARKS.md. */
export const REGISTRY_SEARCH_TITLE = 'Registry search: one page of an account of 5,000 clients (DynamoDB Local)';

export interface PageCost {
  readonly name: string;
  readonly query: string;
  /** DynamoDB calls per page, by command. */
  readonly calls: Readonly<Record<string, number>>;
  /** Items DynamoDB returned per page. */
  readonly items: number;
  /** Read capacity units consumed per page. */
  readonly readUnits: number;
  readonly wallMs: LatencySummary;
  /** CPU time of this process (the registry's own work; DynamoDB Local runs in another process). */
  readonly cpuMs: LatencySummary;
  /** Clients in the answer's `total` (a search), or on the page. */
  readonly total: number;
}

export interface RegistrySearchCost {
  readonly clients: number;
  readonly pages: readonly PageCost[];
}

interface Recorded {
  readonly command: string;
  readonly items: number;
  readonly readUnits: number;
}

const READS = new Set(['QueryCommand', 'GetItemCommand', 'BatchGetItemCommand', 'ScanCommand']);

export async function measureRegistrySearch(options: { clients?: number; runs?: number } = {}): Promise<RegistrySearchCost> {
  const clientCount = options.clients ?? MAX_SEARCHED_CLIENTS;
  const runs = options.runs ?? 7;
  const ddb = await startDynamoDbLocal();
  const sdk = new DynamoDBClient(dynamoDbLocalClientConfig(ddb.endpoint));
  const recorded: Recorded[] = [];
  sdk.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      input.ReturnConsumedCapacity = 'TOTAL';
      const result = await next(args);
      const output = result.output as { Items?: unknown[]; Item?: unknown; Responses?: Record<string, unknown[]>; ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] };
      const consumed = [output.ConsumedCapacity ?? []].flat().reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
      const items = output.Items?.length ?? (output.Item !== undefined ? 1 : 0) + Object.values(output.Responses ?? {}).reduce((sum, list) => sum + list.length, 0);
      recorded.push({ command: String(context.commandName), items, readUnits: READS.has(String(context.commandName)) ? consumed : 0 });
      return result;
    },
    { step: 'initialize', name: 'benchConsumedCapacity' },
  );
  try {
    const tableName = 'signet-bench-search';
    await ensureClientTable(sdk, tableName);
    const store = new DynamoClientStore({ tableName, client: sdk, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
    const account = await store.createAccount({ name: 'Bench partner', roleCeiling: ['demo'] }, 'bench');
    // Real-sized records: every client holds a 2048-bit RSA public key of its own (a key belongs to
    // one client only). Random odd moduli of the right size, made in microseconds where generating
    // 5,000 real key pairs would take minutes; the listing reads them as stored text either way.
    const spkiPemOf = (): string => {
      const n = randomBytes(256);
      n[0] |= 0x80;
      n[255] |= 0x01;
      const jwk = { kty: 'RSA', n: n.toString('base64url'), e: 'AQAB' };
      return createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string;
    };
    for (let start = 0; start < clientCount; start += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, clientCount - start) }, (_, j) =>
          store.createClient(
            {
              accountId: account.accountId,
              name: `bench partner ${start + j}`,
              networkWhitelist: ['203.0.113.0/24', '198.51.100.7'],
              roles: ['demo'],
              key: { fingerprint: createHash('sha256').update(`bench-search-${start + j}`).digest('base64url'), spkiPem: spkiPemOf() },
            },
            'bench',
          ),
        ),
      );
    }
    const handler = createRegistryHandler({
      store,
      roles: compileRoleCatalogue({ ...DEFAULT_ROLE_CATALOGUE, demo: ['* /api/*'] }),
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    let caller = 0;
    const page = async (query: string): Promise<{ status: number; body: { total?: number; clients?: unknown[] } }> => {
      caller++;
      const event = {
        version: '2.0',
        routeKey: '$default',
        rawPath: '/registry/clients',
        rawQueryString: query,
        headers: { host: 'bench.execute-api.eu-west-1.amazonaws.com' },
        requestContext: {
          http: { method: 'GET', path: '/registry/clients', protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'bench' },
          requestId: `bench-${caller}`,
          // The context the authorizer hands over for a signature that binds the request (built by its own function).
          authorizer: { lambda: allowContext({ clientId: `c_BenchAdmin${String(caller).padStart(12, '0')}`, roles: [ACCOUNT_ADMIN_ROLE], accountId: account.accountId, keyFingerprint: 'bench', profile: 'signet', requestBound: true }) },
        },
        isBase64Encoded: false,
      } as unknown as APIGatewayProxyEventV2;
      const answer = await handler(event);
      return { status: answer.statusCode, body: JSON.parse(answer.body) as { total?: number; clients?: unknown[] } };
    };
    const forms = [
      { name: 'plain listing', query: 'limit=50' },
      { name: 'search', query: 'q=bench&limit=50' },
      { name: 'search sorted by last use', query: 'q=bench&sort=lastUsedAt&limit=50' },
    ];
    const pages: PageCost[] = [];
    for (const form of forms) {
      await page(form.query); // warm-up, untimed
      const wall: number[] = [];
      const cpu: number[] = [];
      let last: Recorded[] = [];
      let total = 0;
      for (let run = 0; run < runs; run++) {
        recorded.length = 0;
        const started = performance.now();
        const cpuStart = process.cpuUsage();
        const answer = await page(form.query);
        const used = process.cpuUsage(cpuStart);
        wall.push(performance.now() - started);
        cpu.push((used.user + used.system) / 1000);
        if (answer.status !== 200) throw new Error(`${form.name} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`);
        total = answer.body.total ?? answer.body.clients?.length ?? 0;
        last = [...recorded];
      }
      const calls: Record<string, number> = {};
      for (const r of last) calls[r.command] = (calls[r.command] ?? 0) + 1;
      pages.push({
        name: form.name,
        query: form.query,
        calls,
        items: last.filter((r) => READS.has(r.command)).reduce((sum, r) => sum + r.items, 0),
        readUnits: last.reduce((sum, r) => sum + r.readUnits, 0),
        wallMs: summarize(wall),
        cpuMs: summarize(cpu),
        total,
      });
    }
    return { clients: clientCount, pages };
  } finally {
    sdk.destroy();
    await ddb.stop();
  }
}

export function printRegistrySearch(cost: RegistrySearchCost): string[] {
  return cost.pages.flatMap((p) => [
    `${p.name} (GET /registry/clients?${p.query}; ${p.total} ${p.name === 'plain listing' ? 'on the page' : 'matches'} of ${cost.clients} clients):`,
    `  per page: ${Object.entries(p.calls).map(([command, n]) => `${n} ${command.replace(/Command$/, '')}`).join(', ')}; ${p.items} items read, ${p.readUnits.toFixed(1)} read units`,
    `  wall ${formatSummary(p.wallMs, 'ms', 1)}; CPU of the registry's process ${formatSummary(p.cpuMs, 'ms', 1)}`,
  ]);
}

if (require.main === module) {
  void measureRegistrySearch().then((cost) => {
    for (const line of printRegistrySearch(cost)) console.log(line);
  });
}
