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
 * with (./algorithms.ts; an `alg` parameter must name that algorithm). The checks themselves,
 * each a pure function with its refusal, are ./signature-checks.ts; this file runs them in order.
 * Stage 1 needs neither a key nor the client's profile, so the authorizer runs it on every
 * signature before it reads the registry: junk never costs a read.
 *
 * The state lives in a value, not in the module: a {@link Verifier} is built once per authorizer
 * (or CLI run) from the policy, a key resolver and an optional replay guard, and holds its bounded
 * memos as named fields. It reads each request's Signature-Input and Signature once into a
 * {@link SignatureSet} that choosing the signature (lambda/authorizer) and verifying it share.
 * The functions below that take a policy (verifyRequest, parseRequestSignature, ...) are the
 * same steps on a fresh Verifier: no memo carries over from one call to the next.
 */
import type { KeyObject } from 'node:crypto';
import { type SignatureAlgorithm, algorithmFits, algorithmForKey, signatureLength, signatureShapeHint, verifySignature } from './algorithms';
import { BoundedMemo } from './bounded-cache';
import { type DateField, WEB_BOT_AUTH_TAG } from './defaults';
import { fail, isSignetError } from './errors';
import { parseHttpDate } from './http-date';
import { isValidAt } from './key-validity';
import { COVERAGE_PROFILES, type CoverageProfile, MAX_SIGNATURES_READ } from './profiles';
import { type VerifyPolicy, defaultVerifyPolicy, policyForProfile } from './verify-policy';
import { baseHeads, buildBaseWithHeads, buildSignatureBase, trimOws } from './signature-base';
import {
  ComponentId,
  type KnownCoveredLists,
  SignatureInput,
  type SignatureMemberSummary,
  checkComponentCount,
  listSignatureMembers,
  readCanonicalSignatureInput,
  readSignatureInput,
  signatureInputMember,
  signatureMembersOf,
} from './signature-params';
import { signatureReplayId } from './replay-id';
import { type MemoizedInput, type SignatureFieldReader, SignatureSet } from './signature-set';
import {
  type CheckedInput,
  type CoveredFacts,
  checkCreated,
  checkDigestCoverage,
  checkExpires,
  checkKeyAndAlgorithm,
  checkProfileCoverage,
  checkQueryCoverage,
  checkRequiredCoverage,
  checkTargetCoverage,
  checkWebBotAuthParams,
  coveredFacts,
  coversPath,
  passesKeyAndAlgorithm,
  passesWebBotAuthParams,
  requiresTarget,
} from './signature-checks';
import { SIGNATURE_AGENT_FIELD, signedSignatureAgent } from './signature-agent';
import { SignedRequest } from './types';

export { defaultVerifyPolicy, policyForProfile };
export type { CheckedInput, VerifyPolicy };

/** A public key registered for a keyid. */
export interface VerificationKey {
  readonly fingerprint: string;
  readonly key: KeyObject;
  /** The algorithm the key was registered with. @default the key type's own (RSA: rsa-v1_5-sha256) */
  readonly algorithm?: SignatureAlgorithm;
  /** Unix seconds after which the key no longer verifies (rollover grace, a published key's `exp` or keep bound), if any. */
  readonly notAfterS?: number;
  /** Unix seconds before which the key does not verify yet (a published key's `nbf`), if any. */
  readonly notBeforeS?: number;
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
  /**
   * The policy whose target rule (and query rule) the coverage was checked by, when stage 1's
   * policy required the target; stage 2 under any other policy checks its own (profiles bind the
   * target differently: web-bot-auth by the authority alone).
   */
  readonly targetCheckedUnder: VerifyPolicy | undefined;
  readonly checked: CheckedInput;
  /**
   * The agent URL the covered `Signature-Agent` member names (./signature-agent.ts): read for a
   * signature tagged `web-bot-auth` when the request sends the field.
   */
  readonly signatureAgent?: string;
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
  /** The coverage profile the signature was checked under. */
  readonly profile: CoverageProfile;
  /** Whether `@method` is covered. */
  readonly coversMethod: boolean;
  /** Whether the path (and query, when the request has one) is covered: `@target-uri`, or `@authority` + `@path` (+ `@query`). */
  readonly coversPath: boolean;
  /** The agent URL the covered `Signature-Agent` member names, when the signature is tagged `web-bot-auth` and the request sends the field. */
  readonly signatureAgent?: string;
}

/** The outcome of a successful verification. */
export interface Verdict {
  readonly keyId: string;
  readonly fingerprint: string;
  readonly created: number;
  readonly covered: readonly string[];
  /** The signed Content-Digest value, for the backend's body check. */
  readonly contentDigest?: string;
  /** The coverage profile the signature was checked under. */
  readonly profile: CoverageProfile;
  /**
   * Whether this exact request was signed: its method and its path (with the query) are covered
   * (with a body, the digest always is). Under `web-bot-auth` a signature may cover only
   * `@authority`: then it says who the agent is, not what it asked for.
   */
  readonly coversMethod: boolean;
  /** See {@link coversMethod}. */
  readonly coversPath: boolean;
  /** The agent URL the covered `Signature-Agent` member names, when there is one. */
  readonly signatureAgent?: string;
}

/** Returns the keys registered for a keyid; throws SignetError `unknown_client` (or others) itself. */
export type KeyResolver = (keyId: string) => readonly VerificationKey[] | Promise<readonly VerificationKey[]>;

/** One signature to record as used: its replay id (./replay-id.ts) and when the record may be forgotten. */
export interface ReplayClaim {
  readonly signatureId: string;
  readonly expiresAtS: number;
}

