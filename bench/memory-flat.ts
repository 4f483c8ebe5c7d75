/**
 * Memory stays flat: 100,000 verifications across 10,000 distinct clients (plus a flood of
 * unknown keyids) through the authorizer's decision path — ClientDirectory (client cache,
 * negative cache, key cache) + authorize() — then 100,000 more, with RSS and heapUsed taken after
 * a full GC before, once every client has been seen (caches full), after 100k and after 200k.
 * V8's heap is flat from the moment the caches are full; RSS, which also counts native memory
 * the C allocator keeps after it is freed, can rise for a while after that, by an amount that
 * varies from run to run, so the second 100k is where "flat" is judged for RSS.
 *
 * This section measures the caches, not DynamoDB: the ClientReader is an in-memory stub that
 * generates a record per clientId on each read (a fresh object, as a store read would be). The
 * 10,000 clients share 16 RSA keys (generating 10,000 keys would take minutes); each client's
 * request is signed once and verified twenty times.
 *
 * Runs in its own `node --expose-gc` process so the baseline is clean and `gc()` is available.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ClientDirectory } from '../lambda/authorizer/client-directory';
import { authorize } from '../lambda/authorizer/authorize';
import { DEFAULT_CLIENT_CACHE_MAX_ENTRIES } from '../lambda/core/defaults';
import { PublicKeyCache, generateRsaKeyPair, spkiPemOf, type PrivateKeyInfo } from '../lambda/core/keys';
import { compileRoleCatalogue } from '../lambda/core/role-policy';
import { signRequest } from '../lambda/core/sign';
import type { SignedRequest } from '../lambda/core/types';
import { createVerifier, defaultVerifyPolicy } from '../lambda/core/verify';
import type { ClientReader } from '../lambda/domain/authorizer-ports';
import type { ClientRecord } from '../lambda/domain/client-record';
import { REPO_ROOT } from './authorizer-handler-loader';

export interface MemoryPoint {
  readonly label: string;
  readonly verifications: number;
  readonly rssMb: number;
  readonly heapUsedMb: number;
  readonly cachedClients: number;
  readonly cachedKeys: number;
}

export interface MemoryFlat {
  readonly points: readonly MemoryPoint[];
  readonly clients: number;
  /** Verifications of registered clients' requests. */
  readonly verifications: number;
  /** Extra decisions for never-seen keyids. */
  readonly unknownKeyIds: number;
  readonly allowed: number;
  readonly refused: Record<string, number>;
  readonly readerCalls: number;
  readonly cacheBound: number;
}

const CLIENTS = 10_000;
/** Verifications per client: 10 (the 100k the target names), then 10 more (the steady state). */
const ROUNDS = 20;
const KEYS = 16;
/** After the fill, one never-seen keyid (unknown_client, negative cache) per this many verifications. */
const UNKNOWN_EVERY = 10;
/** Never-seen keyids sent while filling: more than the negative cache holds. */
const UNKNOWN_FILL = 12_000;

function clientIdOf(i: number): string {
  return `c_bench${String(i).padStart(6, '0')}`;
}

