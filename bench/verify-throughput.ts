/**
 * Verify throughput on the same signed requests, three ways:
 *   core  — Signet's verifyRequest (parse Signature-Input/Signature, all policy checks, base, RSA verify)
 *   raw   — crypto.verify on the precomputed base with an imported KeyObject (the floor)
 *   peer  — the http-message-signatures package's verifyMessage
 * Prints ops/s for each and `ratio core/raw`, `ratio core/peer`.
 *
 * How it is measured, and why:
 * - The core is the code Lambda runs: lambda/core bundled by esbuild with the deployed options
 *   (bench/cold-init.ts DEPLOYED_ESBUILD_OPTIONS). Run from source through tsx, the same code is
 *   slower (tsx keeps function names with a wrapper per closure and reads every import through a
 *   getter); that figure is printed too, for reference.
 * - The machine is a VM on a shared host: the same loop's speed swings by ±15% from one second to
 *   the next (other tenants share the host's CPU caches), so contenders timed one after another
 *   see different machines. Here they take turns in batches of 50 calls (1-3 ms each), timed
 *   with the monotonic clock, so within a round every contender sees the same conditions. Each
 *   round gives an ops/s figure per contender; the figure reported is the median over the rounds,
 *   so a burst of noise moves one round, not the result. The spread of core/raw over the rounds
 *   is printed too, so a reader can see how settled the median is.
 */
import { constants, createPublicKey, verify as rsaVerify } from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { httpbis } from 'http-message-signatures';
import { generateRsaKeyPair } from '../lambda/core/keys';
import { median, percentile } from './percentiles';
import { signRequest } from '../lambda/core/sign';
import * as sourceCore from '../lambda/core/index';
import { SignedRequest } from '../lambda/core/types';
import { REPO_ROOT } from './authorizer-handler-loader';
import { DEPLOYED_ESBUILD_OPTIONS } from './cold-init';

export interface VerifyThroughput {
  /** The deployed (esbuild-bundled) core. Every ops/s figure is the median over the rounds. */
  coreOpsPerS: number;
  rawOpsPerS: number;
  peerOpsPerS: number;
  /** The core run from source through tsx (reference). */
  coreSourceOpsPerS: number;
  /** The deployed core when every request's Signature-Input is different (no memo hit). */
  coreDistinctInputOpsPerS: number;
  /**
   * Each ratio from its own pair's processes (see PAIRS), as the median over the rounds of the
   * ratio within each round: core/raw, core/peer, no-memo-hit core/raw, source core/raw.
   */
  coreRawRatio: number;
  corePeerRatio: number;
  distinctRawRatio: number;
  sourceRawRatio: number;
  /** Measuring processes per pair, rounds per contender in each, and the length of one round. */
  processes: number;
  rounds: number;
  roundMs: number;
  /** core/raw in each round: 10th and 90th percentiles over all rounds. */
  coreRawRoundRatio: { p10: number; p90: number };
  /** core/raw of each process (the median of its rounds' ratios). */
  coreRawPerProcess: number[];
}

const NOW = 1_800_000_000;

