/**
 * The authorizer's view of the registry: client records by keyid, through bounded in-memory
 * caches, with their keys imported once. A keyid is a clientId, or the RFC 7638 thumbprint of
 * one of a client's keys (how Web Bot Auth agents and JWKS publishers name their keys), found
 * through the thumbprint index; then the client's only key is the one with that thumbprint, so a
 * key fetched for one client never verifies for another.
 *
 * - A fresh hit (younger than the TTL) makes no DynamoDB read: the warm path is read-free.
 * - Unknown clientIds are remembered for a short time in a SEPARATE bounded cache, so a flood
 *   of random keyids cannot evict the known clients.
 * - If the store fails, a cached record is served while it is younger than `staleIfErrorMs`;
 *   past that, or with nothing cached, the lookup fails closed (`dependency_unavailable`).
 *   It never answers "allowed" for a client it could not read. After serving a stale record the
 *   store is left alone for `staleRetryMs` (the record's age still counts against the bound), so
 *   an outage or throttling does not cost every request a failed read and a retry storm.
 * - Concurrent lookups of one clientId share one read.
 */
import { DEFAULT_RSA_ALGORITHM } from '../core/algorithms';
import { BoundedCache } from '../core/bounded-cache';
import {
  DEFAULT_CLIENT_CACHE_MAX_ENTRIES,
  DEFAULT_CLIENT_CACHE_TTL_MS,
  DEFAULT_NEGATIVE_CACHE_TTL_MS,
  DEFAULT_STALE_IF_ERROR_MS,
} from '../core/defaults';
import { SignetError, isSignetError } from '../core/errors';
import { IpAllowList, compileAllowList } from '../core/ip-policy';
import { isThumbprintKeyId } from '../core/jwk-thumbprint';
import { PublicKeyCache } from '../core/keys';
import { VerificationKey } from '../core/verify';
import type { ClientReader } from '../domain/authorizer-ports';
import { type ClientRecord, keepBoundS, keepSeconds, keyValidity } from '../domain/client-record';

/** How long a stale record is used without asking the store again, once a read has failed, in ms. @default 5_000 */
export const DEFAULT_STALE_RETRY_MS = 5_000;

/** A client record made ready for verification. */
export interface ResolvedClient {
  readonly record: ClientRecord;
  /** The stored keys that may verify; a key that does not import, or is weak, is not among them. */
  readonly keys: readonly VerificationKey[];
  /** Stored keys left out of `keys`, with the reason code (`weak_key`, `invalid_public_key`, ...). */
  readonly refusedKeys: readonly { readonly fingerprint: string; readonly reason: string }[];
  readonly allowList: IpAllowList;
  /**
   * For a client whose keys come from a published source: unix seconds after which they stop
   * verifying because the source has not been fetched successfully since `keysFetchedAt`
   * (the keep bound, SIGNET_KEY_SOURCE_KEEP_DAYS).
   */
  readonly keptUntilS?: number;
  /**
   * The agent a covered Signature-Agent must name (lambda/authorizer/authorize.ts), read once per
   * record: the origin of a `signatureAgent` source, the URL of a `jwksUri` source; absent for a
   * client with registered keys, or a stored source that no longer parses (then none matches).
   */
  readonly agent?: { readonly origin: string } | { readonly href: string };
}

export interface ClientDirectoryOptions {
  /** @default DEFAULT_CLIENT_CACHE_TTL_MS (60 s) */
  readonly ttlMs?: number;
  /** @default DEFAULT_NEGATIVE_CACHE_TTL_MS (10 s) */
  readonly negativeTtlMs?: number;
  /** @default DEFAULT_STALE_IF_ERROR_MS (15 min) */
  readonly staleIfErrorMs?: number;
  /** After a failed read served a stale record, how long before the store is tried again. @default DEFAULT_STALE_RETRY_MS (5 s) */
  readonly staleRetryMs?: number;
  /** @default DEFAULT_CLIENT_CACHE_MAX_ENTRIES (10,000) */
  readonly maxEntries?: number;
  /** Shared imported-key cache. @default a new PublicKeyCache */
  readonly keyCache?: PublicKeyCache;
  /** Clock in ms. @default Date.now */
  readonly nowMs?: () => number;
  /**
   * How long published keys keep verifying after their source's last successful fetch, in days:
   * each one's not-after is the earlier of its `exp` and `keysFetchedAt` + this.
   * @default DEFAULT_KEY_SOURCE_KEEP_DAYS (7)
   */
  readonly keySourceKeepDays?: number;
  /** Told when a stale record is served because the store failed (for logs and metrics). */
  readonly onStaleServed?: (clientId: string, error: unknown) => void;
  /**
   * Told when a stored key is not used for verification: it no longer imports, does not match its
   * fingerprint, or is weak (`weak_key`: a record written before keys were checked). Once per
   * record read, not per request.
   */
  readonly onKeyRefused?: (clientId: string, fingerprint: string, error: unknown) => void;
}