/** Generates a record per known clientId, like a store read would: a new object every call. */
class GeneratingReader implements ClientReader {
  calls = 0;
  constructor(private readonly keys: readonly PrivateKeyInfo[], private readonly pems: readonly string[]) {}
  async getClient(clientId: string): Promise<ClientRecord | undefined> {
    this.calls += 1;
    const m = /^c_bench(\d{6})$/.exec(clientId);
    if (m === null || Number(m[1]) >= CLIENTS) return undefined;
    const k = Number(m[1]) % this.keys.length;
    return {
      clientId,
      accountId: 'acct_bench',
      name: `Bench client ${m[1]}`,
      status: 'active',
      networkWhitelist: ['203.0.113.0/24', '2001:db8::/32'],
      roles: ['partner'],
      keys: [{ fingerprint: this.keys[k].fingerprint, spkiPem: this.pems[k], addedAt: '2026-01-01T00:00:00.000Z' }],
      version: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
  }
  /** The bench's clients are found by clientId only. */
  async getClientByThumbprint(): Promise<undefined> {
    return undefined;
  }
}

function sample(label: string, verifications: number, directory: ClientDirectory, keyCache: PublicKeyCache): MemoryPoint {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with node --expose-gc');
  gc();
  gc();
  const { rss, heapUsed } = process.memoryUsage();
  return { label, verifications, rssMb: rss / 1048576, heapUsedMb: heapUsed / 1048576, cachedClients: directory.size, cachedKeys: keyCache.size };
}

/** The measurement itself (runs in the child process). */
async function runInThisProcess(): Promise<MemoryFlat> {
  const keys = Array.from({ length: KEYS }, () => generateRsaKeyPair(2048));
  const pems = keys.map((k) => spkiPemOf(k.publicKey));
  const reader = new GeneratingReader(keys, pems);
  const keyCache = new PublicKeyCache();
  const directory = new ClientDirectory(reader, { keyCache });
  const nowS = Math.floor(Date.now() / 1000);
  const deps = {
    verifier: createVerifier({ policy: defaultVerifyPolicy({ nowS: () => nowS }) }),
    directory,
    roles: compileRoleCatalogue({ partner: ['GET /api/*', 'POST /api/*'] }),
  };

  const requests: SignedRequest[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const url = `https://api.bench.example/api/orders/${i}?q=a%20b`;
    const body = i % 2 === 0 ? JSON.stringify({ order: i }) : undefined;
    const signed = signRequest({ method: body ? 'POST' : 'GET', url, body, keyId: clientIdOf(i), privateKey: keys[i % KEYS].key, created: nowS });
    const headers: Record<string, string> = { ...signed.headers, host: 'api.bench.example' };
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    requests.push({ method: body ? 'POST' : 'GET', targetUri: url, headers, sourceIp: '203.0.113.10' });
  }

  const refused: Record<string, number> = {};
  let allowed = 0;
  let verified = 0;
  let unknown = 0;
  const decide = async (request: SignedRequest): Promise<void> => {
    const decision = await authorize({ request, operationPath: '/api/orders' }, deps);
    if (decision.allowed) allowed += 1;
    else refused[decision.error.code] = (refused[decision.error.code] ?? 0) + 1;
  };
  /** A verification of client `i % CLIENTS`'s signed request. */
  const verifyKnown = async (i: number): Promise<void> => {
    await decide(requests[i % CLIENTS]);
    verified += 1;
  };
  /** A well-formed signature naming a keyid nobody registered; each one new (the negative cache's flood). */
  const tryUnknown = async (i: number): Promise<void> => {
    const request = requests[i % CLIENTS];
    const input = (request.headers['signature-input'] as string).replace(/keyid="[^"]*"/, `keyid="c_${randomBytes(12).toString('base64url')}"`);
    await decide({ ...request, headers: { ...request.headers, 'signature-input': input } });
    unknown += 1;
  };

  const points: MemoryPoint[] = [sample('before', 0, directory, keyCache)];
  // Fill: every client once, and more unknown keyids than the negative cache holds.
  for (let i = 0; i < CLIENTS; i++) await verifyKnown(i);
  for (let i = 0; i < UNKNOWN_FILL; i++) await tryUnknown(i);
  points.push(sample('caches full (every client seen, negative cache flooded)', verified, directory, keyCache));
  // The rest, with unknown keyids mixed in, sampled at 100k too.
  for (let i = CLIENTS; i < CLIENTS * ROUNDS; i++) {
    if (i === (CLIENTS * ROUNDS) / 2) points.push(sample('after 100k', verified, directory, keyCache));
    await verifyKnown(i);
    if (i % UNKNOWN_EVERY === 0) await tryUnknown(i);
  }
  points.push(sample('after 200k', verified, directory, keyCache));
  return {
    points,
    clients: CLIENTS,
    verifications: verified,
    unknownKeyIds: unknown,
    allowed,
    refused,
    readerCalls: reader.calls,
    cacheBound: DEFAULT_CLIENT_CACHE_MAX_ENTRIES,
  };
}

/** Runs the measurement in a fresh `node --expose-gc` process and returns its figures. */
export async function measureMemoryFlat(): Promise<MemoryFlat> {
  const out = execFileSync(process.execPath, ['--no-warnings', '--expose-gc', '-r', 'tsx/cjs', path.join(__dirname, 'memory-flat.ts'), '--child'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(out.trim().split('\n').pop() as string) as MemoryFlat;
}

export function printMemoryFlat(r: MemoryFlat): string[] {
  const [before, full, half, after] = r.points;
  const line = (p: MemoryPoint) =>
    `${p.label} (${p.verifications} verifications): RSS ${p.rssMb.toFixed(1)} MB, heapUsed ${p.heapUsedMb.toFixed(1)} MB, cached client entries ${p.cachedClients}, cached keys ${p.cachedKeys}`;
  const refusals = Object.entries(r.refused)
    .map(([code, n]) => `${code} ${n}`)
    .join(', ');
  return [
    '(stubbed in-memory ClientReader: this section measures the caches, not DynamoDB)',
    line(before),
    line(full),
    line(half),
    line(after),
    `delta caches-full → after (${after.verifications - full.verifications} more verifications): RSS ${(after.rssMb - full.rssMb).toFixed(1)} MB, heapUsed ${(after.heapUsedMb - full.heapUsedMb).toFixed(1)} MB`,
    `delta after 100k → after 200k (${after.verifications - half.verifications} more verifications, steady state): RSS ${(after.rssMb - half.rssMb).toFixed(1)} MB, heapUsed ${(after.heapUsedMb - half.heapUsedMb).toFixed(1)} MB`,
    `delta before → after: RSS ${(after.rssMb - before.rssMb).toFixed(1)} MB, heapUsed ${(after.heapUsedMb - before.heapUsedMb).toFixed(1)} MB (the filled caches themselves; bound ${r.cacheBound} entries each for known and unknown clientIds)`,
    `${r.verifications} verifications across ${r.clients} distinct clients (${r.allowed} allowed) + ${r.unknownKeyIds} never-seen keyids (refused: ${refusals || 'none'}); store reads ${r.readerCalls}`,
  ];
}

if (require.main === module) {
  if (process.argv.includes('--child')) {
    runInThisProcess().then((r) => console.log(JSON.stringify(r)));
  } else {
    measureMemoryFlat().then((r) => console.log(printMemoryFlat(r).join('\n')));
  }
}
