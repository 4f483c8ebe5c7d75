/**
 * The verification engine. Every door into Signet (both authorizers, the local gateway,
 * `signet verify` and `signet explain`) calls this; none re-implements a check.
 *
 * The steps follow RFC 9421 §3.2, in one visible order, in two stages:
 *   1. what every coverage profile requires ({@link checkSignatureMember}): parse Signature-Input /
 *      Signature (§3.2 steps 1-3) → component cap → a known `alg` when present → checkKeyId →
 *      checkCreated / checkExpires (§3.2.1) → checkTargetCoverage (`@method` and the target) →
 *      checkDigestCoverage (digest with a body) → checkDateField;
 *   2. what the profile adds ({@link parseCheckedSignature}): `alg` required, its required
 *      components, a date covered → build the signature base (§2.5);
 * then resolve keys by keyid → verify with each usable key, by the algorithm it was registered
 * with (./algorithms.ts; an `alg` parameter must name that algorithm).
 * Stage 1 needs neither a key nor the client's profile, so the authorizer runs it on every
 * signature before it reads the registry: junk never costs a read.
 * A memoized Signature-Input that already passed the checks that depend only on it and the
 * policy skips them (see CheckedInput.sharedPassedFor and CheckedInput.passedFor).
 */
import type { KeyObject } from 'node:crypto';
import { type SignatureAlgorithm, algorithmFits, algorithmForKey, checkAlgorithmName, signatureLength, signatureShapeHint, verifySignature } from './algorithms';
import { BoundedMemo } from './bounded-cache';
import { checkContentDigestField } from './content-digest';
import {
  DEFAULT_ALLOW_LEGACY,
  DEFAULT_MAX_AGE_S,
  DEFAULT_MAX_COVERED_COMPONENTS,
  DEFAULT_MAX_SKEW_S,
  DATE_FIELDS,
  type DateField,
  DIGEST_ALGORITHM,
  SIGNATURE_LABEL,
} from './defaults';
import { fail, isSignetError } from './errors';
import { parseHttpDate } from './http-date';
import { MAX_KEYID_LENGTH } from './keyid';
import { type CoverageProfile, MAX_SIGNATURES_READ, policyForProfile } from './profiles';
import { buildSignatureBase, trimOws } from './signature-base';
import { ComponentId, SignatureInput, type SignatureMemberSummary, checkComponentCount, listSignatureMembers, readSignatureInput, readSignatureValue } from './signature-params';
import { SignedRequest } from './types';

/**
 * Parsed Signature-Input values, by exact field text: a client signing several requests in the
 * same second sends the same Signature-Input each time (same components, created, keyid, alg), and
 * parsing it is the largest non-RSA cost of a verification (see BENCHMARKS.md). Only values that
 * parsed are kept (a malformed one is parsed, and refused, every time), only short ones, and at
 * most this many (a BoundedMemo: a value read again within 256 new values stays). Parsing is a
 * pure function of the text and the label, and the result is read-only, so sharing it changes
 * nothing but the time. Memory: about 1 KB per entry.
 */
const SIGNATURE_INPUT_MEMO_ENTRIES = 512;

/** Longest Signature-Input value memoized, in characters (a typical one is ~130). */
const SIGNATURE_INPUT_MEMO_MAX_CHARS = 512;

/** Parsed Date header values, by exact text (all requests signed in the same second share one): two minutes of seconds stay. */
const DATE_MEMO_ENTRIES = 256;

const signatureInputMemo = new BoundedMemo<string, CheckedInput>(SIGNATURE_INPUT_MEMO_ENTRIES);
const signatureMembersMemo = new BoundedMemo<string, readonly SignatureMemberSummary[]>(SIGNATURE_INPUT_MEMO_ENTRIES);

/**
 * The keyid signature `label` gives, when Signature-Input has that signature and it parses within
 * the policy's component limit; else undefined. The parse is the memoized one the verifier then
 * reuses, so reading the keyid first costs nothing more.
 */
export function peekKeyId(field: string, label: string, policy: VerifyPolicy): string | undefined {
  try {
    return readSignatureInputMemoized(field, label, policy).input.keyid;
  } catch (error) {
    if (isSignetError(error)) return undefined;
    throw error;
  }
}

/**
 * {@link listSignatureMembers}, memoized like the Signature-Input parse (same bounds): the
 * authorizer reads the labels and keyids of every request before it picks the one to check.
 */
