/**
 * The signature bases a signer commonly builds by mistake, for `signet explain`: given the
 * request as the verifier received it, each variant is the base a signer would have signed had
 * it made one known mistake (URL without its query, lower-case method, CRLF line ends, ...).
 *
 * Every base here is built by the core's buildSignatureBase from a varied request, covered list
 * or `@signature-params` value; only the line-ending variants edit the core's base text, since
 * that mistake is in how the lines were joined. Nothing here is a second implementation of the base.
 */
import { computeContentDigest } from '../../lambda/core/content-digest';
import { formatHttpDate, parseHttpDate } from '../../lambda/core/http-date';
import { buildSignatureBase } from '../../lambda/core/signature-base';
import { ComponentId, SignatureInput } from '../../lambda/core/signature-params';
import { SignedRequest } from '../../lambda/core/types';
import { LOOPBACK_HOSTNAMES } from './signed-call';

/** One mistake and the base it leads to. */
export interface SignerVariant {
  /** Stable name of the mistake (tests and scripts key on it). */
  readonly id: string;
  /** What the signer did, as a sentence fragment a person can act on. */
  readonly mistake: string;
  readonly base: string;
}

/** Stage names tried when the verifier's URL has no stage but the signer may have put one in. */
const COMMON_STAGES = ['prod', 'dev', 'test', 'staging', 'v1'];


/** Date header offsets (seconds) tried for a Date rewritten after signing. */
const DATE_SHIFTS = [-1, 1, -2, 2, -3, 3, -5, 5, -10, 10, -30, 30, -60, 60, -3600, 3600];

/**
 * Every variant that differs from the verifier's base, in the order a person should read them
 * (the most common mistakes first). Variants that cannot be built for this request are left out.
 * @param body the body bytes, when known: enables the body-serialisation variants
 */
export function signerVariants(request: SignedRequest, input: SignatureInput, body?: Buffer): SignerVariant[] {
  const covered = input.covered;
  const params = input.signatureParams;
  const base = (req: SignedRequest, cov: readonly ComponentId[] = covered, p: string = params): string => buildSignatureBase(req, cov, p);
  const verifierBase = base(request);
  const url = new URL(request.targetUri);
  const withUrl = (targetUri: string): string => base({ ...request, targetUri });
  const out: SignerVariant[] = [];
  const add = (id: string, mistake: string, make: () => string): void => {
    try {
      const variant = make();
      if (variant !== verifierBase && !out.some((v) => v.base === variant)) out.push({ id, mistake, base: variant });
    } catch {
      // this mistake cannot be expressed for this request
    }
  };
  const has = (name: string): boolean => covered.some((c) => c.name === name);

  // --- The URL.
  if (url.search !== '') add('url-without-query', `the URL was signed without its query string (it signed ${url.origin}${url.pathname}; the URL called has ${url.search}): sign the full URL, query included`, () => withUrl(`${url.origin}${url.pathname}`));
  const pairs = url.search.slice(1).split('&');
  if (pairs.length > 1) {
    const sorted = [...pairs].sort();
    add('query-reordered', 'the query parameters were signed in another order than they were sent: sign the URL exactly as you call it', () => withUrl(`${url.origin}${url.pathname}?${(sorted.join('&') === pairs.join('&') ? [...pairs].reverse() : sorted).join('&')}`));
  }
  add('url-decoded', 'the URL was signed percent-decoded (the verifier uses it as sent, with its %XX escapes)', () => withUrl(decodeURI(request.targetUri)));
  add('url-plus-space', 'spaces in the query were signed as "+" but sent as "%20" (or the other way round)', () => withUrl(request.targetUri.includes('%20') ? request.targetUri.replace(/%20/g, '+') : request.targetUri.replace(/\+/g, '%20')));
  add('trailing-slash', url.pathname.endsWith('/') ? 'the path was signed without its trailing slash' : 'the path was signed with a trailing slash it was not sent with', () =>
    withUrl(`${url.origin}${url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : `${url.pathname}/`}${url.search}`),
  );
  const otherScheme = url.protocol === 'https:' ? 'http' : 'https';
  add('other-scheme', `the URL was signed with ${otherScheme}:// but the verifier rebuilt ${url.protocol}// (behind TLS termination or a proxy, sign the URL the client calls and set publicBaseUrl)`, () =>
    withUrl(`${otherScheme}:${request.targetUri.slice(url.protocol.length)}`),
  );
  for (const host of otherHosts(url, request)) {
    add('other-host', `the URL was signed for host ${host} but the verifier rebuilt ${url.host}: sign the URL you call, and call the host the gateway rebuilds (for \`npm start\`, http://127.0.0.1:PORT, not localhost)`, () =>
      withUrl(`${url.protocol}//${host}${url.pathname}${url.search}`),
    );
  }
  const firstSegment = /^\/[^/]+(?=\/)/.exec(url.pathname)?.[0];
  if (firstSegment !== undefined) {
    add('without-stage', `the URL was signed without the stage or base path "${firstSegment}" (sign the full URL you call, stage included)`, () => withUrl(`${url.origin}${url.pathname.slice(firstSegment.length)}${url.search}`));
  }
  for (const stage of COMMON_STAGES) {
    add('with-stage', `the URL was signed with a "/${stage}" stage prefix the verifier's URL does not have (a custom domain or the local gateway has no stage in the path; or set publicBaseUrl)`, () =>
      withUrl(`${url.origin}/${stage}${url.pathname}${url.search}`),
    );
  }

  // --- The method.
  add('method-lower-case', `the method was signed in lower case ("${request.method.toLowerCase()}"); "@method" is the method as sent, upper-case`, () => base({ ...request, method: request.method.toLowerCase() }));
  add('method-upper-case', 'the method was upper-cased when signing but sent in another case', () => base({ ...request, method: request.method.toUpperCase() }));

  // --- The body's digest.
  if (body !== undefined && has('content-digest')) {
    for (const [label, text] of bodyVariants(body.toString('utf8'))) {
      add('body-serialisation', `the signed Content-Digest was computed over the body ${label}, not over the exact bytes sent`, () =>
        base({ ...request, headers: { ...request.headers, 'content-digest': computeContentDigest(text) } }),
      );
    }
  }

  // --- The date.
  const dateField = has('date') ? 'date' : has('x-date') ? 'x-date' : undefined;
  if (dateField !== undefined) {
    const withoutDate = covered.filter((c) => c.name !== dateField);
    add('missing-date', `the signer left the "${dateField}" line out of the base although Signature-Input covers "${dateField}"`, () => base(request, withoutDate));
    add('legacy-form', `the request was signed in the legacy form (no "${dateField}" covered) but sent with a Signature-Input that covers it: sign with date covered, as Signature-Input says`, () =>
      base(request, withoutDate, params.replace(new RegExp(` ?"${dateField}"(?=[ )])`), '').replace('( ', '(')),
    );
    const sent = request.headers[dateField] === undefined ? undefined : parseHttpDate(request.headers[dateField]!.trim());
    if (sent !== undefined) {
      for (const shift of DATE_SHIFTS) {
        add('date-changed', `the Date header was set again after signing (the signed Date was ${Math.abs(shift)} s ${shift < 0 ? 'earlier' : 'later'}): send the Date you signed`, () =>
          base({ ...request, headers: { ...request.headers, [dateField]: formatHttpDate(sent + shift) } }),
        );
      }
    }
  }

  // --- How the lines were joined (the mistake is in the text, so these edit the base text).
  add('crlf-line-ends', 'the base lines were joined with CRLF ("\\r\\n": Java\'s %n or a text file on Windows) instead of LF', () => verifierBase.replace(/\n/g, '\r\n'));
  add('literal-percent-n', 'the base lines were joined with a literal "%n" (a format string that was never formatted) instead of LF', () => verifierBase.replace(/\n/g, '%n'));
  add('literal-backslash-n', 'the base lines were joined with a literal "\\n" (backslash, n) instead of a line feed', () => verifierBase.replace(/\n/g, '\\n'));
  add('trailing-newline', 'the base was signed with a line break after the "@signature-params" line (there must be none)', () => `${verifierBase}\n`);
  add('trailing-crlf', 'the base was signed with CRLF line ends and a final CRLF', () => `${verifierBase.replace(/\n/g, '\r\n')}\r\n`);
  return out;
}

