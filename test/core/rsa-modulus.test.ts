/**
 * lambda/core/rsa-modulus.ts: a modulus anyone can factor or sign for is named, with why; the
 * moduli of real keys never are. Moduli are built from Node's primes (test/support/weak-rsa-keys.ts).
 */
import { generateKeyPairSync } from 'node:crypto';
import { ModulusVerdicts, PRIME_MODULUS, modulusWeakness, passesFermatBase2 } from '../../lambda/core/rsa-modulus';
import { closePrimesModulus, nextPrime, primeModulus, smallFactorModulus, squareModulus } from '../support/weak-rsa-keys';
import { generatePrimeSync, getDiffieHellman } from 'node:crypto';
import { nextTestKey } from '../support/test-keys';

/** The modulus of a real key: 2048-bit ones from the test key pool, others generated. */
function modulusOf(bits: number): bigint {
  const publicKey = bits === 2048 ? nextTestKey().publicKey : generateKeyPairSync('rsa', { modulusLength: bits }).publicKey;
  return BigInt(`0x${Buffer.from((publicKey.export({ format: 'jwk' }) as { n: string }).n, 'base64url').toString('hex')}`);
}

test.each([
  ['a prime', primeModulus, /is a prime/],
  ['a square', squareModulus, /is a perfect square \(p = q\)/],
  ['65521 times a prime', smallFactorModulus, /has a small factor \(65521\)/],
  ['3 times a prime', () => 3n * generatePrimeSync(2046, { bigint: true }), /has a small factor \(3\)/],
  ['two primes 2^200 apart', () => closePrimesModulus(200), /two primes so close together/],
  ['two primes 2^500 apart (Fermat still finds them in its steps)', () => closePrimesModulus(500), /two primes so close together/],
  ['even', () => modulusOf(2048) - 1n, /is even/],
])('%s is named, with why', (_name, make, why) => {
  expect(modulusWeakness(make())).toMatch(why);
});

test('the moduli of real keys (2048, 3072, 4096 bits, from OpenSSL) pass, also when asked again (cached)', () => {
  const verdicts = new ModulusVerdicts();
  for (const bits of [2048, 2048, 2048, 2048, 3072, 4096]) {
    const n = modulusOf(bits);
    expect([bits, modulusWeakness(n)]).toEqual([bits, undefined]);
    expect([bits, verdicts.weakness(n), verdicts.weakness(n)]).toEqual([bits, undefined, undefined]);
  }
  expect(verdicts.entries).toBe(6);
});

/** A 2048-bit prime without generating one: RFC 3526's group 14 modulus, as Node holds it. */
const prime2048 = (): bigint => BigInt(`0x${getDiffieHellman('modp14').getPrime('hex')}`);

test('passesFermatBase2: every prime passes, real moduli and small composites do not', () => {
  const prime = prime2048();
  expect([passesFermatBase2(prime), passesFermatBase2(2n), passesFermatBase2(65_537n)]).toEqual([true, true, true]);
  expect([passesFermatBase2(modulusOf(2048)), passesFermatBase2(15n), passesFermatBase2(1n), passesFermatBase2(prime * 3n)]).toEqual([false, false, false, false]);
});

test('ModulusVerdicts.screenedWeakness answers as weakness, a prime by its Fermat round, and remembers both', () => {
  const verdicts = new ModulusVerdicts();
  const prime = prime2048();
  const real = modulusOf(2048);
  expect([verdicts.screenedWeakness(prime), verdicts.screenedWeakness(real), verdicts.screenedWeakness(3n * prime)]).toEqual([PRIME_MODULUS, undefined, modulusWeakness(3n * prime)]);
  expect(verdicts.entries).toBe(3);
  expect([verdicts.weakness(prime), verdicts.weakness(real)]).toEqual([PRIME_MODULUS, undefined]);
  expect(verdicts.entries).toBe(3);
});

describe('ModulusVerdicts', () => {
  it('answers as modulusWeakness, a weak modulus too, and holds each modulus once', () => {
    const verdicts = new ModulusVerdicts(4);
    const prime = primeModulus();
    expect(verdicts.weakness(prime)).toMatch(/is a prime/);
    expect(verdicts.weakness(prime)).toBe(modulusWeakness(prime));
    expect(verdicts.entries).toBe(1);
  });

  it('stays bounded, and its measured bytes follow what it holds (about 0.6 KB per 2048-bit modulus)', () => {
    const verdicts = new ModulusVerdicts(2);
    expect([verdicts.entries, verdicts.approximateBytes]).toEqual([0, 0]);
    const moduli = [modulusOf(2048), modulusOf(2048), modulusOf(2048)];
    verdicts.weakness(moduli[0]);
    const one = verdicts.approximateBytes;
    expect(one).toBeGreaterThanOrEqual(512);
    expect(one).toBeLessThan(1024);
    for (const n of moduli) verdicts.weakness(n);
    expect(verdicts.entries).toBe(2);
    expect(verdicts.approximateBytes).toBe(2 * one);
  });
});

test('a product of two 1024-bit primes far apart (as generators make them) passes', () => {
  const p = generatePrimeSync(1024, { bigint: true });
  const q = nextPrime(p + (1n << 1000n));
  expect(modulusWeakness(p * q)).toBeUndefined();
});