export function readSignatureMembersMemoized(field: string, maxMembers: number): readonly SignatureMemberSummary[] {
  if (field.length > SIGNATURE_INPUT_MEMO_MAX_CHARS) return listSignatureMembers(field, maxMembers);
  const hit = signatureMembersMemo.get(field);
  if (hit !== undefined && hit.length <= maxMembers) return hit;
  const members = Object.freeze(listSignatureMembers(field, maxMembers));
  signatureMembersMemo.set(field, members);
  return members;
}
const dateMemo = new BoundedMemo<string, number>(DATE_MEMO_ENTRIES);

/** A parsed Signature-Input member with the facts about its covered list that every check reads. */
export interface CheckedInput {
  readonly input: SignatureInput;
  /** Covered names; a `content-digest` with parameters that sign only part of it is `content-digest;partial`. */
  readonly names: ReadonlySet<string>;
  /** The date fields covered (see DATE_FIELDS), in DATE_FIELDS order. */
  readonly dateFields: readonly DateField[];
  /** Whether any covered component is derived from the target URI. */
  readonly coversUrl: boolean;
  /** The covered identifiers as serialized in the base. */
  readonly serialized: readonly string[];
  /** Whether `content-digest` is covered whole. */
  readonly coversDigest: boolean;
  /**
   * The policy this input last passed the checks of stage 1 for that depend only on it and the
   * policy (a known `alg`, the keyid, `@method` and the target covered); they are skipped for it.
   */
  sharedPassedFor?: VerifyPolicy;
  /**
   * The policy this input last passed the profile's checks for (alg required, required
   * components, legacy). They are skipped for it; they run, in order, for any other policy and
   * for an input that has not yet passed.
   */
  passedFor?: VerifyPolicy;
}

function checkedInput(input: SignatureInput): CheckedInput {
  const names = new Set(input.covered.map((c: ComponentId) => (c.name === 'content-digest' && !coversWholeField(c) ? 'content-digest;partial' : c.name)));
  return {
    input,
    names,
    dateFields: DATE_FIELDS.filter((field) => names.has(field)),
    coversUrl: input.covered.some((c) => c.name !== '@method' && c.name.startsWith('@')),
    serialized: Object.freeze(input.covered.map((c) => c.serialized)),
    coversDigest: names.has('content-digest'),
  };
}

/**
 * {@link readSignatureInput} with its {@link CheckedInput} facts, memoized (see {@link SIGNATURE_INPUT_MEMO_ENTRIES}).
 * A hit parsed under another policy's component limit is checked against this one's by the caller.
 */
function readSignatureInputMemoized(field: string, label: string, { maxCoveredComponents }: VerifyPolicy): CheckedInput {
  if (field.length > SIGNATURE_INPUT_MEMO_MAX_CHARS) return checkedInput(readSignatureInput(field, label, maxCoveredComponents));
  const hit = signatureInputMemo.get(field);
  if (hit !== undefined && hit.input.label === label) return hit;
  const checked = checkedInput(readSignatureInput(field, label, maxCoveredComponents));
  signatureInputMemo.set(field, checked);
  return checked;
}

/** The Date header's unix seconds (OWS around the value ignored), or undefined when it is not an IMF-fixdate. */
function readDateHeader(raw: string): number | undefined {
  const hit = dateMemo.get(raw);
  if (hit !== undefined) return hit;
  // Trimmed by a scan, not a regex: /[ \t]+$/ is quadratic on a long run of blanks inside the value.
  const date = parseHttpDate(trimOws(raw));
  if (date !== undefined && raw.length <= 64) dateMemo.set(raw, date);
  return date;
}

/** Everything verification depends on; build it once per cold start with {@link defaultVerifyPolicy}. */
export interface VerifyPolicy {
  /**
   * What a signature must cover (./profiles.ts): `signet` (label, alg, @target-uri and date
   * required) or `rfc9421` (any label, @method and the target, alg and date optional).
   * Derive one from another with {@link policyForProfile}. @default 'signet'
   */
  readonly profile: CoverageProfile;
  /** The signature label read under the `signet` profile; others are ignored. @default 'sig' */
  readonly label: string;
  /** Oldest acceptable `created` / Date, seconds before now. @default 300 */
  readonly maxAgeS: number;
  /** Tolerated clock difference: `created` in the future, and Date vs `created`. @default 30 */
  readonly maxSkewS: number;
  /**
   * Accept the legacy signer form without `date`. Risk: the Date header then is not signed and
   * only `created` bounds the signature's age. @default false
   */
  readonly allowLegacy: boolean;
  /**
   * The most components one signature may cover: each costs work before the key is known, so
   * this bounds what an unauthenticated request costs. More: `invalid_signature_input`.
   * @default DEFAULT_MAX_COVERED_COMPONENTS (16)
   */
  readonly maxCoveredComponents: number;
  /** Components every signature must cover, besides `date` and `content-digest`. @default ['@method', '@target-uri'] */
  readonly requiredComponents: readonly string[];
  /** Whether a covered Content-Digest must carry sha-256 (the backend compares that one). @default true */
  readonly requireSha256Digest: boolean;
  /** Whether `alg` must be present (when present it must always name the key's algorithm). @default true */
  readonly requireAlg: boolean;
  /** The current time, unix seconds. Injected: the core has no clock. */
  readonly nowS: () => number;
  /** Receives each signature base built (for `signet explain`); production leaves it unset and never logs bases. */
  readonly onBase?: (base: string) => void;
}

