/**
 * `signet request`: a curl-like signed request.
 *
 *   signet request [--client DIR | --key FILE --client-id ID] [-X METHOD] URL
 *                  [-d DATA | -d @FILE | --data-file FILE] [-H 'Name: value' ...] [-i] [-v]
 *
 * Signs with the signer library (the core's scheme), sends, prints the status line, the response
 * headers with `-i`, and the body. Exits 0 on a 2xx answer, 1 otherwise.
 *
 * `-v` / `--verbose` prints (on stderr) the request headers and the signature base it signed, and
 * on a 401 or 403 runs `signet explain` on the same request, with the keys the local registry
 * holds for the client when it can read them (else the signer's own public key).
 *
 * Defaults: the client is `$SIGNET_HOME/demo` (written by `npm start`); the method is GET, or
 * POST with a body; a URL starting with `/` goes to the local gateway
 * of `$SIGNET_HOME` (the port it runs on, else `http://127.0.0.1:${PORT:-3000}`); a body without `-H 'Content-Type: ...'` is sent as
 * `application/json` when it parses as JSON, else as `application/octet-stream`.
 */
import { existsSync } from 'node:fs';
import { fingerprintOf, importPublicKey } from '../../lambda/core/keys';
import { readSignatureInput } from '../../lambda/core/signature-params';
import { buildSignatureBase } from '../../lambda/core/signature-base';
import { SIGNATURE_LABEL } from '../../lambda/core/defaults';
import { defaultVerifyPolicy } from '../../lambda/core/verify';
import { type CoverageProfile, isCoverageProfile } from '../../lambda/core/profiles';
import { signatureFailureReason } from '../../lambda/signer';
import { HOST_NOTE_START } from '../../local/gateway';
import { LOCAL_HOST } from '../../local/signet-home';
import { defaultEndpoint } from '../../local/local-state';
import { UsageError, headerLines, parse, readBody } from './args';
import { DiagnosisKey, explainRequest } from './explain';
import { CommandHelp } from './help';
import { printable } from './printable';
import { RegistryClient, clientPath } from './registry-client';
import { LOOPBACK_HOSTNAMES, SignedAnswer, SigningIdentity, defaultClientDirs, resolveUrl, signedCall, signingIdentity } from './signed-call';

export const REQUEST_OPTIONS = {
  client: { type: 'string' },
  key: { type: 'string' },
  'client-id': { type: 'string' },
  request: { type: 'string', short: 'X' },
  data: { type: 'string', short: 'd' },
  'data-file': { type: 'string' },
  header: { type: 'string', short: 'H', multiple: true },
  include: { type: 'boolean', short: 'i', default: false },
  verbose: { type: 'boolean', short: 'v', default: false },
} as const;

export const HELP: CommandHelp = {
  summary: 'send a signed request, like curl: prints the status line and the body; exit 0 on 2xx',
  usage: "request [--client DIR | --key FILE --client-id ID] [-X METHOD] URL [-d DATA | -d @FILE | --data-file FILE] [-H 'Name: value']... [-i] [-v]",
  options: REQUEST_OPTIONS,
  flags: {
    client: { meaning: 'client directory to sign as (private.pkcs8.b64 and client-id)', value: 'DIR', default: '$SIGNET_HOME/demo' },
    key: { meaning: 'private key file to sign with (with --client-id)', value: 'FILE' },
    'client-id': { meaning: 'the clientId of --key', value: 'ID' },
    request: { meaning: 'the HTTP method', value: 'METHOD', default: 'GET, or POST with a body' },
    data: { meaning: "the body as text, or @FILE for a file's bytes", value: 'DATA' },
    'data-file': { meaning: 'the body: the exact bytes of FILE', value: 'FILE' },
    header: { meaning: "a header to send (repeatable); a body's Content-Type defaults to application/json when it parses as JSON", value: "'Name: value'" },
    include: { meaning: 'print the response headers too' },
    verbose: { meaning: 'print the request headers and the signature base on stderr; on a 401/403 run `signet explain` on the request' },
  },
  arguments: { URL: 'the full URL to call, or a path such as /api/echo for the local gateway of $SIGNET_HOME (the port it runs on, or http://127.0.0.1:${PORT:-3000})' },
  examples: ["request '/api/echo?x=1'", "request --client .signet/demo -X POST -d '{\"hello\":\"world\"}' http://127.0.0.1:3000/api/echo", 'request -v /registry/clients'],
};

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { ...REQUEST_OPTIONS });
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'give the URL to call' : `give exactly one URL; got ${positionals.length}`);
  const identity = signingIdentity(values, defaultClientDirs().demo);
  const url = resolveUrl(positionals[0]);
  const body = readBody(values);
  const method = (typeof values.request === 'string' && values.request !== '' ? values.request : body !== undefined ? 'POST' : 'GET').toUpperCase();
  if (!/^[A-Z]+$/.test(method)) throw new UsageError(`-X ${JSON.stringify(method)} is not an HTTP method`);
  const headers = headerLines(values.header);
  if (body !== undefined && headers['content-type'] === undefined) headers['content-type'] = contentTypeFor(body);
  const verbose = values.verbose === true;

  let sent: Record<string, string> = {};
  const answer = await signedCall(identity, url, {
    method,
    headers,
    body,
    onSigned: (signed) => {
      sent = { ...headers, ...signed };
      if (verbose) printSent(method, url, sent);
    },
  });

  // The status text and header values are the server's: made printable (the body is printed as it came, as curl does).
  const out: string[] = [`HTTP ${answer.status} ${printable(answer.statusText)}`.trimEnd()];
  if (values.include === true) {
    answer.headers.forEach((value, name) => out.push(`${name}: ${printable(value)}`));
    out.push('');
  }
  process.stdout.write(`${out.join('\n')}\n`);
  if (answer.body.length > 0) {
    process.stdout.write(answer.body);
    if (answer.body[answer.body.length - 1] !== 0x0a) process.stdout.write('\n');
  }
  if (answer.status === 401 || answer.status === 403) {
    const reason = await refusalReason(answer);
    // The local gateway says it in its answer, printed above; other servers do not.
    const hint = answer.body.includes(HOST_NOTE_START) ? undefined : hostHint(url, reason);
    if (hint !== undefined) console.error(`signet request: ${hint}`);
    if (verbose) await explainRefusal(identity, method, url, sent, body, reason);
  }
  return answer.status >= 200 && answer.status < 300 ? 0 : 1;
}

