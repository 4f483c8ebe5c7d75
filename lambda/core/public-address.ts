/**
 * Is this IP address on the public Internet? Signet fetches published keys only from addresses
 * that are: never from loopback, private, link-local (the cloud metadata service at
 * 169.254.169.254 included), shared (CGNAT), unique-local, multicast, documentation or otherwise
 * reserved ranges, so that a key-source URL cannot reach inside the network Signet runs in.
 *
 * The ranges are IANA's special-purpose address registries (RFC 6890 and its updates) as far as
 * they are not globally reachable. IPv6 forms that carry an IPv4 address (IPv4-mapped `::ffff:0:0/96`,
 * IPv4-compatible `::/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged by the IPv4 address
 * they carry. Outside global unicast (`2000::/3`) no IPv6 address is public. Pure: no node:net.
 */
import { isIPv4, isIPv6 } from './ip-address';
import { addressBytes, parseEntry } from './network-entries';

interface Range {
  readonly start: bigint;
  readonly prefix: number;
  readonly name: string;
}

function range(cidr: string, name: string): Range {
  const parsed = parseEntry(cidr);
  return { start: toNumber(addressBytes(parsed)), prefix: parsed.prefix, name: `${name} (${cidr})` };
}

/** IPv4 ranges that are not globally reachable (RFC 6890 §2.2.2, RFC 6598, RFC 5737, RFC 2544, RFC 3068). */
const IPV4_NON_PUBLIC: readonly Range[] = [
  range('0.0.0.0/8', '"this network" / unspecified'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'shared address space (CGNAT)'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local (cloud metadata services live here)'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'IETF protocol assignments'),
  range('192.0.2.0/24', 'documentation (TEST-NET-1)'),
  range('192.88.99.0/24', '6to4 relay anycast'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'benchmarking'),
  range('198.51.100.0/24', 'documentation (TEST-NET-2)'),
  range('203.0.113.0/24', 'documentation (TEST-NET-3)'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved (and broadcast)'),
];

/** IPv6 ranges inside 2000::/3 that are not globally reachable (RFC 6890 §2.2.3, RFC 3849, RFC 9637). */
const IPV6_NON_PUBLIC_GLOBAL: readonly Range[] = [
  range('2001::/23', 'IETF protocol assignments (Teredo, benchmarking, ORCHID)'),
  range('2001:db8::/32', 'documentation'),
  range('3fff::/20', 'documentation'),
];

/** IPv6 ranges outside 2000::/3 with a name worth telling (the rest of that space is "reserved"). */
const IPV6_NAMED: readonly Range[] = [
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('64:ff9b:1::/48', 'local-use NAT64'),
  range('100::/64', 'discard-only'),
  range('5f00::/16', 'SRv6 segment identifiers'),
  range('fc00::/7', 'unique-local'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'site-local (deprecated)'),
  range('ff00::/8', 'multicast'),
];

/** IPv6 prefixes whose addresses carry an IPv4 address in their last 32 bits. */
const IPV4_CARRIERS: readonly Range[] = [range('::ffff:0:0/96', 'IPv4-mapped'), range('::/96', 'IPv4-compatible'), range('64:ff9b::/96', 'NAT64')];
const SIX_TO_FOUR = range('2002::/16', '6to4');
const GLOBAL_UNICAST = range('2000::/3', 'global unicast');

/**
 * Why `address` is not a public address, or undefined when it is one.
 * @param address an IPv4 or IPv6 address as text (an IPv6 `%zone` is ignored: zoned addresses are link-local anyway)
 * @returns e.g. `'loopback (127.0.0.0/8)'`, `'IPv4-mapped form of link-local (169.254.0.0/16)'`, `'not an IP address'`
 * @example nonPublicReason('169.254.169.254') // 'link-local (cloud metadata services live here) (169.254.0.0/16)'
 */
export function nonPublicReason(address: string): string | undefined {
  const text = address.replace(/%.*$/, '');
  if (isIPv4(text)) return ipv4Reason(toNumber(addressBytes(parseEntry(text))));
  if (!isIPv6(address)) return 'not an IP address';
  const n = toNumber(addressBytes(parseEntry(text)));
  const named = find(IPV6_NAMED, n, 128);
  if (named !== undefined) return named.name;
  const carrier = find(IPV4_CARRIERS, n, 128);
  if (carrier !== undefined) return carried(carrier.name, n & 0xffff_ffffn);
  if (contains(SIX_TO_FOUR, n, 128)) return carried(SIX_TO_FOUR.name, (n >> 80n) & 0xffff_ffffn);
  if (!contains(GLOBAL_UNICAST, n, 128)) return 'reserved (outside global unicast 2000::/3)';
  return find(IPV6_NON_PUBLIC_GLOBAL, n, 128)?.name;
}

function ipv4Reason(n: bigint): string | undefined {
  return find(IPV4_NON_PUBLIC, n, 32)?.name;
}

function carried(form: string, ipv4: bigint): string | undefined {
  const reason = ipv4Reason(ipv4);
  return reason === undefined ? undefined : `${form.replace(/ \(.*\)$/, '')} form of ${reason}`;
}

function find(ranges: readonly Range[], n: bigint, bits: number): Range | undefined {
  return ranges.find((r) => contains(r, n, bits));
}

function contains(r: Range, n: bigint, bits: number): boolean {
  const shift = BigInt(bits - r.prefix);
  return n >> shift === r.start >> shift;
}

function toNumber(bytes: readonly number[]): bigint {
  return bytes.reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
}
