/**
 * Whether an RSA modulus is one nobody can factor easily, as a key's modulus must be.
 *
 * The security of an RSA public key rests on its modulus n being the product of two large primes
 * far enough apart. A modulus that fails that is forgeable by anyone who reads the public key:
 * - n **prime**: φ(n) = n − 1, so d = e⁻¹ mod (n − 1) signs for it;
 * - n a **perfect square** (p = q): √n is the factor;
 * - n with a **small prime factor**: one gcd finds it;
 * - p and q **close together**: Fermat's method, from ⌈√n⌉ upwards, finds them in a few steps.
 * Key generators never produce these (FIPS 186-5 even requires |p − q| > 2^(nlen/2 − 100)), so a
 * modulus like that was crafted: an attacker registering a key anyone can sign with, or a broken
 * generator. The checks cost a few milliseconds per modulus (see BENCHMARKS.md, "Key checks"), and
 * their verdicts are cached, so loading a stored key for verification pays them once.
 */
import { checkPrimeSync } from 'node:crypto';
import { BoundedCache } from './bounded-cache';

/** The primes below this are tried as factors (one gcd with their product). */
const SMALL_PRIME_BOUND = 1 << 16;
/** Fermat steps tried from ⌈√n⌉: finds p, q whose difference is below about 2^(bits/4 + 7). */
const FERMAT_STEPS = 4_096;
/** Miller-Rabin rounds that confirm a modulus the first round found probably prime (error below 2^-80). */
const PRIME_CONFIRMATION_ROUNDS = 40;

const verdicts = new BoundedCache<string, string | null>(256);
let smallPrimeProduct: bigint | undefined;

/**
 * Why `n` cannot be an RSA key's modulus, as a sentence fragment ("is prime", …), or undefined
 * when it passes every check. Cached per modulus.
 */
export function modulusWeakness(n: bigint): string | undefined {
  const cacheKey = n.toString(16);
  const cached = verdicts.get(cacheKey);
  if (cached !== undefined) return cached ?? undefined;
  const verdict = judge(n);
  verdicts.set(cacheKey, verdict ?? null);
  return verdict;
}

function judge(n: bigint): string | undefined {
  if (n < 3n || (n & 1n) === 0n) return 'is even, so it is not a product of two primes and anyone can factor it';
  const small = gcd(n, smallPrimes());
  if (small !== 1n) return `has a small factor (${small < 1n << 32n ? small.toString() : 'a product of primes below 65536'}), so anyone can factor it`;
  const root = isqrt(n);
  if (root * root === n) return 'is a perfect square (p = q), so anyone can factor it';
  // One round first: a real modulus (composite) fails it; only a modulus it calls prime pays for more.
  if (checkPrimeSync(n, { checks: 1 }) && checkPrimeSync(n, { checks: PRIME_CONFIRMATION_ROUNDS })) {
    return 'is a prime, not a product of two primes, so anyone can compute a signing exponent for it';
  }
  if (fermatFactorable(n, root)) return 'is a product of two primes so close together that anyone can factor it';
  return undefined;
}

/**
 * Fermat's method: n = a² − b² = (a − b)(a + b). From a = ⌈√n⌉, look for a² − n that is a square;
 * the quadratic-residue filters reject almost every non-square with one small remainder each.
 */
function fermatFactorable(n: bigint, floorRoot: bigint): boolean {
  let a = floorRoot + 1n;
  let b2 = a * a - n;
  for (let step = 0; step < FERMAT_STEPS; step++) {
    if (couldBeSquare(b2)) {
      const b = isqrt(b2);
      if (b * b === b2 && a - b > 1n) return true;
    }
    b2 += 2n * a + 1n; // (a + 1)² − n
    a += 1n;
  }
  return false;
}

const SQUARES_MOD = [64, 63, 65, 11].map((m) => {
  const residues = new Set<number>();
  for (let i = 0; i < m; i++) residues.add((i * i) % m);
  return { m: BigInt(m), residues };
});

function couldBeSquare(x: bigint): boolean {
  for (const { m, residues } of SQUARES_MOD) if (!residues.has(Number(x % m))) return false;
  return true;
}

/** ⌊√x⌋ for x ≥ 0 (Newton's method from a power of two above the root). */
function isqrt(x: bigint): bigint {
  if (x < 2n) return x;
  let guess = 1n << BigInt(Math.ceil(x.toString(2).length / 2));
  for (;;) {
    const next = (guess + x / guess) >> 1n;
    if (next >= guess) return guess;
    guess = next;
  }
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** The product of the odd primes below {@link SMALL_PRIME_BOUND}, computed once. */
function smallPrimes(): bigint {
  if (smallPrimeProduct !== undefined) return smallPrimeProduct;
  const composite = new Uint8Array(SMALL_PRIME_BOUND);
  const primes: bigint[] = [];
  for (let i = 3; i < SMALL_PRIME_BOUND; i += 2) {
    if (composite[i]) continue;
    primes.push(BigInt(i));
    for (let j = i * i; j < SMALL_PRIME_BOUND; j += 2 * i) composite[j] = 1;
  }
  // Multiply as a balanced tree: far fewer big-by-big multiplications than a running product.
  let level = primes;
  while (level.length > 1) {
    const next: bigint[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? level[i] * level[i + 1] : level[i]);
    level = next;
  }
  smallPrimeProduct = level[0];
  return smallPrimeProduct;
}
