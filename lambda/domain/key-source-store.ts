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
import type { ClientRecord, StoredPublicKey } from './client-record';
import type { KeySourceStatus } from './key-source-status';
import type { Actor, Page } from './store-types';

export type { KeySourceStatus, PublishedKeys, RefusedSourceKey } from './key-source-status';

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
   * A fetch whose well-formed set has no usable key and no longer lists some of the client's keys:
   * ends those now (`withdrawn`, by fingerprint: a not-after of now; version + 1, an audit entry
   * with `keysExpired`) and writes `status`, leaving `keysFetchedAt`, if the record is still at `current.version`.
   * @throws SignetError `version_conflict` when the record moved
   */
  dropWithdrawnKeys(current: ClientRecord, withdrawn: ReadonlySet<string>, status: KeySourceStatus, actor: Actor): Promise<ClientRecord>;
  /**
   * Writes `status` (a failed fetch: the keys stay), if the record is still at `current.version`.
   * @returns false when the record moved (nothing written)
   */
  putStatus(current: ClientRecord, status: KeySourceStatus): Promise<boolean>;
  /** Deletes a status item whose client no longer has a key source (or no longer exists). */
  deleteStatus(clientId: string): Promise<void>;
  /**
   * How many sources are due at `nowIso` from `cursor` on (a run that stopped early counts what
   * it left): Queries of the list index that return a count, not the items.
   */
  countDueSources(nowIso: string, cursor?: string): Promise<number>;
  /** The statuses of these clients, by clientId (clients without one are absent). */
  getStatuses(clientIds: readonly string[]): Promise<ReadonlyMap<string, KeySourceStatus>>;
  /**
   * The failing-sources list: clientId → `failingSince` of every source whose last fetch failed,
   * one small item read once per run (what `KeySourcesFailingOverAnHour` counts, also for sources
   * not due in that run). Bounded: {@link MAX_LISTED_FAILING_SOURCES}.
   */
  failingSources(): Promise<ReadonlyMap<string, string>>;
  /** Lists the client's source as failing since `failingSince` (after its failure status is written); a full list takes no more. */
  markFailing(clientId: string, failingSince: string): Promise<void>;
  /** Takes the client off the failing-sources list (its fetch succeeded, or it has no source any more); with `since`, only if listed with that value. */
  clearFailing(clientId: string, since?: string): Promise<void>;
}

/** The most sources the failing-sources list holds at once (~50 bytes each: well under DynamoDB's 400 KB item). */
export const MAX_LISTED_FAILING_SOURCES = 5000;
