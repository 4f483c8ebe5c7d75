/**
 * Verify throughput on the same signed requests, for each signature algorithm (RFC 9421 §3.3:
 * rsa-v1_5-sha256, rsa-pss-sha512, ecdsa-p256-sha256, ecdsa-p384-sha384, ed25519), three ways:
 *   core  — Signet's Verifier.verify, on one verifier built up front as the authorizer builds it
 *           (parse Signature-Input/Signature, all policy checks, base, the
 *           key's algorithm's verify)
 *   raw   — crypto.verify on the precomputed base with an imported KeyObject of the same type and
 *           the algorithm's options (the floor)
 *   peer  — the http-message-signatures package's verifyMessage (rsa-v1_5-sha256 only)
 * Prints ops/s for each and `ratio core/raw` per algorithm, `ratio core/peer`.
 *
 * How it is measured, and why:
 * - The core is the code Lambda runs: lambda/core bundled by esbuild with the deployed options
 *   (bench/cold-init.ts DEPLOYED_ESBUILD_OPTIONS). Run from source through tsx, the same code is
 *   slower (tsx keeps function names with a wrapper per closure and reads every import through a
 *   getter); that figure is printed too, for reference (rsa-v1_5-sha256).
 * - The machine is a VM on a shared host: the same loop's speed swings by ±15% from one second to
 *   the next (other tenants share the host's CPU caches), so contenders timed one after another
 *   see different machines. Here they take turns in batches of 50 calls, timed with the monotonic
 *   clock, so within a round every contender sees the same conditions. Each round gives an ops/s
 *   figure per contender; the figure reported is the median over the rounds, so a burst of noise
 *   moves one round, not the result. The spread of core/raw over the rounds is printed too, so a
 *   reader can see how settled the median is.
 * - A contender that takes a request gets each batch's requests parsed from JSON just before the
 *   batch, untimed, as a Lambda's runtime parses its event just before the handler runs: their
 *   objects and strings are new and in the CPU's caches, and a string used as a map key is hashed
 *   anew. Request objects kept for the whole run would instead be timed coming back from memory:
 *   the no-memo-hit contender's ~4,900 requests (several MB) are each touched again only after all
 *   the others, and no longer fit in this machine's 4 MB L2 cache; no Lambda ever reads such a request.
 * - The requests are signed by Signet's signer (lambda/core/sign.ts) with the algorithm, which it
 *   sends as `alg`, and verified with the key registered for that algorithm
 *   (VerificationKey.algorithm set, as the authorizer passes the stored one).
 */
import { KeyObject, constants, createPublicKey, verify as nodeVerify } from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import inspector from 'node:inspector';
import os from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { httpbis } from 'http-message-signatures';
import { DEFAULT_RSA_ALGORITHM, SIGNATURE_ALGORITHMS, type SignatureAlgorithm } from '../lambda/core/algorithms';
import { type KeyTypeName, generateKeyPair, generateRsaKeyPair, importPublicKey } from '../lambda/core/keys';
import { median, percentile } from './percentiles';
import { signRequest } from '../lambda/core/sign';
import * as sourceCore from '../lambda/core/index';
import { SIGNATURE_INPUT_CHURN_PROBES_ONE_IN, SIGNATURE_INPUT_MEMO_ENTRIES } from '../lambda/core/verify';
import { SignedRequest } from '../lambda/core/types';
import { REPO_ROOT } from './authorizer-handler-loader';
import { DEPLOYED_ESBUILD_OPTIONS } from './cold-init';

/** One algorithm's figures. Every ops/s figure is the median over the rounds. */
export interface AlgorithmThroughput {
  readonly algorithm: SignatureAlgorithm;
  /** The key it was measured with: "RSA-2048", "ECDSA P-256", "Ed25519". */
  readonly keyType: string;
  /** The deployed (esbuild-bundled) core. */
  readonly coreOpsPerS: number;
  readonly rawOpsPerS: number;
  /** The deployed core when every request's Signature-Input is different (no memo hit). */
  readonly coreDistinctInputOpsPerS: number;
  /** core/raw: the median over the rounds of the ratio within each round (its own pair's processes). */
  readonly coreRawRatio: number;
  /** The same for the no-memo-hit core. */
  readonly distinctRawRatio: number;
  /** core/raw in each round: 10th and 90th percentiles over all rounds. */
  readonly coreRawRoundRatio: { readonly p10: number; readonly p90: number };
  readonly distinctRawRoundRatio: { readonly p10: number; readonly p90: number };
  /** core/raw of each process (the median of its rounds' ratios). */
  readonly coreRawPerProcess: readonly number[];
  /**
   * The same rounds with each batch timed in the process's CPU time (user + system, all threads)
   * instead of wall time: time the process was not scheduled, which on a loaded machine swings
   * wall figures several-fold, does not count. µs per call from the median ops/s.
   */
  readonly cpu: {
    readonly rawUs: number;
    readonly coreUs: number;
    readonly coreDistinctInputUs: number;
    readonly coreRawRatio: number;
    readonly distinctRawRatio: number;
    readonly coreRawRoundRatio: { readonly p10: number; readonly p90: number };
    readonly distinctRawRoundRatio: { readonly p10: number; readonly p90: number };
  };
}