/** Records the signatures of a request as used; false when any was already used (lambda/store has the DynamoDB one). */
export interface ReplayGuard {
  /** Claims every one of `claims` or none (atomically); false when one of them was already claimed. */
  claim(claims: readonly ReplayClaim[]): Promise<boolean>;
}

/** What a {@link Verifier} is built from. */
export interface VerifierOptions {
  /**
   * The deployment's `signet` policy (its label, windows, limits and clock). Each profile's
   * policy is derived from it once ({@link Verifier.policyFor}).
   */
  readonly policy: VerifyPolicy;
  /** The deployment's coverage profile, for clients without one of their own. @default the policy's */
  readonly profile?: CoverageProfile;
  /** The keys of a keyid, for {@link Verifier.verify}; the authorizer resolves clients itself and may leave it unset. */
  readonly resolveKeys?: KeyResolver;
  /** Single use: when set, {@link Verifier.claim} records every signature of an accepted request. */
  readonly replay?: ReplayGuard;
  /**
   * Told each time a request's Signature-Input or Signature text is read (a memo hit reads
   * nothing): for the tests and benchmarks that count what a request costs. Production leaves it unset.
   */
  readonly onFieldRead?: (field: 'Signature-Input' | 'Signature') => void;
}

/**
 * Parsed Signature-Input values kept by a Verifier, by exact field text: a client signing several
 * requests in the same second sends the same Signature-Input each time (same components, created,
 * keyid, alg), and parsing it is the largest non-crypto cost of a verification (see
 * BENCHMARKS.md). Only values that parsed are kept (a malformed one is parsed, and refused, every
 * time), only short ones, and at most this many (a BoundedMemo: a value read again within 256 new
 * values stays). Parsing is a pure function of the text and the label, and the result is
 * read-only, so sharing it changes nothing but the time. Memory: about 1 KB per entry.
 */
export const SIGNATURE_INPUT_MEMO_ENTRIES = 512;

/**
 * Signature-Input values in a row not found in the memo after which the memo is consulted for only
 * one request in SIGNATURE_INPUT_CHURN_PROBES_ONE_IN: that request looks its value up and, when it
 * is new, keeps it; the others neither look up nor keep (they read their value as a miss does).
 * With one client signing several requests a second, values are found again all the time; with
 * every value new (many clients, each signing about once a second), looking each one up and
 * keeping it only costs time: verifying such requests was faster with no memo at all (BENCHMARKS.md,
 * "What was tried and not kept"). A value that comes back is found by a probe within about
 * SIGNATURE_INPUT_CHURN_PROBES_ONE_IN of its requests, and the first value found ends the run. It
 * changes no outcome, only the time.
 */
export const SIGNATURE_INPUT_CHURN_MISSES = 64;
export const SIGNATURE_INPUT_CHURN_PROBES_ONE_IN = 8;

/** Longest Signature-Input value memoized, in characters (a typical one is ~130). */
export const SIGNATURE_INPUT_MEMO_MAX_CHARS = 512;

/**
 * Covered lists kept by a Verifier, by their text (the inner list of a Signature-Input member, such
 * as `("@method" "@target-uri" "content-digest" "date")`), each with its facts and the coverage
 * rules each of the verifier's policies passes. A signer covers the same list in every request,
 * while the Signature-Input value around it changes every second (`created`) and with every keyid:
 * a request whose value is new finds its list here, and only its parameters are checked. The facts
 * are a pure function of the text and the verifier's policies, and read-only. Only lists up to
 * SIGNATURE_INPUT_MEMO_MAX_CHARS long are kept, at most this many (a BoundedMemo). Memory: under
 * 1 KB per entry for a list of a few components (its names, its serialized identifiers, two short
 * arrays of policies), so under 256 KB full.
 */
export const COVERED_LIST_MEMO_ENTRIES = 256;

/** Parsed Date header values kept, by exact text (all requests signed in the same second share one): two minutes of seconds stay. */
export const DATE_MEMO_ENTRIES = 256;

/** Longest Date header value memoized, in characters (an IMF-fixdate is 29). */
const DATE_MEMO_MAX_CHARS = 64;

/** Keys whose facts (algorithm, signature length) are kept: more than a warm authorizer's client cache holds keys of. */
export const KEY_FACTS_ENTRIES = 1024;

/** Bases up to this many bytes are encoded into the verifier's own buffer; longer ones get their own. */
const BASE_BUFFER_BYTES = 16 * 1024;
/** Encodes bases into the buffer (stateless: one serves every verifier). */
const UTF8 = new TextEncoder();
/** How many views of the base buffer a verifier keeps (a power of two: a view's slot is its length's low bits). */
const BASE_VIEW_SLOTS = 16;

/** A covered list as the verifier keeps it (see COVERED_LIST_MEMO_ENTRIES): its facts and the coverage rules it passes, per policy. */
interface CoveredList extends CoveredFacts {
  /** Its text, `("@method" ...)`: what it is memoized by. */
  readonly text: string;
  /** The components as read, shared by every member over this list (read-only). */
  readonly components: readonly ComponentId[];
  /** Policies whose target rule (`@method` and the target covered, see checkTargetCoverage) the list passes. */
  readonly targetPasses: readonly VerifyPolicy[];
  /** Policies whose required components and date rule (checkRequiredCoverage) the list passes. */
  readonly requiredPasses: readonly VerifyPolicy[];
  /** What precedes each value in a base over the list (./signature-base.ts, baseHeads). */
  readonly heads: readonly string[];
  /**
   * The policies a member over this list passes, by what its parameters give (see Verifier's
   * `judged`): filled in as combinations are met, each a pure function of the list and the
   * combination, never changed once there.
   */
  readonly passesByParameters: ({ readonly sharedPasses: readonly VerifyPolicy[]; readonly profilePasses: readonly VerifyPolicy[] } | undefined)[];
}

