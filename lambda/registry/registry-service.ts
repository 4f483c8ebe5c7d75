/**
 * The registration API's logic, one handler per route of the route table (./route-table.ts): the
 * checks the table asks for (who may call it, its query parameters, its JSON body) in one place,
 * then the route's handler: validate (./validation.ts), call the store, shape the answer (./views.ts). Transport-neutral: the Lambda handler (./registry-handler.ts)
 * and the local gateway feed it a {@link RegistryRequest}.
 *
 * Which routes a role may call is the authorizer's job (the role catalogue). This layer scopes
 * what the caller reaches (./caller-scope.ts): operators (`registry:admin`) every account, anyone
 * else only the clients of its own account, with everything outside answered as not found. It
 * records the acting client and its account in the audit trail.
 */
import { SignetError, fail } from '../core/errors';
import { isFingerprint } from '../core/keys';
import type { CompiledRoleCatalogue } from '../core/role-policy';
import { DEFAULT_ACCOUNT_ID } from '../store/account-id';
import { accountNotFound } from '../store/account-store';
import { clientNotFound } from '../store/client-store';
import type { RegistryStore } from '../domain/registry-store';
import type { ClientRecord } from '../domain/client-record';
import type { AccountRecord, Actor, ChangeOptions, ClientGuard } from '../domain/store-types';
import {
  type CallerScope,
  type LockoutRelevantChange,
  bothGuards,
  canSeeAccount,
  canSeeClient,
  changeGuard,
  checkRolesGiven,
  grantableRoles,
  aboveCeilingGuard,
  requireOperator,
  scopeOf,
  selfLockoutGuard,
  targetAccount,
} from './caller-scope';
import type { RegistryRequest } from './registry-request';
import type { MatchedRoute } from './routes';
import { ROUTE_TABLE, type RouteEntry, type RouteHandlers } from './route-table';
import {
  expectedVersion,
  onlyQueryParameters,
  parseAddKeyRequest,
  parseCreateAccountRequest,
  parseCreateRequest,
  type JsonBody,
  parseJsonObject,
  parseLimit,
  parseOlderThanDays,
  parsePatchAccountRequest,
  parsePatchRequest,
  parseVersionOnly,
} from './validation';
import { ACCOUNT_KNOWN_ROLES } from './client-fields';
import { listClients } from './client-listing';
import type { SearchBudget } from './search-budget';
import { accountTrailView, accountView, auditView, authFailuresView, clientView, expiringKeyView } from './views';
import type { CoverageProfile } from '../core/profiles';
import { type KeySource, keepSeconds } from '../domain/client-record';
import type { KeySourceStatus, KeySourceStore, PublishedKeys } from '../domain/key-source-store';
import type { KeySourceFetch } from '../key-sources/fetch-key-source';
import { type KeySourceRefresher, createKeySourceRefresher } from '../key-sources/key-source-refresher';
import { heldThumbprints, selectPublishedKeys, successStatus } from '../key-sources/published-keys';
import { keySourceText } from '../store/item-codec';

/** The profile a client registered by its Web Bot Auth agent gets when the request names none. */
const AGENT_PROFILE: CoverageProfile = 'web-bot-auth';
/** Default refresh interval (SIGNET_KEY_SOURCE_REFRESH_MINUTES × 60). */
const DEFAULT_REFRESH_INTERVAL_S = 900;

export interface RegistryServiceDeps {
  readonly store: RegistryStore;
  /** The compiled role catalogue roles are checked against (from `loadConfig().roleCatalogue`). */
  readonly roles: CompiledRoleCatalogue;
  /** Clock for the computed `active` / `ageDays` fields. @default - () => new Date() */
  readonly now?: () => Date;
  /** The most clients of one account a search reads. @default MAX_SEARCHED_CLIENTS (5,000) */
  readonly maxSearchedClients?: number;
  /** What one caller's searches may read per window. @default DEFAULT_SEARCH_BUDGET (50,000 reads a minute) */
  readonly searchBudget?: SearchBudget;
  /**
   * Fetches a client's key source (registration, PATCH, refresh): `fetchKeySource` with the
   * system resolver and the pinned connector (the local gateway also allows local http sources).
   * `held`: the thumbprints of the keys the client holds, when it exists (a PATCH, a refresh).
   * @default - none: key sources are refused (`key_source_refused`)
   */
  readonly fetchKeySource?: (source: KeySource, held?: ReadonlySet<string>) => Promise<KeySourceFetch>;
  /** The refresher's storage, for `POST .../keys/refresh`. @default - none: that route answers 503 */
  readonly keySources?: KeySourceStore;
  /** The refresh interval in seconds (SIGNET_KEY_SOURCE_REFRESH_MINUTES × 60). @default 900 */
  readonly keySourceRefreshIntervalS?: number;
  /** SIGNET_REQUIRE_SIGNED_DIRECTORIES. @default false */
  readonly requireSignedDirectories?: boolean;
  /** SIGNET_KEY_SOURCE_KEEP_DAYS: how long published keys verify after the last successful fetch (shown as `keptUntil`, and in each key's `active`). @default 7 */
  readonly keySourceKeepDays?: number;
}