export interface VerifyThroughput {
  /** One entry per algorithm, in SIGNATURE_ALGORITHMS order (rsa-v1_5-sha256 first). */
  readonly algorithms: readonly AlgorithmThroughput[];
  /** rsa-v1_5-sha256 against http-message-signatures: peer ops/s and core/peer (median of round ratios). */
  readonly peerOpsPerS: number;
  readonly corePeerRatio: number;
  /** rsa-v1_5-sha256, the core run from source through tsx (reference): ops/s and core/raw. */
  readonly coreSourceOpsPerS: number;
  readonly sourceRawRatio: number;
  /** Signed requests per algorithm, measuring processes per pair, rounds per contender in each, and the length of one round. */
  readonly requests: number;
  readonly processes: number;
  readonly rounds: number;
  readonly roundMs: number;
  /** The 1-minute load average before and after the measurement (the machine is shared). */
  readonly loadAvg: { readonly before: number; readonly after: number };
}

/** The figures of rsa-v1_5-sha256, the default algorithm (every key registered before other key types were accepted). */
export function rsaThroughput(r: VerifyThroughput): AlgorithmThroughput {
  const rsa = r.algorithms.find((a) => a.algorithm === DEFAULT_RSA_ALGORITHM);
  if (rsa === undefined) throw new Error(`no ${DEFAULT_RSA_ALGORITHM} figures`);
  return rsa;
}

/** The clock of every benchmark request (unix seconds). */
export const NOW = 1_800_000_000;

/** The key type that signs with each algorithm (RSA-2048 for both RSA ones). */
const KEY_TYPE: Readonly<Record<SignatureAlgorithm, KeyTypeName>> = {
  'rsa-v1_5-sha256': 'rsa',
  'rsa-pss-sha512': 'rsa',
  'ecdsa-p256-sha256': 'ecdsa-p256',
  'ecdsa-p384-sha384': 'ecdsa-p384',
  ed25519: 'ed25519',
};

/**
 * node:crypto's verify for an algorithm, called directly with its options (RFC 9421 §3.3.1-§3.3.6):
 * what a hand-written verifier holding the key and the base would call. Kept apart from
 * lambda/core/algorithms.ts on purpose: the floor must not share the core's code.
 */
export function rawVerifier(algorithm: SignatureAlgorithm, key: KeyObject): (data: Uint8Array, signature: Uint8Array) => boolean {
  switch (algorithm) {
    case 'rsa-v1_5-sha256':
      return (data, signature) => nodeVerify('sha256', data, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
    case 'rsa-pss-sha512':
      return (data, signature) => nodeVerify('sha512', data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 }, signature);
    case 'ecdsa-p256-sha256':
      return (data, signature) => nodeVerify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature);
    case 'ecdsa-p384-sha384':
      return (data, signature) => nodeVerify('sha384', data, { key, dsaEncoding: 'ieee-p1363' }, signature);
    case 'ed25519':
      return (data, signature) => nodeVerify(null, data, key, signature);
  }
}

