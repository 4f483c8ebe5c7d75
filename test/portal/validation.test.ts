/**
 * The client form's checks (portal/network.js, portal/validation.js) against the API's
 * (lambda/core/ip-policy.ts, lambda/registry/validation.ts): the same input gets the same
 * canonical value, or the same code and sentence, so what the form says inline next to a field
 * is what the registry would answer.
 */
import { isIP } from 'node:net';
import fc from 'fast-check';
import { isSignetError } from '../../lambda/core/errors';
import { admitsEveryone, normaliseNetworkEntry } from '../../lambda/core/ip-policy';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { parseCreateRequest, parsePatchRequest } from '../../lambda/registry/validation';
import { spkiPem, testKey } from '../support/registry-fixtures';
import { OUTCOME, runInPortal } from './portal-modules';

type Outcome = { value?: unknown; code?: string; message?: string };

function core(fn: () => unknown): Outcome {
  try {
    return { value: fn() };
  } catch (error) {
    if (!isSignetError(error)) throw error;
    return { code: error.code, message: error.message };
  }
}

const ENTRIES = [
  '203.0.113.7', ' 203.0.113.7 ', '203.0.113.7/32', '198.51.100.0/24', '0.0.0.0', '0.0.0.0/0', '::/0', '::', '::1',
  '2001:DB8::/32', '2001:db8::1/128', 'fe80::1%eth0', '::ffff:192.0.2.1', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:1.2.3.4',
  '300.1.1.1', '01.2.3.4', '1.2.3', '1.2.3.4/33', '1.2.3.4/', '1.2.3.4/-1', '1.2.3.4/08', '1.2.3.4/0032', '2001:db8::/129',
  '1::2::3', 'localhost', 'example.com', '', '   ', '10.0.0.1 10.0.0.2', '10.0.0.0/8,', 'x'.repeat(100), '١٢٣.1.1.1',
  // Ranges with bits set after the prefix are refused naming the canonical range (issue 15).
  '10.0.0.5/8', '10.0.0.0/8', '1.2.3.4/0', '2001:db8::1/32', '2001:DB8:0:0:1::/64', '::ffff:1.2.3.4/96', '::ffff:0:0/96', '::/80',
  '2001:db8:0:0:0:0:0:1/127', '1:2:3:4:5:6:1.2.3.4/112',
  // One text per address (RFC 5952).
  '2001:0DB8:0000:0000:0000:0000:0000:0001', '2001:db8:0:0:1:0:0:1', '::FFFF:C000:0201', '0:0:0:0:0:0:0:1', '2001:0db8:0000::/48',
];

test('whitelist entries: same canonical text or the same refusal as the API', () => {
  const fromPortal = runInPortal<Outcome[]>(`${OUTCOME} return Promise.all(input.map((e) => outcome(() => m.network.normaliseNetworkEntry(e))));`, ENTRIES);
  ENTRIES.forEach((entry, i) => expect([entry, fromPortal[i]]).toEqual([entry, core(() => normaliseNetworkEntry(entry))]));
  expect(fromPortal[ENTRIES.indexOf('300.1.1.1')]).toMatchObject({ code: 'invalid_network', message: expect.stringMatching(/"300\.1\.1\.1" is not an IPv4 or IPv6 address/) });
});

test('random ranges: the same canonical text, or the same sentence naming the network, as the API', () => {
  const ranges = [
    ...fc.sample(fc.tuple(fc.ipV4(), fc.integer({ min: 0, max: 32 })), { numRuns: 300, seed: 11 }),
    ...fc.sample(fc.tuple(fc.ipV6(), fc.integer({ min: 0, max: 128 })), { numRuns: 600, seed: 12 }),
  ].map(([address, prefix]) => `${address}/${prefix}`);
  const fromPortal = runInPortal<Outcome[]>(`${OUTCOME} return Promise.all(input.map((e) => outcome(() => m.network.normaliseNetworkEntry(e))));`, ranges);
  ranges.forEach((entry, i) => expect([entry, fromPortal[i]]).toEqual([entry, core(() => normaliseNetworkEntry(entry))]));
  expect(fromPortal.filter((o) => o.code === 'invalid_network').length).toBeGreaterThan(300);
});

