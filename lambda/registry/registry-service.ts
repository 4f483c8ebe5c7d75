/**
 * The registration API's logic, one method per route: validate (./validation.ts), call the store,
 * shape the answer (./views.ts). Transport-neutral: the Lambda handler (./registry-handler.ts)
 * and the local gateway feed it a {@link RegistryRequest}.
 *
 * The role check (`registry:admin`) is the authorizer's job; this layer trusts the route it is
 * given and records the acting client in the audit trail.
 */
import { SignetError, fail } from '../core/errors';
import { isFingerprint } from '../core/keys';
import type { CompiledRoleCatalogue } from '../core/role-policy';
import type { DynamoClientStore } from '../store/client-store';
import type { ClientRecord } from '../store/client-record';
import type { RegistryRequest } from './registry-request';
import type { MatchedRoute } from './routes';
import {
  expectedVersion,
  onlyQueryParameters,
  parseAddKeyRequest,
  parseCreateRequest,
  parseFingerprint,
  parseJsonObject,
  parseLimit,
  parseOlderThanDays,
  parsePatchRequest,
  parseQueryPublicKey,
  parseVersionOnly,
} from './validation';
import { auditView, authFailureView, clientView, expiringKeyView } from './views';

/** The store operations the registry uses (DynamoClientStore implements them). */
export type RegistryStore = Pick<
  DynamoClientStore,
  | 'createClient'
  | 'getClient'
  | 'listClients'
  | 'findByFingerprint'
  | 'updateClient'
  | 'addKey'
  | 'removeKey'
  | 'disable'
  | 'enable'
  | 'listAuthFailures'
  | 'listAudit'
  | 'listKeysOlderThan'
>;

export interface RegistryServiceDeps {
  readonly store: RegistryStore;
  /** The compiled role catalogue roles are checked against (from `loadConfig().roleCatalogue`). */
  readonly roles: CompiledRoleCatalogue;
  /** Clock for the computed `active` / `ageDays` fields. @default - () => new Date() */
  readonly now?: () => Date;
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

  constructor(deps: RegistryServiceDeps) {
    this.store = deps.store;
    this.roles = deps.roles;
    this.now = deps.now ?? (() => new Date());
  }

  /** Runs one route. `request.actor` must be set (the handler refuses requests without one). */
  async handle(route: MatchedRoute, request: RegistryRequest): Promise<RegistryResponse> {
    const actor = request.actor ?? '';
    const clientId = route.clientId ?? '';
    const body = (required: boolean) => parseJsonObject(request.body.toString('utf8'), required);
    const ifMatch = request.headers['if-match'];

    switch (route.name) {
      case 'createClient': {
        onlyQueryParameters(request.query, []);
        const input = parseCreateRequest(body(true), this.roles);
        const { record, created } = await this.store.createClient(input, actor);
        const location = created ? `${pathPrefix(request, route)}/registry/clients/${record.clientId}` : undefined;
        return this.clientResponse(created ? 201 : 200, record, { registration: created ? 'created' : 'skipped' }, location);
      }
      case 'listClients':
        return this.listClients(request.query);
      case 'getClient': {
        onlyQueryParameters(request.query, []);
        return this.clientResponse(200, await this.existing(clientId));
      }
      case 'updateClient': {
        onlyQueryParameters(request.query, []);
        const patch = parsePatchRequest(body(true), this.roles);
        const version = expectedVersion(patch.version, ifMatch);
        if (version === undefined) {
          fail('invalid_request', 'An edit needs the version you read: put "version" in the body or send If-Match with the ETag.');
        }
        const { version: _v, ...changes } = patch;
        return this.clientResponse(200, await this.store.updateClient(clientId, version, changes, actor));
      }
      case 'addKey': {
        onlyQueryParameters(request.query, []);
        const add = parseAddKeyRequest(body(true));
        return this.clientResponse(201, await this.store.addKey(clientId, add.key, actor, expectedVersion(add.version, ifMatch)));
      }
      case 'removeKey': {
        onlyQueryParameters(request.query, []);
        const version = expectedVersion(parseVersionOnly(body(false)), ifMatch);
        const fingerprint = route.fingerprint ?? '';
        if (!isFingerprint(fingerprint)) {
          fail('not_found', 'The key fingerprint in the path is not a fingerprint (43 base64url characters). Take it from the client record.');
        }
        return this.clientResponse(200, await this.store.removeKey(clientId, fingerprint, actor, version));
      }
      case 'disableClient':
      case 'enableClient': {
        onlyQueryParameters(request.query, []);
        const version = expectedVersion(parseVersionOnly(body(false)), ifMatch);
        const record =
          route.name === 'disableClient'
            ? await this.store.disable(clientId, actor, version)
            : await this.store.enable(clientId, actor, version);
        return this.clientResponse(200, record);
      }
      case 'listAuthFailures': {
        onlyQueryParameters(request.query, []);
        await this.existing(clientId);
        const failures = await this.store.listAuthFailures(clientId);
        return { status: 200, body: { clientId, failures: failures.map(authFailureView) } };
      }
      case 'listAudit': {
        onlyQueryParameters(request.query, ['limit', 'cursor']);
        const limit = parseLimit(request.query.limit);
        await this.existing(clientId);
        const page = await this.store.listAudit(clientId, request.query.cursor, limit);
        return { status: 200, body: { clientId, entries: page.items.map(auditView), ...next(page.nextCursor) } };
      }
      case 'listExpiringKeys': {
        onlyQueryParameters(request.query, ['olderThanDays', 'limit', 'cursor']);
        const olderThanDays = parseOlderThanDays(request.query.olderThanDays);
        const page = await this.store.listKeysOlderThan(olderThanDays, request.query.cursor, parseLimit(request.query.limit));
        const nowMs = this.now().getTime();
        return { status: 200, body: { olderThanDays, keys: page.items.map((k) => expiringKeyView(k, nowMs)), ...next(page.nextCursor) } };
      }
      case 'listRoles':
        // The names `roles` may hold (the client portal offers them); the route patterns stay server-side.
        onlyQueryParameters(request.query, []);
        return { status: 200, body: { roles: [...this.roles.roleNames].sort() } };
    }
  }

