/**
 * Matching a caller's address against a client's network allow-list (entries as
 * ./network-entries.ts checks and stores them), with node:net's BlockList.
 * IPv4-mapped IPv6 callers (`::ffff:192.0.2.1`) are matched as the IPv4 address they are.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { admitsEveryone, meansEveryone, parseEntry } from './network-entries';

/** A compiled allow-list. */
export interface IpAllowList {
  /** True when every caller, IPv4 and IPv6, is allowed (network-entries.ts `listReach`: `every-address`). */
  readonly allowsEveryone: boolean;
  /** True when `ip` (IPv4 or IPv6 text) falls inside the list. Malformed input is never allowed. */
  allows(ip: string | undefined): boolean;
}

/** Compiles entries (each checked by normaliseNetworkEntry, ./network-entries.ts) into an {@link IpAllowList}. */
export function compileAllowList(entries: readonly string[]): IpAllowList {
  const list = new BlockList();
  for (const entry of entries) {
    const parsed = parseEntry(entry);
    if (!meansEveryone(parsed)) list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  // Only a list that lets in every IPv4 AND every IPv6 caller skips the entries. One that covers
  // every IPv4 address (::ffff:0:0/96, 0.0.0.0/1 with 128.0.0.0/1) holds IPv6 callers to its entries.
  const allowsEveryone = admitsEveryone(entries);
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
