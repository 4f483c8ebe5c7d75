/**
 * Coverage profiles: what a signature must cover to be accepted, chosen per deployment
 * (`SIGNET_PROFILE`) and per client (the registry's `profile` field, which overrides it).
 *
 * - `signet` (the default): label `sig`, `alg` required, `@method` and `@target-uri` covered,
 *   `date` (or `x-date`) covered unless the deployment allows the legacy form.
 * - `rfc9421`: what any conformant RFC 9421 signer sends — any label, `@method` covered, the
 *   target covered by `@target-uri` or by `@authority` + `@path` (+ `@query` when the request has
 *   a query; `@scheme` is optional, the deployment knows its scheme), `alg` optional (the key
 *   decides), `date` optional (checked when covered).
 *
 * In both, `created` is required within the window, `content-digest` (with sha-256) is required
 * whenever there is a body, and the rest of the policy (windows, IP list, roles, replay) applies.
 */
import { COVERAGE_PROFILES, type CoverageProfile, DEFAULT_PROFILE, isCoverageProfile } from './profile-names';

export { COVERAGE_PROFILES, DEFAULT_PROFILE, isCoverageProfile };
export type { CoverageProfile };

/**
 * Whether profile `to` accepts every signature profile `from` does: the same profile, or
 * `rfc9421` after `signet` (any label, the target by `@target-uri` or its parts, `alg` and `date`
 * optional: all that `signet` requires and more). `web-bot-auth` asks for a tag and an expiry that
 * neither other profile does, and `signet` for what an `rfc9421` signer may leave out. The
 * registry's self-lockout rule asks it before a caller changes its own client's profile.
 */
export function admitsEverySignatureOf(to: CoverageProfile, from: CoverageProfile): boolean {
  return from === to || (from === 'signet' && to === 'rfc9421');
}

/**
 * The most signatures one request may declare in Signature-Input under a profile that accepts any
 * label: the authorizer looks up the keyid of each one that passes the checks every profile
 * makes (a registry lookup, cached) to find the one to check, and under replay protection claims
 * every one of them.
 */
export const MAX_SIGNATURES_READ = 4;
