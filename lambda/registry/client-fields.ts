/**
 * A client's plain fields as the registry accepts them (name, network whitelist, roles) and their
 * limits. Pure, so the portal's form checks the same rules inline (bundled from
 * portal/signet-core.ts) before the registry checks them again on POST and PATCH.
 */
import { fail } from '../core/errors';
import { normaliseNetworkEntry } from '../core/network-entries';
import { type CompiledRoleCatalogue, knownRolesSentence, validateRoles } from '../core/role-policy';

/** Longest client name, in characters. @default 128 */
export const MAX_NAME_CHARS = 128;
/** Most network whitelist entries per client. @default 100 */
export const MAX_WHITELIST_ENTRIES = 100;
/** Most roles per client. @default 50 */
export const MAX_ROLES = 50;
/** Longest `publicKey` text accepted, in characters (a 16384-bit PEM is about 2.8 KB). @default 16_384 */
export const MAX_PUBLIC_KEY_CHARS = 16_384;

/**
 * A client's (or an account's) name: trimmed, 1 to MAX_NAME_CHARS characters, no control
 * characters and none of the invisible ones that change how it reads ({@link UNSEEN_IN_NAMES}).
 * @throws SignetError `invalid_request`
 */
export function parseClientName(value: unknown): string {
  if (typeof value !== 'string') fail('invalid_request', 'name must be a string.');
  const name = value.trim();
  if (name === '' || name.length > MAX_NAME_CHARS) fail('invalid_request', `name must be 1 to ${MAX_NAME_CHARS} characters.`);
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) fail('invalid_request', 'name must not contain control characters (line breaks, tabs, ...).');
  if (UNSEEN_IN_NAMES.test(name.replace(SUBDIVISION_FLAGS, ''))) {
    fail('invalid_request', 'name must not contain invisible characters that change how it reads (direction marks, overrides and isolates, zero-width spaces, soft hyphens and other format characters, line separators): names are shown in listings and logs as they are.');
  }
  return name;
}

/**
 * Invisible characters a name may not hold, since a name shows who a client is in every listing:
 * every format character (Unicode's Cf: bidirectional marks, embeddings, overrides and isolates, a
 * name that reads as another; zero-width spaces, word joiners, the byte order mark, soft hyphens,
 * tag characters outside a region's flag), line and paragraph separators, and the marks and
 * fillers that show as nothing or a blank (the combining grapheme joiner, Khmer's inherent vowels,
 * the braille blank, the Hangul fillers). Zero-width joiners and non-joiners stay (scripts and
 * emoji sequences need them), and so does the Mongolian vowel separator.
 */
// The joiners and combining marks named here are the characters the rule is about, not text in a class by mistake.
// eslint-disable-next-line no-misleading-character-class
const UNSEEN_IN_NAMES = /(?![\u200c\u200d\u180e])[\p{Cf}\p{Zl}\p{Zp}\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0]/u;

/** A region's flag (England, Scotland, Wales): a black flag, tag letters and a cancel tag, which a name may show. */
const SUBDIVISION_FLAGS = /\u{1f3f4}[\u{e0020}-\u{e007e}]+\u{e007f}/gu;

/**
 * The whole whitelist: 1 to MAX_WHITELIST_ENTRIES entries, each canonical, duplicates dropped.
 * @throws SignetError `invalid_network`
 */
export function parseNetworkWhitelist(value: unknown): string[] {
  if (!Array.isArray(value)) {
    fail('invalid_network', 'networkWhitelist must be a list of IPv4/IPv6 addresses or CIDR ranges, e.g. ["203.0.113.7", "2001:db8::/32"]; ["0.0.0.0"] allows everyone.');
  }
  if (value.length === 0 || value.length > MAX_WHITELIST_ENTRIES) {
    fail('invalid_network', `networkWhitelist must hold 1 to ${MAX_WHITELIST_ENTRIES} entries; use ["0.0.0.0"] to allow everyone.`);
  }
  return [...new Set(value.map((entry) => normaliseNetworkEntry(entry)))];
}

/**
 * A client's roles: 1 to MAX_ROLES names of the catalogue, de-duplicated, in the order given.
 * @param knownRoles the sentence naming the roles the caller may give (see validateRoles)
 * @throws SignetError `unknown_role` naming the known roles
 */
export function parseClientRoles(value: unknown, catalogue: Pick<CompiledRoleCatalogue, 'roleNames'>, knownRoles: string = knownRolesSentence(catalogue)): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_ROLES) {
    fail('unknown_role', `roles must be a list of 1 to ${MAX_ROLES} role names. ${knownRoles}`);
  }
  return validateRoles(value, catalogue, knownRoles);
}

/**
 * What an `unknown_role` refusal tells a caller scoped to an account about the roles there are:
 * not the catalogue, which lists roles of other accounts' ceilings, but where its own are listed.
 */
export const ACCOUNT_KNOWN_ROLES = 'GET /registry/roles lists the roles you may give.';
