/**
 * Network whitelist entries as the registry stores them: IPv4 and IPv6 addresses and CIDR ranges.
 * Pure (no node:net), so the portal's page runs these same functions in the browser (bundled
 * from portal/signet-core.ts).
 *
 * `0.0.0.0` means everyone (Signet's convention for "no IP restriction"), and so does any `/0` range (`0.0.0.0/0`,
 * `::/0`): each alone lets in every IPv4 and every IPv6 caller. Every other entry lets in the
 * addresses it holds and nothing more. IPv4-mapped IPv6 callers (`::ffff:192.0.2.1`) are matched
 * as the IPv4 address they are, so `::ffff:0:0/96` (or any IPv6 range holding it) lets in every
 * IPv4 caller, and no IPv6 one. {@link listReach} is the one test behind every warning that a
 * list is open (to every address, or to every IPv4 address).
 *
 * Entries are stored canonical: IPv6 in RFC 5952 form (`2001:DB8:0:0::01` is `2001:db8::1`), a
 * range by its network address (`10.0.0.0/8`); an entry with bits set after its prefix
 * (`10.0.0.5/8`) is refused with the canonical form named, since it is unclear whether the
 * address or the range was meant. Entries stored before that are still read as they are.
 * Matching callers against a list is ./ip-policy.ts.
 */
import { fail } from './errors';
import { isIPv4, isIPv6 } from './ip-address';

/** The entry that means everyone. */
export const EVERYONE = '0.0.0.0';

/** An entry split into family, address text and prefix length. */
export interface ParsedEntry {
  readonly family: 'ipv4' | 'ipv6';
  readonly address: string;
  readonly prefix: number;
}

/**
 * Checks one allow-list entry and returns its canonical text (address, or address/prefix).
 * @throws SignetError `invalid_network` naming the entry and what is accepted
 */
export function normaliseNetworkEntry(entry: unknown): string {
  const parsed = parseEntry(entry);
  const maxPrefix = parsed.family === 'ipv4' ? 32 : 128;
  const bytes = addressBytes(parsed);
  // One spelling per address (RFC 5952 for IPv6), so equal entries are equal text.
  const address = formatAddress(bytes, parsed.family);
  if (parsed.prefix === maxPrefix) return address;
  const network = maskBytes(bytes, parsed.prefix);
  if (network.some((byte, i) => byte !== bytes[i])) {
    const range = `${formatAddress(network, parsed.family, true)}/${parsed.prefix}`;
    fail(
      'invalid_network',
      `Network whitelist entry ${JSON.stringify(`${parsed.address}/${parsed.prefix}`)} has bits set after its /${parsed.prefix} prefix: the range it names is ${range}. Write ${range} for the whole range, or ${address} for the one address.`,
    );
  }
  return `${formatAddress(bytes, parsed.family, true)}/${parsed.prefix}`;
}

/** The first 96 bits of every IPv4-mapped IPv6 address (`::ffff:0:0/96`). */
const IPV4_MAPPED_PREFIX: readonly number[] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/**
 * How far an allow-list reaches, for the warnings (the CLI's note, the portal's line) and the
 * authorizer's shortcut:
 * - `every-address`: it lets in every caller, IPv4 and IPv6. An entry that means everyone does
 *   that (`0.0.0.0`, `0.0.0.0/0`, `::/0`; each of them alone is every address of both families,
 *   unlike a security group's `0.0.0.0/0`), and so do ranges that together cover all of IPv6
 *   (`::/1` with `8000::/1`): IPv6 holds every IPv4 address, mapped.
 * - `every-ipv4-address`: it lets in every IPv4 caller but not every IPv6 one: `::ffff:0:0/96`
 *   (or an IPv6 range holding it, such as `::/80`), or ranges that together cover all of IPv4
 *   (`0.0.0.0/1` with `128.0.0.0/1`). An IPv6 caller is let in only by an entry that holds it.
 * - `some-addresses`: anything less.
 */
export type ListReach = 'every-address' | 'every-ipv4-address' | 'some-addresses';

/**
 * How far the allow-list reaches ({@link ListReach}): the one test behind every "open" warning.
 * @throws SignetError `invalid_network` when an entry is not an address or range
 */
export function listReach(entries: readonly string[]): ListReach {
  const parsed = entries.map(parseEntry);
  if (parsed.some(meansEveryone) || coversWholeSpace(parsed, 'ipv6')) return 'every-address';
  return coversWholeSpace(parsed, 'ipv4') ? 'every-ipv4-address' : 'some-addresses';
}

/**
 * True when the allow-list lets in every caller, IPv4 and IPv6 ({@link listReach} `every-address`).
 * A list that covers only every IPv4 address is not everyone: IPv6 callers are held to its entries.
 * @throws SignetError `invalid_network` when an entry is not an address or range
 */
export function admitsEveryone(entries: readonly string[]): boolean {
  return listReach(entries) === 'every-address';
}

/** True for the entries that mean everyone by themselves: `0.0.0.0` and any `/0` (`0.0.0.0/0`, `::/0`). */
export function meansEveryone(parsed: ParsedEntry): boolean {
  return parsed.prefix === 0 || (parsed.family === 'ipv4' && parsed.address === EVERYONE && parsed.prefix === 32);
}

const IPV4_SPACE = 1n << 32n;
const IPV6_SPACE = 1n << 128n;
/** Where IPv4-mapped addresses start in the IPv6 space (`::ffff:0.0.0.0`). */
const IPV4_MAPPED_START = 0xffffn << 32n;