/** lambda/core (by default this tree's; `entry`, another copy's index.ts) bundled as deployed, loaded from a temporary file. */
export function loadBundledCore(entry = path.join(REPO_ROOT, 'lambda/core/index.ts')): typeof sourceCore {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-bench-core-'));
  try {
    const outfile = path.join(dir, 'core.js');
    buildSync({ ...DEPLOYED_ESBUILD_OPTIONS, entryPoints: [entry], outfile });

    return require(outfile) as typeof sourceCore;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

interface FixtureSample {
  readonly request: SignedRequest;
  /** The signature base and the signature bytes, base64, for the raw contender. */
  readonly base: string;
  readonly signature: string;
}

export interface Fixture {
  readonly algorithm: SignatureAlgorithm;
  readonly keyType: string;
  readonly publicKeyPem: string;
  readonly samples: readonly FixtureSample[];
  readonly distinctSamples: readonly FixtureSample[];
}

type Contender = 'raw' | 'core' | 'peer' | 'coreSource' | 'coreDistinct';
/** How a batch is timed: wall time (the monotonic clock), or the process's CPU time (user + system). */
type Clock = 'wall' | 'cpu';
/** Each round's ops/s per contender and clock (`core` wall, `core@cpu` CPU). */
type PerRound = Partial<Record<`${Contender}` | `${Contender}@cpu`, number[]>>;
const series = (name: Contender, clock: Clock) => (clock === 'wall' ? name : (`${name}@cpu` as const));

/**
 * How many requests the "no memo hit" contender cycles through, each with a keyid of its own: more
 * than the Signature-Input memo can reach, so that no value is ever found in it again. The memo
 * holds at most SIGNATURE_INPUT_MEMO_ENTRIES values, and while every value is new only one request
 * in SIGNATURE_INPUT_CHURN_PROBES_ONE_IN looks its value up and keeps it: a value kept is gone
 * before the cycle brings it back.
 * (With 500 requests, as the memo-hit contender has, about 3 requests in 10 found their value.)
 */
export const NO_MEMO_HIT_REQUESTS = Math.ceil(1.2 * SIGNATURE_INPUT_MEMO_ENTRIES * SIGNATURE_INPUT_CHURN_PROBES_ONE_IN);

/** The signed requests every measuring process of one algorithm reads, so that all of them time the same requests. */
export function makeFixture(algorithm: SignatureAlgorithm, requests: number, distinctRequests = NO_MEMO_HIT_REQUESTS): Fixture {
  const pair = generateKeyPair(KEY_TYPE[algorithm]);
  const makeSamples = (count: number, keyIdOf: (i: number) => string): FixtureSample[] =>
    Array.from({ length: count }, (_, i) => {
      const url = `https://api.example.com/v1/orders/${i}?page=${i % 7}&q=a%20b`;
      const body = i % 2 === 0 ? JSON.stringify({ order: i, items: ['a', 'b'] }) : undefined;
      const signed = signRequest({ method: 'POST', url, body, keyId: keyIdOf(i), privateKey: pair.key, algorithm, created: NOW - (i % 60) });
      const headers: Record<string, string> = { ...signed.headers, host: 'api.example.com', 'content-type': 'application/json' };
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      return { request: { method: 'POST', targetUri: url, headers }, base: Buffer.from(signed.base).toString('base64'), signature: signed.headers.signature.slice(5, -1) };
    });
  return {
    algorithm,
    keyType: pair.keyType,
    publicKeyPem: pair.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    // One client signing over a minute: 60 distinct Signature-Input values (one per second) among the requests.
    samples: makeSamples(requests, () => 'c_bench'),
    // Worst case for the core's Signature-Input memo: a different keyid, so a different value, every time, never found again.
    distinctSamples: makeSamples(distinctRequests, (i) => `c_bench_${i}`),
  };
}

/**
 * One measuring process: every contender over the fixture's requests, taking turns in batches of
 * 50 calls, for `rounds` rounds of about `roundMs` per contender. Returns each round's ops/s.
 */
async function measureRounds(fixture: Fixture, names: readonly Contender[], rounds: number, roundMs: number): Promise<PerRound> {
  const bundledCore = loadBundledCore();
  // A second copy of the same bundle for the no-memo-hit contender: each copy has its own memos, as
  // each Lambda environment does, so the distinct values cannot evict the other contender's.
  const distinctCore = loadBundledCore();
  // The key as the authorizer holds it: imported for its registered algorithm.
  const imported = importPublicKey(fixture.publicKeyPem, fixture.algorithm);
  const publicKey = imported.key;
  const rawVerify = rawVerifier(fixture.algorithm, publicKey);
  const decode = (list: readonly FixtureSample[]) => list.map((s) => ({ request: s.request, base: Buffer.from(s.base, 'base64'), signature: Buffer.from(s.signature, 'base64') }));
  const samples = decode(fixture.samples);
  const distinctSamples = decode(fixture.distinctSamples);
  const verifierOf = (core: typeof sourceCore) => core.createVerifier({ policy: core.defaultVerifyPolicy({ nowS: () => NOW }), resolveKeys: resolve });
  const keys = [{ fingerprint: imported.fingerprint, key: publicKey, algorithm: imported.algorithm }];
  const resolve = () => keys;
  const verifier = verifierOf(bundledCore);
  // Its own verifier, as each Lambda environment has its own: the distinct values cannot evict the other contender's.
  const distinctVerifier = verifierOf(distinctCore);
  const sourceVerifier = verifierOf(sourceCore);
  const peerKey = {
    id: 'c_bench',
    algs: ['rsa-v1_5-sha256'],
    verify: async (data: Buffer, signature: Buffer) => nodeVerify('sha256', data, { key: publicKey, padding: constants.RSA_PKCS1_PADDING }, signature),
  };
  const peerConfig = { keyLookup: async () => peerKey, requiredFields: ['@method', '@target-uri'], notAfter: new Date((NOW + 60) * 1000) };
  const peerVerify = (request: SignedRequest) =>
    httpbis.verifyMessage(peerConfig as never, { method: request.method, url: request.targetUri, headers: request.headers as Record<string, string> });

  // Sanity: every contender timed accepts the samples before anything is timed.
  for (const [i, s] of samples.slice(0, 20).entries()) {
    if (names.includes('core')) await verifier.verify(s.request);
    if (names.includes('coreDistinct')) await distinctVerifier.verify(distinctSamples[i].request);
    if (names.includes('coreSource')) await sourceVerifier.verify(s.request);
    if (!rawVerify(s.base, s.signature)) throw new Error(`raw ${fixture.algorithm} rejected a sample`);
    if (names.includes('peer')) {
      const peer = await peerVerify(s.request);
      if (peer !== true) throw new Error(`peer rejected a sample (${String(peer)})`);
    }
  }

  // Each contender cycles through its own requests, with a running count. One that takes a request
  // gets it as a Lambda gets its event: parsed from JSON just before its batch, untimed (see the
  // file's header). Raw crypto.verify keeps its precomputed bases and signatures.
  const BATCH = 50;
  const n = samples.length;
  const asJson = (list: readonly { request: SignedRequest }[]) => list.map((s) => JSON.stringify(s.request));
  const sampleJson = asJson(samples);
  const requestsOf: Record<Contender, readonly string[] | undefined> = { raw: undefined, core: sampleJson, peer: sampleJson, coreSource: sampleJson, coreDistinct: asJson(distinctSamples) };
  const batch = new Array<SignedRequest>(BATCH);
  const contenders: Record<Contender, (i: number, j: number) => unknown> = {
    raw: (i) => rawVerify(samples[i % n].base, samples[i % n].signature),
    core: (_i, j) => verifier.verify(batch[j]),
    peer: (_i, j) => peerVerify(batch[j]),
    coreSource: (_i, j) => sourceVerifier.verify(batch[j]),
    coreDistinct: (_i, j) => distinctVerifier.verify(batch[j]),
  };
  const perRound: PerRound = {};
  let next = 0;
  for (let round = 0; round < rounds; round++) {
    const calls = Object.fromEntries(names.map((name) => [name, 0])) as Record<Contender, number>;
    const ns = Object.fromEntries(names.map((name) => [name, 0])) as Record<Contender, number>;
    const cpuUs = Object.fromEntries(names.map((name) => [name, 0])) as Record<Contender, number>;
    const roundStart = process.hrtime.bigint();
    while (Number(process.hrtime.bigint() - roundStart) / 1e6 < roundMs * names.length) {
      for (const name of names) {
        const once = contenders[name];
        const requests = requestsOf[name];
        if (requests !== undefined) for (let j = 0; j < BATCH; j++) batch[j] = JSON.parse(requests[(next + j) % requests.length]) as SignedRequest;
        const cpu = process.cpuUsage();
        const start = process.hrtime.bigint();
        for (let j = 0; j < BATCH; j++) await once(next + j, j);
        ns[name] += Number(process.hrtime.bigint() - start);
        const used = process.cpuUsage(cpu);
        cpuUs[name] += used.user + used.system;
        calls[name] += BATCH;
      }
      next += BATCH;
    }
    for (const name of names) {
      (perRound[series(name, 'wall')] ??= []).push(calls[name] / (ns[name] / 1e9));
      (perRound[series(name, 'cpu')] ??= []).push(calls[name] / (cpuUs[name] / 1e6));
    }
  }
  return perRound;
}

const CHILD_FLAG = '--verify-throughput-child';

/** Runs {@link measureRounds} in a fresh Node process (tsx, as `npm run bench` runs) and returns its rounds. */
function measureRoundsInChild(fixtureFile: string, names: readonly Contender[], rounds: number, roundMs: number): Promise<PerRound> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-warnings', '-r', 'tsx/cjs', __filename, CHILD_FLAG, fixtureFile, names.join(','), String(rounds), String(roundMs)], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`measuring process exited with ${code}: ${err.trim()}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() as string) as PerRound);
      } catch (error) {
        reject(new Error(`measuring process printed no figures (${String(error)}): ${err.trim()}`));
      }
    });
  });
}

