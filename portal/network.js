// @ts-check
/**
 * Network whitelist entries, checked in the browser as lambda/core/ip-policy.ts checks them:
 * IPv4 and IPv6 addresses and CIDR ranges, canonical text back (`203.0.113.7/32` becomes
 * `203.0.113.7`, IPv6 lower-cased), `0.0.0.0` (and any `/0`) meaning everyone. The address
 * grammar is Node's `net.isIPv4` / `net.isIPv6` (test/portal/network.test.ts compares them).
 */
import { fail } from './errors.js';

const V4_SEG = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])';
const V4 = `(?:${V4_SEG}\\.){3}${V4_SEG}`;
const V6_SEG = '(?:[0-9a-fA-F]{1,4})';
const IPV4 = new RegExp(`^${V4}$`);
const IPV6 = new RegExp(
  '^(?:' +
    `(?:${V6_SEG}:){7}(?:${V6_SEG}|:)|` +
    `(?:${V6_SEG}:){6}(?:${V4}|:${V6_SEG}|:)|` +
    `(?:${V6_SEG}:){5}(?::${V4}|(?::${V6_SEG}){1,2}|:)|` +
    `(?:${V6_SEG}:){4}(?:(?::${V6_SEG}){0,1}:${V4}|(?::${V6_SEG}){1,3}|:)|` +
    `(?:${V6_SEG}:){3}(?:(?::${V6_SEG}){0,2}:${V4}|(?::${V6_SEG}){1,4}|:)|` +
    `(?:${V6_SEG}:){2}(?:(?::${V6_SEG}){0,3}:${V4}|(?::${V6_SEG}){1,5}|:)|` +
    `(?:${V6_SEG}:){1}(?:(?::${V6_SEG}){0,4}:${V4}|(?::${V6_SEG}){1,6}|:)|` +
    `(?::(?:(?::${V6_SEG}){0,5}:${V4}|(?::${V6_SEG}){1,7}|:))` +
    ')(?:%[0-9a-zA-Z-.:]{1,})?$',
);

/** @param {string} text */
export function isIPv4(text) {
  return IPV4.test(text);
}

/** @param {string} text */
export function isIPv6(text) {
  return IPV6.test(text);
}

/**
 * Checks one whitelist entry and returns its canonical text (address, or address/prefix).
 * @param {unknown} entry
 * @returns {string}
 * @throws PortalError `invalid_network` with the registry's sentence
 */
export function normaliseNetworkEntry(entry) {
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
  return prefix === maxPrefix ? address : `${address}/${prefix}`;
}