/** One request as a route's handler gets it, after the checks its table entry asks for. */
interface RouteCall {
  readonly route: MatchedRoute;
  readonly request: RegistryRequest;
  readonly scope: CallerScope;
  readonly actor: Actor;
  /** The client in the path (empty on routes without one). */
  readonly clientId: string;
  /** The JSON body, checked to be an object (`{}` when the route's body may be empty and is, or it takes none). */
  readonly body: JsonBody;
  readonly ifMatch: string | undefined;
}

/** A transport-neutral answer: status, JSON body, extra headers. */
export interface RegistryResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export class RegistryService {
  private readonly store: RegistryStore;
  private readonly roles: CompiledRoleCatalogue;
  private readonly now: () => Date;
  private readonly maxSearchedClients: number | undefined;
  private readonly searchBudget: SearchBudget | undefined;
  private readonly fetchKeySource: ((source: KeySource, held?: ReadonlySet<string>) => Promise<KeySourceFetch>) | undefined;
  private readonly refreshIntervalS: number;
  private readonly requireSignedDirectories: boolean;
  /** The keep bound of published keys, in seconds (SIGNET_KEY_SOURCE_KEEP_DAYS). */
  private readonly keepS: number;
  private readonly refresher: KeySourceRefresher | undefined;

  constructor(deps: RegistryServiceDeps) {
    this.store = deps.store;
    this.roles = deps.roles;
    this.now = deps.now ?? (() => new Date());
    this.maxSearchedClients = deps.maxSearchedClients;
    this.searchBudget = deps.searchBudget;
    this.fetchKeySource = deps.fetchKeySource;
    this.refreshIntervalS = deps.keySourceRefreshIntervalS ?? DEFAULT_REFRESH_INTERVAL_S;
    this.requireSignedDirectories = deps.requireSignedDirectories ?? false;
    this.keepS = keepSeconds(deps.keySourceKeepDays);
    this.refresher =
      deps.keySources === undefined || deps.fetchKeySource === undefined
        ? undefined
        : createKeySourceRefresher({
            store: deps.keySources,
            fetch: deps.fetchKeySource,
            nowMs: () => this.now().getTime(),
            refreshIntervalS: this.refreshIntervalS,
            requireSignedDirectories: this.requireSignedDirectories,
          });
  }

  /**
   * Runs one route: the checks its table entry asks for (who may call it, its query parameters,
   * its JSON body), then its handler. `request.actor` must be set (the handler refuses requests without one).
   */
  async handle(route: MatchedRoute, request: RegistryRequest): Promise<RegistryResponse> {
    const entry: RouteEntry = ROUTE_TABLE[route.name];
    const scope = scopeOf({ clientId: request.actor ?? '', roles: request.actorRoles, accountId: request.actorAccountId, sourceIp: request.sourceIp, profile: request.actorProfile });
    if (entry.callers.only === 'operators') requireOperator(scope, entry.callers.to);
    onlyQueryParameters(request.query, entry.query);
    const body = entry.body === undefined ? {} : parseJsonObject(request.body.toString('utf8'), entry.body.required);
    const actor: Actor = { clientId: request.actor ?? '', ...(request.actorAccountId !== undefined ? { accountId: request.actorAccountId } : {}) };
    return this.handlers[route.name]({ route, request, scope, actor, clientId: route.clientId ?? '', body, ifMatch: request.headers['if-match'] });
  }

