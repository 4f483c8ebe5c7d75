/**
 * What the key-source refresher (lambda/key-sources/key-source-refresher.ts) needs from storage,
 * stated by it: the port. lambda/store/key-source-store.ts implements it on DynamoDB; nothing here
 * depends on DynamoDB.
 *
 * A client whose keys are published elsewhere (ClientRecord.keySource) has, beside its record, a
 * status item saying what the last fetches found. The record holds the keys themselves; the status
 * is bookkeeping (no version bump, no audit entry), always written on the condition that the
 * record is still at the version the fetch was planned from, so a fetch never overwrites an edit
 * made meanwhile (nor brings back the status of a client switched to registered keys).
 */
import type { ClientRecord, KeySource, StoredPublicKey } from './client-record';
import type { Actor, Page } from './store-types';

/** Why a fetch failed, as the status keeps it. */
export interface KeySourceError {
  /** The fetch's stable refusal code (lambda/key-sources/fetch-key-source.ts FETCH_REFUSAL_CODES). */
  readonly code: string;
  readonly message: string;
  /** ISO-8601 instant of the failed fetch. */
  readonly at: string;
  /** The HTTP status, when an answer came. */
  readonly status?: number;
}

/** A key of the source that is not used, and why (a reading refusal, `key_in_use`, `unsigned_directory_key`, ...). */
export interface RefusedSourceKey {
  readonly kid?: string;
  readonly thumbprint?: string;
  readonly reason: string;
}

/** The status item of one client's key source (`SOURCE#<clientId>`). */
export interface KeySourceStatus {
  readonly clientId: string;
  /** What is fetched. */
  readonly url: string;
  /** ISO-8601: the last fetch, successful or not. */
  readonly lastFetchAt: string;
  /** ISO-8601: when the refresher fetches again (its due list is sorted by it). */
  readonly nextFetchAt: string;
  /** ISO-8601: the last successful fetch (also the record's `keysFetchedAt`). */
  readonly lastSuccessAt?: string;
  /** ISO-8601: the first failure of the current run of failures; absent while fetches succeed. */
  readonly failingSince?: string;
  /** Failures in a row (0 after a success). */
  readonly consecutiveFailures: number;
  readonly lastError?: KeySourceError;
  /** Keys of the last successful fetch that are not used. */
  readonly refusedKeys?: readonly RefusedSourceKey[];
  /** The source's Cache-Control max-age at the last success, clamped to [60, 86400]. */
  readonly maxAgeS?: number;
}

/** A client's published keys as fetched: what a registration (create or PATCH) writes with the record. */
export interface PublishedKeys {
  readonly source: KeySource;
  /** Each `published: true`, with its thumbprint. */
  readonly keys: readonly StoredPublicKey[];
  /** ISO-8601 instant of the fetch (the record's `keysFetchedAt`). */
  readonly fetchedAt: string;
  readonly status: KeySourceStatus;
}

export interface KeySourceStore {
  /**
   * One page of the sources due at `nowIso` (next fetch at or before it), soonest first: one Query
   * on the list index, never a Scan.
   */
  dueSources(nowIso: string, cursor?: string, limit?: number): Promise<Page<string>>;
  getClient(clientId: string): Promise<ClientRecord | undefined>;
  getStatus(clientId: string): Promise<KeySourceStatus | undefined>;
  /** Which client holds each of these keys, by fingerprint (keys no client holds are absent). */
  keyOwners(fingerprints: readonly string[]): Promise<ReadonlyMap<string, string>>;
  /**
   * Replaces the client's published keys with `keys` (version + 1, an audit entry by `actor`,
   * ownership and thumbprint items put and deleted), sets `keysFetchedAt` and writes `status`, in
   * one transaction conditioned on `current.version`.
   * @throws SignetError `version_conflict` when the record moved; `key_already_registered` when a
   *   new key was taken meanwhile
   */
  replacePublishedKeys(current: ClientRecord, keys: readonly StoredPublicKey[], fetchedAt: string, status: KeySourceStatus, actor: Actor): Promise<ClientRecord>;
  /**
   * A successful fetch that found the same keys: sets `keysFetchedAt` only (no version bump, no
   * audit) and writes `status`, if the record is still at `current.version`.
   * @returns false when the record moved (nothing written)
   */
  touchKeysFetched(current: ClientRecord, fetchedAt: string, status: KeySourceStatus): Promise<boolean>;
  /**
   * Writes `status` (a failed fetch: the keys stay), if the record is still at `current.version`.
   * @returns false when the record moved (nothing written)
   */
  putStatus(current: ClientRecord, status: KeySourceStatus): Promise<boolean>;
  /** Deletes a status item whose client no longer has a key source (or no longer exists). */
  deleteStatus(clientId: string): Promise<void>;
}
