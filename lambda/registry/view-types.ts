/**
 * The shapes the registry API answers with (docs/openapi/registry.json), as types only: the
 * registry builds them (./views.ts) and the portal's page reads them (portal/registry-client.ts),
 * from this one definition. Nothing here imports a module with code, so the page can use it.
 */
import type { SignatureAlgorithm } from '../core/algorithm-names';
import type { CoverageProfile } from '../core/profile-names';
import type { AccountRecord, AuthFailure, KeyOwner, UnauthenticatedFailureWindow } from '../domain/store-types';
import type { KeySource } from '../core/key-source-url';
import type { KeySourceStatus } from '../domain/key-source-status';

export interface KeyView {
  readonly fingerprint: string;
  /** SPKI PEM. */
  readonly publicKey: string;
  /** The one signature algorithm the key verifies. */
  readonly algorithm: SignatureAlgorithm;
  readonly addedAt: string;
  readonly notAfter?: string;
  /** Whether the key verifies now, by the authorizer's rule: before its not-after; a published key also within its nbf and exp and the keep bound after its source's last successful fetch. */
  readonly active: boolean;
  /**
   * When the key last verified a request of this client (ISO-8601), as an authorizer recorded it:
   * at most once per key and SIGNET_LAST_USED_RECORD_INTERVAL_MS per instance, so up to that much
   * behind. Absent when no use is recorded.
   */
  readonly lastUsedAt?: string;
  /** RFC 7638 JWK thumbprint: a keyid naming this key (absent on keys registered before thumbprints were recorded). */
  readonly thumbprint?: string;
  /** The key comes from the client's key source. */
  readonly published?: true;
  /** A published key's JWK `kid`. */
  readonly kid?: string;
  /** A published key's `nbf` (ISO-8601). */
  readonly notBefore?: string;
  /** A published key's `exp` (ISO-8601). */
  readonly expires?: string;
}

/** What the last fetches of a client's key source found: its status item, and until when its keys are kept. */
export type KeySourceStatusView = Omit<KeySourceStatus, 'clientId' | 'maxAgeS'> & {
  /** The published keys stop verifying then unless a fetch succeeds before. */
  readonly keptUntil?: string;
};

export interface ClientView {
  readonly clientId: string;
  /** The account (partner organisation) the client belongs to. */
  readonly accountId: string;
  readonly name: string;
  readonly status: 'active' | 'disabled';
  readonly networkWhitelist: readonly string[];
  readonly roles: readonly string[];
  /** The client's own coverage profile, when it has one (overrides the deployment's); listings leave it out. */
  readonly profile?: CoverageProfile;
  readonly keys: readonly KeyView[];
  /** Where the client's keys are published; absent: registered keys. */
  readonly keySource?: KeySource;
  /** The last successful fetch of the key source. */
  readonly keysFetchedAt?: string;
  /** What the last fetches found (read the client; listings leave it out). */
  readonly keySourceStatus?: KeySourceStatusView;
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The latest `lastUsedAt` of its keys; absent when none of them has a use recorded. */
  readonly lastUsedAt?: string;
}

/** `GET /registry/clients`: a page of clients. */
export interface ClientListView {
  readonly clients: readonly ClientView[];
  readonly nextCursor?: string;
  /**
   * Only when the list was searched, filtered or sorted (`q`, `status`, `role`, `sort`, `order`):
   * how many clients of the account match, on every page.
   */
  readonly total?: number;
}

export interface ExpiringKeyView extends KeyOwner {
  /** Whole days since the key was added. */
  readonly ageDays: number;
}

/** An account: its name and the roles its account admins may give (the stored record as it is). */
export type AccountView = AccountRecord;

/** `GET .../auth-failures`: listed refusals of the client's own signatures, and counts of the rest. */
export interface AuthFailuresView {
  readonly clientId: string;
  readonly failures: AuthFailure[];
  readonly unauthenticated: { readonly windowSeconds: number; readonly windows: UnauthenticatedFailureWindow[] };
}