/**
 * The pairs timed against each other, [denominator, numerator]. Each pair runs alone in its
 * processes, so a ratio compares exactly two things: with every contender taking turns, each
 * one's code would be evicted from the CPU caches by the others' at every turn, except OpenSSL's
 * code, which all of them run. The last two pairs are measured for rsa-v1_5-sha256 only.
 */
const PAIRS = {
  coreRaw: ['raw', 'core'],
  distinctRaw: ['raw', 'coreDistinct'],
  corePeer: ['peer', 'core'],
  sourceRaw: ['raw', 'coreSource'],
} as const satisfies Record<string, readonly [Contender, Contender]>;

type PairName = keyof typeof PAIRS;

const PAIRS_EVERY_ALGORITHM: readonly PairName[] = ['coreRaw', 'distinctRaw'];
const PAIRS_RSA_ONLY: readonly PairName[] = ['corePeer', 'sourceRaw'];

interface PairMeasurement {
  readonly runs: PerRound[];
  readonly pooled: PerRound;
}

/** Measures one pair in `processes` fresh processes, one after another. */
async function measurePair(fixtureFile: string, pair: PairName, processes: number, rounds: number, roundMs: number): Promise<PairMeasurement> {
  const names = PAIRS[pair];
  const runs: PerRound[] = [];
  for (let p = 0; p < processes; p++) runs.push(await measureRoundsInChild(fixtureFile, names, rounds, roundMs));
  const keys = names.flatMap((name) => [series(name, 'wall'), series(name, 'cpu')]);
  return { runs, pooled: Object.fromEntries(keys.map((key) => [key, runs.flatMap((r) => r[key] ?? [])])) };
}

