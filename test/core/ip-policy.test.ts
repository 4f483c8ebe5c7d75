import fc from 'fast-check';
import { compileAllowList, normaliseCallerIp } from '../../lambda/core/ip-policy';
import { EVERYONE, admitsEveryone, listReach, normaliseNetworkEntry } from '../../lambda/core/network-entries';
import { errorOf } from './helpers';

describe('normaliseNetworkEntry', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    [' 203.0.113.7 ', '203.0.113.7'],
    ['203.0.113.7/32', '203.0.113.7'],
    ['198.51.100.0/24', '198.51.100.0/24'],
    ['0.0.0.0', '0.0.0.0'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['2001:db8::1', '2001:db8::1'],
    ['2001:DB8::1', '2001:db8::1'],
    ['2001:db8::/32', '2001:db8::/32'],
    ['2001:db8::1/128', '2001:db8::1'],
    ['::/0', '::/0'],
    ['::ffff:192.0.2.1', '::ffff:192.0.2.1'],
    // RFC 5952, so that one address has one text.
    ['2001:0DB8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:0::01', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8::0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['::FFFF:C000:0201', '::ffff:192.0.2.1'],
    ['2001:0db8:0000::/48', '2001:db8::/48'],
    ['fe80::1%eth0', 'fe80::1'],
  ])('%j → %j', (entry, canonical) => {
    expect(normaliseNetworkEntry(entry)).toBe(canonical);
  });

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['not a string', 42],
    ['null', null],
    ['a host name', 'example.com'],
    ['an IPv4 address with 5 parts', '1.2.3.4.5'],
    ['an octet over 255', '256.1.1.1'],
    ['leading zeros (octal ambiguity)', '010.0.0.1'],
    ['an IPv4 prefix over 32', '10.0.0.0/33'],
    ['an IPv6 prefix over 128', '2001:db8::/129'],
    ['a negative prefix', '10.0.0.0/-1'],
    ['an empty prefix', '10.0.0.0/'],
    ['a non-numeric prefix', '10.0.0.0/abc'],
    ['a netmask instead of a prefix', '10.0.0.0/255.0.0.0'],
    ['two slashes', '10.0.0.0/8/8'],
    ['a range', '10.0.0.1-10.0.0.9'],
    ['a wildcard', '*'],
    ['an IP with a port', '203.0.113.7:443'],
    ['a bracketed IPv6', '[2001:db8::1]'],
    ['a list in one entry', '10.0.0.1, 10.0.0.2'],
  ])('refuses %s with invalid_network (400) naming what is accepted', (_name, entry) => {
    const error = errorOf(() => normaliseNetworkEntry(entry));
    expect(error.code).toBe('invalid_network');
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/0\.0\.0\.0|IPv4|prefix/);
  });

  it.each([
    ['10.0.0.5/8', '10.0.0.0/8', '10.0.0.5'],
    ['192.168.1.77/24', '192.168.1.0/24', '192.168.1.77'],
    ['1.2.3.4/0', '0.0.0.0/0', '1.2.3.4'],
    ['2001:db8::1/32', '2001:db8::/32', '2001:db8::1'],
    ['2001:DB8:0:0:1::/64', '2001:db8::/64', '2001:db8:0:0:1::'],
    ['::ffff:192.0.2.1/96', '::ffff:0:0/96', '::ffff:192.0.2.1'],
  ])('refuses %s (bits set after the prefix) naming the range %s and the address %s', (entry, range, address) => {
    const error = errorOf(() => normaliseNetworkEntry(entry));
    expect(error.code).toBe('invalid_network');
    expect(error.message).toContain(`the range it names is ${range}`);
    expect(error.message).toContain(`Write ${range} for the whole range, or ${address} for the one address`);
    expect(normaliseNetworkEntry(range)).toBe(range);
  });

  it('compileAllowList refuses a bad entry with invalid_network too', () => {
    expect(errorOf(() => compileAllowList(['203.0.113.7', 'nonsense'])).code).toBe('invalid_network');
  });

  it('throws only invalid_network for arbitrary text (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'0123456789abcdef.:/% '.split('')), maxLength: 24 }), (entry) => {
        try {
          normaliseNetworkEntry(entry);
          compileAllowList([entry]);
        } catch (error) {
          expect((error as { code?: string }).code).toBe('invalid_network');
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('listReach: the one test of how far a list is open (every address, every IPv4 address)', () => {
  it.each([
    [['0.0.0.0'], 'every-address'],
    [['203.0.113.7', '0.0.0.0/0'], 'every-address'],
    [['::/0'], 'every-address'],
    [['::ffff:0:0/96'], 'every-ipv4-address'],
    [['::ffff:0.0.0.0/96'], 'every-ipv4-address'],
    [['::/80'], 'every-ipv4-address'],
    [['::/96'], 'some-addresses'],
    [['::ffff:0:0/97'], 'some-addresses'],
    [['0.0.0.0/8'], 'some-addresses'],
    [['203.0.113.0/24', '2001:db8::/32'], 'some-addresses'],
    // Together: ranges whose union is all of IPv4 are every IPv4 address, not every address.
    [['0.0.0.0/1', '128.0.0.0/1'], 'every-ipv4-address'],
    [['128.0.0.0/1', '0.0.0.0/1'], 'every-ipv4-address'],
    [['::ffff:0:0/96', '2001:db8:1::/48'], 'every-ipv4-address'],
    [['0.0.0.0/3', '32.0.0.0/3', '64.0.0.0/3', '96.0.0.0/3', '128.0.0.0/3', '160.0.0.0/3', '192.0.0.0/3', '224.0.0.0/3'], 'every-ipv4-address'],
    [['0.0.0.0/3', '32.0.0.0/3', '64.0.0.0/3', '96.0.0.0/3', '128.0.0.0/3', '160.0.0.0/3', '192.0.0.0/3'], 'some-addresses'],
    [['::ffff:0:0/97', '128.0.0.0/1'], 'every-ipv4-address'],
    [['::ffff:0:0/97', '127.0.0.0/8'], 'some-addresses'],
    [['0.0.0.0/1', '128.0.0.0/2', '192.0.0.0/2'], 'every-ipv4-address'],
    [['0.0.0.0/1', '128.0.0.0/2', '192.0.0.0/3'], 'some-addresses'],
    // All of IPv6 holds every IPv4 address (mapped): every address.
    [['::/1', '8000::/1'], 'every-address'],
  ])('%j → %s', (entries, expected) => {
    expect(listReach(entries)).toBe(expected);
    // Only a list open to every address is "everyone": the warnings' test and the authorizer's shortcut agree.
    expect(admitsEveryone(entries)).toBe(expected === 'every-address');
    expect(compileAllowList(entries).allowsEveryone).toBe(expected === 'every-address');
  });

  /** Splits `0.0.0.0/0` into disjoint CIDRs at the given cut points (each split halves one range). */
  function splitIpv4(cuts: number[]): string[] {
    let ranges: [number, number][] = [[0, 0]]; // [start, prefix]
    for (const cut of cuts) {
      const i = cut % ranges.length;
      const [start, prefix] = ranges[i];
      if (prefix >= 32) continue;
      ranges = [...ranges.slice(0, i), [start, prefix + 1], [start + 2 ** (31 - prefix), prefix + 1], ...ranges.slice(i + 1)];
    }
    const text = (n: number) => [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
    return ranges.map(([start, prefix]) => `${text(start)}/${prefix}`);
  }

  it('any split of the IPv4 space into ranges is every IPv4 address, and no IPv6 one; without any one of its ranges it is not (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 40 }), fc.nat(), fc.boolean(), (cuts, drop, shuffle) => {
        const entries = splitIpv4(cuts);
        if (entries.length < 2) return;
        const listed = shuffle ? [...entries].reverse() : entries;
        expect(listReach(listed)).toBe('every-ipv4-address');
        expect(compileAllowList(listed).allows('2001:db8:dead:beef::1')).toBe(false);
        const without = listed.filter((_, i) => i !== drop % listed.length);
        expect(listReach(without)).toBe('some-addresses');
        // What the list lets in agrees: the dropped range's first address is refused.
        const dropped = listed[drop % listed.length].split('/')[0];
        expect(compileAllowList(without).allows(dropped)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  /** IPv6 text of a 128-bit number, all eight groups written out. */
  const ipv6Text = (n: bigint) => Array.from({ length: 8 }, (_, i) => ((n >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');
  /** True when the IPv6 CIDR `entry` holds `ip` (both as numbers), by arithmetic alone. */
  const holds = ([network, prefix]: [bigint, number], ip: bigint) => ip >> BigInt(128 - prefix) === network >> BigInt(128 - prefix);

  it('IPv6 ranges that cover everything but the IPv4-mapped block are every address only with all of IPv4 beside them', () => {
    // The sibling of ::ffff:0:0/96 at each prefix length 1-96: together, all of IPv6 except that block.
    const mapped = 0xffffn << 32n;
    const others = Array.from({ length: 96 }, (_, i) => {
      const prefix = i + 1;
      const bit = 1n << BigInt(128 - prefix);
      return `${ipv6Text(((mapped >> BigInt(128 - prefix)) << BigInt(128 - prefix)) ^ bit)}/${prefix}`;
    });
    expect(listReach(others)).toBe('some-addresses');
    expect(compileAllowList(others).allows('2001:db8:dead:beef::1')).toBe(true);
    expect(compileAllowList(others).allows('203.0.113.7')).toBe(false);
    expect(listReach([...others, '0.0.0.0/1', '128.0.0.0/1'])).toBe('every-address');
    expect(listReach([...others, '0.0.0.0/1'])).toBe('some-addresses');
  });

  it('a list that covers every IPv4 address lets in no IPv6 address that none of its entries holds', () => {
    for (const entries of [['0.0.0.0/1', '128.0.0.0/1'], ['::ffff:0:0/96', '2001:db8:1::/48'], ['::/80'], ['0.0.0.0/2', '64.0.0.0/2', '128.0.0.0/1', '2001:db8:1::/48']]) {
      const list = compileAllowList(entries);
      expect([entries, list.allowsEveryone]).toEqual([entries, false]);
      for (const ip of ['1.2.3.4', '255.255.255.255', '::ffff:198.51.100.9']) expect([entries, ip, list.allows(ip)]).toEqual([entries, ip, true]);
      for (const ip of ['2001:db8:dead:beef::1', 'fe80::1', '2001:4860::8888']) expect([entries, ip, list.allows(ip)]).toEqual([entries, ip, false]);
    }
    expect(compileAllowList(['::ffff:0:0/96', '2001:db8:1::/48']).allows('2001:db8:1::5')).toBe(true);
    expect(compileAllowList(['0.0.0.0/2', '64.0.0.0/2', '128.0.0.0/1', '2001:db8:1::/48']).allows('2001:db8:1:beef::1')).toBe(true);
  });

  it('an IPv6 caller gets through exactly when an IPv6 entry holds it, whatever IPv4 the list covers (property)', () => {
    const ipv6Range = fc.tuple(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), fc.integer({ min: 1, max: 128 })).map(([n, prefix]): [bigint, number] => [(n >> BigInt(128 - prefix)) << BigInt(128 - prefix), prefix]);
    // Callers outside the IPv4-mapped block, often inside one of the ranges.
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 12 }), fc.array(ipv6Range, { maxLength: 4 }), fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), fc.nat(), (cuts, ranges, random, pick) => {
        // All of IPv4, split into at least two ranges (one range would be 0.0.0.0/0: everyone).
        const ipv4 = splitIpv4(cuts);
        if (ipv4.length < 2) return;
        const caller = ranges.length > 0 && pick % 2 === 0 ? ranges[pick % ranges.length][0] | (random >> BigInt(ranges[pick % ranges.length][1])) : random;
        if (caller >> 32n === 0xffffn) return;
        const entries = [...ipv4, ...ranges.map(([n, prefix]) => `${ipv6Text(n)}/${prefix}`)];
        const expected = ranges.some((range) => holds(range, caller));
        expect(compileAllowList(entries).allows(ipv6Text(caller))).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with what the allow-list lets in: every IPv4 caller gets through a list it calls open', () => {
    for (const entry of ['::ffff:0:0/96', '::/80', '::/0', '0.0.0.0']) {
      const list = compileAllowList([entry]);
      for (const ip of ['1.2.3.4', '255.255.255.255', '::ffff:198.51.100.9', '0.0.0.1']) expect([entry, ip, list.allows(ip)]).toEqual([entry, ip, true]);
    }
  });
});

describe('compileAllowList', () => {
  it('allows an exact IPv4 address and nothing next to it', () => {
    const list = compileAllowList(['203.0.113.7']);
    expect(list.allowsEveryone).toBe(false);
    expect(list.allows('203.0.113.7')).toBe(true);
    expect(list.allows('203.0.113.8')).toBe(false);
    expect(list.allows('203.0.113.6')).toBe(false);
  });

  it('allows an IPv4 CIDR range, boundaries included', () => {
    const list = compileAllowList(['198.51.100.0/24']);
    expect(list.allows('198.51.100.0')).toBe(true);
    expect(list.allows('198.51.100.255')).toBe(true);
    expect(list.allows('198.51.101.0')).toBe(false);
    expect(list.allows('198.51.99.255')).toBe(false);
  });

  it('reads a CIDR entry with host bits set as its network', () => {
    const list = compileAllowList(['10.1.2.3/8']);
    expect(list.allows('10.200.0.1')).toBe(true);
    expect(list.allows('11.0.0.0')).toBe(false);
  });

  it('allows an exact IPv6 address, written in any case or compression', () => {
    const list = compileAllowList(['2001:db8::1']);
    expect(list.allows('2001:db8::1')).toBe(true);
    expect(list.allows('2001:DB8:0:0:0:0:0:1')).toBe(true);
    expect(list.allows('2001:db8::2')).toBe(false);
  });

  it('allows an IPv6 CIDR range', () => {
    const list = compileAllowList(['2001:db8::/32']);
    expect(list.allows('2001:db8:ffff::1')).toBe(true);
    expect(list.allows('2001:db9::1')).toBe(false);
    expect(list.allows('203.0.113.7')).toBe(false);
  });

  it.each([[EVERYONE], ['0.0.0.0/0'], ['::/0']])('%s allows every valid IPv4 and IPv6 caller', (entry) => {
    const list = compileAllowList(['203.0.113.7', entry]);
    expect(list.allowsEveryone).toBe(true);
    for (const ip of ['1.2.3.4', '255.255.255.255', '2001:db8::1', '::1', '::ffff:192.0.2.1']) expect(list.allows(ip)).toBe(true);
  });

  it('0.0.0.0/8 is a range, not everyone', () => {
    const list = compileAllowList(['0.0.0.0/8']);
    expect(list.allowsEveryone).toBe(false);
    expect(list.allows('0.1.2.3')).toBe(true);
    expect(list.allows('1.2.3.4')).toBe(false);
  });

  it('an empty list allows nobody', () => {
    const list = compileAllowList([]);
    expect(list.allowsEveryone).toBe(false);
    expect(list.allows('203.0.113.7')).toBe(false);
    expect(list.allows('::1')).toBe(false);
  });

  it('matches IPv4-mapped IPv6 callers as the IPv4 address they are', () => {
    const list = compileAllowList(['192.0.2.0/24']);
    expect(list.allows('::ffff:192.0.2.1')).toBe(true);
    expect(list.allows('::FFFF:192.0.2.1')).toBe(true);
    expect(list.allows('::ffff:c000:0201')).toBe(true);
    expect(list.allows('::ffff:198.51.100.1')).toBe(false);
  });

  it('matches IPv4 callers against an IPv4-mapped IPv6 entry', () => {
    const list = compileAllowList(['::ffff:192.0.2.0/120']);
    expect(list.allows('192.0.2.5')).toBe(true);
    expect(list.allows('192.0.3.5')).toBe(false);
  });

  it('accepts a bracketed IPv6 caller and one with a zone id', () => {
    const list = compileAllowList(['fe80::1']);
    expect(list.allows('[fe80::1]')).toBe(true);
    expect(list.allows('fe80::1%eth0')).toBe(true);
  });

  it.each([
    ['undefined', undefined],
    ['empty', ''],
    ['a host name', 'localhost'],
    ['an X-Forwarded-For list', '203.0.113.7, 10.0.0.1'],
    ['an IP with a port', '203.0.113.7:443'],
    ['an octet over 255', '999.1.1.1'],
    ['a mapped address with a bad octet', '::ffff:999.1.1.1'],
    ['five parts', '203.0.113.7.1'],
    ['a CIDR range', '203.0.113.7/32'],
    ['text', 'unknown'],
  ])('never allows a junk caller IP (%s), even when everyone is allowed', (_name, ip) => {
    for (const entries of [['0.0.0.0'], ['::/0'], ['203.0.113.0/24']]) {
      expect(compileAllowList(entries).allows(ip)).toBe(false);
    }
  });

  it('agrees with an independent IPv4 prefix check (property)', () => {
    const toInt = (ip: string) => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
    const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'));
    fc.assert(
      fc.property(ipv4, fc.integer({ min: 1, max: 32 }), ipv4, (network, prefix, caller) => {
        const size = 2 ** (32 - prefix);
        const inside = Math.floor(toInt(network) / size) === Math.floor(toInt(caller) / size);
        expect(compileAllowList([`${network}/${prefix}`]).allows(caller)).toBe(inside);
      }),
      { numRuns: 500 },
    );
  });
});

describe('normaliseCallerIp', () => {
  it('unwraps mapped IPv4 and lower-cases IPv6', () => {
    expect(normaliseCallerIp('::ffff:192.0.2.1')).toEqual({ address: '192.0.2.1', family: 'ipv4' });
    expect(normaliseCallerIp('2001:DB8::1')).toEqual({ address: '2001:db8::1', family: 'ipv6' });
    expect(normaliseCallerIp(' 192.0.2.1 ')).toEqual({ address: '192.0.2.1', family: 'ipv4' });
    expect(normaliseCallerIp('nope')).toBeUndefined();
  });
});
