/**
 * The shapes the client store takes and returns, beyond the record itself (client-record.ts).
 */
import type { SignatureAlgorithm } from '../core/algorithm-names';
import type { CoverageProfile } from '../core/profile-names';
import type { ClientRecord } from './client-record';
import type { PublishedKeys } from './key-source-status';

/** A public key to register, as `importPublicKey` (lambda/core/keys.ts) returns it. */
export interface NewKey {
  readonly fingerprint: string;
  readonly spkiPem: string;
  /** The algorithm the key was imported for. @default the key type's own */
  readonly algorithm?: SignatureAlgorithm;
  /** ISO-8601 instant after which the key stops verifying. @default - never */
  readonly notAfter?: string;
  /** RFC 7638 thumbprint. @default - computed from the key when it is stored */
  readonly thumbprint?: string;
}

/** A client to create. Values must already be validated and canonical (the registry does that). */
export interface NewClient {
  /** The account the client belongs to (see ./account-id.ts). @default DEFAULT_ACCOUNT_ID */
  readonly accountId?: string;
  readonly name: string;
  readonly networkWhitelist: readonly string[];
  readonly roles: readonly string[];
  /** The registered key; exactly one of `key` and `published`. */
  readonly key?: NewKey;
  /** The keys a fetch of the client's key source found (the client's keys are then published ones). */
  readonly published?: PublishedKeys;
  /** @default - none: the deployment's profile */
  readonly profile?: CoverageProfile;
}

/** What `createClient` did. */
export interface CreateClientResult {
  readonly record: ClientRecord;
  /**
   * False when the public key was already registered: nothing was written and `record` is the
   * client that holds the key ("registration skipped").
   */
  readonly created: boolean;
}

/** An edit. Absent fields stay as they are. */
export interface ClientChanges {
  readonly name?: string;
  readonly networkWhitelist?: readonly string[];
  readonly roles?: readonly string[];
  /** The client's coverage profile (lambda/core/profiles.ts). */
  readonly profile?: CoverageProfile;
  /** Replaces every key of the client with this one (and ends its key source, if it has one). */
  readonly key?: NewKey;
  /**
   * With `key`: whether the request named the key's algorithm. When it did not (the key's own
   * default was filled in), a key the client already holds keeps the algorithm it has.
   */
  readonly keyAlgorithmNamed?: boolean;
  /** Sets the client's key source: its keys are replaced by the ones fetched. Not with `key`. */
  readonly published?: PublishedKeys;
}

/** One page of a listing; `nextCursor` is absent on the last page. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor?: string;
}

/** Who holds a public key (one GetItem on the key's ownership item). */
export interface KeyOwner {
  readonly clientId: string;
  readonly fingerprint: string;
  readonly addedAt: string;
  readonly notAfter?: string;
}

/** Every kind of change the audit trail records. */
export type AuditAction =
  | 'client.created'
  | 'client.updated'
  | 'client.disabled'
  | 'client.enabled'
  | 'key.added'
  | 'key.removed'
  | 'key.not_after_set'
  | 'key_source.refreshed';

/** A field's value before and after a change. */
export interface AuditFieldChange {
  readonly from?: string | readonly string[];
  readonly to?: string | readonly string[];
}

/** Fields whose old and new values the audit keeps (never key material: keys appear by fingerprint). */
export type AuditedField = 'name' | 'status' | 'networkWhitelist' | 'roles' | 'profile' | 'keySource';

/**
 * Who makes a change: the acting clientId (from the authorizer) and its account, or a fixed name
 * such as `bootstrap` or `rotation` for changes no client makes.
 */
export type Actor = string | { readonly clientId: string; readonly accountId?: string };