test('"open to everyone" is the same test in the portal as in the core (0.0.0.0, any /0, ::ffff:0:0/96 and ranges holding it)', () => {
  const entries = ['0.0.0.0', '0.0.0.0/0', '::/0', '::ffff:0:0/96', '::ffff:0.0.0.0/96', '::/80', '::/64', '::/96', '::ffff:0:0/97', '::ffff:192.0.2.0/120', '0.0.0.0/8', '203.0.113.7', '2001:db8::/32', '::', '::1'];
  const fromPortal = runInPortal<boolean[]>('return input.map((e) => m.network.allowsEveryone(m.network.normaliseNetworkEntry(e)));', entries);
  expect(Object.fromEntries(entries.map((e, i) => [e, fromPortal[i]]))).toEqual(Object.fromEntries(entries.map((e) => [e, admitsEveryone([e])])));
  expect(entries.filter((e) => admitsEveryone([e]))).toEqual(['0.0.0.0', '0.0.0.0/0', '::/0', '::ffff:0:0/96', '::ffff:0.0.0.0/96', '::/80', '::/64']);
});

test('"open to everyone" by several entries together is the same list test in the portal as in the core', () => {
  const lists = [
    ['0.0.0.0/1', '128.0.0.0/1'],
    ['0.0.0.0/1'],
    ['::ffff:0:0/97', '128.0.0.0/1'],
    ['::ffff:0:0/97', '127.0.0.0/8'],
    ['::/1', '8000::/1'],
    ['0.0.0.0/2', '64.0.0.0/2', '128.0.0.0/2', '192.0.0.0/2'],
    ['0.0.0.0/2', '64.0.0.0/2', '128.0.0.0/2', '192.0.0.0/3'],
    ['203.0.113.7', '2001:db8::/32'],
  ];
  const fromPortal = runInPortal<boolean[]>('return input.map((list) => m.network.entriesAdmitEveryone(list.map((e) => m.network.normaliseNetworkEntry(e))));', lists);
  expect(lists.map((list, i) => [list, fromPortal[i]])).toEqual(lists.map((list) => [list, admitsEveryone(list)]));
});

test("the address grammar is Node's isIPv4/isIPv6, on random address-like text", () => {
  const chars = fc.constantFrom(...'0123456789abcdefABCDEF:.%/xz'.split(''));
  const samples = [
    ...fc.sample(fc.string({ unit: chars, maxLength: 45 }), { numRuns: 2000, seed: 7 }),
    ...fc.sample(fc.ipV4(), { numRuns: 200, seed: 8 }),
    ...fc.sample(fc.ipV6(), { numRuns: 400, seed: 9 }),
    ...fc.sample(fc.ipV4Extended(), { numRuns: 200, seed: 10 }),
  ];
  const fromPortal = runInPortal<number[]>('return input.map((s) => (m.network.isIPv4(s) ? 4 : m.network.isIPv6(s) ? 6 : 0));', samples);
  expect(fromPortal).toEqual(samples.map((s) => isIP(s)));
  expect(fromPortal.filter((f) => f === 6).length).toBeGreaterThan(300);
});