/** A public key registered for a keyid. */
export interface VerificationKey {
  readonly fingerprint: string;
  readonly key: KeyObject;
  /** The algorithm the key was registered with. @default the key type's own (RSA: rsa-v1_5-sha256) */
  readonly algorithm?: SignatureAlgorithm;
  /** Unix seconds after which the key no longer verifies (rollover grace), if any. */
  readonly notAfterS?: number;
}

/**
 * A signature that passed every check every coverage profile makes ({@link checkSignatureMember}):
 * both fields parse, its components are within the cap, its `alg` (when given) is one Signet
 * verifies, it has a keyid, it is inside its created/expires window, it covers `@method` and the
 * target, and its digest and date fields hold. Nothing here needed a key or the client's profile.
 */
export interface CheckedSignature {
  readonly label: string;
  readonly keyId: string;
  readonly created: number;
  readonly signature: Buffer;
  /** The Content-Digest header value when covered. */
  readonly contentDigest?: string;
  /** Whether the coverage of the target (and of the query) was checked: the policy required it. */
  readonly targetChecked: boolean;
  readonly checked: CheckedInput;
}

/** A signature that passed every key-independent check, with its base(s) built. */
export interface ParsedSignature {
  readonly keyId: string;
  readonly created: number;
  readonly expires?: number;
  readonly label: string;
  readonly covered: readonly string[];
  readonly signature: Buffer;
  /** The signature base over the request's own target URI. */
  readonly base: string;
  /**
   * The bases over the other candidate target URIs (REST v1 query spellings, path encodings), in
   * order. Each is built on first use and only once: verification tries every key on `base`
   * first, so a request whose keyid names no client, or that verifies on its own URL, never
   * costs one.
   */
  readonly alternativeBases: Iterable<string>;
  /** The Content-Digest header value when covered. */
  readonly contentDigest?: string;
  readonly input: SignatureInput;
}

/** The outcome of a successful verification. */
export interface Verdict {
  readonly keyId: string;
  readonly fingerprint: string;
  readonly created: number;
  readonly covered: readonly string[];
  /** The signed Content-Digest value, for the backend's body check. */
  readonly contentDigest?: string;
}

/**
 * The safe defaults, with `overrides` applied. `nowS` defaults to the system clock. A `profile`
 * override gives that profile's coverage rules ({@link policyForProfile}).
 */
export function defaultVerifyPolicy(overrides: Partial<VerifyPolicy> = {}): VerifyPolicy {
  const { profile, ...rest } = overrides;
  const base: VerifyPolicy = Object.freeze({
    profile: 'signet',
    label: SIGNATURE_LABEL,
    maxAgeS: DEFAULT_MAX_AGE_S,
    maxSkewS: DEFAULT_MAX_SKEW_S,
    allowLegacy: DEFAULT_ALLOW_LEGACY,
    maxCoveredComponents: DEFAULT_MAX_COVERED_COMPONENTS,
    requiredComponents: ['@method', '@target-uri'],
    requireSha256Digest: true,
    requireAlg: true,
    nowS: () => Math.floor(Date.now() / 1000),
    ...rest,
  });
  return profile === undefined ? base : policyForProfile(base, profile);
}

/**
 * Runs every check that needs no key and builds the signature base over the request's own URL:
 * {@link checkSignatureMember}, then {@link parseCheckedSignature}.
 * @param targetUriCandidates other spellings of the target URI to try (REST v1 query rebuilds), bounded
 *   by the caller; read only if the key does not verify `req.targetUri` (so it may be lazy)
 * @param label the signature to check; by default the policy's label (`signet`), or under `rfc9421`
 *   the first signature Signature-Input declares (the authorizer picks by keyid: lambda/authorizer)
 * @throws SignetError with the reason code of the first failed check
 */
