/**
 * Refreshes published key sources off the request path: the scheduled function
 * (lambda/handlers/refresh-key-sources.ts) runs {@link KeySourceRefresher.refreshDue}, the
 * registry's `POST /registry/clients/{clientId}/keys/refresh` runs `refreshClient`.
 *
 * Per source: fetch (through the injected fetcher, never on the request path) →
 * - success: the keys the client may use (./published-keys.ts: reader refusals, `key_in_use`,
 *   directory signatures) replace the client's when the set differs (version + 1, an audit entry:
 *   a key gone from the source stops verifying now, the publisher controls the overlap); when it
 *   is the same, only `keysFetchedAt` moves. Next fetch after the source's max-age (1 min - 24 h)
 *   or the refresh interval. A success whose keys are all unusable counts as a failure.
 * - failure: the keys stay (they verify until the keep bound after the last success; the
 *   authorizer enforces it), the status records the error, since when it fails and how often;
 *   next fetch after a backoff from 1 min doubling up to the interval, and no sooner than the
 *   source's Retry-After (at most 24 h).
 * Every write is conditioned on the record's version the fetch was planned from: an edit made
 * meanwhile wins, and the source is fetched again on the next run.
 */
import { SignetError } from '../core/errors';
import type { ClientRecord, KeySource, StoredPublicKey } from '../domain/client-record';
import type { KeySourceStatus, KeySourceStore } from '../domain/key-source-store';
import type { Actor } from '../domain/store-types';
import type { KeySourceFetch } from './fetch-key-source';
import { type FetchedKeySet, failureStatus, selectPublishedKeys, successStatus } from './published-keys';

/** The actor the audit trail names for the scheduled run's changes. */
export const REFRESHER_ACTOR = 'key-source-refresher';

/** Sources failing for longer than this are counted in `failingOverAnHour` (the alarm's metric). */
export const FAILING_ALARM_AFTER_MS = 3_600_000;

/** Due sources read per Query. */
export const DEFAULT_REFRESH_PAGE_SIZE = 100;
/** Sources fetched at once. */
export const DEFAULT_REFRESH_CONCURRENCY = 16;

export interface KeySourceRefresherDeps {
  readonly store: KeySourceStore;
  readonly fetch: (source: KeySource) => Promise<KeySourceFetch>;
  readonly nowMs: () => number;
  /** SIGNET_KEY_SOURCE_REFRESH_MINUTES × 60: the wait after a success without max-age, and the backoff's cap. */
  readonly refreshIntervalS: number;
  /** SIGNET_REQUIRE_SIGNED_DIRECTORIES: refuse directory keys without a valid signature of the answer. */
  readonly requireSignedDirectories: boolean;
  /** Due sources read per Query. @default DEFAULT_REFRESH_PAGE_SIZE */
  readonly pageSize?: number;
  /** Sources fetched at once. @default DEFAULT_REFRESH_CONCURRENCY */
  readonly concurrency?: number;
}

/** What one scheduled run did. */
export interface RefreshRunSummary {
  /** Sources fetched. */
  readonly checked: number;
  /** Fetched, and the key set changed. */
  readonly refreshed: number;
  /** Fetched, same keys (only `keysFetchedAt` moved). */
  readonly unchanged: number;
  readonly failed: number;
  /** Sources of the run whose failures started more than an hour ago (0 included: the alarm's metric). */
  readonly failingOverAnHour: number;
  readonly keysAdded: number;
  readonly keysRemoved: number;
}

/** What refreshing one client did. */
export interface ClientRefreshOutcome {
  readonly clientId: string;
  readonly ok: boolean;
  /** Fingerprints of keys added and removed. */
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** The fetch found the keys the client had. */
  readonly unchanged: boolean;
  readonly error?: { readonly code: string; readonly message: string; readonly status?: number };
  /** The client after the refresh (undefined: no such client, or it has no key source any more). */
  readonly record?: ClientRecord;
  readonly status?: KeySourceStatus;
  /** The record moved while fetching: nothing was written. */
  readonly superseded?: boolean;
}

export interface KeySourceRefresher {
  refreshDue(options?: { limit?: number }): Promise<RefreshRunSummary>;
  refreshClient(clientId: string, actor: Actor): Promise<ClientRefreshOutcome>;
}