  /** Each route's own work, after the checks of {@link handle}. */
  private readonly handlers: RouteHandlers<RouteCall, RegistryResponse> = {
    createClient: async ({ route, request, scope, actor, body }) => {
      const { keySource, ...input } = parseCreateRequest(body, this.roles, knownRolesFor(scope));
      const accountId = targetAccount(scope, input.accountId);
      if (scope.kind === 'account' || accountId !== DEFAULT_ACCOUNT_ID) checkRolesGiven(scope, await this.existingAccount(accountId), input.roles);
      if (keySource !== undefined) {
        // A key source: fetched once now, its usable keys registered with the client (nothing written if none).
        const published = await this.fetchPublished(keySource);
        const profile = input.profile ?? agentProfile(keySource);
        const { record } = await this.scoped(scope, () => this.store.createClient({ ...input, ...(profile !== undefined ? { profile } : {}), key: undefined, accountId, published }, actor));
        return await this.clientResponse(201, record, { registration: 'created' }, `${pathPrefix(request, route)}/registry/clients/${record.clientId}`);
      }
      const { record, created } = await this.scoped(scope, () => this.store.createClient({ ...input, accountId }, actor));
      // "Skipped" answers with the holder only inside the account asked for: a holder elsewhere is a 409
      // (keys are registered without proof of possession, so it may be a squatter), named to operators only.
      if (!created && record.accountId !== accountId) throw canSeeClient(scope, record) ? keyTakenInAnotherAccount(record, accountId, input.key?.fingerprint ?? '') : keyTakenElsewhere();
      const location = created ? `${pathPrefix(request, route)}/registry/clients/${record.clientId}` : undefined;
      return await this.clientResponse(created ? 201 : 200, record, { registration: created ? 'created' : 'skipped' }, location);
    },
    listClients: async ({ request, scope }) => {
      const deps = {
        store: this.store,
        nowMs: this.now().getTime(),
        keepS: this.keepS,
        requireAccount: (id: string) => this.existingAccount(id),
        maxSearchedClients: this.maxSearchedClients,
        searchBudget: this.searchBudget,
      };
      return { status: 200, body: await listClients(deps, scope, request.query) };
    },
    getClient: async ({ scope, clientId }) => this.clientResponse(200, await this.existing(scope, clientId)),
    updateClient: async ({ scope, actor, clientId, body, ifMatch }) => {
      const patch = parsePatchRequest(body, this.roles, knownRolesFor(scope));
      const version = expectedVersion(patch.version, ifMatch);
      if (version === undefined) {
        fail('invalid_request', 'An edit needs the version you read: put "version" in the body or send If-Match with the ETag.');
      }
      const { version: _v, keySource, ...given } = patch;
      const keysChange = given.key !== undefined || keySource !== undefined;
      const accessChange = given.networkWhitelist !== undefined || given.profile !== undefined;
      const roles = given.roles;
      const account = scope.kind === 'account' && (roles !== undefined || keysChange || accessChange) ? await this.existingAccount(scope.accountId) : undefined;
      // The ceiling checks run on the record the edit is planned from: roles a client already holds may stay;
      // its key may not be replaced (nor its key source set), nor its whitelist or profile changed, while it holds a role above the ceiling.
      const rolesGiven: ClientGuard | undefined = account === undefined || roles === undefined ? undefined : (current) => checkRolesGiven(scope, account, roles, current.roles);
      // Each kind of change its own guard: a key sent along must not carry a whitelist or profile change past the ceiling.
      const keysGuard = keysChange ? aboveCeilingGuard(scope, account, 'keys', roles) : undefined;
      const accessGuard = accessChange ? aboveCeilingGuard(scope, account, 'access', roles) : undefined;
      const also = bothGuards(bothGuards(keysGuard, accessGuard), rolesGiven);
      let published: PublishedKeys | undefined;
      if (keySource !== undefined) {
        // Fetched only for a client the caller may change (the guards run again on the record the edit is planned from).
        const current = await this.existing(scope, clientId);
        guarded(scope, also).guard?.(current);
        published = await this.fetchPublished(keySource, clientId, heldThumbprints(current.keys));
      }
      const changes = { ...given, ...(published !== undefined ? { published } : {}) };
      const options = guarded(scope, also, { roles, networkWhitelist: changes.networkWhitelist, profile: changes.profile });
      return this.clientResponse(200, await this.scoped(scope, () => this.store.updateClient(clientId, version, changes, actor, options)));
    },
    addKey: async ({ scope, actor, clientId, body, ifMatch }) => {
      const add = parseAddKeyRequest(body);
      const keysGuard = aboveCeilingGuard(scope, await this.callerAccount(scope), 'keys');
      const record = await this.scoped(scope, () => this.store.addKey(clientId, add.key, actor, expectedVersion(add.version, ifMatch), guarded(scope, keysGuard)));
      return this.clientResponse(201, record);
    },
    removeKey: async ({ route, scope, actor, clientId, body, ifMatch }) => {
      const version = expectedVersion(parseVersionOnly(body), ifMatch);
      const fingerprint = route.fingerprint ?? '';
      if (!isFingerprint(fingerprint)) {
        fail('not_found', 'The key fingerprint in the path is not a fingerprint (43 base64url characters). Take it from the client record.');
      }
      const keysGuard = aboveCeilingGuard(scope, await this.callerAccount(scope), 'keys');
      return this.clientResponse(200, await this.store.removeKey(clientId, fingerprint, actor, version, guarded(scope, keysGuard)));
    },
    refreshKeys: async ({ scope, actor, clientId }) => {
      const current = await this.existing(scope, clientId);
      guarded(scope, aboveCeilingGuard(scope, await this.callerAccount(scope), 'keys')).guard?.(current);
      if (current.keySource === undefined) {
        fail('invalid_request', `Client ${clientId} has registered keys, not a key source: there is nothing to refresh. Set jwksUri or signatureAgent (PATCH) to have its keys fetched.`);
      }
      if (this.refresher === undefined) fail('dependency_unavailable', 'This registry is not set up to fetch key sources; try again later or ask the operators.');
      const outcome = await this.refresher.refreshClient(clientId, actor);
      const record = (await this.store.getClient(clientId, { consistentRead: true })) ?? current;
      const client = await this.clientResponse(200, record);
      return {
        status: 200,
        body: {
          client: client.body,
          refresh: {
            ok: outcome.ok,
            added: [...outcome.added],
            removed: [...outcome.removed],
            unchanged: outcome.unchanged,
            ...(outcome.error !== undefined ? { error: outcome.error } : {}),
          },
        },
        headers: client.headers,
      };
    },
    disableClient: async ({ scope, actor, clientId, body, ifMatch }) => {
      const version = expectedVersion(parseVersionOnly(body), ifMatch);
      return this.clientResponse(200, await this.store.disable(clientId, actor, version, guarded(scope, undefined, { disable: true })));
    },
    enableClient: async ({ scope, actor, clientId, body, ifMatch }) => {
      const version = expectedVersion(parseVersionOnly(body), ifMatch);
      const aboveCeiling = aboveCeilingGuard(scope, await this.callerAccount(scope), 'enable');
      return this.clientResponse(200, await this.store.enable(clientId, actor, version, guarded(scope, aboveCeiling)));
    },
    listAuthFailures: async ({ scope, clientId }) => {
      await this.existing(scope, clientId);
      const [failures, unauthenticated] = await Promise.all([this.store.listAuthFailures(clientId), this.store.listUnauthenticatedFailures(clientId)]);
      return { status: 200, body: authFailuresView(clientId, failures, unauthenticated) };
    },
    listAudit: async ({ request, scope, clientId }) => {
      const limit = parseLimit(request.query.limit);
      await this.existing(scope, clientId);
      const page = await this.store.listAudit(clientId, request.query.cursor, limit);
      return { status: 200, body: { clientId, entries: page.items.map(auditView), ...next(page.nextCursor) } };
    },
    listExpiringKeys: async ({ request }) => {
      const olderThanDays = parseOlderThanDays(request.query.olderThanDays);
      const page = await this.store.listKeysOlderThan(olderThanDays, request.query.cursor, parseLimit(request.query.limit));
      const nowMs = this.now().getTime();
      return { status: 200, body: { olderThanDays, keys: page.items.map((k) => expiringKeyView(k, nowMs)), ...next(page.nextCursor) } };
    },
    listRoles: async ({ scope }) => {
      // The names `roles` may hold (the client portal offers them); the route patterns stay server-side.
      // An account admin gets the roles it may give: its account's ceiling.
      const roles = scope.kind === 'operator' ? [...this.roles.roleNames] : grantableRoles(await this.existingAccount(scope.accountId)).filter((r) => this.roles.roleNames.has(r));
      return { status: 200, body: { roles: roles.sort() } };
    },
    createAccount: async ({ route, request, actor, body }) => {
      const account = await this.store.createAccount(parseCreateAccountRequest(body, this.roles), actor);
      return this.accountResponse(201, account, `${pathPrefix(request, route)}/registry/accounts/${account.accountId}`);
    },
    listAccounts: async ({ request }) => {
      const page = await this.store.listAccounts(request.query.cursor, parseLimit(request.query.limit));
      return { status: 200, body: { accounts: page.items.map(accountView), ...next(page.nextCursor) } };
    },
    getAccount: async ({ route, scope }) => this.accountResponse(200, await this.visibleAccount(scope, route.accountId ?? '')),
    updateAccount: async ({ route, actor, body, ifMatch }) => {
      const patch = parsePatchAccountRequest(body, this.roles);
      const version = expectedVersion(patch.version, ifMatch, 0);
      if (version === undefined) {
        fail('invalid_request', 'An edit needs the version you read: put "version" in the body or send If-Match with the ETag.');
      }
      const { version: _v, ...changes } = patch;
      return this.accountResponse(200, await this.store.updateAccount(route.accountId ?? '', version, changes, actor));
    },
    listAccountAudit: async ({ route, request, scope }) => {
      const limit = parseLimit(request.query.limit);
      const account = await this.visibleAccount(scope, route.accountId ?? '');
      const page = await this.store.listAccountAudit(account.accountId, request.query.cursor, limit);
      return { status: 200, body: { accountId: account.accountId, entries: page.items.map(accountTrailView), ...next(page.nextCursor) } };
    },
  };