/** One audit entry: who did what, when, and the version it produced. */
export interface AuditEntry {
  readonly clientId: string;
  /**
   * The account of the client changed. Absent only on entries written before accounts existed
   * (those clients are in DEFAULT_ACCOUNT_ID).
   */
  readonly accountId?: string;
  /** ISO-8601 instant of the change. */
  readonly at: string;
  /** The acting clientId (from the authorizer), or a fixed name such as `bootstrap` or `rotation`. */
  readonly actor: string;
  /** The acting client's account, when the change was made by a client through the registry. */
  readonly actorAccountId?: string;
  readonly action: AuditAction;
  /** The record's version after the change. */
  readonly version: number;
  readonly changes?: Readonly<Partial<Record<AuditedField, AuditFieldChange>>>;
  readonly keysAdded?: readonly string[];
  readonly keysRemoved?: readonly string[];
  /** Keys that stopped verifying at `at` (given it as their not-after): a key source withdrew them. */
  readonly keysExpired?: readonly string[];
  /** For `key.not_after_set`: the key and its not-after before and after. */
  readonly keyNotAfter?: { readonly fingerprint: string; readonly from?: string; readonly to?: string };
}

/**
 * Checked on the record as read, inside the change, before its version is compared and before
 * anything is planned: a guard that throws stops the change with nothing written. The write is
 * conditioned on the version the guard saw, so what it checked still holds when the change commits.
 */
export type ClientGuard = (current: ClientRecord) => void;

/** Options of the client-changing store methods. */
export interface ChangeOptions {
  /** @default - no check beyond the store's own */
  readonly guard?: ClientGuard;
}

/**
 * An account: the clients of one partner organisation, and the roles an account admin
 * (`account:admin`) may give them.
 */
export interface AccountRecord {
  readonly accountId: string;
  readonly name: string;
  /**
   * The roles an account admin may give the account's clients. Set by an operator
   * (`registry:admin`); never includes `registry:admin`.
   */
  readonly roleCeiling: readonly string[];
  /** Optimistic-concurrency version: 1 on creation, +1 per change (0: the default account, never changed). */
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** An account to create. Values must already be validated (the registry does that). */
export interface NewAccount {
  readonly name: string;
  readonly roleCeiling: readonly string[];
}

/** An edit of an account. Absent fields stay as they are. */
export interface AccountChanges {
  readonly name?: string;
  readonly roleCeiling?: readonly string[];
}

/** Every kind of account change the audit trail records. */
export type AccountAuditAction = 'account.created' | 'account.updated';

/** One audit entry of an account (kept beside the account item). */
export interface AccountAuditEntry {
  readonly accountId: string;
  readonly at: string;
  readonly actor: string;
  readonly actorAccountId?: string;
  readonly action: AccountAuditAction;
  readonly version: number;
  readonly changes?: Readonly<Partial<Record<'name' | 'roleCeiling', AuditFieldChange>>>;
}

/** One entry of an account's whole trail: a change to the account itself, or to one of its clients. */
export type AccountTrailEntry = AccountAuditEntry | AuditEntry;

/** What the authorizer knows about a refused request (never a signature, base or key). */
export interface AuthFailureDetail {
  /** The sentence the caller was given. */
  readonly message?: string;
  readonly sourceIp?: string;
  readonly method?: string;
  /** Request path, without the query. */
  readonly path?: string;
  /** Fingerprint of the key that was tried, when one was found. */
  readonly fingerprint?: string;
}

/**
 * Refusals of requests that named the client but were not signed by any of its keys, counted in
 * one window (UNAUTHENTICATED_FAILURE_WINDOW_S): anyone can cause them, so nothing the request
 * chose is kept.
 */
export interface UnauthenticatedFailureWindow {
  /** ISO-8601 instant the window starts. */
  readonly start: string;
  /** Refusals per reason code in the window (codes with none are left out). */
  readonly counts: Readonly<Record<string, number>>;
}

/** A recorded authentication failure. */
export interface AuthFailure extends AuthFailureDetail {
  /** ISO-8601 instant it was recorded. */
  readonly at: string;
  /** The stable reason code (lambda/core/errors.ts). */
  readonly reason: string;
}

export type { ClientRecord };
