/**
 * Verify throughput on the same signed requests, three ways:
 *   core  — Signet's verifyRequest (parse Signature-Input/Signature, all policy checks, base, RSA verify)
 *   raw   — crypto.verify on the precomputed base with an imported KeyObject (the floor)
 *   peer  — the http-message-signatures package's verifyMessage
 * Prints ops/s for each and `ratio core/raw`, `ratio core/peer`.
 */
import { constants, createPublicKey, verify as rsaVerify } from 'node:crypto';
import { httpbis } from 'http-message-signatures';
import { generateRsaKeyPair } from '../lambda/core/keys';
import { signRequest } from '../lambda/core/sign';
import { defaultVerifyPolicy, verifyRequest } from '../lambda/core/verify';
import { SignedRequest } from '../lambda/core/types';

export interface VerifyThroughput {
  coreOpsPerS: number;
  rawOpsPerS: number;
  peerOpsPerS: number;
}

const NOW = 1_800_000_000;

export async function measureVerifyThroughput(requests = 500, roundMs = 1500, rounds = 3): Promise<VerifyThroughput> {
  const pair = generateRsaKeyPair(2048);
  const publicKey = createPublicKey(pair.key);
  const samples = Array.from({ length: requests }, (_, i) => {
    const url = `https://api.example.com/v1/orders/${i}?page=${i % 7}&q=a%20b`;
    const body = i % 2 === 0 ? JSON.stringify({ order: i, items: ['a', 'b'] }) : undefined;
    const signed = signRequest({ method: 'POST', url, body, keyId: 'c_bench', privateKey: pair.key, created: NOW - (i % 60) });
    const headers: Record<string, string> = { ...signed.headers, host: 'api.example.com', 'content-type': 'application/json' };
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const request: SignedRequest = { method: 'POST', targetUri: url, headers };
    return { request, base: Buffer.from(signed.base), signature: Buffer.from(signed.headers.signature.slice(5, -1), 'base64') };
  });
  const policy = defaultVerifyPolicy({ nowS: () => NOW });
  const keys = [{ fingerprint: pair.fingerprint, key: publicKey }];
  const resolve = () => keys;
  const peerKey = {
    id: 'c_bench',
    algs: ['rsa-v1_5-sha256'],
    verify: async (data: Buffer, signature: Buffer) => rsaVerify('sha256', data, { key: publicKey, padding: constants.RSA_PKCS1_PADDING }, signature),
  };
  const peerConfig = { keyLookup: async () => peerKey, requiredFields: ['@method', '@target-uri'], notAfter: new Date((NOW + 60) * 1000) };

  // Sanity: all three accept every sample before anything is timed.
  for (const s of samples.slice(0, 20)) {
    await verifyRequest(s.request, policy, resolve);
    if (!rsaVerify('sha256', s.base, { key: publicKey, padding: constants.RSA_PKCS1_PADDING }, s.signature)) throw new Error('raw rejected a sample');
    const peer = await httpbis.verifyMessage(peerConfig as never, { method: s.request.method, url: s.request.targetUri, headers: s.request.headers as Record<string, string> });
    if (peer !== true) throw new Error(`peer rejected a sample (${String(peer)})`);
  }

  const totals = { core: 0, raw: 0, peer: 0 };
  const time = { core: 0, raw: 0, peer: 0 };
  const run = async (name: keyof typeof totals, once: (i: number) => unknown) => {
    const start = process.hrtime.bigint();
    let n = 0;
    while (Number(process.hrtime.bigint() - start) / 1e6 < roundMs) {
      for (let j = 0; j < 50; j++, n++) await once(n % samples.length);
    }
    totals[name] += n;
    time[name] += Number(process.hrtime.bigint() - start) / 1e9;
  };
  for (let round = 0; round < rounds; round++) {
    await run('raw', (i) => rsaVerify('sha256', samples[i].base, { key: publicKey, padding: constants.RSA_PKCS1_PADDING }, samples[i].signature));
    await run('core', (i) => verifyRequest(samples[i].request, policy, resolve));
    await run('peer', (i) => {
      const r = samples[i].request;
      return httpbis.verifyMessage(peerConfig as never, { method: r.method, url: r.targetUri, headers: r.headers as Record<string, string> });
    });
  }
  return { coreOpsPerS: totals.core / time.core, rawOpsPerS: totals.raw / time.raw, peerOpsPerS: totals.peer / time.peer };
}

export function printVerifyThroughput(r: VerifyThroughput): string[] {
  return [
    `core verify: ${Math.round(r.coreOpsPerS)} ops/s`,
    `raw crypto.verify (KeyObject): ${Math.round(r.rawOpsPerS)} ops/s`,
    `http-message-signatures verifyMessage: ${Math.round(r.peerOpsPerS)} ops/s`,
    `ratio core/raw: ${(r.coreOpsPerS / r.rawOpsPerS).toFixed(2)}`,
    `ratio core/peer: ${(r.coreOpsPerS / r.peerOpsPerS).toFixed(2)}`,
  ];
}

if (require.main === module) {
  measureVerifyThroughput().then((r) => console.log(printVerifyThroughput(r).join('\n')));
}