  /**
   * Fetches a key source for a registration and reads the keys the client may use.
   * @param clientId the client it is for, when it exists (its own keys are not "in use")
   * @param held the thumbprints of the keys that client holds (not counted among the RSA keys new to it)
   * @throws SignetError `key_source_refused` when the fetch fails or leaves no usable key (nothing is written)
   */
  private async fetchPublished(source: KeySource, clientId?: string, held?: ReadonlySet<string>): Promise<PublishedKeys> {
    const url = keySourceText(source);
    if (this.fetchKeySource === undefined) throw keySourceRefused(url, 'not_configured', 'this registry does not fetch key sources.');
    const fetched = await this.fetchKeySource(source, held);
    if (!fetched.ok) throw keySourceRefused(fetched.url ?? url, fetched.code, fetched.message);
    const nowMs = this.now().getTime();
    const at = new Date(nowMs).toISOString();
    const selection = await selectPublishedKeys(fetched, {
      ...(clientId !== undefined ? { clientId } : {}),
      at,
      owners: async (fingerprints) => {
        const owners = await Promise.all(fingerprints.map((fp) => this.store.findByFingerprint(fp, { consistentRead: true })));
        return new Map(owners.flatMap((o) => (o === undefined ? [] : [[o.fingerprint, o.clientId] as const])));
      },
      requireSignedDirectories: this.requireSignedDirectories,
      directory: 'signatureAgent' in source,
    });
    if (selection.keys.length === 0) {
      const reasons = [...new Set(selection.refused.map((r) => r.reason))].join(', ');
      throw keySourceRefused(fetched.url, 'no_usable_key', `none of its keys can be used (${reasons || 'none published'}); a key another client holds is key_in_use.`);
    }
    const status: KeySourceStatus = successStatus(clientId ?? '', fetched, selection.refused, nowMs, this.refreshIntervalS);
    return { source, keys: selection.keys, fetchedAt: at, status };
  }