/** lambda/core bundled as deployed, loaded from a temporary file. */
function loadBundledCore(): typeof sourceCore {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-bench-core-'));
  try {
    const outfile = path.join(dir, 'core.js');
    buildSync({ ...DEPLOYED_ESBUILD_OPTIONS, entryPoints: [path.join(REPO_ROOT, 'lambda/core/index.ts')], outfile });
     
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

interface Fixture {
  readonly publicKeyPem: string;
  readonly fingerprint: string;
  readonly samples: readonly FixtureSample[];
  readonly distinctSamples: readonly FixtureSample[];
}

type Contender = 'raw' | 'core' | 'peer' | 'coreSource' | 'coreDistinct';
type PerRound = Record<Contender, number[]>;

/** The signed requests every measuring process reads, so that all of them time the same requests. */
function makeFixture(requests: number): Fixture {
  const pair = generateRsaKeyPair(2048);
  const makeSamples = (keyIdOf: (i: number) => string): FixtureSample[] =>
    Array.from({ length: requests }, (_, i) => {
      const url = `https://api.example.com/v1/orders/${i}?page=${i % 7}&q=a%20b`;
      const body = i % 2 === 0 ? JSON.stringify({ order: i, items: ['a', 'b'] }) : undefined;
      const signed = signRequest({ method: 'POST', url, body, keyId: keyIdOf(i), privateKey: pair.key, created: NOW - (i % 60) });
      const headers: Record<string, string> = { ...signed.headers, host: 'api.example.com', 'content-type': 'application/json' };
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      return { request: { method: 'POST', targetUri: url, headers }, base: Buffer.from(signed.base).toString('base64'), signature: signed.headers.signature.slice(5, -1) };
    });
  return {
    publicKeyPem: pair.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    fingerprint: pair.fingerprint,
    // One client signing over a minute: 60 distinct Signature-Input values (one per second) among the requests.
    samples: makeSamples(() => 'c_bench'),
    // Worst case for the core's Signature-Input memo: a different keyid, so a different value, every time.
    distinctSamples: makeSamples((i) => `c_bench_${i}`),
  };
}

/**
 * One measuring process: every contender over the fixture's requests, taking turns in batches of
 * 50 calls, for `rounds` rounds of about `roundMs` per contender. Returns each round's ops/s.
 */
async function measureRounds(fixture: Fixture, names: readonly Contender[], rounds: number, roundMs: number): Promise<Partial<PerRound>> {
  const bundledCore = loadBundledCore();
  // A second copy of the same bundle for the no-memo-hit contender: each copy has its own memos, as
  // each Lambda environment does, so the distinct values cannot evict the other contender's.
  const distinctCore = loadBundledCore();
  const publicKey = createPublicKey(fixture.publicKeyPem);
  const decode = (list: readonly FixtureSample[]) => list.map((s) => ({ request: s.request, base: Buffer.from(s.base, 'base64'), signature: Buffer.from(s.signature, 'base64') }));
  const samples = decode(fixture.samples);
  const distinctSamples = decode(fixture.distinctSamples);
  const policy = bundledCore.defaultVerifyPolicy({ nowS: () => NOW });
  const distinctPolicy = distinctCore.defaultVerifyPolicy({ nowS: () => NOW });
  const sourcePolicy = sourceCore.defaultVerifyPolicy({ nowS: () => NOW });
  const keys = [{ fingerprint: fixture.fingerprint, key: publicKey }];
  const resolve = () => keys;
  const peerKey = {
    id: 'c_bench',
    algs: ['rsa-v1_5-sha256'],
    verify: async (data: Buffer, signature: Buffer) => rsaVerify('sha256', data, { key: publicKey, padding: constants.RSA_PKCS1_PADDING }, signature),
  };
  const peerConfig = { keyLookup: async () => peerKey, requiredFields: ['@method', '@target-uri'], notAfter: new Date((NOW + 60) * 1000) };

  // Sanity: all contenders accept the samples before anything is timed.
  for (const [i, s] of samples.slice(0, 20).entries()) {
    await bundledCore.verifyRequest(s.request, policy, resolve);
    await distinctCore.verifyRequest(distinctSamples[i].request, distinctPolicy, resolve);
    await sourceCore.verifyRequest(s.request, sourcePolicy, resolve);
    if (!rsaVerify('sha256', s.base, { key: publicKey, padding: constants.RSA_PKCS1_PADDING }, s.signature)) throw new Error('raw rejected a sample');
    const peer = await httpbis.verifyMessage(peerConfig as never, { method: s.request.method, url: s.request.targetUri, headers: s.request.headers as Record<string, string> });
    if (peer !== true) throw new Error(`peer rejected a sample (${String(peer)})`);
  }

  const contenders: Record<Contender, (i: number) => unknown> = {
    raw: (i) => rsaVerify('sha256', samples[i].base, { key: publicKey, padding: constants.RSA_PKCS1_PADDING }, samples[i].signature),
    core: (i) => bundledCore.verifyRequest(samples[i].request, policy, resolve),
    peer: (i) => {
      const r = samples[i].request;
      return httpbis.verifyMessage(peerConfig as never, { method: r.method, url: r.targetUri, headers: r.headers as Record<string, string> });
    },
    coreSource: (i) => sourceCore.verifyRequest(samples[i].request, sourcePolicy, resolve),
    coreDistinct: (i) => distinctCore.verifyRequest(distinctSamples[i].request, distinctPolicy, resolve),
  };
  const perRound: Partial<PerRound> = Object.fromEntries(names.map((name) => [name, [] as number[]]));
  const BATCH = 50;
  let next = 0;
  for (let round = 0; round < rounds; round++) {
    const calls = Object.fromEntries(names.map((name) => [name, 0])) as Record<Contender, number>;
    const ns = Object.fromEntries(names.map((name) => [name, 0])) as Record<Contender, number>;
    const roundStart = process.hrtime.bigint();
    while (Number(process.hrtime.bigint() - roundStart) / 1e6 < roundMs * names.length) {
      for (const name of names) {
        const once = contenders[name];
        const start = process.hrtime.bigint();
        for (let j = 0; j < BATCH; j++) await once((next + j) % samples.length);
        ns[name] += Number(process.hrtime.bigint() - start);
        calls[name] += BATCH;
      }
      next += BATCH;
    }
    for (const name of names) perRound[name]?.push(calls[name] / (ns[name] / 1e9));
  }
  return perRound;
}

const CHILD_FLAG = '--verify-throughput-child';

/** Runs {@link measureRounds} in a fresh Node process (tsx, as `npm run bench` runs) and returns its rounds. */
function measureRoundsInChild(fixtureFile: string, names: readonly Contender[], rounds: number, roundMs: number): Promise<Partial<PerRound>> {
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
        resolve(JSON.parse(out.trim().split('\n').pop() as string) as Partial<PerRound>);
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
 * RSA code, which all of them run.
 */
const PAIRS = {
  coreRaw: ['raw', 'core'],
  corePeer: ['peer', 'core'],
  distinctRaw: ['raw', 'coreDistinct'],
  sourceRaw: ['raw', 'coreSource'],
} as const satisfies Record<string, readonly [Contender, Contender]>;

/**
 * Verify throughput over the same requests. Each pair of {@link PAIRS} is measured in `processes`
 * fresh Node processes one after another (so nothing else this benchmark run has loaded or
 * compiled shares their heap and JIT state, and the process-to-process spread shows), each running
 * `rounds` rounds. Every ops/s figure is the median over all rounds of that pair's processes.
 */
export async function measureVerifyThroughput(processes = 3, requests = 500, roundMs = 250, rounds = 12): Promise<VerifyThroughput> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-bench-verify-'));
  try {
    const fixtureFile = path.join(dir, 'fixture.json');
    fs.writeFileSync(fixtureFile, JSON.stringify(makeFixture(requests)));
    const measured = {} as Record<keyof typeof PAIRS, { runs: Partial<PerRound>[]; pooled: Partial<PerRound> }>;
    for (const [pair, names] of Object.entries(PAIRS) as [keyof typeof PAIRS, readonly Contender[]][]) {
      const runs: Partial<PerRound>[] = [];
      for (let p = 0; p < processes; p++) runs.push(await measureRoundsInChild(fixtureFile, names, rounds, roundMs));
      measured[pair] = { runs, pooled: Object.fromEntries(names.map((name) => [name, runs.flatMap((r) => r[name] ?? [])])) };
    }
    const ops = (pair: keyof typeof PAIRS, name: Contender) => median(measured[pair].pooled[name] ?? []);
    // A ratio is taken within each round (both contenders timed under the same conditions), then the
    // median over the rounds: a ratio of pooled medians would compare different processes' rounds.
    const roundRatios = (pair: keyof typeof PAIRS) => {
      const [b, a] = PAIRS[pair];
      const pooled = measured[pair].pooled;
      return (pooled[a] ?? []).map((x, i) => x / (pooled[b] ?? [])[i]).sort((x, y) => x - y);
    };
    const coreRawRounds = roundRatios('coreRaw');
    return {
      coreOpsPerS: ops('coreRaw', 'core'),
      rawOpsPerS: ops('coreRaw', 'raw'),
      peerOpsPerS: ops('corePeer', 'peer'),
      coreSourceOpsPerS: ops('sourceRaw', 'coreSource'),
      coreDistinctInputOpsPerS: ops('distinctRaw', 'coreDistinct'),
      coreRawRatio: median(coreRawRounds),
      corePeerRatio: median(roundRatios('corePeer')),
      distinctRawRatio: median(roundRatios('distinctRaw')),
      sourceRawRatio: median(roundRatios('sourceRaw')),
      processes,
      rounds,
      roundMs,
      coreRawRoundRatio: { p10: percentile(coreRawRounds, 10), p90: percentile(coreRawRounds, 90) },
      coreRawPerProcess: measured.coreRaw.runs.map((r) => median((r.core ?? []).map((core, i) => core / (r.raw ?? [])[i]))),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** CPU µs per call of each step of a verification, each timed alone in a tight loop (bundled core). */
export interface VerifySteps {
  readonly steps: readonly { readonly name: string; readonly us: number }[];
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
  const parsed = samples.map((s) => core.parseRequestSignature(s.request, policy));
  const time = (name: string, n: number, once: (i: number) => unknown) => {
    for (let i = 0; i < n / 5; i++) once(i % requests);
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < n; i++) once(i % requests);
    const cpu = process.cpuUsage(cpu0);
    return { name, us: (cpu.user + cpu.system) / n };
  };
  const steps = [
    time('raw crypto.verify', iterations / 4, (i) => rsaVerify('sha256', samples[i].base, { key: publicKey, padding: constants.RSA_PKCS1_PADDING }, samples[i].signature)),
    time('parseRequestSignature (all key-independent checks + base; memo hits)', iterations, (i) => core.parseRequestSignature(samples[i].request, policy)),
    time('  readSignatureInput (memo miss; canonical form: one-pass reader)', iterations, (i) => core.readSignatureInput(samples[i].request.headers['signature-input'] as string, 'sig')),
    time('  readSignatureValue (canonical form: base64 decode, decoded-length check)', iterations, (i) => core.readSignatureValue(samples[i].request.headers.signature as string, 'sig')),
    time('  checkContentDigestField (POST only; canonical form)', iterations, (i) => samples[i].request.headers['content-digest'] && core.checkContentDigestField(samples[i].request.headers['content-digest'] as string)),
    time('  parseHttpDate (memo miss)', iterations, (i) => core.parseHttpDate(samples[i].request.headers.date as string)),
    time('  buildSignatureBase', iterations, (i) => core.buildSignatureBase(samples[i].request, inputs[i].covered, inputs[i].signatureParams)),
    time('verifyParsedSignature (RSA + key selection)', iterations / 4, (i) => core.verifyParsedSignature(parsed[i], keys, policy)),
  ];
  return { steps };
}

export function printVerifySteps(r: VerifySteps): string[] {
  return r.steps.map((s) => `${s.name}: ${s.us.toFixed(2)} µs CPU`);
}

export function printVerifyThroughput(r: VerifyThroughput): string[] {
  return [
    `core verify: ${Math.round(r.coreOpsPerS)} ops/s`,
    `raw crypto.verify (KeyObject): ${Math.round(r.rawOpsPerS)} ops/s`,
    `http-message-signatures verifyMessage: ${Math.round(r.peerOpsPerS)} ops/s`,
    `ratio core/raw: ${r.coreRawRatio.toFixed(2)}`,
    `ratio core/peer: ${r.corePeerRatio.toFixed(2)}`,
    `  core/raw per round: p10 ${r.coreRawRoundRatio.p10.toFixed(2)}, p90 ${r.coreRawRoundRatio.p90.toFixed(2)}; per process: ${r.coreRawPerProcess.map((x) => x.toFixed(2)).join(', ')}`,
    `core verify, every Signature-Input distinct (no memo hit): ${Math.round(r.coreDistinctInputOpsPerS)} ops/s, ratio core/raw ${r.distinctRawRatio.toFixed(2)}`,
    `core verify from source under tsx: ${Math.round(r.coreSourceOpsPerS)} ops/s, ratio core/raw ${r.sourceRawRatio.toFixed(2)}`,
    `(ops/s: each pair timed alone, taking turns in batches of 50 calls, in ${r.processes} fresh processes × ${r.rounds} rounds of ~${r.roundMs} ms per contender; median over the rounds. "core" is lambda/core bundled by esbuild as deployed; 500 requests from one client over a minute, 60 distinct Signature-Input values)`,
  ];
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
  const steps = measureVerifySteps();
  measureVerifyThroughput().then((r) => console.log([...printVerifySteps(steps), ...printVerifyThroughput(r)].join('\n')));
}