/** What a key's KeyObject says, worked out once: `asymmetricKeyDetails` builds a new object on every read. */
interface KeyFacts {
  /** Its algorithm when the VerificationKey names none. */
  readonly algorithm: SignatureAlgorithm;
  /** Its signatures' length in bytes, per algorithm it was used with. */
  readonly bytes: ReadonlyMap<SignatureAlgorithm, number>;
}

/**
 * The verifier: built once (per authorizer, per CLI run) from the policy, a key resolver and the
 * optional replay guard; then every request goes through {@link read} → {@link checkMember}
 * (stage 1) → {@link parseChecked} (stage 2) → {@link signingKey} / {@link refuseUnlessUsable} →
 * {@link claim}, or all at once through {@link verify}. Its memos are its own fields, bounded
 * and named; nothing it keeps changes the outcome of a check, only its time.
 */
export class Verifier implements SignatureFieldReader {
  /** The deployment's policy: its profile's. */
  readonly policy: VerifyPolicy;
  readonly replay: ReplayGuard | undefined;
  /** See {@link VerifierOptions.onFieldRead}. */
  readonly onFieldRead: VerifierOptions['onFieldRead'];
  private readonly resolveKeys: KeyResolver | undefined;
  /** Each profile's policy, derived once from the deployment's `signet` policy. */
  private readonly policies: Readonly<Record<CoverageProfile, VerifyPolicy>>;
  /** Parsed Signature-Input members by field text (see SIGNATURE_INPUT_MEMO_ENTRIES). */
  readonly signatureInputs = new BoundedMemo<string, MemoizedInput>(SIGNATURE_INPUT_MEMO_ENTRIES);
  /** Signature-Input values in a row not found in signatureInputs (see SIGNATURE_INPUT_CHURN_MISSES). */
  private signatureInputMisses = 0;
  /** Requests since the last probe of signatureInputs, during a run of misses (see SIGNATURE_INPUT_CHURN_PROBES_ONE_IN). */
  private sinceChurnProbe = 0;
  /** The member lists of Signature-Input values by field text, same bounds. */
  readonly signatureMemberLists = new BoundedMemo<string, readonly SignatureMemberSummary[]>(SIGNATURE_INPUT_MEMO_ENTRIES);
  /** Covered lists by text, with their facts and the coverage rules they pass (see COVERED_LIST_MEMO_ENTRIES). */
  readonly coveredLists = new BoundedMemo<string, CoveredList>(COVERED_LIST_MEMO_ENTRIES);
  /** The covered list the reader last found memoized: {@link coveredList} then needs no second lookup. */
  private lastKnownList: CoveredList | undefined;
  /** The one found before it, when it was another. */
  private previousKnownList: CoveredList | undefined;
  /**
   * The components of the covered lists memoized, for the Signature-Input reader. A signer covers
   * one list for a request with a body and another without: the two lists found last are compared
   * first, so the usual new value costs no hash of its list's text and no lookup.
   */
  private readonly knownLists: KnownCoveredLists = (listText) => {
    const last = this.lastKnownList;
    if (last !== undefined && last.text === listText) return last.components;
    const previous = this.previousKnownList;
    const list = previous !== undefined && previous.text === listText ? previous : this.coveredLists.get(listText);
    if (list !== undefined) {
      this.previousKnownList = last;
      this.lastKnownList = list;
    }
    return list?.components;
  };
  /** Date header values by text (see DATE_MEMO_ENTRIES). */
  readonly dates = new BoundedMemo<string, number>(DATE_MEMO_ENTRIES);
  /** Facts of the keys verified with (see KEY_FACTS_ENTRIES). */
  readonly keyFacts = new BoundedMemo<KeyObject, KeyFacts>(KEY_FACTS_ENTRIES);
  /** The key {@link factsOf} was last asked about, and its facts (also in keyFacts). */
  private lastKey: KeyObject | undefined;
  private lastKeyFacts: KeyFacts | undefined;
  /** Where each base is encoded for crypto.verify, which is synchronous: one buffer per verifier, reused. */
  private baseBuffer: Buffer | undefined;
  /** Views of baseBuffer, one per length seen last in each of BASE_VIEW_SLOTS slots. */
  private readonly baseViews: (Buffer | undefined)[] = new Array<Buffer | undefined>(BASE_VIEW_SLOTS).fill(undefined);

  constructor(options: VerifierOptions) {
    const signet = policyForProfile(options.policy, 'signet');
    const own = (profile: CoverageProfile): VerifyPolicy => (options.policy.profile === profile ? options.policy : policyForProfile(signet, profile));
    const policies: Record<CoverageProfile, VerifyPolicy> = { signet, rfc9421: own('rfc9421'), 'web-bot-auth': own('web-bot-auth') };
    this.policies = Object.freeze(policies);
    this.policy = policies[options.profile ?? options.policy.profile];
    this.resolveKeys = options.resolveKeys;
    this.replay = options.replay;
    this.onFieldRead = options.onFieldRead;
  }

  /** The policy of `profile`: the deployment's windows and limits with that profile's coverage rules. The same object every time. */
  policyFor(profile: CoverageProfile): VerifyPolicy {
    return this.policies[profile];
  }

  /** The request's signature fields, to be read once by everything that checks it. */
  read(request: SignedRequest): SignatureSet {
    return new SignatureSet(request, this);
  }

