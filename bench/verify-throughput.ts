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
 * - ops/s are per CPU-second of this process (process.cpuUsage), not per wall-clock second: the
 *   machine is shared, and wall time would count the time other processes held the CPU. The three
 *   contenders run in short alternating rounds so drift affects them alike.
 */
import { constants, createPublicKey, verify as rsaVerify } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { httpbis } from 'http-message-signatures';
import { generateRsaKeyPair } from '../lambda/core/keys';
import { signRequest } from '../lambda/core/sign';
import * as sourceCore from '../lambda/core/index';
import { SignedRequest } from '../lambda/core/types';
import { REPO_ROOT } from './authorizer-handler-loader';
import { DEPLOYED_ESBUILD_OPTIONS } from './cold-init';

export interface VerifyThroughput {
  /** The deployed (esbuild-bundled) core. */
  coreOpsPerS: number;
  rawOpsPerS: number;
  peerOpsPerS: number;
  /** The core run from source through tsx (reference). */
  coreSourceOpsPerS: number;
  /** The deployed core when every request's Signature-Input is different (no memo hit). */
  coreDistinctInputOpsPerS: number;
}

const NOW = 1_800_000_000;

/** lambda/core bundled as deployed, loaded from a temporary file. */
function loadBundledCore(): typeof sourceCore {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-bench-core-'));
  try {
    const outfile = path.join(dir, 'core.js');
    buildSync({ ...DEPLOYED_ESBUILD_OPTIONS, entryPoints: [path.join(REPO_ROOT, 'lambda/core/index.ts')], outfile });
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(outfile) as typeof sourceCore;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function measureVerifyThroughput(requests = 500, roundMs = 600, rounds = 8): Promise<VerifyThroughput> {
  const bundledCore = loadBundledCore();
  const pair = generateRsaKeyPair(2048);
  const publicKey = createPublicKey(pair.key);
  const makeSamples = (keyIdOf: (i: number) => string) =>
    Array.from({ length: requests }, (_, i) => {
      const url = `https://api.example.com/v1/orders/${i}?page=${i % 7}&q=a%20b`;
      const body = i % 2 === 0 ? JSON.stringify({ order: i, items: ['a', 'b'] }) : undefined;
      const signed = signRequest({ method: 'POST', url, body, keyId: keyIdOf(i), privateKey: pair.key, created: NOW - (i % 60) });
      const headers: Record<string, string> = { ...signed.headers, host: 'api.example.com', 'content-type': 'application/json' };
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      const request: SignedRequest = { method: 'POST', targetUri: url, headers };
      return { request, base: Buffer.from(signed.base), signature: Buffer.from(signed.headers.signature.slice(5, -1), 'base64') };
    });
  // One client signing over a minute: 120 distinct Signature-Input values among 500 requests.
  const samples = makeSamples(() => 'c_bench');
  // Worst case for the core's Signature-Input memo: a different keyid, so a different value, every time.
  const distinctSamples = makeSamples((i) => `c_bench_${i}`);
  const policy = bundledCore.defaultVerifyPolicy({ nowS: () => NOW });
  const sourcePolicy = sourceCore.defaultVerifyPolicy({ nowS: () => NOW });
  const keys = [{ fingerprint: pair.fingerprint, key: publicKey }];
  const resolve = () => keys;
  const peerKey = {
    id: 'c_bench',
    algs: ['rsa-v1_5-sha256'],
    verify: async (data: Buffer, signature: Buffer) => rsaVerify('sha256', data, { key: publicKey, padding: constants.RSA_PKCS1_PADDING }, signature),
  };
  const peerConfig = { keyLookup: async () => peerKey, requiredFields: ['@method', '@target-uri'], notAfter: new Date((NOW + 60) * 1000) };

  // Sanity: all contenders accept every sample before anything is timed.
  for (const s of samples.slice(0, 20)) {
    await bundledCore.verifyRequest(s.request, policy, resolve);
    await sourceCore.verifyRequest(s.request, sourcePolicy, resolve);
    if (!rsaVerify('sha256', s.base, { key: publicKey, padding: constants.RSA_PKCS1_PADDING }, s.signature)) throw new Error('raw rejected a sample');
    const peer = await httpbis.verifyMessage(peerConfig as never, { method: s.request.method, url: s.request.targetUri, headers: s.request.headers as Record<string, string> });
    if (peer !== true) throw new Error(`peer rejected a sample (${String(peer)})`);
  }

  const totals = { core: 0, raw: 0, peer: 0, coreSource: 0, coreDistinct: 0 };
  const cpuS = { core: 0, raw: 0, peer: 0, coreSource: 0, coreDistinct: 0 };
  const run = async (name: keyof typeof totals, once: (i: number) => unknown) => {
    const start = process.hrtime.bigint();
    const cpu0 = process.cpuUsage();
    let n = 0;
    while (Number(process.hrtime.bigint() - start) / 1e6 < roundMs) {
      for (let j = 0; j < 50; j++, n++) await once(n % samples.length);
    }
    const cpu = process.cpuUsage(cpu0);
    totals[name] += n;
    cpuS[name] += (cpu.user + cpu.system) / 1e6;
  };
  for (let round = 0; round < rounds; round++) {
    await run('raw', (i) => rsaVerify('sha256', samples[i].base, { key: publicKey, padding: constants.RSA_PKCS1_PADDING }, samples[i].signature));
    await run('core', (i) => bundledCore.verifyRequest(samples[i].request, policy, resolve));
    await run('peer', (i) => {
      const r = samples[i].request;
      return httpbis.verifyMessage(peerConfig as never, { method: r.method, url: r.targetUri, headers: r.headers as Record<string, string> });
    });
    await run('coreSource', (i) => sourceCore.verifyRequest(samples[i].request, sourcePolicy, resolve));
    await run('coreDistinct', (i) => bundledCore.verifyRequest(distinctSamples[i].request, policy, resolve));
  }
  return {
    coreOpsPerS: totals.core / cpuS.core,
    rawOpsPerS: totals.raw / cpuS.raw,
    peerOpsPerS: totals.peer / cpuS.peer,
    coreSourceOpsPerS: totals.coreSource / cpuS.coreSource,
    coreDistinctInputOpsPerS: totals.coreDistinct / cpuS.coreDistinct,
  };
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
    time('  readSignatureInput (memo miss: structured-fields parse + @signature-params)', iterations, (i) => core.readSignatureInput(samples[i].request.headers['signature-input'] as string, 'sig')),
    time('  readSignatureValue (structured-fields parse + base64)', iterations, (i) => core.readSignatureValue(samples[i].request.headers.signature as string, 'sig')),
    time('  parseContentDigest (POST only)', iterations, (i) => samples[i].request.headers['content-digest'] && core.parseContentDigest(samples[i].request.headers['content-digest'] as string)),
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
    `ratio core/raw: ${(r.coreOpsPerS / r.rawOpsPerS).toFixed(2)}`,
    `ratio core/peer: ${(r.coreOpsPerS / r.peerOpsPerS).toFixed(2)}`,
    `core verify, every Signature-Input distinct (no memo hit): ${Math.round(r.coreDistinctInputOpsPerS)} ops/s, ratio core/raw ${(r.coreDistinctInputOpsPerS / r.rawOpsPerS).toFixed(2)}`,
    `core verify from source under tsx: ${Math.round(r.coreSourceOpsPerS)} ops/s, ratio core/raw ${(r.coreSourceOpsPerS / r.rawOpsPerS).toFixed(2)}`,
    '(ops per CPU-second of this process; "core" is lambda/core bundled by esbuild as deployed; 500 requests from one client over a minute, 120 distinct Signature-Input values)',
  ];
}

if (require.main === module) {
  const steps = measureVerifySteps();
  measureVerifyThroughput().then((r) => console.log([...printVerifySteps(steps), ...printVerifyThroughput(r)].join('\n')));
}