/**
 * Names of headers and query parameters whose values are credentials: `-v` prints them as
 * `<redacted>`, in the headers, the URL, the base and what explain prints. By what the name says
 * (HTTP's Authorization and Cookie, API keys such as x-api-key, api-key or x-goog-api-key,
 * subscription keys, session, access and bearer tokens, JWTs, DPoP proofs, presigned URLs'
 * signatures such as X-Amz-Signature or sig, secrets, passwords), so that a header nobody listed
 * is caught too.
 */
const CREDENTIAL_NAME = /auth|key|token|secret|pass|cookie|session|credential|signature|^sig$|bearer|jwt|dpop/i;

/** The headers of the scheme, printed as they are (the signature shortened). */
const SCHEME_HEADERS: ReadonlySet<string> = new Set(['signature', 'signature-input', 'content-digest', 'date', 'signature-agent']);

/** `name` names a credential ({@link CREDENTIAL_NAME}); the scheme's own headers never do. */
function isCredential(name: string): boolean {
  return CREDENTIAL_NAME.test(name) && !SCHEME_HEADERS.has(name.toLowerCase());
}

/** `text` (a URL, or a line holding one) with the values of credential-named query and fragment parameters redacted. */
function redactQuery(text: string): string {
  return text.replace(/([?&#])([^=&#\s"]*)=([^&#\s"]*)/g, (whole, separator: string, name: string) => (isCredential(decodeQueryName(name)) ? `${separator}${name}=<redacted>` : whole));
}

function decodeQueryName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/**
 * A line of what `-v` prints with its credentials redacted: a base line (`"name": value`, with
 * any leading spaces) of a credential-named header or `@query-param`, and credential-named
 * parameters of any URL in it. `@signature-params` is printed as it is (its `keyid` is no secret).
 */
function redactedLine(line: string): string {
  const component = /^(\s*"([^"]+)"((?:;[^:]*)?): )/.exec(line);
  if (component !== null) {
    const [, head, name, params] = component;
    if (name === '@signature-params') return line;
    const param = name === '@query-param' ? /;name="([^"]*)"/.exec(params)?.[1] : undefined;
    if (param !== undefined ? isCredential(decodeQueryName(param)) : !name.startsWith('@') && isCredential(name)) return `${head}<redacted>`;
  }
  return redactQuery(line);
}

/**
 * `> ` lines, as curl -v prints them, and the base the signature covers. The signature value is
 * shortened and credentials are left out: output pasted into a ticket must not hand out a request
 * that replays for minutes, nor the caller's other credentials.
 */
function printSent(method: string, url: string, headers: Record<string, string>): void {
  const shown = (name: string, value: string): string => {
    if (isCredential(name)) return '<redacted>';
    return name.toLowerCase() === 'signature' && value.length > 40 ? `${value.slice(0, 16)}…${value.slice(-8)} (shortened)` : value;
  };
  const lines = [`> ${method} ${redactQuery(url)}`, ...Object.entries(headers).map(([name, value]) => `> ${name}: ${shown(name, value)}`), '>'];
  const base = signedBase(method, url, headers);
  if (base !== undefined) lines.push('* signature base signed (LF line ends, no final LF):', ...base.split('\n').map((line) => `*   ${redactedLine(line)}`));
  process.stderr.write(`${lines.join('\n')}\n`);
}

/** The base the core builds for the headers that were sent (the signer built the same one). */
function signedBase(method: string, url: string, headers: Record<string, string>): string | undefined {
  try {
    const input = readSignatureInput(headers['signature-input'] ?? '', SIGNATURE_LABEL);
    return buildSignatureBase({ method, targetUri: url, headers }, input.covered, input.signatureParams);
  } catch {
    return undefined;
  }
}