export function parseRequestSignature(
  req: SignedRequest,
  policy: VerifyPolicy,
  targetUriCandidates: Iterable<string> = NO_ALTERNATIVES,
  label?: string,
): ParsedSignature {
  return parseCheckedSignature(req, checkSignatureMember(req, label ?? defaultLabel(req, policy), policy), policy, targetUriCandidates);
}

/**
 * The signature `policy` reads when no label is chosen: the policy's label (`sig`), or under a
 * profile that accepts any label and without a `sig` signature, the first one declared.
 */
export function defaultLabel(req: SignedRequest, policy: VerifyPolicy): string {
  const inputField = req.headers['signature-input'];
  // Without both fields the refusal is missing_signature, whatever the label.
  if (inputField === undefined || req.headers['signature'] === undefined || policy.profile !== 'rfc9421') return policy.label;
  return firstLabel(inputField, policy);
}

/**
 * Stage 1: the checks every coverage profile makes on signature `label`, none of which needs a
 * key or the client's profile (only the policy's windows and limits, which every profile shares).
 * A signature that fails them can pass under no profile, so the authorizer reads the registry
 * only for one that passed.
 * @throws SignetError with the reason code of the first failed check
 */
export function checkSignatureMember(req: SignedRequest, label: string, policy: VerifyPolicy): CheckedSignature {
  const inputField = req.headers['signature-input'];
  const signatureField = req.headers['signature'];
  if (inputField === undefined || signatureField === undefined) {
    const missing = inputField === undefined && signatureField === undefined ? 'Signature-Input and Signature headers' : inputField === undefined ? 'Signature-Input header' : 'Signature header';
    fail('missing_signature', `The request has no ${missing}. Sign it as described in docs/scheme.md.`);
  }
  const checked = readSignatureInputMemoized(inputField, label, policy);
  const { input } = checked;
  const signature = readSignatureValue(signatureField, label);
  checkComponentCount(input.label, input.covered.length, policy.maxCoveredComponents);
  const passed = checked.sharedPassedFor === policy;
  if (!passed) {
    if (input.alg !== undefined) checkAlgorithmName(input.alg);
    checkKeyId(input);
  }
  const now = policy.nowS();
  const created = checkCreated(input, policy, now);
  checkExpires(input, now);
  const targetRequired = requiresTarget(policy);
  if (!passed) {
    checkTargetCoverage(checked, policy, targetRequired);
    checked.sharedPassedFor = policy;
  }
  if (targetRequired) checkQueryCoverage(checked, req);
  const contentDigest = checkDigestCoverage(checked, req, policy);
  for (const field of checked.dateFields) checkDateField(field, req, policy, created, now);
  return { label: input.label, keyId: input.keyid as string, created, signature, contentDigest, targetChecked: targetRequired, checked };
}

/**
 * Stage 2: what `policy`'s profile adds to the checks of {@link checkSignatureMember} (`alg`
 * required, its required components, a date covered), then the signature base over the
 * request's own URL. When stage 1 ran under a policy that did not require the target covered,
 * `policy`'s target rule is checked here, so its rules hold whatever policy stage 1 ran under.
 * @param member what {@link checkSignatureMember} returned for this request
 * @param targetUriCandidates as for {@link parseRequestSignature}
 * @throws SignetError with the reason code of the first failed check
 */
export function parseCheckedSignature(req: SignedRequest, member: CheckedSignature, policy: VerifyPolicy, targetUriCandidates: Iterable<string> = NO_ALTERNATIVES): ParsedSignature {
  const { checked } = member;
  const { input } = checked;
  if (checked.passedFor !== policy) {
    checkAlgorithm(input, policy);
    checkRequiredCoverage(checked, policy);
    checked.passedFor = policy;
  }
  if (!member.targetChecked && requiresTarget(policy)) {
    checkTargetCoverage(checked, policy, true);
    checkQueryCoverage(checked, req);
  }
  const base = buildSignatureBase(req, input.covered, input.signatureParams);
  policy.onBase?.(base);
  const alternativeBases = checked.coversUrl && targetUriCandidates !== NO_ALTERNATIVES ? new AlternativeBases(req, input, policy, targetUriCandidates) : NO_ALTERNATIVES;
  return {
    keyId: member.keyId,
    created: member.created,
    expires: input.expires,
    label: input.label,
    covered: checked.serialized,
    signature: member.signature,
    base,
    alternativeBases,
    contentDigest: member.contentDigest,
    input,
  };
}