  /** `GET /registry/clients`: a page, or the holder of one key (`?publicKey=` / `?fingerprint=`). */
  private async listClients(query: Readonly<Record<string, string>>): Promise<RegistryResponse> {
    onlyQueryParameters(query, ['limit', 'cursor', 'publicKey', 'fingerprint']);
    const limit = parseLimit(query.limit);
    if (query.publicKey !== undefined || query.fingerprint !== undefined) {
      if (query.publicKey !== undefined && query.fingerprint !== undefined) {
        fail('invalid_request', 'Give either publicKey or fingerprint, not both.');
      }
      if (query.cursor !== undefined) fail('invalid_request', 'cursor pages the full list; it cannot be combined with publicKey or fingerprint.');
      const fingerprint = query.fingerprint !== undefined ? parseFingerprint(query.fingerprint) : parseQueryPublicKey(query.publicKey).fingerprint;
      const owner = await this.store.findByFingerprint(fingerprint, { consistentRead: true });
      const record = owner === undefined ? undefined : await this.store.getClient(owner.clientId, { consistentRead: true });
      const nowMs = this.now().getTime();
      return { status: 200, body: { clients: record === undefined ? [] : [clientView(record, nowMs)] } };
    }
    const page = await this.store.listClients(query.cursor, limit);
    const nowMs = this.now().getTime();
    return { status: 200, body: { clients: page.items.map((r) => clientView(r, nowMs)), ...next(page.nextCursor) } };
  }

  private async existing(clientId: string): Promise<ClientRecord> {
    const record = await this.store.getClient(clientId, { consistentRead: true });
    if (record === undefined) {
      throw new SignetError('not_found', 'No client has this clientId. Check the id, or find it with GET /registry/clients?fingerprint=<key fingerprint>.');
    }
    return record;
  }

  private clientResponse(status: number, record: ClientRecord, extra: Record<string, unknown> = {}, location?: string): RegistryResponse {
    return {
      status,
      body: { ...clientView(record, this.now().getTime()), ...extra },
      headers: {
        etag: `"${record.version}"`,
        ...(location !== undefined ? { location } : {}),
      },
    };
  }
}

/** The stage or base path in front of `/registry/` (empty on a `$default` stage). */
function pathPrefix(request: RegistryRequest, route: MatchedRoute): string {
  return request.path.endsWith(route.routePath) ? request.path.slice(0, request.path.length - route.routePath.length) : '';
}

function next(cursor: string | undefined): { nextCursor?: string } {
  return cursor === undefined ? {} : { nextCursor: cursor };
}
