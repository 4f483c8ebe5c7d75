/**
 * Finding private key material in what people paste or send, wherever it is in the text and
 * whatever its form, before anything is registered or sent: the registry refuses it
 * (`private_key_submitted`), the CLI refuses to send it, and the portal's form refuses it on the
 * spot. Pure (DER judged by its structure, ./der.ts), so the portal runs this same scan in the
 * browser (bundled from portal/signet-core.ts).
 */
import { decodeBase64 } from './base64';
import { isPrivateKeyDer } from './der';

/** What `private_key_submitted` says wherever a public key was expected. */
export const PRIVATE_KEY_SUBMITTED_MESSAGE =
  'This is a private key. Paste only the public half (-----BEGIN PUBLIC KEY-----), and treat this private key as exposed: generate a new key pair.';

/** A private key's PEM header, of any kind: PKCS#8, PKCS#1 RSA, SEC1 EC, DSA, OpenSSH, encrypted PKCS#8. */
const PRIVATE_PEM_HEADER = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;
/** PEM armour lines, removed before the Base64 between and around them is judged. */
const PEM_ARMOUR = /-----(?:BEGIN|END) [A-Z0-9 ]*-----/g;
/** What separates Base64 runs: anything outside the Base64 and base64url alphabets, and `=` (padding ends a run; `KEY=MII…` starts one). */
const NOT_BASE64 = /[^A-Za-z0-9+/_-]+/;
/** Escapes a key pasted into JSON or code carries instead of line breaks (`\n`, `\r`, `\t`)… */
const ESCAPED_BREAKS = /\\[nrt]/g;
/** …and for `/` (`\/`, as some JSON writers do). */
const ESCAPED_SLASH = /\\\//g;
/**
 * A JWK's private member `d` beside its `kty`, in any JSON-like text: double, single or no
 * quotes around names and values (`{"d":"…"}`, `{'d': '…'}`, `{d: '…'}`).
 */
