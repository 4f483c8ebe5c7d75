/**
 * Fetching a published key source (a JWKS URI or a Web Bot Auth key directory) safely, for the
 * refresher and for registration; never on the request path.
 *
 * - `https` only (`allowLocalHttp`: also `http://127.0.0.1` and `http://localhost`, for the local
 *   gateway), no credentials in the URL (lambda/core/key-source-url.ts).
 * - Every address the name resolves to must be public (lambda/core/public-address.ts), and the
 *   connection goes to the address that was checked: the socket's `lookup` answers with it, so
 *   the name is not resolved twice and cannot rebind to an inside address in between. TLS still
 *   verifies the certificate for the name (SNI and host check use the URL's host).
 * - No redirects: a 3xx is a refusal naming where it pointed. One deadline (5 s by default) covers
 *   resolving, connecting and reading; the body is read up to 64 KB and the read stops as soon as
 *   it is exceeded. No compression is asked for, and a compressed answer is refused.
 * - `Cache-Control: max-age` (clamped to [1 min, 24 h]) and `Retry-After` come back in the result.
 *
 * Every refusal is a result with a stable code and a sentence, never a throw. The resolver and
 * the connector are injectable, so tests prove an address is refused without any connection.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { ClientRequest, IncomingMessage } from 'node:http';
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
import { KEY_SOURCE_FETCH_TIMEOUT_MS, MAX_KEY_SOURCE_BODY_BYTES } from '../core/defaults';
import { keySetMaxAgeS, retryAfterS } from '../core/key-source-freshness';
import { type KeySource, keySourceRequest } from '../core/key-source-url';
import { type PublishedKey, type RefusedKey, readPublishedKeySet } from '../core/published-key-set';
import { nonPublicReason } from '../core/public-address';
import type { ModulusVerdicts } from '../core/rsa-modulus';

/** One address a name resolves to. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a host name to all its addresses (the default asks the system resolver, like `getaddrinfo`). */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** What a connector is asked to do: GET `url`, connecting to `address` and nowhere else. */
export interface PinnedRequest {
  readonly url: URL;
  readonly address: string;
  readonly family: 4 | 6;
  readonly headers: Readonly<Record<string, string>>;
}

/** Starts the GET (not yet ended); the fetcher ends it, times it and reads the response. */
export type Connector = (request: PinnedRequest) => ClientRequest;

/**
 * Why a fetch was refused. Stable: add, never rename. Includes every code of the URL rules and the
 * key-set reader (the compiler holds {@link fetchKeySource} to that: it returns theirs as its own).
 */
export const FETCH_REFUSAL_CODES = [
  'invalid_source_url',
  'scheme_not_allowed',
  'address_not_public',
  'resolution_failed',
  'connection_failed',
  'timeout',
  'redirect_refused',
  'http_error',
  'body_too_large',
  'unexpected_media_type',
  'invalid_json',
  'not_a_key_set',
  'too_many_keys',
  'no_usable_key',
] as const;
export type FetchRefusalCode = (typeof FETCH_REFUSAL_CODES)[number];

/** The outcome of one fetch. */
export type KeySourceFetch =
  | {
      readonly ok: true;
      readonly url: string;
      /** The address connected to. */
      readonly address: string;
      readonly keys: readonly PublishedKey[];
      /** Keys of the set that are not used, each with its reason. */
      readonly refused: readonly RefusedKey[];
      /** The thumbprint of every key the set lists, usable or not (KeySetReading `listed`). */
      readonly listed: readonly (string | undefined)[];
      /** From Cache-Control, clamped to [60, 86400]; undefined: the refresher's interval applies. */
      readonly maxAgeS?: number;
      /**
       * The answer's own HTTP message signatures, when it carries both fields (a Web Bot Auth key
       * directory signs its response: draft-meunier-webbotauth-httpsig-directory-00 §5); the
       * caller verifies them (lambda/core/directory-signature.ts).
       */
      readonly responseSignature?: { readonly signature: string; readonly signatureInput: string };
    }
  | {
      readonly ok: false;
      readonly code: FetchRefusalCode;
      readonly message: string;
      readonly url?: string;
      readonly address?: string;
      /** The HTTP status, when an answer came. */
      readonly status?: number;
      /** From Retry-After: wait at least this long before fetching again. */
      readonly retryAfterS?: number;
      readonly refused?: readonly RefusedKey[];
      /**
       * For an answer that is a well-formed key set with no usable key (`no_usable_key`): the
       * thumbprint of every key it lists. A key the client holds that is not among them was
       * withdrawn by its publisher.
       */
      readonly listed?: readonly (string | undefined)[];
    };

