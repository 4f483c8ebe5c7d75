/**
 * The registry API (docs/openapi/registry.json) from the browser: every call is signed here with
 * the admin's key (signRequest from ./signet-core.ts, the core's WebCrypto signer; `x-date` because fetch cannot send Date), sent to the
 * same origin the portal was loaded from, and every refusal becomes a {@link RegistryError}
 * with the API's code and sentence.
 */
import type { AccountView, AuthFailuresView, ClientView, ExpiringKeyView } from '../lambda/registry/view-types';
import type { AccountAuditEntry, AuditEntry } from '../lambda/domain/store-types';
import type { KeyRefreshAnswer } from './key-source-view';
import { AUTHORIZER_CACHE_TTL_HEADER, type KeySource, SIGNET_ERROR_HEADER, signRequest } from './signet-core';

/** A page of a listing, as the registry answers it. */
type Page<Name extends string, Item> = { readonly [K in Name]: Item[] } & { readonly nextCursor?: string };

/** POST /registry/clients: the client, and whether it was created or its key was already registered. */
type CreateClientAnswer = ClientView & { readonly registration: 'created' | 'skipped' };

/** POST /registry/clients: a registered key (publicKey), or a published source (jwksUri or signatureAgent). */
type CreateClientBody = { name: string; networkWhitelist: string[]; roles: string[]; accountId?: string } & ({ publicKey: string } | KeySource);

/** A refusal from the registry or the authorizer in front of it. */
export class RegistryError extends Error {
  /** With `role_not_allowed`: the roles the caller may give. */
  allowedRoles: string[] | undefined = undefined;

  /**
   * @param code stable code (lambda/core/errors.ts), or `http_<status>` when none was given
   */
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'RegistryError';
  }
}

/**
 * What a deployed HTTP API answers for a refused signature: it cannot say why (see
 * lambda/adapters/authorizer-response.ts), so the portal says where to look.
 */
const OPAQUE_REFUSALS: Readonly<Record<number, string>> = Object.freeze({
  401: 'The API refused the signature without saying why (HTTP API). Check the admin clientId and key; the reason is in that client\'s recent failures and in the authorizer log.',
  403: 'The API refused the request without saying why (HTTP API): the signature, the caller\'s IP or the role. The reason is in the admin client\'s recent failures and in the authorizer log.',
});

interface RegistryClientOptions {
  /** the API's base URL, ending with `/` (the portal's URL without `portal/...`) */
  apiBase: string;
  /** the admin's clientId */
  keyId: string;
  /** the admin's signing key */
  privateKey: CryptoKey;
  /** fetch (default globalThis.fetch) */
  fetchImpl?: typeof fetch;
  /** the clock in ms (default Date.now) */
  nowMs?: () => number;
  /** WebCrypto (default globalThis.crypto.subtle) */
  subtle?: SubtleCrypto;
  /** told, after each successful write, how many seconds a running authorizer may still use the record as it was (the registry's `x-signet-authorizer-cache-ttl` header; 0 when the change applies to the next request) */
  onWrite?: (seconds: number) => void;
}

/**
 * GET /registry/clients: a page, of one account (an operator's `account`; by default the default
 * account), searched (`q`: name, clientId or key fingerprint), filtered and ordered. Unset
 * fields are not sent: the registry's defaults apply.
 */
interface ClientListQuery {
  cursor?: string;
  limit?: number;
  account?: string;
  q?: string;
  status?: 'active' | 'disabled';
  role?: string;
  sort?: 'name' | 'createdAt' | 'lastUsedAt';
  order?: 'asc' | 'desc';
}

interface CallOptions {
  query?: Record<string, string | number | undefined>;
  /** serialised as JSON */
  body?: unknown;
}

/**
 * A registry client bound to one signer.
 */