  /** The client, if the caller may see it; a client outside the caller's account is answered exactly like an unknown id. */
  private async existing(scope: CallerScope, clientId: string): Promise<ClientRecord> {
    const record = await this.store.getClient(clientId, { consistentRead: true });
    if (record === undefined || !canSeeClient(scope, record)) {
      throw new SignetError('not_found', 'No client has this clientId. Check the id, or find it with GET /registry/clients?fingerprint=<key fingerprint>.');
    }
    return record;
  }

  /** The account (the default one always exists). @throws SignetError `not_found` */
  private async existingAccount(accountId: string): Promise<AccountRecord> {
    const account = await this.store.getAccount(accountId, { consistentRead: true });
    if (account === undefined) throw accountNotFound(accountId);
    return account;
  }

  /** An account admin's own account (its ceiling), or undefined for operators. */
  private async callerAccount(scope: CallerScope): Promise<AccountRecord | undefined> {
    return scope.kind === 'account' ? this.existingAccount(scope.accountId) : undefined;
  }

  /** The account, if the caller may see it; another account is answered exactly like an unknown id. */
  private async visibleAccount(scope: CallerScope, accountId: string): Promise<AccountRecord> {
    if (!canSeeAccount(scope, accountId)) throw accountNotFound(accountId);
    return this.existingAccount(accountId);
  }