/** Options of {@link fetchKeySource}; each has a production default. */
export interface FetchKeySourceOptions {
  /** Also accept `http://127.0.0.1` and `http://localhost` sources (the local gateway). @default false */
  readonly allowLocalHttp?: boolean;
  /** @default - the system resolver, every address (`dns.lookup` with `all`) */
  readonly resolve?: Resolver;
  /** @default - {@link connectPinned} */
  readonly connect?: Connector;
  /** One deadline for resolving, connecting and reading. @default KEY_SOURCE_FETCH_TIMEOUT_MS (5 s) */
  readonly timeoutMs?: number;
  /** @default MAX_KEY_SOURCE_BODY_BYTES (64 KB) */
  readonly maxBodyBytes?: number;
  /** The current time, unix seconds (Retry-After dates, key expiry). */
  readonly nowS: () => number;
  /** The verdicts on RSA moduli judged before, kept across fetches by the caller (KeySetOptions). @default - each fetch's own */
  readonly modulusVerdicts?: ModulusVerdicts;
  /** Thumbprints of the keys the client already holds (KeySetOptions.heldThumbprints). @default - none */
  readonly heldThumbprints?: ReadonlySet<string>;
}

type Refusal = Extract<KeySourceFetch, { ok: false }>;

/** Resolves every address of a name with the system resolver, in the order it gives them. */
export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));

/** The certificate authorities a pinned connector trusts. */
export interface PinnedConnectorTrust {
  /** PEM CA certificates to trust instead of Node's bundled roots (tests hand in their own). @default - Node's root store */
  readonly ca?: string;
}

/**
 * A connector whose GET (`http` or `https`) connects to `address` only: the socket's `lookup`
 * answers with it, so the name is never resolved again. The Host header, SNI and the
 * certificate check use the URL's name, so TLS still proves the server is that name.
 */
export function pinnedConnector(trust: PinnedConnectorTrust = {}): Connector {
  return ({ url, address, family, headers }) => {
    const lookup: LookupFunction = (_hostname, options, callback) => {
      if ((options as { all?: boolean }).all === true) (callback as (e: null, list: { address: string; family: number }[]) => void)(null, [{ address, family }]);
      else callback(null, address, family);
    };
    const options = { method: 'GET', host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port, path: `${url.pathname}${url.search}`, headers, agent: false as const, lookup };
    if (url.protocol !== 'https:') return http.request(options);
    return https.request({ ...options, servername: isLiteral(url) ? undefined : url.hostname, ...(trust.ca === undefined ? {} : { ca: trust.ca }) });
  };
}

/** The default connector: {@link pinnedConnector} trusting Node's root store. */
export const connectPinned: Connector = pinnedConnector();

/**
 * Fetches a published key source and reads its keys; refusals are results, never throws.
 * @example
 * const fetched = await fetchKeySource({ signatureAgent: 'https://agent.example' }, { nowS });
 * if (!fetched.ok) record(fetched.code, fetched.message, fetched.retryAfterS);
 */