const NO_ALTERNATIVES: readonly string[] = Object.freeze([]);

/** Under a profile that accepts any label, with none chosen: the policy's label when present, else the first signature declared. */
function firstLabel(inputField: string, policy: VerifyPolicy): string {
  const members = readSignatureMembersMemoized(inputField, MAX_SIGNATURES_READ);
  if (members.some((m) => m.label === policy.label) || members.length === 0) return policy.label;
  return members[0].label;
}

/**
 * The signature bases over the other candidate URLs, built on demand, each once (every key
 * reuses them), in the candidates' order. A candidate equal to the request's own URL or to an
 * earlier one is skipped, and so is one whose base cannot be built (it cannot be what was signed).
 */
class AlternativeBases implements Iterable<string> {
  private readonly built: string[] = [];
  private pending: Iterator<string> | undefined;
  private seen: Set<string> | undefined;

  constructor(
    private readonly req: SignedRequest,
    private readonly input: SignatureInput,
    private readonly policy: VerifyPolicy,
    private readonly candidates: Iterable<string>,
  ) {}

  *[Symbol.iterator](): Iterator<string> {
    for (let i = 0; ; i++) {
      const base = i < this.built.length ? this.built[i] : this.buildNext();
      if (base === undefined) return;
      yield base;
    }
  }

  private buildNext(): string | undefined {
    this.pending ??= this.candidates[Symbol.iterator]();
    this.seen ??= new Set([this.req.targetUri]);
    for (let next = this.pending.next(); next.done !== true; next = this.pending.next()) {
      const targetUri = next.value;
      if (this.seen.has(targetUri)) continue;
      this.seen.add(targetUri);
      let base: string;
      try {
        base = buildSignatureBase({ ...this.req, targetUri }, this.input.covered, this.input.signatureParams);
      } catch (error) {
        if (isSignetError(error)) continue;
        throw error;
      }
      this.policy.onBase?.(base);
      this.built.push(base);
      return base;
    }
    return undefined;
  }
}

/**
 * Verifies the signature with the keys registered for its keyid (RFC 9421 §3.3.2).
 * @returns the fingerprint of the key that verified
 * @throws SignetError `key_expired` when every key is past its not-after, `signature_mismatch` otherwise
 */
export function verifyParsedSignature(parsed: ParsedSignature, keys: readonly VerificationKey[], policy: VerifyPolicy): { fingerprint: string } {
  return refuseUnlessUsable(parsed, keys, policy, signingKey(parsed, keys, policy));
}

/**
 * Which of `keys` made the signature: a usable key first, else one past its not-after (an expired
 * key still verifies nothing it did not sign). Undefined when none did: then the request was not
 * signed by this client at all, whatever it claims.
 */
export function signingKey(parsed: ParsedSignature, keys: readonly VerificationKey[], policy: VerifyPolicy): VerificationKey | undefined {
  const now = policy.nowS();
  if (allUsable(keys, now)) return firstVerifyingKey(parsed, keys);
  return firstVerifyingKey(parsed, keys.filter((k) => isUsable(k, now))) ?? firstVerifyingKey(parsed, keys.filter((k) => !isUsable(k, now)));
}

/**
 * The verdict of {@link verifyParsedSignature} for the key {@link signingKey} found.
 * @throws SignetError `key_expired` when that key (or, with none, every key) is past its not-after,
 *   `algorithm_mismatch` when `alg` names an algorithm none of the usable keys has, `signature_mismatch` otherwise
 */
export function refuseUnlessUsable(parsed: ParsedSignature, keys: readonly VerificationKey[], policy: VerifyPolicy, signer: VerificationKey | undefined): { fingerprint: string } {
  const now = policy.nowS();
  if (signer !== undefined && isUsable(signer, now)) return { fingerprint: signer.fingerprint };
  const usable = keys.filter((k) => isUsable(k, now));
  // Choosing the actionable reason: a retired key signed, or only retired keys are left.
  if (signer !== undefined || (keys.length > 0 && usable.length === 0)) {
    fail('key_expired', 'The key that signed this request has passed its not-after date (rollover grace ended). Sign with the current key.');
  }
  const alg = parsed.input.alg;
  const fitting = usable.filter((k) => algorithmFits(alg, algorithmOf(k)));
  if (alg !== undefined && usable.length > 0 && fitting.length === 0) {
    const registered = [...new Set(usable.map(algorithmOf))].join(' or ');
    fail('algorithm_mismatch', `The signature says alg="${alg}", but this client's registered key is ${registered}. Sign with the registered key and its algorithm (or register a ${alg} key).`);
  }
  fail('signature_mismatch', `The signature does not match the request with any key registered for this client.${shapeNote(parsed.signature, fitting)} Run \`signet explain\` to compare signature bases.`);
}