const JWK_PRIVATE_MEMBER = /(?:^|[^A-Za-z0-9_$])["']?d["']?\s*[:=]\s*["'][A-Za-z0-9_-]{8,}/;
const JWK_KTY_MEMBER = /(?:^|[^A-Za-z0-9_$])["']?kty["']?\s*[:=]/;
/**
 * A text that is nothing but 32 bytes in hex: an Ed25519 private key's seed, as `signet keygen`
 * writes it (private.ed25519.hex) for curl's `--httpsig-key`, also with `0x` in front, its bytes
 * separated by `:` or spaces, or split over lines. Judged only where a key is expected
 * ({@link looksLikePrivateKey}), never in a whole body, where a SHA-256 in hex looks the same.
 */
const ED25519_SEED_TEXT = /^\s*(?:0x)?[0-9a-fA-F]{2}(?:(?::|\s*)[0-9a-fA-F]{2}){31}\s*$/;
/** OpenSSH's private key format (`openssh-key-v1\0` in Base64) and PuTTY's, even without their armour. */
const OTHER_PRIVATE_FORMATS = /b3BlbnNzaC1rZXktdjEA|PuTTY-User-Key-File-\d|Private-Lines:\s*\d/;
/** A run of hex that starts a DER SEQUENCE: `30…`, bytes optionally separated by `:` or one space (openssl's dumps). */
const HEX_DER_RUN = /(?<![0-9a-fA-F])30(?:[:\s]?[0-9a-fA-F]{2}){39,}/g;
/** The smallest private key DER judged (an Ed25519 PKCS#8 is 48 bytes). */
const MIN_PRIVATE_DER_BYTES = 40;
/** The largest (a 16384-bit RSA PKCS#8 is about 9.4 KB). */
const MAX_PRIVATE_DER_BYTES = 16_384;
/**
 * Most DER candidates parsed in one scan (one text, or one whole body): bounds the work a long
 * body of Base64 or hex decoys can cause (each parse attempt costs up to a few tenths of a
 * millisecond). A scan that would need more does not guess: it says so
 * (`too_many_candidates`), and callers refuse the input.
 */
const MAX_DER_CANDIDATES = 64;

/** The parse attempts a scan has left. */
interface ScanBudget {
  candidates: number;
}

/**
 * What a scan for private key material found: some, none, or more key-like runs than one scan
 * parses ({@link MAX_DER_CANDIDATES}) — then it cannot tell, and the input must be refused.
 */
export type PrivateKeyScan = 'private_key' | 'none' | 'too_many_candidates';

/** Thrown inside a scan when its budget runs out. */
const OUT_OF_BUDGET = Symbol('out of budget');

/**
 * True when the text holds private key material anywhere in it, in any form Signet recognises,
 * or holds too many key-like runs to tell (fail closed):
 * - a PEM private key block of any kind (`-----BEGIN … PRIVATE KEY-----`), OpenSSH's or PuTTY's
 *   format;
 * - Base64 (or base64url) of a PKCS#8, PKCS#1 or SEC1 private key DER, whether inside a PEM block
 *   whose label was edited, bare, after a public key, after `KEY=` or among other words, on one
 *   line, wrapped, or with its line breaks written as `\n` escapes;
 * - hex of such a DER (`3082…`, also `30:82:…`);
 * - a JWK with a private member `d` beside its `kty`, however quoted;
 * - a text that is only 32 bytes in hex (64 digits, also `0x…`, `:`-separated or over two lines): an
 *   Ed25519 seed, as `signet keygen` writes it.
 * The whole text is judged, not its first key: a public PEM followed by a private key is private.
 */
export function looksLikePrivateKey(text: string): boolean {
  return ED25519_SEED_TEXT.test(text) || scanForPrivateKey(text) !== 'none';
}

/**
 * True when any string anywhere in a JSON value holds private key material (see
 * {@link scanForPrivateKey}), or when the value is too full of key-like runs to tell.
 */
export function holdsPrivateKeyMaterial(value: unknown): boolean {
  return scanForPrivateKey(value) !== 'none';
}

/**
 * Looks for private key material in any JSON value: a string, or every string at any depth of
 * arrays and objects (member names too), and objects that are private JWKs (a `kty` and a `d`).
 * For request bodies: every field is judged, not only `publicKey`. One parse budget for the whole
 * value; iterative, so a deeply nested body cannot exhaust the stack.
 */
export function scanForPrivateKey(value: unknown): PrivateKeyScan {
  const budget: ScanBudget = { candidates: MAX_DER_CANDIDATES };
  const pending: unknown[] = [value];
  try {
    while (pending.length > 0) {
      const next = pending.pop();
      if (typeof next === 'string') {
        if (textHoldsPrivateKey(next, budget)) return 'private_key';
      } else if (Array.isArray(next)) {
        pending.push(...next);
      } else if (typeof next === 'object' && next !== null) {
        if ('kty' in next && 'd' in next) return 'private_key';
        for (const [name, member] of Object.entries(next)) pending.push(name, member);
      }
    }
  } catch (error) {
    if (error === OUT_OF_BUDGET) return 'too_many_candidates';
    throw error;
  }
  return 'none';
}

function textHoldsPrivateKey(text: string, budget: ScanBudget): boolean {
  if (PRIVATE_PEM_HEADER.test(text) || OTHER_PRIVATE_FORMATS.test(text)) return true;
  if (JWK_KTY_MEMBER.test(text) && JWK_PRIVATE_MEMBER.test(text)) return true;
  const plain = text.replace(PEM_ARMOUR, ' ').replace(ESCAPED_BREAKS, ' ').replace(ESCAPED_SLASH, '/');
  return holdsPrivateDer(plain, budget) || holdsPrivateHexDer(plain, budget);
}

/** Spends one parse attempt; out of budget, ends the scan (see {@link OUT_OF_BUDGET}). */
function spend(budget: ScanBudget): void {
  if (budget.candidates <= 0) throw OUT_OF_BUDGET;
  budget.candidates--;
}

/**
 * True when a run of Base64 in the text decodes to a private key DER. Runs are the text's tokens
 * (split on anything outside the Base64 alphabets); a DER may span tokens (a wrapped PEM body),
 * so each token that starts a DER SEQUENCE is joined with the tokens after it up to the length
 * its header declares, and parsed as exactly that many bytes.
 */
function holdsPrivateDer(text: string, budget: ScanBudget): boolean {
  const tokens = text.split(NOT_BASE64).filter((token) => token !== '');
  for (let i = 0; i < tokens.length; i++) {
    const head = tokens[i].length >= 12 && tokens[i][0] === 'M' ? decodeBase64(toStandardBase64(tokens[i].slice(0, 12))) : undefined;
    const declared = head === undefined ? undefined : declaredDerBytes(head);
    if (declared === undefined) continue;
    spend(budget);
    const needed = Math.ceil((declared * 4) / 3); // the characters that carry `declared` bytes, padding not needed
    let joined = '';
    for (let j = i; j < tokens.length && joined.length < needed; j++) joined += tokens[j];
    if (joined.length < needed) continue;
    const der = decodeBase64(toStandardBase64(joined.slice(0, needed)));
    if (der.length >= declared && isPrivateKeyDer(der.subarray(0, declared))) return true;
  }
  return false;
}

/** True when a run of hex in the text (`3082…`, `30:82:…`) is a private key DER. */
function holdsPrivateHexDer(text: string, budget: ScanBudget): boolean {
  for (const match of text.matchAll(HEX_DER_RUN)) {
    const hex = match[0].replace(/[:\s]/g, '');
    const declared = declaredDerBytes(decodeHex(hex.slice(0, 24)));
    if (declared === undefined || hex.length < declared * 2) continue;
    spend(budget);
    if (isPrivateKeyDer(decodeHex(hex.slice(0, declared * 2)))) return true;
  }
  return false;
}

/**
 * The total length a DER SEQUENCE header declares, when the bytes start one of a plausible size
 * whose first element is what every private key format starts with: the version INTEGER 0
 * (PKCS#8, PKCS#1) or 1 (SEC1), or a SEQUENCE (encrypted PKCS#8). Cheap, so decoys rarely cost a
 * parse. `head`: the first 9 bytes or more.
 */
function declaredDerBytes(head: Uint8Array): number | undefined {
  if (head[0] !== 0x30) return undefined;
  let total: number;
  let at: number;
  if (head[1] < 0x80) {
    total = 2 + head[1];
    at = 2;
  } else {
    const octets = head[1] & 0x7f;
    if (octets < 1 || octets > 3) return undefined;
    let length = 0;
    for (let k = 0; k < octets; k++) length = length * 256 + head[2 + k];
    total = 2 + octets + length;
    at = 2 + octets;
  }
  const versionOrSequence = head[at] === 0x30 || (head[at] === 0x02 && head[at + 1] === 0x01 && head[at + 2] <= 1);
  return versionOrSequence && total >= MIN_PRIVATE_DER_BYTES && total <= MAX_PRIVATE_DER_BYTES ? total : undefined;
}

function toStandardBase64(text: string): string {
  return text.replace(/-/g, '+').replace(/_/g, '/');
}

/** Hex digits (an even count) as bytes. */
function decodeHex(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}
