/**
 * The registry API from the command line, signed with an admin key: what `signet clients` and
 * `signet keys` share.
 *
 * - `--endpoint URL`: the API's base URL (for a deployed stack, its `ApiUrl` output, stage
 *   included). @default the local gateway of `$SIGNET_HOME` (local/local-state.ts `defaultEndpoint`)
 * - `--admin DIR`: a client directory holding a `registry:admin` key and its clientId.
 *   @default `$SIGNET_HOME/admin`, written by `npm start`
 *
 * Answers are printed for a person on stdout (a table or a short summary, see
 * ./registry-output.ts), or with `--json` as the registry's JSON answer (exit 0); a refusal prints
 * `HTTP <status> <code>: <message>` on stderr (exit 1), with the CLI command beside any HTTP route
 * the message names.
 */
import { AUTHORIZER_CACHE_TTL_HEADER } from '../../lambda/core/defaults';
import { defaultEndpoint } from '../../local/local-state';
import { UsageError } from './args';
import { FlagHelp } from './help';
import { printable, printableJson } from './printable';
import { Formatter } from './registry-output';
import { withCliCommands } from './route-commands';
import { SigningIdentity, defaultClientDirs, signedCall, signingIdentity } from './signed-call';

/** Options every registry command takes. */
export const REGISTRY_OPTIONS = {
  endpoint: { type: 'string' },
  admin: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

/** Help for {@link REGISTRY_OPTIONS}. */
export const REGISTRY_FLAGS: Readonly<Record<keyof typeof REGISTRY_OPTIONS, FlagHelp>> = {
  endpoint: { meaning: "the API's base URL; for a deployed stack its ApiUrl output", value: 'URL', default: 'the local gateway of $SIGNET_HOME (the port it runs on, or http://127.0.0.1:${PORT:-3000})' },
  admin: { meaning: 'client directory of the admin that signs (private.pkcs8.b64 and client-id)', value: 'DIR', default: '$SIGNET_HOME/admin' },
  json: { meaning: "print the registry's full JSON answer (stable, for scripts) instead of a table or summary" },
};

/**
 * `--version N` on every command that changes a record: one description, whatever the command
 * (an edit given none applies to the record as it is then; `update` reads it just before).
 */
export const VERSION_FLAG: Readonly<{ version: FlagHelp }> = {
  version: {
    meaning: 'change the record only if it is still at this version (the one you read); otherwise 409 version_conflict',
    value: 'N',
    default: 'the record as it is when the change is made',
  },
};

/** An answer of the registry, body parsed. */
export interface RegistryAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly etag?: string;
  /**
   * On a write: how long, in seconds, authorizers that hold the record may go on using it as it
   * was (the registry's `x-signet-authorizer-cache-ttl`; 0 when the change applies at once).
   */
  readonly cacheTtlSeconds?: number;
}

export interface RegistryCall {
  readonly body?: unknown;
  /** Query parameters; undefined values are left out. */
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Calls the registry as the admin. */
export class RegistryClient {
  constructor(
    /** The API's base URL without a trailing slash, e.g. `https://abc.execute-api.eu-west-1.amazonaws.com`. */
    readonly endpoint: string,
    private readonly admin: SigningIdentity,
  ) {}

  /** From `--endpoint` and `--admin` (or their defaults). */
  static fromOptions(values: Record<string, unknown>): RegistryClient {
    const endpoint = typeof values.endpoint === 'string' && values.endpoint !== '' ? values.endpoint : defaultEndpoint();
    let base: URL;
    try {
      base = new URL(endpoint);
    } catch {
      throw new UsageError(`--endpoint ${JSON.stringify(endpoint.slice(0, 100))} is not an absolute URL`);
    }
    if (base.search !== '' || base.hash !== '') throw new UsageError('--endpoint must not carry a query or a fragment');
    return new RegistryClient(base.href.replace(/\/+$/, ''), signingIdentity(values, defaultClientDirs().admin, 'admin'));
  }

  /** One signed call; `path` starts with `/registry/`. */
  async call(method: string, path: string, call: RegistryCall = {}): Promise<RegistryAnswer> {
    const query = Object.entries(call.query ?? {})
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
      .join('&');
    const url = `${this.endpoint}${path}${query ? `?${query}` : ''}`;
    const body = call.body === undefined ? undefined : Buffer.from(JSON.stringify(call.body), 'utf8');
    const headers = { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(call.headers ?? {}) };
    const answer = await signedCall(this.admin, url, { method, headers, body });
    const text = answer.body.toString('utf8');
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON (e.g. a proxy's HTML error page): kept as text
    }
    const cacheTtl = answer.headers.get(AUTHORIZER_CACHE_TTL_HEADER);
    return {
      status: answer.status,
      body: parsed,
      etag: answer.headers.get('etag') ?? undefined,
      // Only a write's: the note after a change says when it applies (a read carries it too: see authorizerCacheTtlSeconds).
      ...(method !== 'GET' && cacheTtl !== null && /^\d+$/.test(cacheTtl) ? { cacheTtlSeconds: Number(cacheTtl) } : {}),
    };
  }

