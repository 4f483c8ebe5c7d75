// @ts-check
/**
 * Network whitelist entries, checked in the browser as lambda/core/ip-policy.ts checks them:
 * IPv4 and IPv6 addresses and CIDR ranges, canonical text back (`203.0.113.7/32` becomes
 * `203.0.113.7`, IPv6 in RFC 5952 form), a range with bits set after its prefix (`10.0.0.5/8`) refused
 * naming its canonical form, and `0.0.0.0`, any `/0` and `::ffff:0:0/96` (every IPv4 caller)
 * meaning everyone. The address grammar is Node's `net.isIPv4` / `net.isIPv6`;
 * test/portal/validation.test.ts checks every rule here against the core's.
 */
import { fail } from './errors.js';

/** The entry that lets every address in. */
const EVERYONE = '0.0.0.0';

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
  const typed = family === 'ipv6' ? addressText.toLowerCase() : addressText;
  const bytes = addressBytes(typed, family);
  // One spelling per address (RFC 5952 for IPv6), so equal entries are equal text.
  const address = formatAddress(bytes, family);
  if (prefix === maxPrefix) return address;
  const network = maskBytes(bytes, prefix);
  if (network.some((byte, i) => byte !== bytes[i])) {
    const range = `${formatAddress(network, family, true)}/${prefix}`;
    fail(
      'invalid_network',
      `Network whitelist entry ${JSON.stringify(`${typed}/${prefix}`)} has bits set after its /${prefix} prefix: the range it names is ${range}. Write ${range} for the whole range, or ${address} for the one address.`,
    );
  }
  return `${formatAddress(bytes, family, true)}/${prefix}`;
}

/** The first 96 bits of every IPv4-mapped IPv6 address (`::ffff:0:0/96`), and 32 zero bits. */
const IPV4_MAPPED = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0];

/**
 * True when the canonical entry lets everyone in: every address (`0.0.0.0` or a `/0` range), or
 * every IPv4 address (`::ffff:0:0/96`, or an IPv6 range holding it). The core's `admitsEveryone`.
 * @param {string} canonical
 */
export function allowsEveryone(canonical) {
  const [address, prefixText] = canonical.split('/');
  const family = isIPv4(address) ? 'ipv4' : 'ipv6';
  const prefix = prefixText === undefined ? (family === 'ipv4' ? 32 : 128) : Number(prefixText);
  if (prefix === 0) return true;
  if (family === 'ipv4') return address === EVERYONE && prefix === 32;
  if (prefix > 96) return false;
  const network = maskBytes(addressBytes(address, family), prefix);
  return maskBytes(IPV4_MAPPED, prefix).every((byte, i) => byte === network[i]);
}

/**
 * True when the canonical entries together let every IPv4 address in, or every IPv6 address
 * (`0.0.0.0/1` with `128.0.0.0/1`, …), as the core's `admitsEveryone` says of a list.
 * @param {readonly string[]} canonicalEntries
 */
export function entriesAdmitEveryone(canonicalEntries) {
  if (canonicalEntries.some(allowsEveryone)) return true;
  const parsed = canonicalEntries.map((canonical) => {
    const [address, prefixText] = canonical.split('/');
    /** @type {'ipv4' | 'ipv6'} */
    const family = isIPv4(address) ? 'ipv4' : 'ipv6';
    const bits = family === 'ipv4' ? 32 : 128;
    const prefix = prefixText === undefined ? bits : Number(prefixText);
    const start = maskBytes(addressBytes(address, family), prefix).reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
    return { family, start, end: start + (1n << BigInt(bits - prefix)) };
  });
  return coversWholeSpace(parsed, 'ipv4') || coversWholeSpace(parsed, 'ipv6');
}

/** Where IPv4-mapped addresses start in the IPv6 space (`::ffff:0.0.0.0`). */
const IPV4_MAPPED_START = 0xffffn << 32n;

/**
 * @param {{ family: 'ipv4' | 'ipv6', start: bigint, end: bigint }[]} ranges half-open intervals
 * @param {'ipv4' | 'ipv6'} family
 */
function coversWholeSpace(ranges, family) {
  const size = family === 'ipv4' ? 1n << 32n : 1n << 128n;
  /** @type {[bigint, bigint][]} */
  const own = [];
  for (const range of ranges) {
    let { start, end } = range;
    if (range.family !== family) {
      if (family === 'ipv6') continue;
      start = start > IPV4_MAPPED_START ? start : IPV4_MAPPED_START;
      end = end < IPV4_MAPPED_START + (1n << 32n) ? end : IPV4_MAPPED_START + (1n << 32n);
      if (start >= end) continue;
      [start, end] = [start - IPV4_MAPPED_START, end - IPV4_MAPPED_START];
    }
    own.push([start, end]);
  }
  own.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let covered = 0n;
  for (const [start, end] of own) {
    if (start > covered) return false;
    if (end > covered) covered = end;
  }
  return covered >= size;
}

/**
 * The address as bytes (4 or 16); the text is a valid address of `family`.
 * @param {string} address
 * @param {'ipv4' | 'ipv6'} family
 * @returns {number[]}
 */
function addressBytes(address, family) {
  if (family === 'ipv4') return address.split('.').map(Number);
  let text = address;
  /** @type {number[]} */
  let tail = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    tail = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}0:0`;
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  /** @param {string | undefined} part */
  const groups = (part) => (part === undefined || part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = groups(head);
  const right = groups(rest);
  const words = rest === undefined ? left : [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  const bytes = words.flatMap((w) => [w >> 8, w & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/**
 * The bytes with every bit after the first `prefix` cleared.
 * @param {readonly number[]} bytes
 * @param {number} prefix
 */
function maskBytes(bytes, prefix) {
  return bytes.map((byte, i) => {
    const keep = Math.max(0, Math.min(8, prefix - i * 8));
    return byte & ((0xff << (8 - keep)) & 0xff);
  });
}

/**
 * Bytes as address text: dotted IPv4, or IPv6 in RFC 5952 form (lower case, longest zero run as `::`).
 * @param {readonly number[]} bytes
 * @param {'ipv4' | 'ipv6'} family
 */
function formatAddress(bytes, family, range = false) {
  if (family === 'ipv4') return bytes.join('.');
  // RFC 5952 §5: an IPv4-mapped address keeps its IPv4 part dotted; the range of them all stays `::ffff:0:0/96`.
  const ipv4Part = bytes.slice(12);
  if (IPV4_MAPPED.slice(0, 12).every((byte, i) => bytes[i] === byte) && !(range && ipv4Part.every((b) => b === 0))) return `::ffff:${ipv4Part.join('.')}`;
  const words = Array.from({ length: 8 }, (_, i) => (bytes[2 * i] << 8) | bytes[2 * i + 1]);
  let best = { at: -1, length: 1 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  /** @param {number[]} list */
  const hex = (list) => list.map((w) => w.toString(16)).join(':');
  return best.at === -1 ? hex(words) : `${hex(words.slice(0, best.at))}::${hex(words.slice(best.at + best.length))}`;
}