interface Entry {
  readonly client: ResolvedClient;
  readonly fetchedAtMs: number;
}

/** Client lookups for the authorizer. */
export class ClientDirectory {
  private readonly known: BoundedCache<string, Entry>;
  private readonly unknown: BoundedCache<string, true>;
  private readonly inFlight = new Map<string, Promise<ResolvedClient | undefined>>();
  private readonly ttlMs: number;
  private readonly negativeTtlMs: number;
  private readonly staleIfErrorMs: number;
  private readonly staleRetryMs: number;
  private readonly keyCache: PublicKeyCache;
  private readonly nowMs: () => number;
  private readonly keepS: number;
  /**
   * Reads asked of the store, for the benchmarks' "reads per request": an upper bound on
   * DynamoDB reads (one per clientId lookup, two per thumbprint lookup; the store answers keyids
   * of neither shape without a read).
   */
  reads = 0;

  constructor(
    private readonly reader: ClientReader,
    private readonly options: ClientDirectoryOptions = {},
  ) {
    const maxEntries = options.maxEntries ?? DEFAULT_CLIENT_CACHE_MAX_ENTRIES;
    this.known = new BoundedCache(maxEntries);
    this.unknown = new BoundedCache(maxEntries);
    this.ttlMs = options.ttlMs ?? DEFAULT_CLIENT_CACHE_TTL_MS;
    this.negativeTtlMs = options.negativeTtlMs ?? DEFAULT_NEGATIVE_CACHE_TTL_MS;
    this.staleIfErrorMs = options.staleIfErrorMs ?? DEFAULT_STALE_IF_ERROR_MS;
    this.staleRetryMs = options.staleRetryMs ?? DEFAULT_STALE_RETRY_MS;
    this.keyCache = options.keyCache ?? new PublicKeyCache();
    this.nowMs = options.nowMs ?? Date.now;
    this.keepS = keepSeconds(options.keySourceKeepDays);
  }

  /**
   * The client `keyId` names (a clientId, or the thumbprint of one of its keys: then with that key
   * only), or undefined when it names none. Cached by keyid: a warm lookup reads nothing.
   * @throws SignetError `dependency_unavailable` when the store fails and no usable cached record exists
   */
  async get(keyId: string): Promise<ResolvedClient | undefined> {
    const now = this.nowMs();
    const hit = this.known.get(keyId, now);
    if (hit !== undefined) return hit.client;
    if (this.unknown.get(keyId, now) !== undefined) return undefined;
    const pending = this.inFlight.get(keyId);
    if (pending !== undefined) return pending;
    const lookup = this.load(keyId).finally(() => this.inFlight.delete(keyId));
    this.inFlight.set(keyId, lookup);
    return lookup;
  }

  /**
   * The client for `keyId` when a fresh record of it is cached, else undefined; never reads
   * the store (what a refusal is attributed with: junk must not cost a read).
   */
  cached(keyId: string): ResolvedClient | undefined {
    return this.known.get(keyId, this.nowMs())?.client;
  }

  /**
   * Forgets every cached client, known and unknown: the local gateway calls it after each registry
   * write it serves, so a disable, key removal or role change applies to the next request. (A
   * deployed authorizer runs apart from the registry and keeps a record for its TTL at most.)
   */
  forgetAll(): void {
    this.known.clear();
    this.unknown.clear();
  }

  /** Number of cached entries (known + unknown), for the memory benchmark. */
  get size(): number {
    return this.known.size + this.unknown.size;
  }