/**
 * A pair's ratio numerator/denominator within each round (both contenders timed under the same
 * conditions), sorted: the median of these is reported, not a ratio of pooled medians, which
 * would compare different processes' rounds.
 */
function roundRatios(pair: PairName, rounds: PerRound, clock: Clock = 'wall'): number[] {
  const [b, a] = PAIRS[pair];
  const den = rounds[series(b, clock)] ?? [];
  return (rounds[series(a, clock)] ?? []).map((x, i) => x / den[i]).sort((x, y) => x - y);
}

const spread = (sorted: readonly number[]) => ({ p10: percentile(sorted, 10), p90: percentile(sorted, 90) });

/**
 * Verify throughput over the same requests, for each algorithm. Each pair of {@link PAIRS} is
 * measured in `processes` fresh Node processes one after another (so nothing else this benchmark
 * run has loaded or compiled shares their heap and JIT state, and the process-to-process spread
 * shows), each running `rounds` rounds. Every ops/s figure is the median over all rounds of that
 * pair's processes.
 */
export async function measureVerifyThroughput(
  processes = 3,
  requests = 500,
  roundMs = 250,
  rounds = 12,
  algorithms: readonly SignatureAlgorithm[] = SIGNATURE_ALGORITHMS,
): Promise<VerifyThroughput> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-bench-verify-'));
  const loadBefore = os.loadavg()[0];
  try {
    const results: AlgorithmThroughput[] = [];
    let peer = { peerOpsPerS: Number.NaN, corePeerRatio: Number.NaN, coreSourceOpsPerS: Number.NaN, sourceRawRatio: Number.NaN };
    for (const algorithm of algorithms) {
      const fixture = makeFixture(algorithm, requests);
      const fixtureFile = path.join(dir, `fixture-${algorithm}.json`);
      fs.writeFileSync(fixtureFile, JSON.stringify(fixture));
      const measured: Partial<Record<PairName, PairMeasurement>> = {};
      const pairs = algorithm === DEFAULT_RSA_ALGORITHM ? [...PAIRS_EVERY_ALGORITHM, ...PAIRS_RSA_ONLY] : PAIRS_EVERY_ALGORITHM;
      for (const pair of pairs) measured[pair] = await measurePair(fixtureFile, pair, processes, rounds, roundMs);
      const get = (pair: PairName): PairMeasurement => measured[pair] as PairMeasurement;
      const ops = (pair: PairName, name: Contender, clock: Clock = 'wall') => median(get(pair).pooled[series(name, clock)] ?? []);
      const coreRawRounds = roundRatios('coreRaw', get('coreRaw').pooled);
      const distinctRawRounds = roundRatios('distinctRaw', get('distinctRaw').pooled);
      const coreRawCpuRounds = roundRatios('coreRaw', get('coreRaw').pooled, 'cpu');
      const distinctRawCpuRounds = roundRatios('distinctRaw', get('distinctRaw').pooled, 'cpu');
      results.push({
        algorithm,
        keyType: fixture.keyType,
        coreOpsPerS: ops('coreRaw', 'core'),
        rawOpsPerS: ops('coreRaw', 'raw'),
        coreDistinctInputOpsPerS: ops('distinctRaw', 'coreDistinct'),
        coreRawRatio: median(coreRawRounds),
        distinctRawRatio: median(distinctRawRounds),
        coreRawRoundRatio: spread(coreRawRounds),
        distinctRawRoundRatio: spread(distinctRawRounds),
        coreRawPerProcess: get('coreRaw').runs.map((r) => median(roundRatios('coreRaw', r))),
        cpu: {
          rawUs: 1e6 / ops('coreRaw', 'raw', 'cpu'),
          coreUs: 1e6 / ops('coreRaw', 'core', 'cpu'),
          coreDistinctInputUs: 1e6 / ops('distinctRaw', 'coreDistinct', 'cpu'),
          coreRawRatio: median(coreRawCpuRounds),
          distinctRawRatio: median(distinctRawCpuRounds),
          coreRawRoundRatio: spread(coreRawCpuRounds),
          distinctRawRoundRatio: spread(distinctRawCpuRounds),
        },
      });
      if (algorithm === DEFAULT_RSA_ALGORITHM) {
        peer = {
          peerOpsPerS: ops('corePeer', 'peer'),
          corePeerRatio: median(roundRatios('corePeer', get('corePeer').pooled)),
          coreSourceOpsPerS: ops('sourceRaw', 'coreSource'),
          sourceRawRatio: median(roundRatios('sourceRaw', get('sourceRaw').pooled)),
        };
      }
    }
    return { algorithms: results, ...peer, requests, processes, rounds, roundMs, loadAvg: { before: loadBefore, after: os.loadavg()[0] } };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** CPU µs per call of each step of a verification, each timed alone in a tight loop (bundled core). */
export interface VerifySteps {
  readonly steps: readonly { readonly name: string; readonly us: number }[];
  /** Bytes allocated per call, rsa-v1_5-sha256 (see {@link measureVerifyAllocation}). */
  readonly allocation?: VerifyAllocation;
}

/** Bytes allocated on V8's heap per call: raw crypto.verify, and a whole Verifier.verify with and without a memo hit. */
export interface VerifyAllocation {
  readonly rawBytes: number;
  readonly hitBytes: number;
  readonly missBytes: number;
}

/**
 * Where the non-RSA time of a verification goes: each step of verifyRequest timed on its own over
 * the same requests (the memo is bypassed for readSignatureInput, which is what a miss costs).
 * In a tight loop a step runs with warm caches; interleaved with RSA in a real verification the
 * same steps cost more, which is why the sum is below the measured core − raw difference.
 */
export function measureVerifySteps(requests = 500, iterations = 60_000): VerifySteps {
  const core = loadBundledCore();
  const pair = generateRsaKeyPair(2048);
  const publicKey = createPublicKey(pair.key);
  const samples = Array.from({ length: requests }, (_, i) => {
    const url = `https://api.example.com/v1/orders/${i}?page=${i % 7}&q=a%20b`;
    const body = i % 2 === 0 ? JSON.stringify({ order: i, items: ['a', 'b'] }) : undefined;
    const signed = signRequest({ method: 'POST', url, body, keyId: 'c_bench', privateKey: pair.key, created: NOW - (i % 60) });
    const headers: Record<string, string> = { ...signed.headers, host: 'api.example.com', 'content-type': 'application/json' };
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    return { request: { method: 'POST', targetUri: url, headers } as SignedRequest, base: Buffer.from(signed.base), signature: Buffer.from(signed.headers.signature.slice(5, -1), 'base64') };
  });
  const policy = core.defaultVerifyPolicy({ nowS: () => NOW });
  const keys = [{ fingerprint: pair.fingerprint, key: publicKey }];
  const inputs = samples.map((s) => core.readSignatureInput(s.request.headers['signature-input'] as string, 'sig'));
  const verifier = core.createVerifier({ policy });
  const parsed = samples.map((s) => verifier.parse(verifier.read(s.request)));
  const time = (name: string, n: number, once: (i: number) => unknown) => {
    for (let i = 0; i < n / 5; i++) once(i % requests);
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < n; i++) once(i % requests);
    const cpu = process.cpuUsage(cpu0);
    return { name, us: (cpu.user + cpu.system) / n };
  };
  const steps = [
    time('raw crypto.verify', iterations / 4, (i) => nodeVerify('sha256', samples[i].base, { key: publicKey, padding: constants.RSA_PKCS1_PADDING }, samples[i].signature)),
    time('Verifier.parse (all key-independent checks + base; memo hits)', iterations, (i) => verifier.parse(verifier.read(samples[i].request))),
    time('  readSignatureInput (memo miss; canonical form: one-pass reader)', iterations, (i) => core.readSignatureInput(samples[i].request.headers['signature-input'] as string, 'sig')),
    time('  readSignatureValue (canonical form: base64 decode, decoded-length check)', iterations, (i) => core.readSignatureValue(samples[i].request.headers.signature as string, 'sig')),
    time('  checkContentDigestField (POST only; canonical form)', iterations, (i) => samples[i].request.headers['content-digest'] && core.checkContentDigestField(samples[i].request.headers['content-digest'] as string)),
    time('  parseHttpDate (memo miss)', iterations, (i) => core.parseHttpDate(samples[i].request.headers.date as string)),
    time('  buildSignatureBase', iterations, (i) => core.buildSignatureBase(samples[i].request, inputs[i].covered, inputs[i].signatureParams)),
    time('Verifier.verifyParsed (RSA + key selection)', iterations / 4, (i) => verifier.verifyParsed(parsed[i], keys)),
  ];
  return { steps };
}