export function createKeySourceRefresher(deps: KeySourceRefresherDeps): KeySourceRefresher {
  const { store } = deps;

  async function refreshClient(clientId: string, actor: Actor): Promise<ClientRefreshOutcome> {
    const [record, previous] = await Promise.all([store.getClient(clientId), store.getStatus(clientId)]);
    if (record?.keySource === undefined) {
      // A status left for a client that is gone or went back to registered keys: drop it from the due list.
      if (previous !== undefined) await store.deleteStatus(clientId);
      return { clientId, ok: false, added: [], removed: [], unchanged: false, error: { code: 'no_key_source', message: `Client ${clientId} has no key source.` } };
    }
    const fetched = await deps.fetch(record.keySource);
    const nowMs = deps.nowMs();
    if (fetched.ok) {
      const success = await applyKeys(record, fetched, nowMs, actor);
      if (success !== undefined) return success;
    }
    const failure = fetched.ok ? unusable(fetched) : fetched;
    const status = failureStatus(clientId, previous, failure, sourceUrl(record.keySource), nowMs, deps.refreshIntervalS);
    const written = await store.putStatus(record, status);
    return {
      clientId,
      ok: false,
      added: [],
      removed: [],
      unchanged: false,
      error: { code: failure.code, message: failure.message, ...(failure.status !== undefined ? { status: failure.status } : {}) },
      record,
      status,
      ...(written ? {} : { superseded: true }),
    };
  }

  /** A successful fetch applied; undefined when none of its keys can be used (a failure). */
  async function applyKeys(record: ClientRecord, fetched: FetchedKeySet, nowMs: number, actor: Actor): Promise<ClientRefreshOutcome | undefined> {
    const at = new Date(nowMs).toISOString();
    const selection = await selectPublishedKeys(fetched, {
      clientId: record.clientId,
      at,
      held: new Set(record.keys.map((k) => k.fingerprint)),
      owners: (fingerprints) => store.keyOwners(fingerprints),
      requireSignedDirectories: deps.requireSignedDirectories,
      directory: record.keySource !== undefined && 'signatureAgent' in record.keySource,
    });
    if (selection.keys.length === 0) return undefined;
    const status = successStatus(record.clientId, fetched, selection.refused, nowMs, deps.refreshIntervalS);
    const before = new Set(record.keys.map((k) => k.fingerprint));
    const after = new Set(selection.keys.map((k) => k.fingerprint));
    const added = selection.keys.filter((k) => !before.has(k.fingerprint)).map((k) => k.fingerprint);
    const removed = record.keys.filter((k) => !after.has(k.fingerprint)).map((k) => k.fingerprint);
    if (added.length === 0 && removed.length === 0 && sameAttributes(record.keys, selection.keys)) {
      const written = await store.touchKeysFetched(record, at, status);
      return { clientId: record.clientId, ok: true, added, removed, unchanged: true, record: written ? { ...record, keysFetchedAt: at } : record, status, ...(written ? {} : { superseded: true }) };
    }
    try {
      const next = await store.replacePublishedKeys(record, selection.keys, at, status, actor);
      return { clientId: record.clientId, ok: true, added, removed, unchanged: false, record: next, status };
    } catch (error) {
      if (error instanceof SignetError && (error.code === 'version_conflict' || error.code === 'key_already_registered')) {
        // An edit, or another client taking a new key, came first: nothing written; the next run fetches again.
        return { clientId: record.clientId, ok: true, added: [], removed: [], unchanged: false, record, superseded: true };
      }
      throw error;
    }
  }

  async function refreshDue(options: { limit?: number } = {}): Promise<RefreshRunSummary> {
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    const pageSize = deps.pageSize ?? DEFAULT_REFRESH_PAGE_SIZE;
    const concurrency = Math.max(1, deps.concurrency ?? DEFAULT_REFRESH_CONCURRENCY);
    // One instant for the whole run's due list, so sources rescheduled by this run are not read again.
    const dueAt = new Date(deps.nowMs()).toISOString();
    const summary = { checked: 0, refreshed: 0, unchanged: 0, failed: 0, failingOverAnHour: 0, keysAdded: 0, keysRemoved: 0 };
    let cursor: string | undefined;
    do {
      const page = await store.dueSources(dueAt, cursor, Math.min(pageSize, limit - summary.checked));
      cursor = page.nextCursor;
      const ids = page.items.slice(0, limit - summary.checked);
      for (let i = 0; i < ids.length; i += concurrency) {
        const outcomes = await Promise.all(ids.slice(i, i + concurrency).map((id) => refreshClient(id, REFRESHER_ACTOR).catch(() => undefined)));
        for (const outcome of outcomes) {
          // A source whose storage call failed counts as failed; it stays due, so the next run tries it again.
          if (outcome === undefined) {
            summary.checked += 1;
            summary.failed += 1;
            continue;
          }
          if (outcome.record === undefined) continue;
          summary.checked += 1;
          if (!outcome.ok) summary.failed += 1;
          else if (outcome.unchanged) summary.unchanged += 1;
          else if (outcome.superseded !== true) summary.refreshed += 1;
          summary.keysAdded += outcome.added.length;
          summary.keysRemoved += outcome.removed.length;
          const failingSince = outcome.status?.failingSince;
          if (failingSince !== undefined && deps.nowMs() - Date.parse(failingSince) > FAILING_ALARM_AFTER_MS) summary.failingOverAnHour += 1;
        }
      }
    } while (cursor !== undefined && summary.checked < limit);
    return summary;
  }

  return { refreshDue, refreshClient };
}

/** A fetch whose keys are all unusable, as a failure naming why. */
function unusable(fetched: FetchedKeySet): { code: string; message: string; url: string; status?: number; retryAfterS?: number } {
  return { code: 'no_usable_key', message: `${fetched.url} publishes no key this client can use (each is refused, held by another client, or not signed by the directory).`, url: fetched.url };
}

function sourceUrl(source: KeySource): string {
  return 'jwksUri' in source ? source.jwksUri : source.signatureAgent;
}

/** The same keys with the same published attributes (a changed `exp` or `kid` is a change of the set). */
function sameAttributes(a: readonly StoredPublicKey[], b: readonly StoredPublicKey[]): boolean {
  const shape = (k: StoredPublicKey): string => JSON.stringify([k.fingerprint, k.algorithm ?? '', k.kid ?? '', k.notBefore ?? '', k.expires ?? '', k.thumbprint ?? ''].join('|'));
  const left = a.map(shape).sort();
  const right = b.map(shape).sort();
  return left.length === right.length && left.every((v, i) => v === right[i]);
}
