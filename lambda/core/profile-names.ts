/**
 * The names of the coverage profiles (./profiles.ts has what each requires), with nothing else,
 * so that code bundled for the browser (the portal) can name them.
 */
export const COVERAGE_PROFILES = ['signet', 'rfc9421', 'web-bot-auth'] as const;

export type CoverageProfile = (typeof COVERAGE_PROFILES)[number];

/** The profile of a deployment that names none. */
export const DEFAULT_PROFILE: CoverageProfile = 'signet';

export function isCoverageProfile(value: unknown): value is CoverageProfile {
  return value === 'signet' || value === 'rfc9421' || value === 'web-bot-auth';
}