/** Hosts a signer may have signed instead of the verifier's: loopback spellings, the default port, the Host header. */
function otherHosts(url: URL, request: SignedRequest): string[] {
  const port = url.port === '' ? '' : `:${url.port}`;
  const hosts: string[] = [];
  if (LOOPBACK_HOSTNAMES.includes(url.hostname)) hosts.push(...LOOPBACK_HOSTNAMES.filter((h) => h !== url.hostname).map((h) => `${h}${port}`));
  if (url.port === '') hosts.push(`${url.hostname}:${url.protocol === 'https:' ? 443 : 80}`);
  for (const header of ['host', 'x-forwarded-host']) {
    const value = request.headers[header]?.trim();
    if (value !== undefined && value !== '' && value !== url.host) hosts.push(value);
  }
  return hosts;
}

/** Other serialisations of a body that signers hash by mistake. */
export function bodyVariants(body: string): Array<[string, string]> {
  const variants: Array<[string, string]> = [
    ['with a trailing newline', `${body}\n`],
    ['without the trailing newline', body.replace(/\r?\n$/, '')],
    ['with CRLF line breaks', body.replace(/\r?\n/g, '\r\n')],
    ['with LF line breaks', body.replace(/\r\n/g, '\n')],
    ['as an empty body', ''],
  ];
  try {
    const json: unknown = JSON.parse(body);
    variants.push(['as compact JSON', JSON.stringify(json)], ['as JSON indented by 2', JSON.stringify(json, null, 2)], ['as JSON indented by 4', JSON.stringify(json, null, 4)]);
    variants.push(['as JSON with a space after : and ,', JSON.stringify(json).replace(/([:,])(?=(?:[^"\\]|\\.|"(?:[^"\\]|\\.)*")*$)/g, '$1 ')]);
  } catch {
    // not JSON
  }
  return variants.filter(([, text]) => text !== body);
}