export async function fetchKeySource(source: KeySource, options: FetchKeySourceOptions): Promise<KeySourceFetch> {
  const request = keySourceRequest(source, options.allowLocalHttp ?? false);
  if (!request.ok) return { ok: false, code: request.code, message: request.message };
  const url = request.url;
  const timeoutMs = options.timeoutMs ?? KEY_SOURCE_FETCH_TIMEOUT_MS;
  const deadline = new Deadline(timeoutMs);
  try {
    const address = await deadline.race(resolvePublic(url, request.local, options.resolve ?? systemResolver));
    if ('code' in address) return { ...address, url: url.href };
    const answer = await deadline.race(get(url, address, request.accept, options.connect ?? connectPinned, options.maxBodyBytes ?? MAX_KEY_SOURCE_BODY_BYTES, deadline));
    return 'code' in answer ? { ...answer, url: url.href, address: address.address } : readAnswer(answer, url, address.address, options.nowS(), options);
  } catch (error) {
    if (error === TIMED_OUT) return { ok: false, code: 'timeout', message: `${url.origin} did not answer within ${timeoutMs} ms.`, url: url.href };
    return { ok: false, code: 'connection_failed', message: `Could not fetch ${url.origin}: ${describe(error)}.`, url: url.href };
  } finally {
    deadline.clear();
  }
}

/** Resolves the URL's host and checks every address; the first is the one connected to. */
async function resolvePublic(url: URL, local: boolean, resolve: Resolver): Promise<ResolvedAddress | Refusal> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: readonly ResolvedAddress[];
  if (isLiteral(url)) {
    addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      return { ok: false, code: 'resolution_failed', message: `${host} could not be resolved (${describe(error)}).` };
    }
  }
  if (addresses.length === 0) return { ok: false, code: 'resolution_failed', message: `${host} resolves to no address.` };
  for (const { address } of addresses) {
    const reason = nonPublicReason(address);
    // The local gateway's http://localhost and http://127.0.0.1 sources must stay on loopback.
    const allowed = local ? reason !== undefined && /loopback/.test(reason) && !reason.includes('form of') : reason === undefined;
    if (!allowed) {
      const why = local ? `not a loopback address (${reason ?? 'public'})` : `a ${reason} address`;
      return { ok: false, code: 'address_not_public', message: `${host} resolves to ${address}, ${why}; key sources must be on public addresses.`, address };
    }
  }
  return addresses[0];
}

