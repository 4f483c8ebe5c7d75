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
 *   A scheduled run counts every next fetch from its start, and takes as due what falls due
 *   within a small slack of it (./published-keys.ts `dueSlackMs`), so a source fetched in one run
 *   is due at the next even when the schedule fires a little early.
 * - failure: the keys stay (they verify until the keep bound after the last success; the
 *   authorizer enforces it), the status records the error, since when it fails and how often;
 *   except that a well-formed set with no usable key ends now the keys it no longer lists (the
 *   publisher withdrew them);
 *   next fetch after a backoff from 1 min doubling up to the interval, and no sooner than the
 *   source's Retry-After (at most 24 h).
 * Every write is conditioned on the record's version the fetch was planned from: an edit made
 * meanwhile wins, and the source is fetched again on the next run.
 *
 * Each run also counts every source failing for over an hour (the alarm's metric) from the
 * failing-sources list (one item, read once per run; see lambda/store/table-schema.ts), and with
 * a deadline stops starting fetches in time, leaving the rest due (`deferred`), soonest first.
 */
import { SignetError } from '../core/errors';
import type { ClientRecord, KeySource, StoredPublicKey } from '../domain/client-record';
import type { KeySourceStatus, KeySourceStore } from '../domain/key-source-store';
import type { Actor } from '../domain/store-types';
import { keyThumbprint } from '../store/item-codec';
import type { KeySourceFetch } from './fetch-key-source';
import { type FetchedKeySet, dueSlackMs, failureStatus, heldThumbprints, selectPublishedKeys, successStatus } from './published-keys';

/** The actor the audit trail names for the scheduled run's changes. */
export const REFRESHER_ACTOR = 'key-source-refresher';

/** Sources failing for longer than this are counted in `failingOverAnHour` (the alarm's metric). */
export const FAILING_ALARM_AFTER_MS = 3_600_000;

/** Due sources read per Query. */
export const DEFAULT_REFRESH_PAGE_SIZE = 100;
/** Sources fetched at once. */
export const DEFAULT_REFRESH_CONCURRENCY = 16;
/**
 * The time a batch of fetches may take (each fetch's own 5 s deadline, then its reads and writes):
 * a run with a deadline starts no batch with less than this left.
 */
export const BATCH_RESERVE_MS = 10_000;

export interface KeySourceRefresherDeps {
  readonly store: KeySourceStore;
  /** Fetches a source; `held`, the thumbprints of the keys the client holds (FetchKeySourceOptions.heldThumbprints). */
  readonly fetch: (source: KeySource, held?: ReadonlySet<string>) => Promise<KeySourceFetch>;
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
  /**
   * Sources whose failures started more than an hour ago, whether this run fetched them or not
   * (one waiting out a long Retry-After or backoff included): the alarm's metric, 0 included.
   */
  readonly failingOverAnHour: number;
  /** Sources due that this run left for the next (its deadline or limit came first). */
  readonly deferred: number;
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

export interface RefreshDueOptions {
  /** At most this many sources. */
  readonly limit?: number;
  /**
   * The instant (ms, the refresher's clock) by which the run must be done: no batch of fetches
   * starts with less than {@link BATCH_RESERVE_MS} left; the sources not reached stay due
   * (`deferred`). The Lambda passes its remaining time less a margin. None: no time budget.
   */
  readonly deadlineMs?: number;
}

export interface KeySourceRefresher {
  refreshDue(options?: RefreshDueOptions): Promise<RefreshRunSummary>;
  refreshClient(clientId: string, actor: Actor): Promise<ClientRefreshOutcome>;
}

export function createKeySourceRefresher(deps: KeySourceRefresherDeps): KeySourceRefresher {
  const { store } = deps;

  function refreshClient(clientId: string, actor: Actor): Promise<ClientRefreshOutcome> {
    return refreshSource(clientId, actor, deps.nowMs(), undefined);
  }

  /**
   * One source refreshed. `plannedFromMs`: the instant its next fetch is counted from (the run's
   * start). `listedSince`: its entry in the failing-sources list as the run read it, if any.
   */
  async function refreshSource(clientId: string, actor: Actor, plannedFromMs: number, listedSince: string | undefined): Promise<ClientRefreshOutcome> {
    const [record, previous] = await Promise.all([store.getClient(clientId), store.getStatus(clientId)]);
    const listed = listedSince !== undefined || previous?.failingSince !== undefined;
    if (record?.keySource === undefined) {
      // A status left for a client that is gone or went back to registered keys: off the failing
      // list first (a crash in between leaves the status, found again next run), then off the due list.
      if (listed) await store.clearFailing(clientId);
      if (previous !== undefined) await store.deleteStatus(clientId);
      return { clientId, ok: false, added: [], removed: [], unchanged: false, error: { code: 'no_key_source', message: `Client ${clientId} has no key source.` } };
    }
    const fetched = await deps.fetch(record.keySource, heldThumbprints(record.keys));
    const nowMs = deps.nowMs();
    /** The registry's refusal of the keys fetched (the last operator would be left without a lasting key). */
    let refused: { code: string; message: string; url: string; status?: number } | undefined;
    if (fetched.ok) {
      try {
        const success = await applyKeys(record, fetched, nowMs, plannedFromMs, actor);
        if (success !== undefined) {
          if (listed && success.status !== undefined && success.superseded !== true) await store.clearFailing(clientId);
          return success;
        }
      } catch (error) {
        // Recorded as a failure of the source, so that it backs off, is listed as failing and counted by the alarm.
        if (!(error instanceof SignetError) || error.code !== 'last_admin') throw error;
        refused = { code: error.code, message: error.message, url: fetched.url };
      }
    }
    const failure = refused ?? (fetched.ok ? unusable(fetched) : fetched);
    const status = failureStatus(clientId, previous, failure, sourceUrl(record.keySource), nowMs, deps.refreshIntervalS, plannedFromMs);
    // A JWKS with no usable key still says which keys its publisher withdrew: those end now (a
    // publisher emptying its set revokes a leaked key), the rest stay until the keep bound.
    const withdrawn = 'jwksUri' in record.keySource ? withdrawnKeys(record, fetched.listed, nowMs) : new Set<string>();
    let written: boolean | undefined;
    let current = record;
    if (withdrawn.size > 0) {
      try {
        current = await store.dropWithdrawnKeys(record, withdrawn, status, actor);
        // Unchanged when the keys had ended meanwhile (another clock's "now"): the status is still to write.
        if (current.version !== record.version) written = true;
      } catch (error) {
        if (!(error instanceof SignetError)) throw error;
        // An edit came first (nothing written; the next run fetches again), or the last operator
        // would be left without a key: then the keys stay, as after any failure, and the status says why.
        if (error.code === 'version_conflict') written = false;
        else if (error.code !== 'last_admin') throw error;
      }
    }
    written ??= await store.putStatus(current, status);
    const ended = current.version !== record.version ? [...withdrawn] : [];
    // Listed after its status is written (the status is the truth the run checks the list against).
    if (written && status.failingSince !== undefined) await store.markFailing(clientId, status.failingSince);
    return {
      clientId,
      ok: false,
      added: [],
      removed: ended,
      unchanged: false,
      error: { code: failure.code, message: failure.message, ...(failure.status !== undefined ? { status: failure.status } : {}) },
      record: current,
      status,
      ...(written ? {} : { superseded: true }),
    };
  }

  /** A successful fetch applied; undefined when none of its keys can be used (a failure). */
  async function applyKeys(record: ClientRecord, fetched: FetchedKeySet, nowMs: number, plannedFromMs: number, actor: Actor): Promise<ClientRefreshOutcome | undefined> {
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
    const status = successStatus(record.clientId, fetched, selection.refused, nowMs, deps.refreshIntervalS, plannedFromMs);
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

  async function refreshDue(options: RefreshDueOptions = {}): Promise<RefreshRunSummary> {
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    const pageSize = deps.pageSize ?? DEFAULT_REFRESH_PAGE_SIZE;
    const concurrency = Math.max(1, deps.concurrency ?? DEFAULT_REFRESH_CONCURRENCY);
    // The run's start: every next fetch this run plans counts from it, so a source fetched late in
    // the run is due again at the next one. The due list is what falls due within the slack of it
    // (one instant for the whole run, so sources rescheduled by this run are not read again).
    const startedMs = deps.nowMs();
    const dueAt = new Date(startedMs + dueSlackMs(deps.refreshIntervalS)).toISOString();
    const listed = new Map(await store.failingSources());
    /** What this run left each source it handled at: its status, or null (no source any more). */
    const handled = new Map<string, KeySourceStatus | null>();
    const summary = { checked: 0, refreshed: 0, unchanged: 0, failed: 0, failingOverAnHour: 0, deferred: 0, keysAdded: 0, keysRemoved: 0 };
    const timeLeft = (): boolean => options.deadlineMs === undefined || deps.nowMs() + BATCH_RESERVE_MS <= options.deadlineMs;
    let cursor: string | undefined;
    let stopped = false;
    let pages = 0;
    do {
      if (!timeLeft()) {
        stopped = true;
        break;
      }
      const page = await store.dueSources(dueAt, cursor, Math.min(pageSize, limit - summary.checked));
      pages += 1;
      cursor = page.nextCursor;
      const ids = page.items.slice(0, limit - summary.checked);
      for (let i = 0; i < ids.length; i += concurrency) {
        // No batch starts unless it can finish before the deadline: the rest are left due, soonest first next run.
        if (i > 0 && !timeLeft()) {
          summary.deferred += ids.length - i;
          stopped = true;
          break;
        }
        const batch = ids.slice(i, i + concurrency);
        const outcomes = await Promise.all(batch.map((id) => refreshSource(id, REFRESHER_ACTOR, startedMs, listed.get(id)).catch(() => undefined)));
        outcomes.forEach((outcome, j) => {
          // A source whose storage call failed counts as failed; it stays due, so the next run tries it again.
          if (outcome === undefined) {
            summary.checked += 1;
            summary.failed += 1;
            return;
          }
          if (outcome.record === undefined) {
            handled.set(batch[j], null);
            return;
          }
          summary.checked += 1;
          if (!outcome.ok) summary.failed += 1;
          else if (outcome.unchanged) summary.unchanged += 1;
          else if (outcome.superseded !== true) summary.refreshed += 1;
          summary.keysAdded += outcome.added.length;
          summary.keysRemoved += outcome.removed.length;
          if (outcome.status !== undefined && outcome.superseded !== true) handled.set(batch[j], outcome.status);
        });
      }
    } while (!stopped && cursor !== undefined && summary.checked < limit);
    // Sources left due (deadline or limit): counted from where the run stopped.
    if (cursor !== undefined || (stopped && pages === 0)) summary.deferred += await store.countDueSources(dueAt, cursor);
    summary.failingOverAnHour = await countFailingOverAnHour(listed, handled);
    return summary;
  }

  /**
   * Every source failing for over an hour, due in this run or not: the sources this run handled
   * by the status it wrote, the others by the failing-sources list read at the start, each entry
   * over an hour old checked against its status item (the truth) and dropped when that is gone
   * or no longer failing.
   */
  async function countFailingOverAnHour(listed: ReadonlyMap<string, string>, handled: ReadonlyMap<string, KeySourceStatus | null>): Promise<number> {
    const cutoff = deps.nowMs() - FAILING_ALARM_AFTER_MS;
    const over = (since: string | undefined): boolean => since !== undefined && Date.parse(since) < cutoff;
    let count = 0;
    for (const status of handled.values()) if (over(status?.failingSince)) count += 1;
    const unchecked = [...listed].filter(([clientId, since]) => !handled.has(clientId) && over(since));
    if (unchecked.length === 0) return count;
    const statuses = await store.getStatuses(unchecked.map(([clientId]) => clientId));
    for (const [clientId, since] of unchecked) {
      const status = statuses.get(clientId);
      if (over(status?.failingSince)) count += 1;
      else if (status?.failingSince === undefined) await store.clearFailing(clientId, since);
    }
    return count;
  }

  return { refreshDue, refreshClient };
}

/**
 * The fingerprints of the client's keys, still verifying at `nowMs`, that a read set no longer
 * lists (none when the set was not read key by key, or lists an entry it could not read: that one
 * may be any of them).
 */
function withdrawnKeys(record: ClientRecord, listed: readonly (string | undefined)[] | undefined, nowMs: number): ReadonlySet<string> {
  if (listed === undefined || listed.includes(undefined)) return new Set();
  const still = new Set(listed);
  const verifying = record.keys.filter((key) => key.notAfter === undefined || Date.parse(key.notAfter) > nowMs);
  return new Set(verifying.filter((key) => !still.has(key.thumbprint ?? keyThumbprint(key) ?? '')).map((key) => key.fingerprint));
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
  // notAfter too: a key ended because its set no longer listed it comes back when it is listed again.
  const shape = (k: StoredPublicKey): string => JSON.stringify([k.fingerprint, k.algorithm ?? '', k.kid ?? '', k.notBefore ?? '', k.expires ?? '', k.thumbprint ?? '', k.notAfter ?? ''].join('|'));
  const left = a.map(shape).sort();
  const right = b.map(shape).sort();
  return left.length === right.length && left.every((v, i) => v === right[i]);
}