/**
 * What a verification allocates, in bytes per call: unlike time, this does not change with how
 * busy the host is, so it shows what a change to the verifier saves even on a noisy machine.
 * V8's sampling heap profiler (through the inspector), keeping the objects collected since, over
 * `calls` calls after a warm-up: raw crypto.verify and the bundled core's Verifier.verify, on the
 * throughput benchmark's requests (one client, 60 Signature-Input values; for "no memo hit",
 * NO_MEMO_HIT_REQUESTS requests with a keyid each). The benchmark's own await per call counts for every contender.
 */
export async function measureVerifyAllocation(calls = 20_000): Promise<VerifyAllocation> {
  const core = loadBundledCore();
  const fixture = makeFixture(DEFAULT_RSA_ALGORITHM, 500);
  const imported = importPublicKey(fixture.publicKeyPem, DEFAULT_RSA_ALGORITHM);
  const keys = [{ fingerprint: imported.fingerprint, key: imported.key, algorithm: imported.algorithm }];
  const verifier = () => core.createVerifier({ policy: core.defaultVerifyPolicy({ nowS: () => NOW }), resolveKeys: () => keys });
  const rawVerify = rawVerifier(DEFAULT_RSA_ALGORITHM, imported.key);
  const raw = fixture.samples.map((s) => ({ base: Buffer.from(s.base, 'base64'), signature: Buffer.from(s.signature, 'base64') }));
  const hit = verifier();
  const miss = verifier();
  const session = new inspector.Session();
  session.connect();
  const post = <T>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T))));
  type ProfileNode = { selfSize: number; children: ProfileNode[] };
  const total = (node: ProfileNode): number => node.selfSize + node.children.reduce((sum, child) => sum + total(child), 0);
  const perCall = async (once: (i: number) => unknown): Promise<number> => {
    for (let i = 0; i < 2_000; i++) await once(i);
    await post('HeapProfiler.startSampling', { samplingInterval: 64, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    for (let i = 2_000; i < 2_000 + calls; i++) await once(i);
    const { profile } = await post<{ profile: { head: ProfileNode } }>('HeapProfiler.stopSampling');
    return total(profile.head) / calls;
  };
  try {
    return {
      rawBytes: await perCall((i) => rawVerify(raw[i % raw.length].base, raw[i % raw.length].signature)),
      hitBytes: await perCall((i) => hit.verify(fixture.samples[i % fixture.samples.length].request)),
      missBytes: await perCall((i) => miss.verify(fixture.distinctSamples[i % fixture.distinctSamples.length].request)),
    };
  } finally {
    session.disconnect();
  }
}

/** {@link measureVerifySteps}, with {@link measureVerifyAllocation}'s figures. */
export async function measureVerifyStepsAndAllocation(): Promise<VerifySteps> {
  const steps = measureVerifySteps();
  return { ...steps, allocation: await measureVerifyAllocation() };
}

export function printVerifySteps(r: VerifySteps): string[] {
  const lines = r.steps.map((s) => `${s.name}: ${s.us.toFixed(2)} µs CPU`);
  const a = r.allocation;
  if (a !== undefined) {
    lines.push(`allocated per call (${DEFAULT_RSA_ALGORITHM}): raw crypto.verify ${Math.round(a.rawBytes)} B, Verifier.verify with a memo hit ${Math.round(a.hitBytes)} B, with no memo hit ${Math.round(a.missBytes)} B`);
  }
  return lines;
}

const us = (opsPerS: number): string => `${(1e6 / opsPerS).toFixed(1)} µs`;

export function printVerifyThroughput(r: VerifyThroughput): string[] {
  const lines: string[] = [];
  for (const a of r.algorithms) {
    lines.push(
      `${a.algorithm} (${a.keyType}): raw crypto.verify ${Math.round(a.rawOpsPerS)} ops/s (${us(a.rawOpsPerS)}), core verify ${Math.round(a.coreOpsPerS)} ops/s (${us(a.coreOpsPerS)})`,
      `  ratio core/raw ${a.coreRawRatio.toFixed(2)}; per round p10 ${a.coreRawRoundRatio.p10.toFixed(2)}, p90 ${a.coreRawRoundRatio.p90.toFixed(2)}; per process ${a.coreRawPerProcess.map((x) => x.toFixed(2)).join(', ')}`,
      `  every Signature-Input distinct (no memo hit): ${Math.round(a.coreDistinctInputOpsPerS)} ops/s (${us(a.coreDistinctInputOpsPerS)}), ratio core/raw ${a.distinctRawRatio.toFixed(2)}; per round p10 ${a.distinctRawRoundRatio.p10.toFixed(2)}, p90 ${a.distinctRawRoundRatio.p90.toFixed(2)}`,
      `  in CPU time: raw ${a.cpu.rawUs.toFixed(1)} µs, core ${a.cpu.coreUs.toFixed(1)} µs, ratio core/raw ${a.cpu.coreRawRatio.toFixed(2)} ` +
        `(p10 ${a.cpu.coreRawRoundRatio.p10.toFixed(2)}, p90 ${a.cpu.coreRawRoundRatio.p90.toFixed(2)}); no memo hit ${a.cpu.coreDistinctInputUs.toFixed(1)} µs, ` +
        `ratio ${a.cpu.distinctRawRatio.toFixed(2)} (p10 ${a.cpu.distinctRawRoundRatio.p10.toFixed(2)}, p90 ${a.cpu.distinctRawRoundRatio.p90.toFixed(2)})`
    );
  }
  if (Number.isFinite(r.peerOpsPerS)) {
    lines.push(
      `${DEFAULT_RSA_ALGORITHM}: http-message-signatures verifyMessage ${Math.round(r.peerOpsPerS)} ops/s, ratio core/peer ${r.corePeerRatio.toFixed(2)}`,
      `${DEFAULT_RSA_ALGORITHM}: core verify from source under tsx ${Math.round(r.coreSourceOpsPerS)} ops/s, ratio core/raw ${r.sourceRawRatio.toFixed(2)}`,
    );
  }
  lines.push(
    `(ops/s: each pair timed alone, taking turns in batches of 50 calls, in ${r.processes} fresh processes × ${r.rounds} rounds of ~${r.roundMs} ms per contender; ` +
      `median over the rounds. "core" is lambda/core bundled by esbuild as deployed; per algorithm ${r.requests} requests from one client over a minute, ` +
      `60 distinct Signature-Input values; "no memo hit": ${NO_MEMO_HIT_REQUESTS} requests with a keyid each, none found in the memo again; each request parsed from JSON just before its batch, as a Lambda's event is; ` +
      `load average ${r.loadAvg.before.toFixed(2)} before, ${r.loadAvg.after.toFixed(2)} after)`
  );
  return lines;
}

if (require.main === module && process.argv[2] === CHILD_FLAG) {
  const [fixtureFile, names, rounds, roundMs] = process.argv.slice(3);
  const fixture = JSON.parse(fs.readFileSync(fixtureFile, 'utf8')) as Fixture;
  measureRounds(fixture, names.split(',') as Contender[], Number(rounds), Number(roundMs)).then(
    (perRound) => console.log(JSON.stringify(perRound)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
} else if (require.main === module) {
  // `npx tsx bench/verify-throughput.ts [algorithm ...]`: the named algorithms only (default: all).
  const named = process.argv.slice(2);
  const unknown = named.filter((name) => !(SIGNATURE_ALGORITHMS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`unknown algorithm ${unknown.join(', ')}; use ${SIGNATURE_ALGORITHMS.join(', ')}`);
  measureVerifyStepsAndAllocation().then(async (steps) => {
    const r = await measureVerifyThroughput(3, 500, 250, 12, named.length > 0 ? (named as SignatureAlgorithm[]) : SIGNATURE_ALGORITHMS);
    console.log([...printVerifySteps(steps), ...printVerifyThroughput(r)].join('\n'));
  });
}
