/**
 * Where a published key source is fetched from: a partner's JWKS URL (RFC 7591 `jwks_uri`), or a
 * Web Bot Auth agent's origin, whose key directory is at {@link KEY_DIRECTORY_PATH}
 * (draft-meunier-webbotauth-httpsig-directory §3). Deployed, only `https` URLs are accepted; the
 * local gateway also accepts `http://127.0.0.1` and `http://localhost` (`allowLocalHttp`), for
 * demos and tests. Whether the name resolves to public addresses is checked when fetching.
 */
import { KEY_DIRECTORY_MEDIA_TYPE, KEY_DIRECTORY_PATH } from './defaults';
import { isIPv4, isIPv6 } from './ip-address';
import { nonPublicReason } from './public-address';

/** A published key source, as a client's record names it. */
export type KeySource = { readonly jwksUri: string } | { readonly signatureAgent: string };

/** Why a key source's address is refused before anything is fetched. Stable: add, never rename. */
export type KeySourceUrlRefusalCode = 'invalid_source_url' | 'scheme_not_allowed' | 'address_not_public';

/** The request a source is fetched with, or why it cannot be. */
export type KeySourceRequest =
  | { readonly ok: true; readonly url: URL; readonly accept: string; readonly local: boolean }
  | { readonly ok: false; readonly code: KeySourceUrlRefusalCode; readonly message: string };

/** The host names `allowLocalHttp` lets through over plain http. */
const LOCAL_HTTP_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost']);

/** The longest source URL accepted, in characters. */
const MAX_SOURCE_URL_LENGTH = 2_048;

/**
 * The URL to fetch for a key source and the `Accept` header to send.
 * @param allowLocalHttp the local gateway's setting: also accept `http://127.0.0.1` and `http://localhost` (and only those over http). @default false
 */
export function keySourceRequest(source: KeySource, allowLocalHttp = false): KeySourceRequest {
  const isAgent = 'signatureAgent' in source;
  const text = isAgent ? source.signatureAgent : source.jwksUri;
  const what = isAgent ? 'The signature agent origin' : 'The JWKS URI';
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_SOURCE_URL_LENGTH) {
    return refusal('invalid_source_url', `${what} must be a URL of 1 to ${MAX_SOURCE_URL_LENGTH} characters.`);
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refusal('invalid_source_url', `${what} is not an absolute URL; give e.g. ${isAgent ? 'https://agent.example' : 'https://partner.example/.well-known/jwks.json'}.`);
  }
  const local = url.protocol === 'http:' && LOCAL_HTTP_HOSTS.has(url.hostname);
  if (url.protocol !== 'https:' && !(allowLocalHttp && local)) {
    const hint = allowLocalHttp ? 'https, or http only to 127.0.0.1 or localhost' : local ? 'https (plain http to 127.0.0.1 and localhost is for the local gateway only)' : 'https';
    return refusal('scheme_not_allowed', `${what} uses ${url.protocol.replace(/:$/, '')}; key sources are fetched over ${hint}.`);
  }
  if (url.username !== '' || url.password !== '') {
    return refusal('invalid_source_url', `${what} carries a user name or password; key sources are public documents, fetched without credentials.`);
  }
  if (url.hash !== '') return refusal('invalid_source_url', `${what} has a #fragment; remove it.`);
  if (isAgent && ((url.pathname !== '/' && url.pathname !== '') || url.search !== '')) {
    return refusal('invalid_source_url', `The signature agent is an origin (scheme, host and port, e.g. https://agent.example); its key directory is fetched at ${KEY_DIRECTORY_PATH}. Remove the path and query.`);
  }
  const literal = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (!local && (isIPv4(literal) || isIPv6(literal))) {
    const reason = nonPublicReason(literal);
    if (reason !== undefined) return refusal('address_not_public', `${what} names ${literal}, a ${reason} address; key sources must be on public addresses.`);
  }
  if (isAgent) url = new URL(KEY_DIRECTORY_PATH, url.origin);
  const accept = isAgent ? `${KEY_DIRECTORY_MEDIA_TYPE}, application/jwk-set+json;q=0.9, application/json;q=0.8` : 'application/jwk-set+json, application/json;q=0.9';
  return { ok: true, url, accept, local };
}

/**
 * What makes two key sources one, for the rule that a source serves one client: the URL its keys
 * are fetched from (an agent's key directory, a JWKS URL), so that an agent's origin and a JWKS URI
 * naming its directory are the same source; the text given when it names nothing fetchable.
 */
export function keySourceIdentity(source: KeySource): string {
  const request = keySourceRequest(source, true);
  if (request.ok) return request.url.href;
  return 'signatureAgent' in source ? source.signatureAgent : source.jwksUri;
}

function refusal(code: KeySourceUrlRefusalCode, message: string): KeySourceRequest {
  return { ok: false, code, message };
}