export function createRegistryClient(options: RegistryClientOptions) {
  const fetchImpl = options.fetchImpl ?? globalThis.fetch.bind(globalThis);
  const nowMs = options.nowMs ?? Date.now;
  /** Server clock minus ours, in ms, learned from each answer's Date header. */
  let clockOffsetMs = 0;

  /**
   * One signed call. `Answer` is the shape the registry answers the route with (its own view
   * types, lambda/registry/views.ts: the page reads what the registry writes, from one definition).
   * @param path relative to the API base, e.g. `registry/clients`
   */
  async function request<Answer>(method: string, path: string, call: CallOptions = {}): Promise<Answer> {
    const url = new URL(path, options.apiBase);
    // Percent-encoded (a space as %20, never '+', which a gateway may keep as a plus sign).
    url.search = Object.entries(call.query ?? {})
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`)
      .join('&');
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const send = async () => {
      const { headers } = await signRequest({
        method,
        url: url.href,
        body,
        keyId: options.keyId,
        privateKey: options.privateKey,
        created: Math.floor((nowMs() + clockOffsetMs) / 1000),
        dateField: 'x-date',
        subtle: options.subtle,
      });
      return fetchImpl(url.href, {
        method,
        headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        body,
        credentials: 'omit',
        cache: 'no-store',
        redirect: 'error',
      });
    };
    let response = await send();
    const skewed = learnClock(response);
    let answer = await readAnswer(response);
    // A wrong local clock: sign once more with the server's time.
    if (answer instanceof RegistryError && (answer.code === 'clock_skew' || answer.code === 'expired') && skewed) {
      response = await send();
      answer = await readAnswer(response);
    }
    if (answer instanceof RegistryError) throw answer;
    const cacheTtl = Number(response.headers.get(AUTHORIZER_CACHE_TTL_HEADER) ?? Number.NaN);
    if (method !== 'GET' && Number.isFinite(cacheTtl)) options.onWrite?.(cacheTtl);
    return answer as Answer;
  }

  /**
   * Remembers the server's clock; true when it differs from ours by more than a few seconds.
   */
  function learnClock(response: Response) {
    const date = Date.parse(response.headers.get('date') ?? '');
    if (!Number.isFinite(date)) return false;
    const offset = date - nowMs();
    if (Math.abs(offset) < 5_000) return false;
    const changed = Math.abs(offset - clockOffsetMs) >= 5_000;
    clockOffsetMs = offset;
    return changed;
  }

  const id = encodeURIComponent;
  return {
    /**
     * The roles the caller may give (GET /registry/roles): the catalogue for an operator, the
     * account's ceiling for an account admin.
     */
    listRoles: () => request<{ roles: string[] }>('GET', 'registry/roles'),
    /** A page of clients (see {@link ClientListQuery}); `total` when the registry counts them. */
    listClients: (page: ClientListQuery = {}) =>
      request<Page<'clients', ClientView> & { readonly total?: number }>('GET', 'registry/clients', {
        query: { limit: page.limit, cursor: page.cursor, account: page.account, q: page.q, status: page.status, role: page.role, sort: page.sort, order: page.order },
      }),
    getClient: (clientId: string) => request<ClientView>('GET', `registry/clients/${id(clientId)}`),
    createClient: (body: CreateClientBody) => request<CreateClientAnswer>('POST', 'registry/clients', { body }),
    /**
     * Fetches a client's published key source now. A failed fetch is an answer too (`refresh.ok`
     * false, the error recorded, the keys kept), not a refusal.
     */
    refreshKeys: (clientId: string) => request<KeyRefreshAnswer>('POST', `registry/clients/${id(clientId)}/keys/refresh`),
    /** Adds a key (rollover: both keys verify until the old one is removed). Keys past their not-after go in the same change. */
    addKey: (clientId: string, publicKey: string, version: number) =>
      request<ClientView>('POST', `registry/clients/${id(clientId)}/keys`, { body: { publicKey, version } }),
    /** Removes a key; the registry refuses the client's last active key (`last_key`). */
    removeKey: (clientId: string, fingerprint: string, version: number) =>
      request<ClientView>('DELETE', `registry/clients/${id(clientId)}/keys/${id(fingerprint)}`, { body: { version } }),
    /** A page of accounts (operators only). */
    listAccounts: (page: { cursor?: string; limit?: number } = {}) => request<Page<'accounts', AccountView>>('GET', 'registry/accounts', { query: { limit: page.limit, cursor: page.cursor } }),
    /** An account (operators: any; account admins: their own). */
    getAccount: (accountId: string) => request<AccountView>('GET', `registry/accounts/${id(accountId)}`),
    /** A new account (operators only). */
    createAccount: (body: { name: string; roleCeiling: string[] }) => request<AccountView>('POST', 'registry/accounts', { body }),
    /**
     * An account's name and/or role ceiling (operators only).
     * @param version the version the edit was planned from
     */
    updateAccount: (accountId: string, version: number, changes: { name?: string; roleCeiling?: string[] }) =>
      request<AccountView>('PATCH', `registry/accounts/${id(accountId)}`, { body: { ...changes, version } }),
    /**
     * @param version the version the edit was planned from
     */
    updateClient: (clientId: string, version: number, changes: Record<string, unknown>) =>
      request<ClientView>('PATCH', `registry/clients/${id(clientId)}`, { body: { ...changes, version } }),
    setEnabled: (clientId: string, enabled: boolean, version: number) =>
      request<ClientView>('POST', `registry/clients/${id(clientId)}/${enabled ? 'enable' : 'disable'}`, { body: { version } }),
    /** A page of a client's audit trail (who changed what, when), newest first. */
    listAudit: (clientId: string, page: { cursor?: string; limit?: number } = {}) =>
      request<Page<'entries', AuditEntry>>('GET', `registry/clients/${id(clientId)}/audit`, { query: { limit: page.limit, cursor: page.cursor } }),
    /** A page of an account's audit trail, newest first: the account's changes (and its clients', where the registry lists them there). */
    listAccountAudit: (accountId: string, page: { cursor?: string; limit?: number } = {}) =>
      request<Page<'entries', AccountAuditEntry | AuditEntry>>('GET', `registry/accounts/${id(accountId)}/audit`, { query: { limit: page.limit, cursor: page.cursor } }),
    listAuthFailures: (clientId: string) => request<AuthFailuresView>('GET', `registry/clients/${id(clientId)}/auth-failures`),
    listExpiringKeys: (olderThanDays: number) =>
      request<Page<'keys', ExpiringKeyView> & { olderThanDays: number }>('GET', 'registry/keys/expiring', { query: { olderThanDays } }),
  };
}

/**
 * The JSON answer, or a RegistryError for a refusal.
 */
async function readAnswer(response: Response): Promise<unknown> {
  const text = await response.text();
  let body: { error?: unknown; message?: unknown; requestId?: unknown; allowedRoles?: unknown } | undefined;
  try {
    body = text === '' ? {} : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (response.ok && body !== undefined) return body;
  if (response.ok) return new RegistryError(response.status, 'invalid_answer', 'The registry answered something that is not JSON. Is this the Signet API?');
  const code = typeof body?.error === 'string' ? body.error : response.headers.get(SIGNET_ERROR_HEADER) ?? `http_${response.status}`;
  const message =
    typeof body?.error === 'string' && typeof body?.message === 'string'
      ? body.message
      : OPAQUE_REFUSALS[response.status] ?? `The API answered ${response.status}${typeof body?.message === 'string' ? `: ${body.message}` : ''}.`;
  const error = new RegistryError(response.status, code, message, typeof body?.requestId === 'string' ? body.requestId : undefined);
  if (Array.isArray(body?.allowedRoles)) error.allowedRoles = body.allowedRoles.filter((r: unknown) => typeof r === 'string');
  return error;
}

/**
 * The API's base URL for a portal page: everything before the `portal/` segment, so a stage
 * (`/prod/portal/`) or a base path mapping is kept.
 */
export function apiBaseOf(pageUrl: string) {
  const url = new URL(pageUrl);
  const at = url.pathname.search(/\/portal(\/|$)/);
  const path = at === -1 ? '/' : url.pathname.slice(0, at + 1);
  return `${url.origin}${path}`;
}