  /**
   * Runs a store call for the caller. For an account admin, "this key is already registered on
   * client X" (or "this key source already serves client X") never names the holder: it may be
   * in another account.
   */
  private async scoped<T>(scope: CallerScope, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (scope.kind === 'account' && error instanceof SignetError && error.code === 'key_already_registered' && !/on this client/.test(error.message)) {
        throw keyTakenElsewhere();
      }
      if (scope.kind === 'account' && error instanceof SignetError && error.code === 'key_source_in_use') throw sourceTakenElsewhere();
      throw error;
    }
  }

  private accountResponse(status: number, account: AccountRecord, location?: string): RegistryResponse {
    return {
      status,
      body: accountView(account),
      headers: { etag: `"${account.version}"`, ...(location !== undefined ? { location } : {}) },
    };
  }

  /** A client answer: the record with its keys' last use (one BatchGetItem), and its version as ETag. */
  private async clientResponse(status: number, record: ClientRecord, extra: Record<string, unknown> = {}, location?: string): Promise<RegistryResponse> {
    const [lastUse, sourceStatus] = await Promise.all([
      this.store.keyLastUse([record]),
      record.keySource === undefined ? undefined : this.store.getKeySourceStatus(record.clientId),
    ]);
    return {
      status,
      body: { ...clientView(record, this.now().getTime(), this.keepS, lastUse, sourceStatus), ...extra },
      headers: {
        etag: `"${record.version}"`,
        ...(location !== undefined ? { location } : {}),
      },
    };
  }
}

/** What an unknown role's refusal says of the roles there are: the catalogue to operators, where its own are listed to anyone else. */
function knownRolesFor(scope: CallerScope): string | undefined {
  return scope.kind === 'operator' ? undefined : ACCOUNT_KNOWN_ROLES;
}

/** A change made for the caller: the scope's guard first (a client outside the caller's account is not found), then self-lockout. */
function guarded(scope: CallerScope, also?: ClientGuard, lockout?: LockoutRelevantChange): ChangeOptions {
  return { guard: bothGuards(changeGuard(scope, clientNotFound, also), lockout === undefined ? undefined : selfLockoutGuard(scope.caller, lockout)) };
}

/** The stage or base path in front of the path inside the API (empty on a `$default` stage). */
function pathPrefix(request: RegistryRequest, route: MatchedRoute): string {
  return request.path.endsWith(route.routePath) ? request.path.slice(0, request.path.length - route.routePath.length) : '';
}

/** The profile a client registered by a Web Bot Auth agent's origin gets when none is given. */
function agentProfile(source: KeySource): CoverageProfile | undefined {
  return 'signatureAgent' in source ? AGENT_PROFILE : undefined;
}

/** A key source that cannot be registered, with the fetch's code and sentence. */
function keySourceRefused(url: string, code: string, sentence: string): SignetError {
  return new SignetError(
    'key_source_refused',
    `The key source ${url} was refused (${code}): ${sentence.replace(/\.$/, '')}. Nothing was changed: fix the source (or the URL) and try again.`,
  );
}

/** A public key held by a client the caller may not see: taken, with no word on who holds it. */
function keyTakenElsewhere(): SignetError {
  return new SignetError(
    'key_already_registered',
    'This public key is already registered on another client. A key belongs to one client only: generate a new key pair for this client. ' +
      "If that client is in your account, GET /registry/clients?fingerprint=<fingerprint> finds it; if not and the key pair is yours, ask the API owner's operators to release the key (they can see who holds it).",
  );
}

/** A key source serving a client the caller may not see: taken, with no word on who holds it. */
function sourceTakenElsewhere(): SignetError {
  return new SignetError(
    'key_source_in_use',
    'This key source already serves another client. A key source serves one client only, as a key does (its new keys would go to whichever client fetched them first). ' +
      "If that client is in your account, give it another source or a registered key first; if not and the source is yours, ask the API owner's operators to release it (they can see which client it serves).",
  );
}

/** A public key an operator registers in one account while a client of another account holds it. */
function keyTakenInAnotherAccount(holder: ClientRecord, accountId: string, fingerprint: string): SignetError {
  return new SignetError(
    'key_already_registered',
    `This public key (fingerprint ${fingerprint}) is already registered on client ${holder.clientId} in account ${holder.accountId}, not in ${accountId} where you asked to register it; nothing was created. ` +
      'A key belongs to one client only. If that client holds it by mistake, or without holding its private key, release it: disable that client and replace its key with another (PATCH publicKey), then register again. Otherwise generate a new key pair.',
  );
}

function next(cursor: string | undefined): { nextCursor?: string } {
  return cursor === undefined ? {} : { nextCursor: cursor };
}