  /**
   * The whole pipeline with the verifier's key resolver: parse and check, resolve the keyid's
   * keys, verify; under replay protection, claim the request's signatures.
   * @throws (rejects) SignetError with the reason code of the first failed check
   */
  verify(request: SignedRequest, targetUriCandidates: Iterable<string> = NO_ALTERNATIVES): Promise<Verdict> {
    // Written without async/await so that keys already in memory (the usual case) cost no extra
    // turn of the microtask queue; as with an async function, every failure is a rejection.
    try {
      const resolveKeys = this.resolveKeys;
      if (resolveKeys === undefined) throw new TypeError('This Verifier has no key resolver: build it with resolveKeys to call verify.');
      const set = this.read(request);
      const policy = this.policy;
      const parsed = this.parse(set, policy, targetUriCandidates);
      const keys = resolveKeys(parsed.keyId);
      if (isPromiseLike(keys)) return Promise.resolve(keys).then((resolved) => this.finish(set, parsed, resolved, policy));
      return Promise.resolve(this.finish(set, parsed, keys, policy));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** {@link verify} once the keys are known: the verdict, after the claim under replay protection. */
  private finish(set: SignatureSet, parsed: ParsedSignature, keys: readonly VerificationKey[], policy: VerifyPolicy): Verdict | Promise<Verdict> {
    const verdict = verdictOf(parsed, this.usableSigner(parsed, keys, policy, this.signingKey(parsed, keys, policy)).fingerprint);
    if (this.replay === undefined) return verdict;
    return this.claim(set, parsed, policy).then((fresh) => {
      if (!fresh) fail('replayed_request', 'This signed request was already used. Sign every request anew (fresh created and Date).');
      return verdict;
    });
  }

  /**
   * Runs every check that needs no key and builds the signature base over the request's own URL:
   * {@link checkMember}, then {@link parseChecked}.
   * @param label the signature to check; by default the policy's label (`signet`), or under `rfc9421`
   *   the first signature Signature-Input declares (the authorizer picks by keyid: lambda/authorizer)
   * @throws SignetError with the reason code of the first failed check
   */
  parse(set: SignatureSet, policy: VerifyPolicy = this.policy, targetUriCandidates: Iterable<string> = NO_ALTERNATIVES, label?: string): ParsedSignature {
    return this.parseChecked(set, this.checkMember(set, label ?? set.defaultLabel(policy), policy), policy, targetUriCandidates);
  }

  /**
   * Stage 1: the checks every coverage profile makes on signature `label`, none of which needs a
   * key or the client's profile (only the policy's windows and limits, which every profile shares).
   * A signature that fails them can pass under no profile, so the authorizer reads the registry
   * only for one that passed.
   * @throws SignetError with the reason code of the first failed check
   */
  checkMember(set: SignatureSet, label: string, policy: VerifyPolicy = this.policy): CheckedSignature {
    const req = set.request;
    if (!set.present) {
      const missing = set.inputField === undefined && set.signatureField === undefined ? 'Signature-Input and Signature headers' : set.inputField === undefined ? 'Signature-Input header' : 'Signature header';
      fail('missing_signature', `The request has no ${missing}. Sign it as described in docs/scheme.md.`);
    }
    const read = set.input(label, policy);
    const { checked } = read;
    const { input } = checked;
    const signature = set.signature(label);
    checkComponentCount(input.label, input.covered.length, policy.maxCoveredComponents);
    let targetChecked = requiresTarget(policy);
    if (!read.sharedPasses.includes(policy)) {
      checkKeyAndAlgorithm(input);
      if (read.sharedPasses.length > 0) {
        // It passes another profile's coverage rules (e.g. a web-bot-auth signature of the
        // authority only, under a `signet` deployment): the client's profile decides in stage 2.
        targetChecked = false;
      } else {
        checkTargetCoverage(checked, policy, targetChecked);
        if (policy.profile === 'web-bot-auth') checkWebBotAuthParams(input, policy);
      }
    }
    const now = policy.nowS();
    const created = checkCreated(input, policy, now);
    checkExpires(input, now);
    if (targetChecked) checkQueryCoverage(checked, req);
    const contentDigest = checkDigestCoverage(checked, req, policy);
    for (const field of checked.dateFields) this.checkDateField(field, req, policy, created, now);
    // A Web Bot Auth signature's agent, when the request names one: read before any registry read.
    const signatureAgent = input.tag === WEB_BOT_AUTH_TAG ? signedSignatureAgent(req.headers[SIGNATURE_AGENT_FIELD], input.covered, input.label) : undefined;
    return { label: input.label, keyId: input.keyid as string, created, signature, contentDigest, targetCheckedUnder: targetChecked ? policy : undefined, checked, signatureAgent };
  }

  /**
   * Stage 2: what `policy`'s profile adds to the checks of {@link checkMember} (`alg` required,
   * its required components, a date covered), then the signature base over the request's own
   * URL. When stage 1 checked the target by another policy's rule, or by none, `policy`'s target
   * rule is checked here, so its rules hold whatever policy stage 1 ran under.
   * @param member what {@link checkMember} returned for this set
   * @param targetUriCandidates other spellings of the target URI to try (REST v1 query rebuilds),
   *   bounded by the caller; read only if the key does not verify the request's own URL (so it may be lazy)
   * @throws SignetError with the reason code of the first failed check
   */
  parseChecked(set: SignatureSet, member: CheckedSignature, policy: VerifyPolicy = this.policy, targetUriCandidates: Iterable<string> = NO_ALTERNATIVES): ParsedSignature {
    const req = set.request;
    const { checked } = member;
    const { input } = checked;
    const read = set.input(member.label, policy);
    if (!read.profilePasses.includes(policy)) checkProfileCoverage(checked, policy);
    if (member.targetCheckedUnder !== policy && requiresTarget(policy)) {
      checkTargetCoverage(checked, policy, true);
      checkQueryCoverage(checked, req);
    }
    const heads = read.checked.input === input ? read.heads : baseHeads(input.covered);
    const base = buildBaseWithHeads(req, input.covered, heads, input.signatureParams);
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
      profile: policy.profile,
      coversMethod: checked.coversMethod,
      coversPath: coversPath(checked, req),
      signatureAgent: member.signatureAgent,
    };
  }

  /**
   * Verifies the signature with the keys registered for its keyid (RFC 9421 §3.3.2).
   * @returns the fingerprint of the key that verified
   * @throws SignetError `key_expired` when every key is past its not-after, `signature_mismatch` otherwise
   */
  verifyParsed(parsed: ParsedSignature, keys: readonly VerificationKey[], policy: VerifyPolicy = this.policy): { fingerprint: string } {
    return this.refuseUnlessUsable(parsed, keys, policy, this.signingKey(parsed, keys, policy));
  }

  /**
   * Which of `keys` made the signature: a usable key first, else one past its not-after (an expired
   * key still verifies nothing it did not sign). Undefined when none did: then the request was not
   * signed by this client at all, whatever it claims.
   */
  signingKey(parsed: ParsedSignature, keys: readonly VerificationKey[], policy: VerifyPolicy = this.policy): VerificationKey | undefined {
    const now = policy.nowS();
    if (allUsable(keys, now)) return this.firstVerifyingKey(parsed, keys);
    return this.firstVerifyingKey(parsed, keys.filter((k) => isUsable(k, now))) ?? this.firstVerifyingKey(parsed, keys.filter((k) => !isUsable(k, now)));
  }

  /**
   * The verdict of {@link verifyParsed} for the key {@link signingKey} found.
   * @throws SignetError `key_expired` when that key (or, with none, every key) is past its not-after or before its not-before,
   *   `algorithm_mismatch` when `alg` names an algorithm none of the usable keys has, `signature_mismatch` otherwise
   */
  refuseUnlessUsable(parsed: ParsedSignature, keys: readonly VerificationKey[], policy: VerifyPolicy, signer: VerificationKey | undefined): { fingerprint: string } {
    return { fingerprint: this.usableSigner(parsed, keys, policy, signer).fingerprint };
  }

  /** {@link refuseUnlessUsable}, returning the key itself. */
  private usableSigner(parsed: ParsedSignature, keys: readonly VerificationKey[], policy: VerifyPolicy, signer: VerificationKey | undefined): VerificationKey {
    const now = policy.nowS();
    if (signer !== undefined && isUsable(signer, now)) return signer;
    const usable = keys.filter((k) => isUsable(k, now));
    // Choosing the actionable reason: a retired key signed, or only retired keys are left.
    if (signer !== undefined || (keys.length > 0 && usable.length === 0)) {
      const early = signer ?? keys.find((k) => k.notBeforeS !== undefined && now < k.notBeforeS);
      if (early?.notBeforeS !== undefined && now < early.notBeforeS) {
        fail('key_expired', `The key that signed this request is not valid before ${new Date(early.notBeforeS * 1000).toISOString()} (its nbf). Sign with a key that is valid now.`);
      }
      fail('key_expired', 'The key that signed this request has passed its not-after date (rollover grace ended). Sign with the current key.');
    }
    const alg = parsed.input.alg;
    const fitting = usable.filter((k) => algorithmFits(alg, this.algorithmOf(k)));
    if (alg !== undefined && usable.length > 0 && fitting.length === 0) {
      const registered = [...new Set(usable.map((k) => this.algorithmOf(k)))].join(' or ');
      fail('algorithm_mismatch', `The signature says alg="${alg}", but this client's registered key is ${registered}. Sign with the registered key and its algorithm (or register a key for ${alg}).`);
    }
    fail('signature_mismatch', `The signature does not match the request with any key registered for this client.${this.shapeNote(parsed.signature, fitting)} Run \`signet explain\` to compare signature bases.`);
  }

  /**
   * Every signature of an accepted request, each to be claimed (./replay-id.ts), so that the
   * request cannot pass again by any of them: stripped of the signature that was checked, a
   * captured request would otherwise be accepted once more by another (e.g. a proxy's). A
   * signature is claimed until its own window ends (its `created` + max age + skew); one without a
   * Signature value or an integer `created`, or whose window has ended, can never pass and is not
   * claimed. The set's member list is read only when the request declares several signatures.
   * @throws SignetError `invalid_signature_input` when it declares more than MAX_SIGNATURES_READ
   */
  replayClaims(set: SignatureSet, parsed: ParsedSignature, policy: VerifyPolicy = this.policy): ReplayClaim[] {
    const window = policy.maxAgeS + policy.maxSkewS;
    const claims: ReplayClaim[] = [{ signatureId: signatureReplayId(parsed.signature), expiresAtS: parsed.created + window }];
    const inputField = set.inputField ?? '';
    const signatureField = set.signatureField ?? '';
    // The usual request has one signature, and then both fields hold one member (no comma).
    if (!inputField.includes(',') && !signatureField.includes(',')) return claims;
    const now = policy.nowS();
    for (const { label, created } of set.members()) {
      if (label === parsed.label || created === undefined || created + window < now) continue;
      let signature: Buffer;
      try {
        signature = set.signature(label);
      } catch (error) {
        if (isSignetError(error)) continue;
        throw error;
      }
      const signatureId = signatureReplayId(signature);
      if (!claims.some((c) => c.signatureId === signatureId)) claims.push({ signatureId, expiresAtS: created + window });
    }
    return claims;
  }

  /**
   * Under replay protection, claims every signature of the accepted request ({@link replayClaims});
   * false when one was already used. Without a replay guard, true.
   */
  claim(set: SignatureSet, parsed: ParsedSignature, policy: VerifyPolicy = this.policy): Promise<boolean> {
    if (this.replay === undefined) return Promise.resolve(true);
    try {
      return this.replay.claim(this.replayClaims(set, parsed, policy));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Member `label` of Signature-Input, memoized with the checks it passes under each of this verifier's policies. */
  signatureInput(field: string, label: string, policy: VerifyPolicy, set?: SignatureSet): MemoizedInput {
    if (field.length > SIGNATURE_INPUT_MEMO_MAX_CHARS) return this.judged(this.readMember(field, label, policy, set));
    // Under churn (every value new: many clients, each signing once a second) looking every value
    // up and keeping it would cost lookups, insertions and retained objects for nothing: past a run
    // of misses only one request in SIGNATURE_INPUT_CHURN_PROBES_ONE_IN probes the memo, enough to
    // notice values coming back.
    if (this.signatureInputMisses >= SIGNATURE_INPUT_CHURN_MISSES && ++this.sinceChurnProbe < SIGNATURE_INPUT_CHURN_PROBES_ONE_IN) {
      return this.judged(this.readMember(field, label, policy, set));
    }
    this.sinceChurnProbe = 0;
    const hit = this.signatureInputs.get(field);
    // A hit parsed under another policy's component limit is checked against this one's by checkMember.
    if (hit !== undefined && hit.checked.input.label === label) {
      this.signatureInputMisses = 0;
      return hit;
    }
    const read = this.judged(this.readMember(field, label, policy, set));
    this.signatureInputMisses++;
    this.signatureInputs.set(field, read);
    return read;
  }

  /**
   * Member `label` of Signature-Input `field`: read in one pass when it is in canonical form,
   * else from the field's full parse, which `set` (the request's) makes at most once.
   */
  private readMember(field: string, label: string, policy: VerifyPolicy, set: SignatureSet | undefined): SignatureInput {
    const max = policy.maxCoveredComponents;
    // A set's parse answers only for its own field: what is memoized under `field` must come from `field`.
    if (set === undefined || set.inputField !== field) return readSignatureInput(field, label, max, this.knownLists);
    if (!set.inputFieldIsParsed) {
      const canonical = readCanonicalSignatureInput(field, label, max, this.knownLists);
      if (canonical !== undefined) {
        this.onFieldRead?.('Signature-Input');
        return canonical;
      }
    }
    return signatureInputMember(set.inputFieldParsed(), label, max);
  }

  /** {@link listSignatureMembers} of `field`, memoized like the Signature-Input members. */
  memberList(field: string, set?: SignatureSet): readonly SignatureMemberSummary[] {
    // A set's parse answers only for its own field: what is memoized under `field` must come from `field`.
    const list = () => (set === undefined || set.inputField !== field ? listSignatureMembers(field, MAX_SIGNATURES_READ) : signatureMembersOf(set.inputFieldParsed(), MAX_SIGNATURES_READ));
    if (field.length > SIGNATURE_INPUT_MEMO_MAX_CHARS) return list();
    const hit = this.signatureMemberLists.get(field);
    if (hit !== undefined) return hit;
    const members = Object.freeze(list());
    this.signatureMemberLists.set(field, members);
    return members;
  }

  /**
   * `input`'s facts, and which of this verifier's policies its policy-only checks pass under: the
   * coverage rules come with the covered list ({@link coveredList}); the parameters' rules are
   * decided here, as predicates that mirror the checks (checkKeyAndAlgorithm, checkAlgorithm,
   * checkWebBotAuthParams) without building a refusal: the checks themselves still run, and give
   * the refusal, for a policy the member does not pass.
   */
  private judged(input: SignatureInput): MemoizedInput {
    const list = this.coveredList(input);
    const checked: CheckedInput = {
      input,
      names: list.names,
      dateFields: list.dateFields,
      coversUrl: list.coversUrl,
      serialized: list.serialized,
      coversDigest: list.coversDigest,
      coversMethod: list.coversMethod,
    };
    const sharedOk = passesKeyAndAlgorithm(input);
    const webBotAuthOk = passesWebBotAuthParams(input, this.policies['web-bot-auth']);
    // Which policies pass depends on the list and on these three facts only: worked out once per list and combination.
    const combination = (sharedOk ? 1 : 0) | (webBotAuthOk ? 2 : 0) | (input.alg !== undefined ? 4 : 0);
    let passes = list.passesByParameters[combination];
    if (passes === undefined) {
      const sharedPasses: VerifyPolicy[] = [];
      const profilePasses: VerifyPolicy[] = [];
      for (const profile of COVERAGE_PROFILES) {
        const policy = this.policies[profile];
        const paramsOk = policy.profile !== 'web-bot-auth' || webBotAuthOk;
        if (sharedOk && paramsOk && list.targetPasses.includes(policy)) sharedPasses.push(policy);
        if (paramsOk && (input.alg !== undefined || !policy.requireAlg) && list.requiredPasses.includes(policy)) profilePasses.push(policy);
      }
      // Read-only by their types and kept inside the verifier, so not frozen: includes() on a frozen array takes a slower path.
      passes = { sharedPasses, profilePasses };
      list.passesByParameters[combination] = passes;
    }
    return { checked, sharedPasses: passes.sharedPasses, profilePasses: passes.profilePasses, heads: list.heads };
  }

  /** The facts of `input`'s covered list and the coverage rules it passes, memoized by the list's text. */
  private coveredList(input: SignatureInput): CoveredList {
    // Each entry's components are its own array: the reader handed out these ones.
    const known = this.lastKnownList;
    if (known !== undefined && known.components === input.covered) return known;
    // signatureParams is the list serialized (each identifier, one space between) and then the parameters.
    let length = 2;
    for (const component of input.covered) length += component.serialized.length + 1;
    if (input.covered.length > 0) length--;
    const text = input.signatureParams.slice(0, length);
    const memoized = text.length <= SIGNATURE_INPUT_MEMO_MAX_CHARS;
    const hit = memoized ? this.coveredLists.get(text) : undefined;
    if (hit !== undefined) return hit;
    const facts = coveredFacts(input.covered);
    const targetPasses: VerifyPolicy[] = [];
    const requiredPasses: VerifyPolicy[] = [];
    const checked: CheckedInput = { input, ...facts };
    for (const profile of COVERAGE_PROFILES) {
      const policy = this.policies[profile];
      if (passes(() => checkTargetCoverage(checked, policy, requiresTarget(policy)))) targetPasses.push(policy);
      if (passes(() => checkRequiredCoverage(checked, policy))) requiredPasses.push(policy);
    }
    const list: CoveredList = { ...facts, text, components: Object.freeze(input.covered as ComponentId[]), targetPasses, requiredPasses, heads: baseHeads(input.covered), passesByParameters: [] };
    if (memoized) this.coveredLists.set(text, list);
    return list;
  }

  /**
   * The Date header (or its browser alias X-Date, see DATE_FIELDS), for each one covered: present,
   * an IMF-fixdate, agreeing with `created`, and inside the window. Required unless legacy
   * (checkRequiredCoverage).
   */
  private checkDateField(field: DateField, req: SignedRequest, policy: VerifyPolicy, created: number, now: number): void {
    const header = field === 'date' ? 'Date' : 'X-Date';
    const raw = req.headers[field];
    if (raw === undefined) fail('missing_date', `The signature covers "${field}" but the request has no ${header} header. Send ${header} in IMF-fixdate form, e.g. Sat, 21 Nov 2026 22:47:17 GMT.`);
    const date = this.readDateHeader(raw);
    if (date === undefined) {
      fail('malformed_date', `The ${header} header is not an IMF-fixdate such as "Sat, 21 Nov 2026 22:47:17 GMT" (GMT, English names, two-digit day).`);
    }
    if (Math.abs(date - created) > policy.maxSkewS) {
      fail('clock_skew', `${header} and created differ by ${Math.abs(date - created)} s (tolerance ${policy.maxSkewS} s). Use the same clock reading for both.`);
    }
    if (date > now + policy.maxSkewS) fail('clock_skew', `${header} is ${date - now} s in the future. Check the signer's clock (NTP).`);
    if (date < now - policy.maxAgeS) fail('expired', `${header} is ${now - date} s old; it must be at most ${policy.maxAgeS} s old.`);
  }

  /** The Date header's unix seconds (OWS around the value ignored), or undefined when it is not an IMF-fixdate. */
  private readDateHeader(raw: string): number | undefined {
    const hit = this.dates.get(raw);
    if (hit !== undefined) return hit;
    // Trimmed by a scan, not a regex: /[ \t]+$/ is quadratic on a long run of blanks inside the value.
    const date = parseHttpDate(trimOws(raw));
    if (date !== undefined && raw.length <= DATE_MEMO_MAX_CHARS) this.dates.set(raw, date);
    return date;
  }

  /** What the signature's length says, when no fitting key makes signatures of that length. */
  private shapeNote(signature: Buffer, keys: readonly VerificationKey[]): string {
    if (keys.length === 0 || keys.some((k) => this.signatureBytes(k) === signature.length)) return '';
    for (const k of keys) {
      const hint = signatureShapeHint(this.algorithmOf(k), signature);
      if (hint !== undefined) return ` ${hint}`;
    }
    const sizes = [...new Set(keys.map((k) => this.signatureBytes(k)))];
    return ` The signature is ${signature.length} bytes; the registered key makes ${sizes.join(' or ')}-byte signatures.`;
  }

  /** Whether `candidate` could have made this signature: its algorithm fits `alg` and its signatures have this length. */
  private mayHaveSigned(parsed: ParsedSignature, candidate: VerificationKey): boolean {
    return parsed.signature.length === this.signatureBytes(candidate) && algorithmFits(parsed.input.alg, this.algorithmOf(candidate));
  }

  /** The first key that verifies the request's own base, else (building them one by one) an alternative base. */
  private firstVerifyingKey(parsed: ParsedSignature, keys: readonly VerificationKey[]): VerificationKey | undefined {
    let possible = 0;
    for (const candidate of keys) {
      if (!this.mayHaveSigned(parsed, candidate)) continue;
      possible++;
      if (this.verifiesBase(parsed.base, candidate, parsed.signature)) return candidate;
    }
    if (possible === 0 || parsed.alternativeBases === NO_ALTERNATIVES) return undefined;
    for (const base of parsed.alternativeBases) {
      for (const candidate of keys) {
        if (this.mayHaveSigned(parsed, candidate) && this.verifiesBase(base, candidate, parsed.signature)) return candidate;
      }
    }
    return undefined;
  }

  private verifiesBase(base: string, candidate: VerificationKey, signature: Buffer): boolean {
    return verifySignature(this.algorithmOf(candidate), this.utf8Bytes(base), candidate.key, signature);
  }

  /** `text` as UTF-8 bytes, valid until the next call (crypto.verify reads them synchronously). */
  private utf8Bytes(text: string): Uint8Array {
    if (text.length * 3 > BASE_BUFFER_BYTES) return Buffer.from(text, 'utf8');
    this.baseBuffer ??= Buffer.alloc(BASE_BUFFER_BYTES);
    const length = UTF8.encodeInto(text, this.baseBuffer).written;
    // A client's bases come in a few lengths: a view of each is kept (by its length's low bits), not made anew.
    const slot = length & (BASE_VIEW_SLOTS - 1);
    let view = this.baseViews[slot];
    if (view === undefined || view.length !== length) this.baseViews[slot] = view = this.baseBuffer.subarray(0, length);
    return view;
  }

  private factsOf(key: KeyObject): KeyFacts {
    // A client signs request after request with one key: the last key's facts are at hand without a lookup.
    if (key === this.lastKey) return this.lastKeyFacts as KeyFacts;
    let facts = this.keyFacts.get(key);
    if (facts === undefined) {
      facts = { algorithm: algorithmForKey(key), bytes: new Map() };
      this.keyFacts.set(key, facts);
    }
    this.lastKey = key;
    this.lastKeyFacts = facts;
    return facts;
  }

  private algorithmOf(key: VerificationKey): SignatureAlgorithm {
    return key.algorithm ?? this.factsOf(key.key).algorithm;
  }

  private signatureBytes(key: VerificationKey): number {
    const facts = this.factsOf(key.key);
    const algorithm = key.algorithm ?? facts.algorithm;
    let bytes = facts.bytes.get(algorithm);
    if (bytes === undefined) {
      bytes = signatureLength(algorithm, key.key);
      (facts.bytes as Map<SignatureAlgorithm, number>).set(algorithm, bytes);
    }
    return bytes;
  }
}

/** A verifier built from `options` (see {@link Verifier}). */
export function createVerifier(options: VerifierOptions): Verifier {
  return new Verifier(options);
}

/** Whether `check` returns without a SignetError. */
function passes(check: () => void): boolean {
  try {
    check();
    return true;
  } catch (error) {
    if (isSignetError(error)) return false;
    throw error;
  }
}

/**
 * {@link Verifier.parse} on a fresh verifier for `policy`: every check that needs no key, and the
 * signature base over the request's own URL.
 * @param targetUriCandidates other spellings of the target URI to try (REST v1 query rebuilds), bounded
 *   by the caller; read only if the key does not verify `req.targetUri` (so it may be lazy)
 * @param label the signature to check; by default the policy's label (`signet`), or under `rfc9421`
 *   the first signature Signature-Input declares (the authorizer picks by keyid: lambda/authorizer)
 * @throws SignetError with the reason code of the first failed check
 */
export function parseRequestSignature(req: SignedRequest, policy: VerifyPolicy, targetUriCandidates: Iterable<string> = NO_ALTERNATIVES, label?: string): ParsedSignature {
  const verifier = new Verifier({ policy });
  return verifier.parse(verifier.read(req), policy, targetUriCandidates, label);
}

/** {@link Verifier.checkMember} (stage 1) on a fresh verifier for `policy`. */
export function checkSignatureMember(req: SignedRequest, label: string, policy: VerifyPolicy): CheckedSignature {
  const verifier = new Verifier({ policy });
  return verifier.checkMember(verifier.read(req), label, policy);
}

/** {@link Verifier.parseChecked} (stage 2) on a fresh verifier for `policy`. */
export function parseCheckedSignature(req: SignedRequest, member: CheckedSignature, policy: VerifyPolicy, targetUriCandidates: Iterable<string> = NO_ALTERNATIVES): ParsedSignature {
  const verifier = new Verifier({ policy });
  return verifier.parseChecked(verifier.read(req), member, policy, targetUriCandidates);
}

/** {@link Verifier.verifyParsed} on a fresh verifier for `policy`. */
export function verifyParsedSignature(parsed: ParsedSignature, keys: readonly VerificationKey[], policy: VerifyPolicy): { fingerprint: string } {
  return new Verifier({ policy }).verifyParsed(parsed, keys, policy);
}

/**
 * The whole pipeline on a fresh verifier for `policy`: parse and check, resolve the keyid's keys,
 * verify. A caller verifying many requests builds one {@link Verifier} and calls its `verify`.
 * @param resolveKeys returns the keys registered for a keyid; throws SignetError `unknown_client` (or others) itself
 */
export function verifyRequest(req: SignedRequest, policy: VerifyPolicy, resolveKeys: KeyResolver, targetUriCandidates: Iterable<string> = NO_ALTERNATIVES): Promise<Verdict> {
  return new Verifier({ policy, resolveKeys }).verify(req, targetUriCandidates);
}

const NO_ALTERNATIVES: readonly string[] = Object.freeze([]);

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

function isUsable(key: VerificationKey, now: number): boolean {
  return isValidAt(key, now);
}

function allUsable(keys: readonly VerificationKey[], now: number): boolean {
  for (const k of keys) if (!isUsable(k, now)) return false;
  return true;
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | null)?.then === 'function';
}

/** The verdict for a parsed signature verified by the key with `fingerprint`. */
export function verdictOf(parsed: ParsedSignature, fingerprint: string): Verdict {
  const verdict: Verdict = {
    keyId: parsed.keyId,
    fingerprint,
    created: parsed.created,
    covered: parsed.covered,
    contentDigest: parsed.contentDigest,
    profile: parsed.profile,
    coversMethod: parsed.coversMethod,
    coversPath: parsed.coversPath,
  };
  return parsed.signatureAgent === undefined ? verdict : { ...verdict, signatureAgent: parsed.signatureAgent };
}