  private async load(keyId: string): Promise<ResolvedClient | undefined> {
    let client: ResolvedClient | undefined;
    try {
      client = isThumbprintKeyId(keyId) ? await this.loadByThumbprint(keyId) : await this.loadByClientId(keyId);
    } catch (error) {
      return this.staleOrFail(keyId, error);
    }
    const now = this.nowMs();
    if (client === undefined) {
      this.known.delete(keyId);
      this.unknown.set(keyId, true, now + this.negativeTtlMs);
      return undefined;
    }
    this.unknown.delete(keyId);
    this.known.set(keyId, { client, fetchedAtMs: now }, now + this.ttlMs);
    return client;
  }

  private async loadByClientId(clientId: string): Promise<ResolvedClient | undefined> {
    this.reads += 1;
    const record = await this.reader.getClient(clientId);
    return record === undefined ? undefined : this.resolve(record);
  }

  /**
   * The client holding the key with this thumbprint, resolved with that one key: a thumbprint
   * names a key, never the client's other keys. Undefined when the index names no key, or the
   * record no longer holds the key it names (removed since, or another key under that thumbprint).
   */
  private async loadByThumbprint(thumbprint: string): Promise<ResolvedClient | undefined> {
    this.reads += 2;
    const found = await this.reader.getClientByThumbprint(thumbprint);
    if (found === undefined) return undefined;
    const stored = found.record.keys.find((k) => k.fingerprint === found.fingerprint && (k.thumbprint === undefined || k.thumbprint === thumbprint));
    if (stored === undefined) return undefined;
    const client = this.resolve({ ...found.record, keys: [stored] });
    return client.keys.length === 0 && client.refusedKeys.length === 0 ? undefined : client;
  }

  private staleOrFail(clientId: string, error: unknown): ResolvedClient {
    const cached = this.known.peek(clientId);
    const now = this.nowMs();
    if (cached !== undefined && now - cached.value.fetchedAtMs <= this.staleIfErrorMs) {
      this.options.onStaleServed?.(clientId, error);
      // Re-armed with its original fetch time: the stale bound is still measured from the last good read.
      const staleUntil = cached.value.fetchedAtMs + this.staleIfErrorMs;
      this.known.set(clientId, cached.value, Math.min(now + this.staleRetryMs, staleUntil + 1));
      return cached.value.client;
    }
    throw new SignetError('dependency_unavailable', 'The client registry could not be read; the request was refused (fail closed). Retry shortly.', {
      cause: error,
    });
  }

  private resolve(record: ClientRecord): ResolvedClient {
    const keys: VerificationKey[] = [];
    const refusedKeys: { fingerprint: string; reason: string }[] = [];
    const keptUntilS = keepBoundS(record, this.keepS);
    for (const stored of record.keys) {
      // A corrupt or weak stored key is skipped, never trusted: the other keys still verify.
      try {
        const key = this.keyCache.get(stored.fingerprint, stored.spkiPem, stored.algorithm);
        // A published key verifies from its nbf until the earliest of its exp and the keep bound
        // after the last successful fetch: the rule the registry's operator count uses too.
        const { notAfterS, notBeforeS } = keyValidity(stored, record, this.keepS);
        keys.push({
          fingerprint: stored.fingerprint,
          key,
          algorithm: stored.algorithm ?? DEFAULT_RSA_ALGORITHM,
          notAfterS,
          ...(notBeforeS === undefined ? {} : { notBeforeS }),
        });
      } catch (error) {
        refusedKeys.push({ fingerprint: stored.fingerprint, reason: isSignetError(error) ? error.code : 'unreadable' });
        this.options.onKeyRefused?.(record.clientId, stored.fingerprint, error);
      }
    }
    const agent = agentOf(record.keySource);
    return {
      record,
      keys,
      refusedKeys,
      allowList: safeAllowList(record.networkWhitelist),
      ...(keptUntilS === undefined ? {} : { keptUntilS }),
      ...(agent === undefined ? {} : { agent }),
    };
  }
}

/** A stored whitelist that no longer parses allows nobody (fail closed) rather than failing every lookup. */
function safeAllowList(entries: readonly string[]): IpAllowList {
  try {
    return compileAllowList(entries);
  } catch {
    return { allowsEveryone: false, allows: () => false };
  }
}

/** What a covered Signature-Agent must name for a client with `source` (see ResolvedClient.agent). */
function agentOf(source: ClientRecord['keySource']): ResolvedClient['agent'] {
  if (source === undefined) return undefined;
  try {
    return 'signatureAgent' in source ? { origin: new URL(source.signatureAgent).origin } : { href: new URL(source.jwksUri).href };
  } catch {
    return undefined;
  }
}
