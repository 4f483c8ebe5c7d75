/**
 * The shapes the registry API answers with (docs/openapi/registry.json), as types only: the
 * registry builds them (./views.ts) and the portal's page reads them (portal/registry-client.ts),
 * from this one definition. Nothing here imports a module with code, so the page can use it.
 */
import type { SignatureAlgorithm } from '../core/algorithm-names';
import type { CoverageProfile } from '../core/profile-names';
import type { AccountRecord, AuthFailure, KeyOwner, UnauthenticatedFailureWindow } from '../domain/store-types';

export interface KeyView {
  readonly fingerprint: string;
  /** SPKI PEM. */
  readonly publicKey: string;
  /** The one signature algorithm the key verifies. */
  readonly algorithm: SignatureAlgorithm;
  readonly addedAt: string;
  readonly notAfter?: string;
  /** Whether the key verifies now (no not-after, or not-after still ahead). */
  readonly active: boolean;
  /**
   * When the key last verified a request of this client (ISO-8601), as an authorizer recorded it:
   * at most once per key and SIGNET_LAST_USED_RECORD_INTERVAL_MS per instance, so up to that much
   * behind. Absent when no use is recorded.
   */
  readonly lastUsedAt?: string;
}

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
