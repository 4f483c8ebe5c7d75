/**
 * Is this text an IPv4 or an IPv6 address? The grammar of Node's `net.isIPv4` / `net.isIPv6`
 * (dotted quads without leading zeros; IPv6 with `::`, an embedded IPv4 tail and a `%zone`),
 * written out so that the core runs in the browser too. test/core/ip-address.test.ts checks it
 * against node:net on random text.
 */

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

/** True when `text` is a dotted-quad IPv4 address, as `net.isIPv4` says. */
export function isIPv4(text: string): boolean {
  return IPV4.test(text);
}

/** True when `text` is an IPv6 address (a `%zone` allowed), as `net.isIPv6` says. */
export function isIPv6(text: string): boolean {
  return IPV6.test(text);
}
