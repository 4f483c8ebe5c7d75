/**
 * The verification policy: every setting verification depends on, and the coverage rules of each
 * profile (./profiles.ts describes them). Pure values: a policy is a frozen object, and the one
 * for another profile is derived from it, not looked up.
 */
import {
  DEFAULT_ALLOW_LEGACY,
  DEFAULT_MAX_AGE_S,
  DEFAULT_MAX_COVERED_COMPONENTS,
  DEFAULT_MAX_SKEW_S,
  DEFAULT_WEB_BOT_AUTH_MAX_VALIDITY_S,
  SIGNATURE_LABEL,
} from './defaults';
import type { CoverageProfile } from './profile-names';

/** Everything verification depends on; build it once per cold start with {@link defaultVerifyPolicy}. */
export interface VerifyPolicy {
  /**
   * What a signature must cover (./profiles.ts): `signet` (label, alg, @target-uri and date
   * required), `rfc9421` (any label, @method and the target, alg and date optional) or
   * `web-bot-auth` (any label, tag="web-bot-auth", created and expires, @authority or @target-uri).
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
  /**
   * Whether a covered Content-Digest must carry a digest the backend compares: sha-256 or sha-512
   * (RFC 9530), alone or together; other algorithms beside one of them are ignored. @default true
   */
  readonly requireKnownDigest: boolean;
  /**
   * Under `web-bot-auth`: the longest a signature may be valid, `expires` − `created`, in seconds.
   * @default DEFAULT_WEB_BOT_AUTH_MAX_VALIDITY_S (86,400)
   */
  readonly maxValidityS: number;
  /** Whether `alg` must be present (when present it must always name the key's algorithm). @default true */
  readonly requireAlg: boolean;
  /** The current time, unix seconds. Injected: the core has no clock. */
  readonly nowS: () => number;
  /** Receives each signature base built (for `signet explain`); production leaves it unset and never logs bases. */
  readonly onBase?: (base: string) => void;
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
    requireKnownDigest: true,
    maxValidityS: DEFAULT_WEB_BOT_AUTH_MAX_VALIDITY_S,
    requireAlg: true,
    nowS: () => Math.floor(Date.now() / 1000),
    ...rest,
  });
  return profile === undefined ? base : policyForProfile(base, profile);
}

/**
 * `policy` with the coverage rules of `profile`; everything else (label, windows, limits, clock)
 * is `policy`'s own. A new object each call: a Verifier derives each of its profiles' policies
 * once. Derive from the deployment's `signet` policy: one derived from an `rfc9421` or
 * `web-bot-auth` policy, which lets the date go uncovered, cannot know whether the deployment
 * allowed that, and does not.
 */
export function policyForProfile(policy: VerifyPolicy, profile: CoverageProfile): VerifyPolicy {
  if (policy.profile === profile) return policy;
  switch (profile) {
    case 'rfc9421':
      return Object.freeze({ ...policy, profile, requiredComponents: ['@method'], requireAlg: false, allowLegacy: true });
    case 'web-bot-auth':
      // The method is not required (an agent may sign only its authority); the target rule, the
      // tag and the validity window are the profile's own (./signature-checks.ts).
      return Object.freeze({ ...policy, profile, requiredComponents: [], requireAlg: false, allowLegacy: true });
    default:
      return Object.freeze({
        ...policy,
        profile,
        requiredComponents: ['@method', '@target-uri'],
        requireAlg: true,
        allowLegacy: policy.profile === 'signet' ? policy.allowLegacy : DEFAULT_ALLOW_LEGACY,
      });
  }
}
