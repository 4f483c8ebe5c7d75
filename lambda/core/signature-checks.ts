/**
 * The rules of RFC 9421 §3.2 that Signet checks on a signature before any key is known, each a
 * pure function of the Signature-Input member (its facts worked out once: {@link CheckedInput}),
 * the policy and the request: `alg` and keyid, `created`/`expires`, what the profile requires
 * covered, the target, the query, Content-Digest. Each refusal has its reason code and a sentence
 * the caller can act on; the `passes…` forms answer the same question without building one.
 * ./verify.ts runs them, in its two stages, and memoizes what depends on the member alone.
 */
import { checkAlgorithmName, isSignatureAlgorithm } from './algorithms';
import { ANY_KNOWN_DIGEST, checkContentDigestField } from './content-digest';
import { DATE_FIELDS, type DateField, WEB_BOT_AUTH_TAG } from './defaults';
import { fail } from './errors';
import { MAX_KEYID_LENGTH } from './keyid';
import type { ComponentId, SignatureInput } from './signature-params';
import type { SignedRequest } from './types';
import type { VerifyPolicy } from './verify-policy';

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
  /** Whether `@method` is covered. */
  readonly coversMethod: boolean;
}

/** What a covered list says, whatever the parameters beside it: a {@link CheckedInput} without its input. */
export type CoveredFacts = Omit<CheckedInput, 'input'>;

/** The facts of a covered list that every check reads. */
export function coveredFacts(covered: readonly ComponentId[]): CoveredFacts {
  const names = new Set(covered.map((c: ComponentId) => (c.name === 'content-digest' && !coversWholeField(c) ? 'content-digest;partial' : c.name)));
  return {
    names,
    dateFields: DATE_FIELDS.filter((field) => names.has(field)),
    coversUrl: covered.some((c) => c.name !== '@method' && c.name.startsWith('@')),
    serialized: Object.freeze(covered.map((c) => c.serialized)),
    coversDigest: names.has('content-digest'),
    coversMethod: names.has('@method'),
  };
}


/** Stage 1's checks of the member alone: a known `alg` when one is given, and a keyid. */
export function checkKeyAndAlgorithm(input: SignatureInput): void {
  if (input.alg !== undefined) checkAlgorithmName(input.alg);
  checkKeyId(input);
}

/** Whether {@link checkKeyAndAlgorithm} passes, without building its refusal. */
export function passesKeyAndAlgorithm(input: SignatureInput): boolean {
  const { alg, keyid } = input;
  return (alg === undefined || isSignatureAlgorithm(alg)) && keyid !== undefined && keyid !== '' && keyid.length <= MAX_KEYID_LENGTH;
}

/** Whether {@link checkWebBotAuthParams} passes, without building its refusal. */
export function passesWebBotAuthParams(input: SignatureInput, policy: VerifyPolicy): boolean {
  if (input.tag !== WEB_BOT_AUTH_TAG || input.expires === undefined) return false;
  return input.created === undefined || (input.expires - input.created > 0 && input.expires - input.created <= policy.maxValidityS);
}

/** Stage 2's checks of the profile's coverage: `alg` when required, the required components, a date. */
export function checkProfileCoverage(checked: CheckedInput, policy: VerifyPolicy): void {
  checkAlgorithm(checked.input, policy);
  if (policy.profile === 'web-bot-auth') checkWebBotAuthParams(checked.input, policy);
  checkRequiredCoverage(checked, policy);
}

/**
 * The `web-bot-auth` profile's parameters (draft-meunier-webbotauth-httpsig-protocol, "Generating HTTP Message Signature"):
 * `tag="web-bot-auth"`, and `expires` after `created` by at most the policy's `maxValidityS`.
 * (`created` is required under every profile.)
 */
