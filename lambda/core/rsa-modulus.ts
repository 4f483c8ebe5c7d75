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
 * generator. The checks cost a few milliseconds per modulus (see BENCHMARKS.md, "Key checks"):
 * {@link modulusWeakness} pays them on every call; a {@link ModulusVerdicts} (the one a
 * PublicKeyCache holds) remembers its verdicts, so loading a stored key again, or refusing a
 * stored weak key on every request that names it, pays them once.
 */
import { checkPrimeSync } from 'node:crypto';
import { BoundedCache } from './bounded-cache';

/** The primes below this are tried as factors (one gcd with their product). */
const SMALL_PRIME_BOUND = 1 << 16;
/** Fermat steps tried from ⌈√n⌉: finds p, q whose difference is below about 2^(bits/4 + 7). */
const FERMAT_STEPS = 4_096;
/**
 * The product of the odd primes below {@link SMALL_PRIME_BOUND} (a 94,000-bit number): one gcd
 * with it finds any small factor. Computed when the module loads (about 3 ms), never changed.
 */
const SMALL_PRIME_PRODUCT: bigint = productOfOddPrimesBelow(SMALL_PRIME_BOUND);

/** What {@link modulusWeakness} says of a prime modulus. */
export const PRIME_MODULUS = 'is a prime, not a product of two primes, so anyone can compute a signing exponent for it';

/**
 * One Fermat round to base 2, in JavaScript: true when 2^(n−1) ≡ 1 (mod n), as for every prime.
 * A key generator's modulus (the product of two random primes) fails it but for odds too small to
 * matter; a composite made to pass it is no key anyone should register either. Costs one modular
 * exponentiation (15 to 30 ms at 2,048 bits, 90 to 150 ms at 4,096 on the machines measured),
 * against OpenSSL's 64 to 128 rounds for a prime: the screen for moduli a stranger chooses
 * (a published key set), before {@link modulusWeakness} judges them.
 */
export function passesFermatBase2(n: bigint): boolean {
  if (n < 3n || (n & 1n) === 0n) return n === 2n;
  // Left to right over the exponent's bits: a squaring each, and for a 1 bit a doubling (a shift
  // and at most one subtraction) where a general base would cost a multiplication and a division.
  const bits = (n - 1n).toString(2);
  let result = 1n;
  for (let i = 0; i < bits.length; i++) {
    result = (result * result) % n;
    if (bits.charCodeAt(i) === ONE) {
      result <<= 1n;
      if (result >= n) result -= n;
    }
  }
  return result === 1n;
}

/** The character code of "1". */
const ONE = 0x31;

/** Moduli whose verdicts a {@link ModulusVerdicts} keeps by default. */
export const MODULUS_VERDICT_ENTRIES = 256;

/**
 * Why `n` cannot be an RSA key's modulus, as a sentence fragment ("is prime", …), or undefined
 * when it passes every check. Not cached: see {@link ModulusVerdicts}.
 */
export function modulusWeakness(n: bigint): string | undefined {
  if (n < 3n || (n & 1n) === 0n) return 'is even, so it is not a product of two primes and anyone can factor it';
  const small = gcd(n, SMALL_PRIME_PRODUCT);
  if (small !== 1n) return `has a small factor (${small < 1n << 32n ? small.toString() : 'a product of primes below 65536'}), so anyone can factor it`;
  const root = isqrt(n);
  if (root * root === n) return 'is a perfect square (p = q), so anyone can factor it';
  // OpenSSL runs as many Miller-Rabin rounds as it sees fit (64, or 128 above 2,048 bits) whatever
  // `checks` asks: a real modulus fails the first, a prime costs all of them (about 2 s at 4,096
  // bits here). Where a stranger chooses the modulus, screen it first (passesFermatBase2).
  if (checkPrimeSync(n)) return PRIME_MODULUS;
  if (fermatFactorable(n, root)) return 'is a product of two primes so close together that anyone can factor it';
  return undefined;
}

/**
 * The verdicts of {@link modulusWeakness}, remembered per modulus, at most `maxEntries` (least
 * recently used dropped first). Owned by its user (a PublicKeyCache), never shared by a module.
 * Memory: each entry holds the modulus as hex (bits / 4 characters) and the verdict;
 * {@link approximateBytes} adds them up (about 0.6 KB per RSA-2048 modulus).
 */
export class ModulusVerdicts {
  private readonly verdicts: BoundedCache<string, string | null>;
  private heldChars = 0;

  constructor(readonly maxEntries: number = MODULUS_VERDICT_ENTRIES) {
    this.verdicts = new BoundedCache(maxEntries);
  }