interface Answer {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

/** One GET through the connector: the status, headers and body (at most `maxBodyBytes`), or a refusal. */
function get(url: URL, address: ResolvedAddress, accept: string, connect: Connector, maxBodyBytes: number, deadline: Deadline): Promise<Answer | Refusal> {
  return new Promise((resolve, reject) => {
    const req = connect({ url, address: address.address, family: address.family, headers: { accept, 'accept-encoding': 'identity', 'user-agent': 'Signet key-source refresher' } });
    deadline.onExpiry(() => req.destroy());
    req.on('error', reject);
    req.on('response', (res) => {
      const refuse = (refusal: Omit<Refusal, 'ok'>): void => {
        res.destroy();
        req.destroy();
        resolve({ ok: false, ...refusal });
      };
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        const location = typeof res.headers.location === 'string' ? ` to ${quoted(res.headers.location.slice(0, 100))}` : '';
        return refuse({ code: 'redirect_refused', status, message: `${url.origin} answered ${status}, a redirect${location}; redirects are not followed. Register the final URL.` });
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBodyBytes) {
        return refuse({ code: 'body_too_large', status, message: `${url.origin} sent ${declared} bytes; a key set may be at most ${maxBodyBytes} bytes.` });
      }
      const encoding = res.headers['content-encoding'];
      if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
        // The source's own words are quoted and cut: they reach the admin's screen.
        return refuse({ code: 'unexpected_media_type', status, message: `${url.origin} sent the key set with Content-Encoding ${quoted(encoding.slice(0, 20))} though none was asked for; serve it uncompressed.` });
      }
      const chunks: Buffer[] = [];
      let length = 0;
      res.on('data', (chunk: Buffer) => {
        length += chunk.length;
        if (length > maxBodyBytes) refuse({ code: 'body_too_large', status, message: `${url.origin} sent more than ${maxBodyBytes} bytes; a key set may be at most ${maxBodyBytes} bytes.` });
        else chunks.push(chunk);
      });
      res.on('end', () => resolve({ status, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.end();
  });
}

/** A complete answer as a key set, or the refusal its status, type or content gives. */
function readAnswer(answer: Answer, url: URL, address: string, nowS: number, { modulusVerdicts, heldThumbprints }: FetchKeySourceOptions): KeySourceFetch {
  const { status, headers } = answer;
  const header = (name: string): string | undefined => (typeof headers[name] === 'string' ? (headers[name] as string) : undefined);
  if (status < 200 || status > 299) {
    const retry = retryAfterS(header('retry-after'), nowS);
    return { ok: false, code: 'http_error', status, message: `${url.origin} answered ${status}${status >= 500 ? ' (a fault at the source; kept keys stay in use)' : ''}.`, url: url.href, address, ...(retry === undefined ? {} : { retryAfterS: retry }) };
  }
  // Any type is read as JSON (JWKS files are often served from storage as text/plain or
  // application/octet-stream); an HTML page is a login or error page, and is said to be one.
  const type = header('content-type')?.split(';')[0].trim().toLowerCase();
  if (type === 'text/html' || type === 'application/xhtml+xml') {
    const message =
      `${url.origin} answered with an HTML page (${type}), not a key set; check the URL (a login or error page?). ` +
      'A key set is JSON (application/jwk-set+json, application/http-message-signatures-directory+json or application/json).';
    return { ok: false, code: 'unexpected_media_type', status, message, url: url.href, address };
  }
  const reading = readPublishedKeySet(answer.body.toString('utf8'), { nowS, ...(modulusVerdicts === undefined ? {} : { modulusVerdicts }), ...(heldThumbprints === undefined ? {} : { heldThumbprints }) });
  if (!reading.ok) {
    return { ok: false, code: reading.code, status, message: reading.message, url: url.href, address, refused: reading.refused, ...(reading.listed === undefined ? {} : { listed: reading.listed }) };
  }
  const maxAgeS = keySetMaxAgeS(header('cache-control'));
  const signature = header('signature');
  const signatureInput = header('signature-input');
  return {
    ok: true,
    url: url.href,
    address,
    keys: reading.keys,
    refused: reading.refused,
    listed: reading.listed,
    ...(maxAgeS === undefined ? {} : { maxAgeS }),
    ...(signature !== undefined && signatureInput !== undefined ? { responseSignature: { signature, signatureInput } } : {}),
  };
}

const TIMED_OUT = Symbol('timed out');

/** One timer for the whole fetch: races each step against it and tears the request down when it fires. */
class Deadline {
  private readonly timer: NodeJS.Timeout;
  private readonly expired: Promise<never>;
  private readonly onExpiryActions: (() => void)[] = [];
  private lastChance: NodeJS.Immediate | undefined;

  constructor(ms: number) {
    let fire!: (reason: unknown) => void;
    this.expired = new Promise<never>((_resolve, reject) => {
      fire = reject;
    });
    this.expired.catch(() => undefined);
    this.timer = setTimeout(() => {
      // Not at once: when another source's keys held the thread past the deadline, an answer that
      // came meanwhile waits unread in its socket, and is read before this (the poll phase comes
      // between timers and immediates). The deadline is the source's, not its neighbours'.
      this.lastChance = setImmediate(() => {
        for (const action of this.onExpiryActions) action();
        fire(TIMED_OUT);
      });
    }, ms);
  }

  race<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.expired]);
  }

  onExpiry(action: () => void): void {
    this.onExpiryActions.push(action);
  }

  clear(): void {
    clearTimeout(this.timer);
    if (this.lastChance !== undefined) clearImmediate(this.lastChance);
  }
}

/** A source's header value, quoted for a sentence: JSON's escapes, and C1 controls and DEL (which a header's Latin-1 bytes may hold) as \u escapes too. */
function quoted(value: string): string {
  return JSON.stringify(value).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function isLiteral(url: URL): boolean {
  return url.hostname.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(url.hostname);
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : error instanceof Error ? error.message.slice(0, 120) : 'unknown error';
}
