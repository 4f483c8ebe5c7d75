/**
 * The core's address grammar (lambda/core/ip-address.ts, written out so the core runs in the
 * browser too) says what Node's net.isIPv4 / net.isIPv6 say, on random address-like text.
 */
import { isIP } from 'node:net';
import fc from 'fast-check';
import { isIPv4, isIPv6 } from '../../lambda/core/ip-address';

test("the address grammar is Node's isIPv4/isIPv6, on random address-like text", () => {
  const chars = fc.constantFrom(...'0123456789abcdefABCDEF:.%/xz'.split(''));
  const samples = [
    ...fc.sample(fc.string({ unit: chars, maxLength: 45 }), { numRuns: 2000, seed: 7 }),
    ...fc.sample(fc.ipV4(), { numRuns: 200, seed: 8 }),
    ...fc.sample(fc.ipV6(), { numRuns: 400, seed: 9 }),
    ...fc.sample(fc.ipV4Extended(), { numRuns: 200, seed: 10 }),
    'fe80::1%eth0', '01.2.3.4', '1.2.3', '::ffff:192.0.2.1', '1:2:3:4:5:6:1.2.3.4', '1::2::3', '', '١٢٣.1.1.1',
  ];
  const ours = samples.map((s) => (isIPv4(s) ? 4 : isIPv6(s) ? 6 : 0));
  expect(ours).toEqual(samples.map((s) => isIP(s)));
  expect(ours.filter((f) => f === 6).length).toBeGreaterThan(300);
  expect(ours.filter((f) => f === 4).length).toBeGreaterThanOrEqual(200);
});