/**
 * True when the entries' ranges together cover every address of `family`, as callers are
 * matched: an IPv4 caller is let in by IPv4 entries and by the IPv4-mapped part of IPv6 ones
 * (`::ffff:0:0/96`); an IPv6 caller by IPv6 entries, and an IPv4-mapped one by IPv4 entries.
 */
function coversWholeSpace(entries: readonly ParsedEntry[], family: 'ipv4' | 'ipv6'): boolean {
  const size = family === 'ipv4' ? IPV4_SPACE : IPV6_SPACE;
  const ranges: [bigint, bigint][] = [];
  for (const entry of entries) {
    let [start, end] = rangeOf(entry);
    if (entry.family === 'ipv4' && family === 'ipv6') {
      // An IPv4 range as the IPv4-mapped IPv6 addresses it lets in.
      [start, end] = [start + IPV4_MAPPED_START, end + IPV4_MAPPED_START];
    } else if (entry.family === 'ipv6' && family === 'ipv4') {
      // The IPv4-mapped part of an IPv6 range, as IPv4 addresses.
      start = start > IPV4_MAPPED_START ? start : IPV4_MAPPED_START;
      end = end < IPV4_MAPPED_START + IPV4_SPACE ? end : IPV4_MAPPED_START + IPV4_SPACE;
      if (start >= end) continue;
      [start, end] = [start - IPV4_MAPPED_START, end - IPV4_MAPPED_START];
    }
    ranges.push([start, end]);
  }
  ranges.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let covered = 0n;
  for (const [start, end] of ranges) {
    if (start > covered) return false;
    if (end > covered) covered = end;
  }
  return covered >= size;
}

/** The entry's addresses as a half-open interval [start, end) of numbers in its family's space. */
function rangeOf(entry: ParsedEntry): [bigint, bigint] {
  const bits = entry.family === 'ipv4' ? 32 : 128;
  const start = maskBytes(addressBytes(entry), entry.prefix).reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
  return [start, start + (1n << BigInt(bits - entry.prefix))];
}

/** The address as bytes (4 or 16). The text was checked by {@link isIPv4} / {@link isIPv6}. */
export function addressBytes(parsed: ParsedEntry): number[] {
  if (parsed.family === 'ipv4') return parsed.address.split('.').map(Number);
  let text = parsed.address;
  let tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    tail = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}0:0`;
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (part: string | undefined) => (part === undefined || part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = groups(head);
  const right = groups(rest);
  const words = rest === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = words.flatMap((w) => [w >> 8, w & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** The bytes with every bit after the first `prefix` cleared. */
function maskBytes(bytes: readonly number[], prefix: number): number[] {
  return bytes.map((byte, i) => {
    const keep = Math.max(0, Math.min(8, prefix - i * 8));
    return byte & ((0xff << (8 - keep)) & 0xff);
  });
}

/**
 * Bytes as address text: dotted IPv4, or IPv6 in RFC 5952 form (lower case, no leading zeros,
 * the longest run of two or more zero groups as `::`, the first of equal runs; IPv4-mapped as
 * `::ffff:a.b.c.d`).
 */
function formatAddress(bytes: readonly number[], family: 'ipv4' | 'ipv6', range = false): string {
  if (family === 'ipv4') return bytes.join('.');
  // RFC 5952 §5: an IPv4-mapped address keeps its IPv4 part dotted; the range of them all stays `::ffff:0:0/96`.
  const ipv4Part = bytes.slice(12);
  if (IPV4_MAPPED_PREFIX.every((byte, i) => bytes[i] === byte) && !(range && ipv4Part.every((b) => b === 0))) return `::ffff:${ipv4Part.join('.')}`;
  const words = Array.from({ length: 8 }, (_, i) => (bytes[2 * i] << 8) | bytes[2 * i + 1]);
  let best = { at: -1, length: 1 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = (list: number[]) => list.map((w) => w.toString(16)).join(':');
  return best.at === -1 ? hex(words) : `${hex(words.slice(0, best.at))}::${hex(words.slice(best.at + best.length))}`;
}

/**
 * Splits an entry into family, address and prefix.
 * @throws SignetError `invalid_network` naming the entry and what is accepted
 */
export function parseEntry(entry: unknown): ParsedEntry {
  if (typeof entry !== 'string' || entry.trim() === '') {
    fail('invalid_network', 'A network whitelist entry is empty. Give an IPv4 or IPv6 address or a CIDR range, e.g. 203.0.113.7 or 2001:db8::/32; 0.0.0.0 allows everyone.');
  }
  const text = entry.trim();
  const slash = text.indexOf('/');
  const addressText = slash === -1 ? text : text.slice(0, slash);
  const prefixText = slash === -1 ? undefined : text.slice(slash + 1);
  const shown = JSON.stringify(text.slice(0, 64));
  const family = isIPv4(addressText) ? 'ipv4' : isIPv6(addressText) ? 'ipv6' : undefined;
  if (family === undefined) {
    fail('invalid_network', `Network whitelist entry ${shown} is not an IPv4 or IPv6 address or CIDR range. Use e.g. 203.0.113.7, 198.51.100.0/24 or 2001:db8::/32; 0.0.0.0 allows everyone.`);
  }
  const maxPrefix = family === 'ipv4' ? 32 : 128;
  let prefix = maxPrefix;
  if (prefixText !== undefined) {
    if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > maxPrefix) {
      fail('invalid_network', `Network whitelist entry ${shown} has a prefix length outside 0-${maxPrefix}.`);
    }
    prefix = Number(prefixText);
  }
  const address = family === 'ipv6' ? addressText.toLowerCase() : addressText;
  return { family, address, prefix };
}
