/**
 * The client's network allow-list: IPv4 and IPv6 addresses and CIDR ranges.
 *
 * `0.0.0.0` means everyone (the seed's convention), and so does any `/0` range (`0.0.0.0/0`,
 * `::/0`). IPv4-mapped IPv6 callers (`::ffff:192.0.2.1`) are matched as the IPv4 address they are.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { fail } from './errors';

/** A compiled allow-list. */
export interface IpAllowList {
  /** True when everyone is allowed. */
  readonly allowsEveryone: boolean;
  /** True when `ip` (IPv4 or IPv6 text) falls inside the list. Malformed input is never allowed. */
  allows(ip: string | undefined): boolean;
}

/** The seed's "everyone" entry. */
export const EVERYONE = '0.0.0.0';

interface ParsedEntry {
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
  return parsed.prefix === maxPrefix ? parsed.address : `${parsed.address}/${parsed.prefix}`;
}

/** Compiles entries (each checked by {@link normaliseNetworkEntry}) into an {@link IpAllowList}. */
export function compileAllowList(entries: readonly string[]): IpAllowList {
  const list = new BlockList();
  let allowsEveryone = false;
  for (const entry of entries) {
    const parsed = parseEntry(entry);
    if (parsed.prefix === 0 || (parsed.family === 'ipv4' && parsed.address === EVERYONE && parsed.prefix === 32)) {
      allowsEveryone = true;
      continue;
    }
    list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  return {
    allowsEveryone,
    allows(ip: string | undefined): boolean {
      const caller = normaliseCallerIp(ip);
      if (caller === undefined) return false;
      if (allowsEveryone) return true;
      return list.check(caller.address, caller.family);
    },
  };
}

/** The caller's address in canonical form, or undefined when it is not an IP address. */
export function normaliseCallerIp(ip: string | undefined): { address: string; family: 'ipv4' | 'ipv6' } | undefined {
  if (typeof ip !== 'string') return undefined;
  let address = ip.trim();
  if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1);
  const zone = address.indexOf('%');
  if (zone !== -1) address = address.slice(0, zone);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) address = mapped[1];
  if (isIPv4(address)) return { address, family: 'ipv4' };
  if (isIPv6(address)) return { address: address.toLowerCase(), family: 'ipv6' };
  return undefined;
}

function parseEntry(entry: unknown): ParsedEntry {
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