  /**
   * How long a change made now takes to reach the API's authorizers, in seconds: the
   * `x-signet-authorizer-cache-ttl` the registry answers (on a read of the role list).
   * @throws RegistryRefusal when the registry refuses; Error when it does not say
   */
  async authorizerCacheTtlSeconds(): Promise<number> {
    const url = `${this.endpoint}/registry/roles`;
    const answer = await signedCall(this.admin, url, { method: 'GET', headers: {} });
    const ttl = answer.headers.get(AUTHORIZER_CACHE_TTL_HEADER);
    if (answer.status !== 200) throw new RegistryRefusal({ status: answer.status, body: safeJson(answer.body.toString('utf8')) });
    if (ttl === null || !/^\d+$/.test(ttl)) throw new Error(`The API at ${this.endpoint} does not say how long its authorizers cache client records (no ${AUTHORIZER_CACHE_TTL_HEADER} header); give --settle-seconds.`);
    return Number(ttl);
  }

  /** The client record's version, for edits given no `--version` (the edit still fails with 409 if it changed since). */
  async currentVersion(clientId: string): Promise<number> {
    const answer = await this.call('GET', clientPath(clientId));
    if (answer.status !== 200) throw new RegistryRefusal(answer);
    const version = (answer.body as { version?: unknown }).version;
    if (typeof version !== 'number') throw new Error('The registry answered a client without a version.');
    return version;
  }
}

function safeJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return text;
  }
}

/** A non-2xx answer, carried to {@link printAnswer}. */
export class RegistryRefusal extends Error {
  constructor(readonly answer: RegistryAnswer) {
    super(refusalLine(answer));
  }
}

/** `--version N`, checked. */
export function versionOf(values: Record<string, unknown>): number | undefined {
  const raw = typeof values.version === 'string' && values.version !== '' ? values.version : undefined;
  if (raw === undefined) return undefined;
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw new UsageError('--version must be the record version you read (a whole number >= 1)');
  return Number(raw);
}

/** `/registry/clients/{clientId}` with the id escaped. */
export function clientPath(clientId: string, suffix = ''): string {
  return `/registry/clients/${encodeURIComponent(clientId)}${suffix}`;
}

/** How an answer is printed: `--json`, else `format` (JSON when there is none). */
export interface PrintOptions {
  readonly json?: boolean;
  readonly format?: Formatter;
}

/** Prints the answer (stdout, or the refusal on stderr) and returns the exit code. */
export function printAnswer(answer: RegistryAnswer, options: PrintOptions = {}): number {
  if (answer.status >= 200 && answer.status < 300) {
    if (answer.body === undefined) return 0;
    if (options.json !== true && options.format !== undefined) console.log(options.format(answer.body));
    else console.log(printableJson(answer.body));
    const when = propagationNote(answer.cacheTtlSeconds);
    if (when !== undefined) console.error(when);
    return 0;
  }
  console.error(refusalLine(answer));
  return 1;
}

/** When a write reaches the authorizers (stderr, so `--json` output stays one document), or undefined for a read. */
export function propagationNote(cacheTtlSeconds: number | undefined): string | undefined {
  if (cacheTtlSeconds === undefined) return undefined;
  if (cacheTtlSeconds === 0) return 'note: this change applies to the next request.';
  return `note: authorizers that already hold this client's record may go on using the previous one for up to ${cacheTtlSeconds} s (their client cache TTL).`;
}

/** Runs a registry command body, printing a {@link RegistryRefusal} like any other refusal. */
export async function runRegistryCommand(body: () => Promise<RegistryAnswer>, options: PrintOptions = {}): Promise<number> {
  try {
    return printAnswer(await body(), options);
  } catch (error) {
    if (error instanceof RegistryRefusal) return printAnswer(error.answer, options);
    throw error;
  }
}

/** The refusal as one line; what the server said is made printable (a message may quote a caller's path). */
function refusalLine(answer: RegistryAnswer): string {
  const body = answer.body as { error?: unknown; message?: unknown } | undefined;
  if (typeof body === 'object' && body !== null && typeof body.error === 'string') {
    return `HTTP ${answer.status} ${printable(body.error)}: ${typeof body.message === 'string' ? withCliCommands(printable(body.message)) : ''}`.trimEnd();
  }
  if (typeof body === 'object' && body !== null && typeof body.message === 'string') {
    // A deployed HTTP API's own refusal ({"message":"Forbidden"}): the reason is in the auth-failure list.
    const hint = answer.status === 401 || answer.status === 403 ? ' (an HTTP API cannot say why; another admin can read the reason with `signet clients failures CLIENT_ID`, or see the authorizer log)' : '';
    return `HTTP ${answer.status}: ${printable(body.message)}${hint}`;
  }
  const raw = answer.body;
  return `HTTP ${answer.status}${typeof raw === 'string' && raw !== '' ? `: ${printable(raw.slice(0, 300))}` : ''}`;
}