describe('the form against POST /registry/clients and PATCH validation', () => {
  const known = ['demo', 'registry:admin'];
  const catalogue = compileRoleCatalogue({ 'registry:admin': ['* /registry/**'], demo: ['* /api/*'] });
  let publicKey: string;
  let privateKey: string;
  beforeAll(() => {
    publicKey = spkiPem(testKey(0));
    privateKey = testKey(0).key.export({ type: 'pkcs8', format: 'pem' }) as string;
  });
  const valid = () => ({ name: 'Partner', networkWhitelist: ['203.0.113.7'], publicKey, roles: ['demo'] });

  /** One bad field at a time: the form's error for that field must be the API's refusal. */
  const cases: Array<[string, string, (v: ReturnType<typeof valid>) => Record<string, unknown>]> = [
    ['name', 'an empty name', (v) => ({ ...v, name: '   ' })],
    ['name', 'a name too long', (v) => ({ ...v, name: 'n'.repeat(129) })],
    ['name', 'a name with a line break', (v) => ({ ...v, name: 'a\nb' })],
    ['networkWhitelist', 'an empty whitelist', (v) => ({ ...v, networkWhitelist: [] })],
    ['networkWhitelist', 'a bad address', (v) => ({ ...v, networkWhitelist: ['203.0.113.7', '999.0.0.1'] })],
    ['networkWhitelist', 'too many addresses', (v) => ({ ...v, networkWhitelist: Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`) })],
    ['roles', 'no roles', (v) => ({ ...v, roles: [] })],
    ['roles', 'an unknown role', (v) => ({ ...v, roles: ['demo', 'root'] })],
    ['publicKey', 'a private key', (v) => ({ ...v, publicKey: privateKey })],
    ['publicKey', 'an empty key', (v) => ({ ...v, publicKey: '' })],
    ['publicKey', 'a key too long', (v) => ({ ...v, publicKey: 'A'.repeat(16_385) })],
  ];

  test.each(cases)('%s: %s', (field, _what, mutate) => {
    const values = mutate(valid());
    const [portal] = runInPortal<Array<{ errors: Record<string, { code: string; message: string }>; body: Record<string, unknown> }>>(
      `return [await m.validation.checkClientForm(input.values, { mode: 'create', knownRoles: input.known })].map((r) => ({
        errors: Object.fromEntries(Object.entries(r.errors).map(([k, e]) => [k, { code: e.code, message: e.message }])), body: r.body }));`,
      { values, known },
    );
    const api = core(() => parseCreateRequest(values, catalogue));
    expect(Object.keys(portal.errors)).toEqual([field]);
    expect(portal.errors[field]).toEqual({ code: api.code, message: api.message });
  });

  test('a valid form gives the body the API accepts, and the key it will store', () => {
    const values = { ...valid(), name: '  Partner  ', networkWhitelist: ['203.0.113.7/32', '2001:DB8::/32', '203.0.113.7'] };
    const out = runInPortal<{ errors: object; body: Record<string, unknown>; key: { fingerprint: string } }>(
      `const r = await m.validation.checkClientForm(input.values, { mode: 'create', knownRoles: input.known }); return { errors: r.errors, body: r.body, key: r.key };`,
      { values, known },
    );
    expect(out.errors).toEqual({});
    expect(out.key.fingerprint).toBe(testKey(0).fingerprint);
    const api = parseCreateRequest(out.body, catalogue);
    expect(api).toMatchObject({ name: 'Partner', networkWhitelist: ['203.0.113.7', '2001:db8::/32'], roles: ['demo'] });
    expect(out.body).toEqual({ name: 'Partner', networkWhitelist: ['203.0.113.7', '2001:db8::/32'], publicKey, roles: ['demo'] });
  });

  test('editing sends only what changed; an empty key box keeps the keys', () => {
    const current = { name: 'Partner', networkWhitelist: ['203.0.113.7'], roles: ['demo'] };
    const out = runInPortal<Array<{ errors: object; body: Record<string, unknown> }>>(
      `return Promise.all(input.forms.map(async (values) => {
        const r = await m.validation.checkClientForm(values, { mode: 'edit', knownRoles: input.known, current: input.current });
        return { errors: Object.keys(r.errors), body: r.body };
      }));`,
      {
        known,
        current,
        forms: [
          { ...current, publicKey: '' },
          { ...current, name: 'Renamed', publicKey: '' },
          { ...current, roles: ['registry:admin', 'demo'], networkWhitelist: ['203.0.113.7', '198.51.100.0/24'], publicKey: '' },
          { ...current, publicKey },
          { ...current, publicKey: privateKey },
        ],
      },
    );
    expect(out[0]).toEqual({ errors: [], body: {} });
    expect(out[1]).toEqual({ errors: [], body: { name: 'Renamed' } });
    expect(out[2]).toEqual({ errors: [], body: { networkWhitelist: ['203.0.113.7', '198.51.100.0/24'], roles: ['registry:admin', 'demo'] } });
    expect(out[3]).toEqual({ errors: [], body: { publicKey } });
    expect(out[4]).toEqual({ errors: ['publicKey'], body: {} });
    for (const o of out.slice(1, 4)) expect(() => parsePatchRequest({ ...o.body, version: 1 }, catalogue)).not.toThrow();
  });
});
