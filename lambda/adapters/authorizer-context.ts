/**
 * The authorizer context: the key/value pairs the authorizer hands to API Gateway, which passes
 * them to the backend on Allow (`requestContext.authorizer.lambda.*` for HTTP API 2.0,
 * `requestContext.authorizer.*` for REST) and to REST gateway-response templates on Deny
 * (`$context.authorizer.*`). The key names are contract: the backend's body check, the CDK
 * gateway responses and the docs all read these constants.
 *
 * Every value is a string: REST accepts only string, number and boolean values (anything else
 * fails the request with 500), and strings need no conversion on the way back.
 */

/** The context keys Signet writes. */
export const CONTEXT_KEYS = {
  /** Allow: the client's id (also the REST `principalId`). */
  clientId: 'clientId',
  /** Allow: the client's roles, joined with `,` (role names contain no comma). */
  roles: 'roles',
  /**
   * Allow: the client's account (lambda/store/account-id.ts), so the registry can scope an
   * account admin to its own clients without reading the caller's record again.
   */
  accountId: 'accountId',
  /** Allow: the SHA-256 SPKI fingerprint of the key that verified the signature. */
  keyFingerprint: 'keyFingerprint',
  /** Allow: the signed `Content-Digest` header value, `''` when the request had none. */
  contentDigest: 'contentDigest',
  /** Allow: the coverage profile that admitted the request (`signet`, `rfc9421`, `web-bot-auth`). */
  profile: 'signetProfile',
  /**
   * Allow: `'true'` when this exact request was signed (its method and its path, with the query,
   * or `@target-uri`, covered), else `'false'`: a `web-bot-auth` signature of the authority alone
   * says who the agent is, not what it asked for.
   */
  requestBound: 'signetRequestBound',
  /** Deny: the stable error code (lambda/core/errors.ts). */
  error: 'signetError',
  /** Deny: the human sentence for that code. */
  message: 'signetMessage',
} as const;

/** What the backend receives on Allow. (A type alias, so it fits API Gateway's context map type.) */
export type SignetAllowContext = {
  readonly clientId: string;
  readonly roles: string;
  readonly accountId: string;
  readonly keyFingerprint: string;
  readonly contentDigest: string;
  readonly signetProfile: string;
  readonly signetRequestBound: 'true' | 'false';
};

/** What a REST Deny carries to the ACCESS_DENIED gateway response. */
export type SignetDenyContext = {
  readonly signetError: string;
  readonly signetMessage: string;
};

/** The facts an Allow is built from. */
export interface AllowFacts {
  readonly clientId: string;
  readonly roles: readonly string[];
  /** The client's account; `''` is passed when unknown (the registry then refuses account-scoped callers). */
  readonly accountId?: string;
  readonly keyFingerprint: string;
  /** The signed `Content-Digest` header value; omitted or undefined when not signed. */
  readonly contentDigest?: string;
  /** The coverage profile that admitted the request. */
  readonly profile: string;
  /** Whether the method and the path/target were covered. */
  readonly requestBound: boolean;
}

/** A refusal: a stable code and a sentence (a `SignetError` fits). */
export interface Refusal {
  readonly code: string;
  readonly message: string;
}

/** Longest `signetMessage` passed on; longer sentences are cut. */
export const MAX_CONTEXT_MESSAGE_CHARS = 300;

/** Builds the Allow context. */
export function allowContext(facts: AllowFacts): SignetAllowContext {
  return {
    [CONTEXT_KEYS.clientId]: facts.clientId,
    [CONTEXT_KEYS.roles]: facts.roles.join(','),
    [CONTEXT_KEYS.accountId]: facts.accountId ?? '',
    [CONTEXT_KEYS.keyFingerprint]: facts.keyFingerprint,
    [CONTEXT_KEYS.contentDigest]: facts.contentDigest ?? '',
    [CONTEXT_KEYS.profile]: facts.profile,
    [CONTEXT_KEYS.requestBound]: facts.requestBound ? 'true' : 'false',
  };
}

/**
 * Builds the Deny context. Both values are made safe to drop inside a JSON string in a REST
 * gateway-response template (which substitutes `$context.authorizer.*` without escaping): no `"`,
 * `\` or control characters, at most {@link MAX_CONTEXT_MESSAGE_CHARS}.
 */
export function denyContext(refusal: Refusal): SignetDenyContext {
  return {
    [CONTEXT_KEYS.error]: jsonSafe(refusal.code).slice(0, 64),
    [CONTEXT_KEYS.message]: jsonSafe(refusal.message).slice(0, MAX_CONTEXT_MESSAGE_CHARS),
  };
}

function jsonSafe(text: string): string {
  return String(text).replace(/["\\]/g, "'").replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, ' ');
}