export function checkWebBotAuthParams(input: SignatureInput, policy: VerifyPolicy): void {
  if (input.tag !== WEB_BOT_AUTH_TAG) {
    const given = input.tag === undefined ? 'carries no tag' : `has tag=${JSON.stringify(input.tag.slice(0, 40))}`;
    fail('invalid_signature_input', `Signature ${input.label} ${given}; under the web-bot-auth profile Signature-Input must carry tag="${WEB_BOT_AUTH_TAG}".`);
  }
  if (input.expires === undefined) {
    fail('invalid_signature_input', `Under the web-bot-auth profile Signature-Input must carry expires=<unix seconds>, at most ${policy.maxValidityS} s after created.`);
  }
  if (input.created !== undefined) {
    const validity = input.expires - input.created;
    if (validity <= 0) fail('invalid_signature_input', `expires (${input.expires}) must be after created (${input.created}).`);
    if (validity > policy.maxValidityS) {
      fail('invalid_signature_input', `The signature is valid for ${validity} s (expires − created); this API accepts web-bot-auth signatures valid for at most ${policy.maxValidityS} s. Sign with a shorter expires.`);
    }
  }
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
export function checkCreated(input: SignatureInput, policy: VerifyPolicy, now: number): number {
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
export function checkExpires(input: SignatureInput, now: number): void {
  if (input.expires !== undefined && now > input.expires) {
    fail('expired', `The signature expired ${now - input.expires} s ago (expires parameter). Sign the request again.`);
  }
}

/** What a profile's refusal of missing coverage suggests covering. */
function coverageExample(policy: VerifyPolicy): string {
  if (policy.profile === 'web-bot-auth') return '("@authority" "signature-agent";key="sig1") at least, better ("@method" "@authority" "@path" ...)';
  return policy.profile === 'rfc9421' ? '("@method" "@authority" "@path" ...)' : '("@method" "@target-uri" ... "date")';
}

/**
 * Whether the target must be covered: under `rfc9421`, and under a policy that requires
 * `@target-uri` (`signet`). Both profiles do; a hand-made policy (`signet explain`, the RFC's test
 * vectors) may ask less.
 */
export function requiresTarget(policy: VerifyPolicy): boolean {
  return policy.profile !== 'signet' || policy.requiredComponents.includes('@target-uri');
}

/**
 * What every profile requires covered: `@method`, and the target, by `@target-uri` or by
 * `@authority` and `@path` (the `signet` profile then requires `@target-uri` itself), each when
 * the policy requires it (see {@link requiresTarget}).
 */
export function checkTargetCoverage({ names }: CheckedInput, policy: VerifyPolicy, targetRequired: boolean): void {
  if (policy.profile === 'web-bot-auth') {
    // The agent's identity is bound to this API at least: its authority (the draft's "Generating HTTP Message Signature").
    if (targetRequired && !names.has('@authority') && !names.has('@target-uri')) {
      fail('missing_component', `A web-bot-auth signature must cover "@authority" or "@target-uri". Cover ${coverageExample(policy)}.`);
    }
    return;
  }
  if (!names.has('@method') && policy.requiredComponents.includes('@method')) {
    fail('missing_component', `The signature must cover "@method". Cover ${coverageExample(policy)}.`);
  }
  if (targetRequired && !names.has('@target-uri') && !(names.has('@authority') && names.has('@path'))) {
    const missing = names.has('@authority') ? '"@path"' : names.has('@path') ? '"@authority"' : '"@target-uri", or "@authority" and "@path"';
    fail('missing_component', `The signature must cover the request's target: ${missing}. Cover ${coverageExample(policy)}.`);
  }
}

/** The policy's required components are covered, and a date field is (unless legacy is allowed). */
export function checkRequiredCoverage({ names, dateFields }: CheckedInput, policy: VerifyPolicy): void {
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

/**
 * A path covered by `@path` must be covered with its query (`@query`) when the request has one:
 * the signature would otherwise hold for any query. (A web-bot-auth signature of the authority
 * alone covers no path.)
 */
export function checkQueryCoverage({ names }: CheckedInput, req: SignedRequest): void {
  if (names.has('@target-uri') || names.has('@query') || !names.has('@path') || !hasQuery(req.targetUri)) return;
  fail('missing_component', 'The request has a query, so the signature must cover "@query" too (or cover "@target-uri" instead of "@authority" and "@path").');
}

/** Whether the signature covers the request's path and query: `@target-uri`, or `@authority`, `@path` and (with a query) `@query`. */
export function coversPath({ names }: CheckedInput, req: SignedRequest): boolean {
  if (names.has('@target-uri')) return true;
  return names.has('@authority') && names.has('@path') && (names.has('@query') || !hasQuery(req.targetUri));
}

function hasQuery(targetUri: string): boolean {
  const q = targetUri.indexOf('?');
  if (q < 0) return false;
  const hash = targetUri.indexOf('#', q);
  return (hash < 0 ? targetUri.length : hash) > q + 1;
}

/** With a body, `content-digest` must be covered; when covered, the header must be present and valid. */
export function checkDigestCoverage({ coversDigest }: CheckedInput, req: SignedRequest, policy: VerifyPolicy): string | undefined {
  if (!coversDigest) {
    if (hasBody(req)) {
      fail('digest_required', 'The request has a body, so the signature must cover "content-digest" and the request must send Content-Digest: sha-256=:<base64>: (or sha-512).');
    }
    return undefined;
  }
  const digest = req.headers['content-digest'];
  if (digest === undefined) {
    fail('digest_required', 'The signature covers "content-digest" but the request has no Content-Digest header.');
  }
  checkContentDigestField(digest, policy.requireKnownDigest ? ANY_KNOWN_DIGEST : null);
  return digest;
}

/**
 * Only `"content-digest"` (or its `;sf` re-serialization) signs every member; `;key="sha-512"`
 * signs one member and would leave another one the backend compares unsigned.
 */
function coversWholeField(component: ComponentId): boolean {
  return component.params.size === 0 || (component.params.size === 1 && component.params.has('sf'));
}

/** A request has a body when Content-Length > 0 or any Transfer-Encoding is present (unless the adapter knows). */
function hasBody(req: SignedRequest): boolean {
  if (req.hasBody !== undefined) return req.hasBody;
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length.trim() !== '0' && length.trim() !== '';
}
