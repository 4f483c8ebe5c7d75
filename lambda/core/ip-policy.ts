/**
 * Matching a caller's address against a client's network allow-list (entries as
 * ./network-entries.ts checks and stores them), with node:net's BlockList.
 * IPv4-mapped IPv6 callers (`::ffff:192.0.2.1`) are matched as the IPv4 address they are.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { EVERYONE, admitsEveryone, parseEntry } from './network-entries';

/** A compiled allow-list. */
export interface IpAllowList {
  /** True when everyone is allowed. */
  readonly allowsEveryone: boolean;
  /** True when `ip` (IPv4 or IPv6 text) falls inside the list. Malformed input is never allowed. */
  allows(ip: string | undefined): boolean;
}

/** Compiles entries (each checked by normaliseNetworkEntry, ./network-entries.ts) into an {@link IpAllowList}. */
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
  // Entries that only together cover everything are matched by the BlockList anyway; the flag says so too.
  allowsEveryone ||= admitsEveryone(entries);
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
