/**
 * What a client's key source status says (the `SOURCE#<clientId>` item) and what a registration
 * writes with the record: the types the store and the registry share, below both, with no
 * dependency on either (./key-source-store.ts is the refresher's port).
 */
import type { KeySource, StoredPublicKey } from './client-record';

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
