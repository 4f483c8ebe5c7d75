/**
 * What refusing a forgeable RSA modulus costs (lambda/core/rsa-modulus.ts `modulusWeakness`, and a `ModulusVerdicts` for the cached case):
 * the CPU of the checks (small factors, square, Miller-Rabin, Fermat steps) for the moduli of
 * real keys of each size — the case every registration and every key load pays — on first sight
 * and when its verdict is cached. Each modulus is judged once in a fresh cache entry (a new key
 * per sample); the product of the small primes is made when the module loads, before the samples.
 *
 * Run alone: `npx tsx bench/key-checks.ts`.
 */
import { generateKeyPairSync } from 'node:crypto';
import { ModulusVerdicts } from '../lambda/core/rsa-modulus';

export interface KeyCheckFigures {
  readonly bits: number;
  readonly samples: number;
  /** Median CPU ms of the first check of a modulus. */
  readonly firstMs: number;
  /** Median CPU µs of a check answered from the cache. */
  readonly cachedUs: number;
}

function modulusOf(bits: number): bigint {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  return BigInt(`0x${Buffer.from((publicKey.export({ format: 'jwk' }) as { n: string }).n, 'base64url').toString('hex')}`);
}

function cpuUs(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export function measureKeyChecks(samples = 7): KeyCheckFigures[] {
  const verdicts = new ModulusVerdicts();
  verdicts.weakness(modulusOf(2048)); // warms the code paths
  return [2048, 3072, 4096].map((bits) => {
    const first: number[] = [];
    const cached: number[] = [];
    for (let i = 0; i < samples; i++) {
      const n = modulusOf(bits);
      first.push(cpuUs(() => verdicts.weakness(n)) / 1000);
      cached.push(cpuUs(() => { for (let j = 0; j < 100; j++) verdicts.weakness(n); }) / 100);
    }
    return { bits, samples, firstMs: median(first), cachedUs: median(cached) };
  });
}

export function printKeyChecks(figures: readonly KeyCheckFigures[]): string[] {
  return figures.map((f) => `RSA-${f.bits} modulus of a real key: ${f.firstMs.toFixed(1)} ms CPU the first time, ${f.cachedUs.toFixed(1)} µs cached (median of ${f.samples} keys)`);
}

if (require.main === module) {
  for (const line of printKeyChecks(measureKeyChecks())) console.log(line);
}