async function refusalReason(answer: SignedAnswer): Promise<string | undefined> {
  const headers = new Headers(answer.headers);
  return signatureFailureReason(new Response(new Uint8Array(answer.body), { status: answer.status, headers }));
}

/** What to do about refusals that a valid signature does not prevent. */
const NOT_THE_SIGNATURE: Readonly<Record<string, string>> = {
  ip_not_allowed: "the caller's address is not in the client's network whitelist (`signet clients update CLIENT_ID --network ...`)",
  role_forbidden: "the client's roles do not allow this method and path (`signet clients update CLIENT_ID --role ...`)",
  client_disabled: 'the client is disabled (`signet clients enable CLIENT_ID`)',
  unknown_client: 'no client has this keyid in the registry the gateway reads',
  key_expired: "the signing key is past its not-after; sign with the client's current key",
  replayed_request: 'this exact signed request was sent before; sign each request anew',
};

/** Loopback names other than the one the local gateway rebuilds URLs with. */
const LOOPBACK_ALIASES = new Set(LOOPBACK_HOSTNAMES.filter((name) => name !== LOCAL_HOST));

/**
 * The URL the verifier rebuilds: the local gateway serves on 127.0.0.1 and rebuilds every URL
 * with it (SIGNET_PUBLIC_BASE_URL), whatever name the caller used for the loopback address.
 */
function verifierUrl(url: string): string {
  const target = new URL(url);
  if (LOOPBACK_ALIASES.has(target.hostname)) target.hostname = LOCAL_HOST;
  return target.href;
}

/** Says so when a request signed for localhost was refused by a gateway that rebuilt 127.0.0.1. */
function hostHint(url: string, reason: string | undefined): string | undefined {
  if (reason !== undefined && reason !== 'signature_mismatch') return undefined;
  const rebuilt = verifierUrl(url);
  if (rebuilt === url) return undefined;
  return `the request was signed for ${new URL(url).host}, but a local Signet gateway rebuilds the URL as ${new URL(rebuilt).host} (its SIGNET_PUBLIC_BASE_URL), so the signature cannot match: call ${rebuilt}`;
}

/** `signet explain` on the request just refused. */
async function explainRefusal(identity: SigningIdentity, method: string, url: string, sent: Record<string, string>, body: Buffer | undefined, reason: string | undefined): Promise<void> {
  process.stderr.write(`\n* the gateway refused the request${reason !== undefined ? ` (${reason})` : ''}; running signet explain on it:\n`);
  const keys = await registeredKeys(identity, url);
  const request = { method, targetUri: verifierUrl(url), headers: lowerCase(sent), hasBody: body !== undefined && body.length > 0 };
  const policy = defaultVerifyPolicy(keys.profile !== undefined ? { profile: keys.profile } : {});
  // What explain prints holds the base the verifier rebuilt: redacted as the base above is.
  const result = explainRequest({ request, body, policy, clientId: identity.clientId, keys: keys.keys }, (line) => process.stderr.write(`${redactedLine(line)}\n`));
  process.stderr.write(`(${keys.source})\n`);
  if (result.valid && reason !== undefined) {
    const why = NOT_THE_SIGNATURE[reason] ?? 'see the code in the answer (docs/errors.md)';
    process.stderr.write(`* the signature is fine; the gateway refused for another reason: ${reason}: ${why}\n`);
  }
}

/** The keys the local registry holds for the client (read with the local admin key), else the signer's own public key. */
async function registeredKeys(identity: SigningIdentity, url: string): Promise<{ keys: DiagnosisKey[]; source: string; profile?: CoverageProfile }> {
  const own = { keys: [{ fingerprint: fingerprintOf(identity.key.publicKey), key: identity.key.publicKey }], source: "checked with the signer's own public key: the registry's keys could not be read" };
  const local = defaultEndpoint();
  if (new URL(verifierUrl(url)).origin !== new URL(local).origin || !existsSync(defaultClientDirs().admin)) return own;
  try {
    const registry = RegistryClient.fromOptions({ endpoint: local });
    const answer = await registry.call('GET', clientPath(identity.clientId));
    const record = answer.body as { keys?: Array<{ publicKey?: string; algorithm?: string }>; profile?: unknown } | undefined;
    if (answer.status !== 200 || !Array.isArray(record?.keys)) return own;
    // Each key with the algorithm it is registered for, under the client's own profile: what the authorizer checks.
    const keys = record.keys.filter((k) => typeof k.publicKey === 'string').map((k) => importPublicKey(k.publicKey!, k.algorithm)).map((info) => ({ fingerprint: info.fingerprint, key: info.key, algorithm: info.algorithm }));
    const profile = isCoverageProfile(record.profile) ? record.profile : undefined;
    return keys.length > 0 ? { keys, source: `checked with the ${keys.length} key(s) the local registry holds for ${identity.clientId}`, ...(profile !== undefined ? { profile } : {}) } : own;
  } catch {
    return own;
  }
}

function lowerCase(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

function contentTypeFor(body: Buffer): string {
  try {
    JSON.parse(body.toString('utf8'));
    return 'application/json';
  } catch {
    return 'application/octet-stream';
  }
}