  /** As {@link modulusWeakness}, answered from the cache when this modulus was judged before. */
  weakness(n: bigint): string | undefined {
    const cacheKey = n.toString(16);
    const cached = this.verdicts.get(cacheKey);
    if (cached !== undefined) return cached ?? undefined;
    const verdict = modulusWeakness(n);
    this.remember(cacheKey, verdict ?? null);
    return verdict;
  }

  /**
   * As {@link weakness}, for a modulus a stranger chose (a published key set): one not judged
   * before is screened by {@link passesFermatBase2} first, so that a prime costs one round in
   * JavaScript, not OpenSSL's 64 to 128; the verdict is remembered either way.
   */
  screenedWeakness(n: bigint): string | undefined {
    const cacheKey = n.toString(16);
    if (this.verdicts.get(cacheKey) === undefined && passesFermatBase2(n)) this.remember(cacheKey, PRIME_MODULUS);
    return this.weakness(n);
  }

  /** Whether this modulus was judged before (its verdict is held). */
  has(n: bigint): boolean {
    return this.verdicts.get(n.toString(16)) !== undefined;
  }

  /** Moduli whose verdicts are held. */
  get entries(): number {
    return this.verdicts.size;
  }

  /** The memory the held entries take, roughly: a byte per character held (hex and verdicts are Latin-1, one byte each in V8) plus an entry's overhead each. */
  get approximateBytes(): number {
    return this.heldChars + this.verdicts.size * ENTRY_OVERHEAD_BYTES;
  }

  private remember(cacheKey: string, verdict: string | null): void {
    const evicted = this.verdicts.size >= this.maxEntries ? this.verdicts.peekAll().next() : undefined;
    if (evicted !== undefined && !evicted.done) this.heldChars -= charsOf(evicted.value[0], evicted.value[1].value);
    this.verdicts.set(cacheKey, verdict);
    this.heldChars += charsOf(cacheKey, verdict);
  }
}

/** A Map entry, its record object and the strings' headers, roughly, in bytes. */
const ENTRY_OVERHEAD_BYTES = 120;

function charsOf(cacheKey: string, verdict: string | null): number {
  return cacheKey.length + (verdict?.length ?? 0);
}

/**
 * Fermat's method: n = a² − b² = (a − b)(a + b). From a = ⌈√n⌉, look for a² − n that is a square;
 * the quadratic-residue filters reject almost every non-square with one small remainder each.
 * a and a² − n are followed modulo {@link SQUARE_FILTER_MODULUS} in plain numbers, so a step costs
 * no big-integer arithmetic; only the few candidates the filters let through (about 1 in 120) are
 * computed and checked exactly.
 */
function fermatFactorable(n: bigint, floorRoot: bigint): boolean {
  const first = floorRoot + 1n;
  const modulus = BigInt(SQUARE_FILTER_MODULUS);
  let aMod = Number(first % modulus);
  let b2Mod = Number((first * first - n) % modulus);
  for (let step = 0; step < FERMAT_STEPS; step++) {
    if (couldBeSquare(b2Mod)) {
      const a = first + BigInt(step);
      const b2 = a * a - n;
      const b = isqrt(b2);
      if (b * b === b2 && a - b > 1n) return true;
    }
    b2Mod = (b2Mod + 2 * aMod + 1) % SQUARE_FILTER_MODULUS; // (a + 1)² − n
    aMod = aMod + 1 === SQUARE_FILTER_MODULUS ? 0 : aMod + 1;
  }
  return false;
}

/** For a few small moduli m, the squares mod m: a number whose remainder is not among them is no square. */
const SQUARES_MOD: readonly { readonly m: number; readonly residues: ReadonlySet<number> }[] = [64, 63, 65, 11].map((m) => {
  const residues = new Set<number>();
  for (let i = 0; i < m; i++) residues.add((i * i) % m);
  return { m, residues };
});

/** The product of the moduli of {@link SQUARES_MOD}: a remainder by it gives the remainder by each. */
const SQUARE_FILTER_MODULUS = 64 * 63 * 65 * 11;

/** Whether a number whose remainder by {@link SQUARE_FILTER_MODULUS} is `remainder` may be a square. */
function couldBeSquare(remainder: number): boolean {
  for (const { m, residues } of SQUARES_MOD) if (!residues.has(remainder % m)) return false;
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

/** The product of the odd primes below `bound`. */
function productOfOddPrimesBelow(bound: number): bigint {
  const composite = new Uint8Array(bound);
  const primes: bigint[] = [];
  for (let i = 3; i < bound; i += 2) {
    if (composite[i]) continue;
    primes.push(BigInt(i));
    for (let j = i * i; j < bound; j += 2 * i) composite[j] = 1;
  }
  // Multiply as a balanced tree: far fewer big-by-big multiplications than a running product.
  let level = primes;
  while (level.length > 1) {
    const next: bigint[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? level[i] * level[i + 1] : level[i]);
    level = next;
  }
  return level[0];
}
