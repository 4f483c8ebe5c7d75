/**
 * Is this tree's verifier faster than another commit's? `npx tsx bench/verify-compare.ts [ref] [rounds]`
 * (ref: a commit, default HEAD; rounds: default 40) times, in one process and in turns, raw
 * crypto.verify and both trees' lambda/core (each bundled as deployed, each with its own
 * verifiers), rsa-v1_5-sha256, with a memo hit and with none, on the throughput benchmark's
 * requests. Prints each contender's core/raw in CPU time (median over the rounds) and how much
 * faster this tree is than the ref (median of the per-round ratios).
 *
 * Why in one process: on this shared machine the same code runs up to a third slower from one
 * minute to the next, and core/raw moves with it (JavaScript suffers more from a busy host than
 * RSA does), so two runs of verify-throughput.ts minutes apart cannot tell a change of 1-2%. Timed
 * in alternating batches within each round, both trees see the same host. (Every contender's code
 * then shares the CPU caches with the others', so its core/raw is not the throughput benchmark's.)
 * lambda/core imports nothing outside itself, so the ref's is complete on its own.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_RSA_ALGORITHM } from '../lambda/core/algorithms';
import { importPublicKey } from '../lambda/core/keys';
import { REPO_ROOT } from './authorizer-handler-loader';
import { median } from './percentiles';
import { type Fixture, NOW, loadBundledCore, makeFixture, rawVerifier } from './verify-throughput';

type Core = ReturnType<typeof loadBundledCore>;

/** The ref's lambda/core, bundled as deployed. */
function coreAt(ref: string): Core {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-bench-ref-'));
  try {
    const archive = execFileSync('git', ['archive', '--format=tar', ref, 'lambda/core'], { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    return loadBundledCore(path.join(dir, 'lambda/core/index.ts'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** `items` in a random order (Fisher-Yates). */
function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export interface VerifyComparison {
  readonly ref: string;
  readonly rounds: number;
  /** core/raw in CPU time, median over the rounds, for each tree with and without a memo hit. */
  readonly ratios: { readonly refHit: number; readonly treeHit: number; readonly refMiss: number; readonly treeMiss: number };
  /** ref's CPU time over this tree's, median over the rounds (above 1: this tree is faster). */
  readonly speedup: { readonly hit: number; readonly miss: number };
}

export async function compareVerifiers(ref = 'HEAD', rounds = 40): Promise<VerifyComparison> {
  // Through JSON, as the throughput benchmark's measuring processes read it (and as a Lambda gets its event): flat strings.
  const fixture = JSON.parse(JSON.stringify(makeFixture(DEFAULT_RSA_ALGORITHM, 500))) as Fixture;
  const imported = importPublicKey(fixture.publicKeyPem, DEFAULT_RSA_ALGORITHM);
  const keys = [{ fingerprint: imported.fingerprint, key: imported.key, algorithm: imported.algorithm }];
  const verifierOf = (core: Core) => core.createVerifier({ policy: core.defaultVerifyPolicy({ nowS: () => NOW }), resolveKeys: () => keys });
  const refCore = coreAt(ref);
  const treeCore = loadBundledCore();
  const rawVerify = rawVerifier(DEFAULT_RSA_ALGORITHM, imported.key);
  const raw = fixture.samples.map((s) => ({ base: Buffer.from(s.base, 'base64'), signature: Buffer.from(s.signature, 'base64') }));
  const [refHit, treeHit, refMiss, treeMiss] = [verifierOf(refCore), verifierOf(treeCore), verifierOf(refCore), verifierOf(treeCore)];
  // Each contender is called with a running count and cycles through its own requests.
  const n = fixture.samples.length;
  const distinct = fixture.distinctSamples;
  const contenders: Record<string, (i: number) => unknown> = {
    raw: (i) => rawVerify(raw[i % n].base, raw[i % n].signature),
    refHit: (i) => refHit.verify(fixture.samples[i % n].request),
    treeHit: (i) => treeHit.verify(fixture.samples[i % n].request),
    refMiss: (i) => refMiss.verify(distinct[i % distinct.length].request),
    treeMiss: (i) => treeMiss.verify(distinct[i % distinct.length].request),
  };
  const names = Object.keys(contenders);
  for (const name of names) for (let i = 0; i < 2_000; i++) await contenders[name](i);
  const perRound: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
  const BATCH = 50;
  let next = 0;
  for (let round = 0; round < rounds; round++) {
    const cpuUs: Record<string, number> = Object.fromEntries(names.map((name) => [name, 0]));
    // Six turns per round, each in a new random order: no contender always follows the same one.
    for (let turn = 0; turn < 6; turn++) {
      for (const name of shuffled(names)) {
        const once = contenders[name];
        const start = process.cpuUsage();
        for (let j = 0; j < BATCH; j++) await once(next + j);
        const used = process.cpuUsage(start);
        cpuUs[name] += used.user + used.system;
      }
      next += BATCH;
    }
    for (const name of names) perRound[name].push(cpuUs[name]);
  }
  const ratio = (numerator: string, denominator: string) => median(perRound[numerator].map((us, i) => us / perRound[denominator][i]));
  return {
    ref,
    rounds,
    ratios: { refHit: ratio('raw', 'refHit'), treeHit: ratio('raw', 'treeHit'), refMiss: ratio('raw', 'refMiss'), treeMiss: ratio('raw', 'treeMiss') },
    speedup: { hit: ratio('refHit', 'treeHit'), miss: ratio('refMiss', 'treeMiss') },
  };
}

if (require.main === module) {
  const [ref = 'HEAD', rounds = '40'] = process.argv.slice(2);
  void compareVerifiers(ref, Number(rounds)).then((c) => {
    const f = (n: number) => n.toFixed(3);
    console.log(
      [
        `${DEFAULT_RSA_ALGORITHM}, core/raw in CPU time, ${c.rounds} rounds timed in turns in one process:`,
        `  memo hit:    ${c.ref} ${f(c.ratios.refHit)}, this tree ${f(c.ratios.treeHit)} (this tree ${f(c.speedup.hit)}× as fast)`,
        `  no memo hit: ${c.ref} ${f(c.ratios.refMiss)}, this tree ${f(c.ratios.treeMiss)} (this tree ${f(c.speedup.miss)}× as fast)`,
      ].join('\n'),
    );
  });
}