/** What the signature's length says, when no fitting key makes signatures of that length. */
function shapeNote(signature: Buffer, keys: readonly VerificationKey[]): string {
  if (keys.length === 0 || keys.some((k) => signatureBytes(k) === signature.length)) return '';
  for (const k of keys) {
    const hint = signatureShapeHint(algorithmOf(k), signature);
    if (hint !== undefined) return ` ${hint}`;
  }
  const sizes = [...new Set(keys.map(signatureBytes))];
  return ` The signature is ${signature.length} bytes; the registered key makes ${sizes.join(' or ')}-byte signatures.`;
}

function isUsable(key: VerificationKey, now: number): boolean {
  return key.notAfterS === undefined || now <= key.notAfterS;
}

function allUsable(keys: readonly VerificationKey[], now: number): boolean {
  for (const k of keys) if (k.notAfterS !== undefined && now > k.notAfterS) return false;
  return true;
}

/** Whether `candidate` could have made this signature: its algorithm fits `alg` and its signatures have this length. */
function mayHaveSigned(parsed: ParsedSignature, candidate: VerificationKey): boolean {
  return parsed.signature.length === signatureBytes(candidate) && algorithmFits(parsed.input.alg, algorithmOf(candidate));
}

/** The first key that verifies the request's own base, else (building them one by one) an alternative base. */
function firstVerifyingKey(parsed: ParsedSignature, keys: readonly VerificationKey[]): VerificationKey | undefined {
  let possible = 0;
  for (const candidate of keys) {
    if (!mayHaveSigned(parsed, candidate)) continue;
    possible++;
    if (verifiesBase(parsed.base, candidate, parsed.signature)) return candidate;
  }
  if (possible === 0 || parsed.alternativeBases === NO_ALTERNATIVES) return undefined;
  for (const base of parsed.alternativeBases) {
    for (const candidate of keys) {
      if (mayHaveSigned(parsed, candidate) && verifiesBase(base, candidate, parsed.signature)) return candidate;
    }
  }
  return undefined;
}

function verifiesBase(base: string, candidate: VerificationKey, signature: Buffer): boolean {
  return verifySignature(algorithmOf(candidate), utf8Bytes(base), candidate.key, signature);
}

/**
 * Where each base is encoded for crypto.verify, which is synchronous: reusing one buffer saves an
 * allocation per verification. Bases too long to fit (over 5 KiB of text) get their own buffer.
 */
const BASE_SCRATCH = Buffer.alloc(16 * 1024);

/** `text` as UTF-8 bytes, valid until the next call. */
function utf8Bytes(text: string): Uint8Array {
  if (text.length * 3 > BASE_SCRATCH.length) return Buffer.from(text, 'utf8');
  return BASE_SCRATCH.subarray(0, BASE_SCRATCH.write(text, 0, 'utf8'));
}

/**
 * Per KeyObject, its algorithm when the VerificationKey names none, and the length of its
 * signatures: `asymmetricKeyDetails` builds a new object on every read, so each is worked out once.
 */
const KEY_FACTS = new WeakMap<KeyObject, { readonly algorithm: SignatureAlgorithm; readonly bytes: Map<SignatureAlgorithm, number> }>();

function factsOf(key: KeyObject): { readonly algorithm: SignatureAlgorithm; readonly bytes: Map<SignatureAlgorithm, number> } {
  let facts = KEY_FACTS.get(key);
  if (facts === undefined) {
    facts = { algorithm: algorithmForKey(key), bytes: new Map() };
    KEY_FACTS.set(key, facts);
  }
  return facts;
}

function algorithmOf(key: VerificationKey): SignatureAlgorithm {
  return key.algorithm ?? factsOf(key.key).algorithm;
}

function signatureBytes(key: VerificationKey): number {
  const facts = factsOf(key.key);
  const algorithm = key.algorithm ?? facts.algorithm;
  let bytes = facts.bytes.get(algorithm);
  if (bytes === undefined) {
    bytes = signatureLength(algorithm, key.key);
    facts.bytes.set(algorithm, bytes);
  }
  return bytes;
}

/**
 * The whole pipeline: parse and check, resolve the keyid's keys, verify.
 * @param resolveKeys returns the keys registered for a keyid; throws SignetError `unknown_client` (or others) itself
 */
