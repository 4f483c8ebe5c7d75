/** The inputs `signet verify` and `signet explain` share: a received request and a public key file. */
import { SignedRequest } from '../../lambda/core/types';
import { SIGNATURE_ALGORITHMS, type SignatureAlgorithm, isSignatureAlgorithm } from '../../lambda/core/algorithm-names';
import { SIGNATURE_LABEL } from '../../lambda/core/defaults';
import { COVERAGE_PROFILES, DEFAULT_PROFILE, MAX_SIGNATURES_READ, isCoverageProfile } from '../../lambda/core/profiles';
import { listSignatureMembers } from '../../lambda/core/signature-params';
import { defaultVerifyPolicy, VerifyPolicy } from '../../lambda/core/verify';
import { UsageError, headerLines, optionalInt, parse, readBody, readText, required } from './args';
import { FlagHelp } from './help';

export const RECEIVED_REQUEST_OPTIONS = {
  'public-key': { type: 'string', multiple: true },
  method: { type: 'string' },
  url: { type: 'string' },
  H: { type: 'string', short: 'H', multiple: true },
  header: { type: 'string', multiple: true },
  data: { type: 'string' },
  'data-file': { type: 'string' },
  now: { type: 'string' },
  'allow-legacy': { type: 'boolean', default: false },
  profile: { type: 'string' },
  'key-alg': { type: 'string' },
  'client-id': { type: 'string' },
} as const;

/** Help for {@link RECEIVED_REQUEST_OPTIONS}. */
export const RECEIVED_REQUEST_FLAGS: Readonly<Record<keyof typeof RECEIVED_REQUEST_OPTIONS, FlagHelp>> = {
  'public-key': { meaning: "a PUBLIC key the registry holds for the client (public.pem); repeat it for each key of a client in rollover", value: 'FILE' },
  method: { meaning: 'the method as sent', value: 'M' },
  url: { meaning: 'the full URL as the verifier rebuilt it (scheme, host, port, path, query)', value: 'URL' },
  H: { meaning: "a request header as sent, 'Name: value' (give Date, Signature-Input, Signature, Content-Digest)", value: "'Name: value'" },
  header: { meaning: 'the same as -H', value: "'Name: value'" },
  data: { meaning: "the body as text, or @FILE for a file's bytes", value: 'STR' },
  'data-file': { meaning: 'the body: the exact bytes of FILE', value: 'FILE' },
  now: { meaning: 'check freshness as if it were this unix time', value: 'UNIX', default: 'now' },
  'allow-legacy': { meaning: 'accept the legacy form that does not cover date (SIGNET_ALLOW_LEGACY=true)' },
  profile: {
    meaning:
      'what the signature must cover: signet (label sig, alg, @target-uri, date), rfc9421 (any label, @method + @target-uri or @authority/@path(/@query)) ' +
      "or web-bot-auth (any label, tag, created + expires, @authority or @target-uri); as SIGNET_PROFILE or the client's profile",
    value: 'PROFILE',
    default: DEFAULT_PROFILE,
  },
  'key-alg': { meaning: "the algorithm the public key is registered for: the key type's own by default; rsa-pss-sha512 for an RSA key registered for it", value: 'ALG' },
  'client-id': { meaning: 'the clientId the signature must name in keyid', value: 'ID', default: 'not checked' },
};

function publicKeyFiles(values: Record<string, unknown>, required: boolean): string[] {
  const files = ((values['public-key'] as string[] | undefined) ?? []).filter((file) => file !== '');
  if (files.length === 0 && required) throw new UsageError('--public-key is required');
  return files;
}

/** What the caller knows better than the flags' defaults (`explain` reads them from the registry). */
export interface ReceivedRequestDefaults {
  /** The profile when `--profile` is not given. @default DEFAULT_PROFILE */
  readonly profile?: string;
  /** `--public-key` may be left out (the keys come from elsewhere). @default false */
  readonly keysOptional?: boolean;
}

export interface ReceivedRequest {
  readonly request: SignedRequest;
  readonly body?: Buffer;
  /** The text of each `--public-key` file, in order (at least one unless the keys come from elsewhere). */
  readonly publicKeyTexts: readonly string[];
  readonly policy: VerifyPolicy;
  /** The algorithm the keys are registered for (`--key-alg`), when given. */
  readonly keyAlgorithm?: SignatureAlgorithm;
  readonly clientId?: string;
}

/** The label of the first signature a Signature-Input declares, if it parses. */
function firstSignatureLabel(field: string | undefined): string | undefined {
  if (field === undefined) return undefined;
  try {
    return listSignatureMembers(field, MAX_SIGNATURES_READ)[0]?.label;
  } catch {
    return undefined;
  }
}

/** Reads the request as the verifier received it (the method is NOT upper-cased here). */
export function readReceivedRequest(argv: string[], onBase?: (base: string) => void): ReceivedRequest {
  return receivedRequestOf(parse(argv, { ...RECEIVED_REQUEST_OPTIONS }).values, onBase);
}

/** The request from flags already parsed (with {@link RECEIVED_REQUEST_OPTIONS} among others). */
export function receivedRequestOf(values: Record<string, unknown>, onBase?: (base: string) => void, defaults: ReceivedRequestDefaults = {}): ReceivedRequest {
  const headers = headerLines([...((values.H as string[]) ?? []), ...((values.header as string[]) ?? [])]);
  const body = readBody(values);
  const now = optionalInt(values, 'now');
  const profile = typeof values.profile === 'string' ? values.profile : (defaults.profile ?? DEFAULT_PROFILE);
  if (!isCoverageProfile(profile)) throw new UsageError(`--profile must be one of ${COVERAGE_PROFILES.join(', ')}`);
  const keyAlg = values['key-alg'];
  if (typeof keyAlg === 'string' && !isSignatureAlgorithm(keyAlg)) throw new UsageError(`--key-alg must be one of ${SIGNATURE_ALGORITHMS.join(', ')}`);
  return {
    request: {
      method: required(values, 'method'),
      targetUri: required(values, 'url'),
      headers,
      hasBody: body !== undefined ? body.length > 0 : undefined,
    },
    body,
    publicKeyTexts: publicKeyFiles(values, defaults.keysOptional !== true).map((file) => readText(file, '--public-key')),
    policy: defaultVerifyPolicy({
      allowLegacy: values['allow-legacy'] === true,
      profile,
      // Under rfc9421 and web-bot-auth any label: the first signature declared (explain's relaxed checks read it too).
      ...(profile !== 'signet' ? { label: firstSignatureLabel(headers['signature-input']) ?? SIGNATURE_LABEL } : {}),
      ...(now !== undefined ? { nowS: () => now } : {}),
      ...(onBase ? { onBase } : {}),
    }),
    ...(typeof keyAlg === 'string' && isSignatureAlgorithm(keyAlg) ? { keyAlgorithm: keyAlg } : {}),
    clientId: typeof values['client-id'] === 'string' ? values['client-id'] : undefined,
  };
}