export function verifyRequest(
  req: SignedRequest,
  policy: VerifyPolicy,
  resolveKeys: (keyId: string) => readonly VerificationKey[] | Promise<readonly VerificationKey[]>,
  targetUriCandidates: Iterable<string> = NO_ALTERNATIVES,
): Promise<Verdict> {
  // Written without async/await so that keys already in memory (the usual case) cost no extra
  // turn of the microtask queue; as with an async function, every failure is a rejection.
  try {
    const parsed = parseRequestSignature(req, policy, targetUriCandidates);
    const keys = resolveKeys(parsed.keyId);
    const finish = (resolved: readonly VerificationKey[]): Verdict => verdictOf(parsed, verifyParsedSignature(parsed, resolved, policy).fingerprint);
    return isPromiseLike(keys) ? Promise.resolve(keys).then(finish) : Promise.resolve(finish(keys));
  } catch (error) {
    return Promise.reject(error);
  }
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | null)?.then === 'function';
}

/** The verdict for a parsed signature verified by the key with `fingerprint`. */
export function verdictOf(parsed: ParsedSignature, fingerprint: string): Verdict {
  return { keyId: parsed.keyId, fingerprint, created: parsed.created, covered: parsed.covered, contentDigest: parsed.contentDigest };
}

/**
 * §3.2 step 6, the profile's part: the `signet` profile requires `alg` (stage 1 checked that a
 * given one is an algorithm Signet verifies; which key it must fit is checked with the keys).
 */
function checkAlgorithm(input: SignatureInput, policy: VerifyPolicy): void {
  if (input.alg === undefined && policy.requireAlg) {
    fail('unsupported_algorithm', 'Signature-Input must carry alg, naming your registered key\'s algorithm (alg="rsa-v1_5-sha256" for the RSA keys signet keygen makes).');
  }
}

/** The keyid names the client: required, printable, bounded. */
function checkKeyId(input: SignatureInput): string {
  if (input.keyid === undefined || input.keyid === '') {
    fail('missing_keyid', 'Signature-Input must carry keyid="<your clientId>".');
  }
  if (input.keyid.length > MAX_KEYID_LENGTH) fail('missing_keyid', `keyid is longer than ${MAX_KEYID_LENGTH} characters; it must be your clientId.`);
  return input.keyid;
}

/** §3.2.1: `created` is required, not in the future beyond the skew, and not older than the max age. */
function checkCreated(input: SignatureInput, policy: VerifyPolicy, now: number): number {
  if (input.created === undefined) {
    fail('missing_created', 'Signature-Input must carry created=<unix seconds when you signed>.');
  }
  if (input.created > now + policy.maxSkewS) {
    fail('clock_skew', `created is ${input.created - now} s in the future (tolerance ${policy.maxSkewS} s). Check the signer's clock (NTP).`);
  }
  if (input.created < now - policy.maxAgeS) {
    fail('expired', `The signature was created ${now - input.created} s ago; it must be at most ${policy.maxAgeS} s old. Sign each request when you send it.`);
  }
  return input.created;
}

/** §2.3: a signature past its `expires` is refused. */
function checkExpires(input: SignatureInput, now: number): void {
  if (input.expires !== undefined && now > input.expires) {
    fail('expired', `The signature expired ${now - input.expires} s ago (expires parameter). Sign the request again.`);
  }
}

/** What a profile's refusal of missing coverage suggests covering. */
function coverageExample(policy: VerifyPolicy): string {
  return policy.profile === 'rfc9421' ? '("@method" "@authority" "@path" ...)' : '("@method" "@target-uri" ... "date")';
}

/**
 * Whether the target must be covered: under `rfc9421`, and under a policy that requires
 * `@target-uri` (`signet`). Both profiles do; a hand-made policy (`signet explain`, the RFC's test
 * vectors) may ask less.
 */
function requiresTarget(policy: VerifyPolicy): boolean {
  return policy.profile === 'rfc9421' || policy.requiredComponents.includes('@target-uri');
}

/**
 * What every profile requires covered: `@method`, and the target, by `@target-uri` or by
 * `@authority` and `@path` (the `signet` profile then requires `@target-uri` itself), each when
 * the policy requires it (see {@link requiresTarget}).
 */
function checkTargetCoverage({ names }: CheckedInput, policy: VerifyPolicy, targetRequired: boolean): void {
  if (!names.has('@method') && policy.requiredComponents.includes('@method')) {
    fail('missing_component', `The signature must cover "@method". Cover ${coverageExample(policy)}.`);
  }
  if (targetRequired && !names.has('@target-uri') && !(names.has('@authority') && names.has('@path'))) {
    const missing = names.has('@authority') ? '"@path"' : names.has('@path') ? '"@authority"' : '"@target-uri", or "@authority" and "@path"';
    fail('missing_component', `The signature must cover the request's target: ${missing}. Cover ${coverageExample(policy)}.`);
  }
}

/** The policy's required components are covered, and a date field is (unless legacy is allowed). */
function checkRequiredCoverage({ names, dateFields }: CheckedInput, policy: VerifyPolicy): void {
  for (const required of policy.requiredComponents) {
    if (!names.has(required)) {
      fail('missing_component', `The signature must cover "${required}". Cover ${coverageExample(policy)}.`);
    }
  }
  if (dateFields.length === 0 && !policy.allowLegacy) {
    fail(
      'missing_component',
      'The signature must cover "date" and the request must send a Date header (or, from a browser, which cannot set Date, cover "x-date" and send X-Date); the legacy form without a date is not accepted here.',
    );
  }
}

/** A target covered by `@authority` + `@path` must cover `@query` too when the request has a query. */
function checkQueryCoverage({ names }: CheckedInput, req: SignedRequest): void {
  if (names.has('@target-uri') || names.has('@query') || !hasQuery(req.targetUri)) return;
  fail('missing_component', 'The request has a query, so the signature must cover "@query" too (or cover "@target-uri" instead of "@authority" and "@path").');
}

function hasQuery(targetUri: string): boolean {
  const q = targetUri.indexOf('?');
  if (q < 0) return false;
  const hash = targetUri.indexOf('#', q);
  return (hash < 0 ? targetUri.length : hash) > q + 1;
}

/** With a body, `content-digest` must be covered; when covered, the header must be present and valid. */
function checkDigestCoverage({ coversDigest }: CheckedInput, req: SignedRequest, policy: VerifyPolicy): string | undefined {
  if (!coversDigest) {
    if (hasBody(req)) {
      fail('digest_required', 'The request has a body, so the signature must cover "content-digest" and the request must send Content-Digest: sha-256=:<base64>:.');
    }
    return undefined;
  }
  const digest = req.headers['content-digest'];
  if (digest === undefined) {
    fail('digest_required', 'The signature covers "content-digest" but the request has no Content-Digest header.');
  }
  checkContentDigestField(digest, policy.requireSha256Digest ? DIGEST_ALGORITHM : null);
  return digest;
}

/**
 * Only `"content-digest"` (or its `;sf` re-serialization) signs every member; `;key="sha-512"`
 * signs one member and would leave the sha-256 that the backend compares unsigned.
 */
function coversWholeField(component: ComponentId): boolean {
  return component.params.size === 0 || (component.params.size === 1 && component.params.has('sf'));
}

/**
 * The Date header (or its browser alias X-Date, see DATE_FIELDS), for each one covered: present,
 * an IMF-fixdate, agreeing with `created`, and inside the window. Required unless legacy
 * (checkRequiredCoverage).
 */
function checkDateField(field: DateField, req: SignedRequest, policy: VerifyPolicy, created: number, now: number): void {
  const header = field === 'date' ? 'Date' : 'X-Date';
  const raw = req.headers[field];
  if (raw === undefined) fail('missing_date', `The signature covers "${field}" but the request has no ${header} header. Send ${header} in IMF-fixdate form, e.g. Sat, 21 Nov 2026 22:47:17 GMT.`);
  const date = readDateHeader(raw);
  if (date === undefined) {
    fail('malformed_date', `The ${header} header is not an IMF-fixdate such as "Sat, 21 Nov 2026 22:47:17 GMT" (GMT, English names, two-digit day).`);
  }
  if (Math.abs(date - created) > policy.maxSkewS) {
    fail('clock_skew', `${header} and created differ by ${Math.abs(date - created)} s (tolerance ${policy.maxSkewS} s). Use the same clock reading for both.`);
  }
  if (date > now + policy.maxSkewS) fail('clock_skew', `${header} is ${date - now} s in the future. Check the signer's clock (NTP).`);
  if (date < now - policy.maxAgeS) fail('expired', `${header} is ${now - date} s old; it must be at most ${policy.maxAgeS} s old.`);
}

/** A request has a body when Content-Length > 0 or any Transfer-Encoding is present (unless the adapter knows). */
function hasBody(req: SignedRequest): boolean {
  if (req.hasBody !== undefined) return req.hasBody;
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length.trim() !== '0' && length.trim() !== '';
}
