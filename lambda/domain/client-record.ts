/**
 * The client record as the store returns it: one read returns everything needed to verify a
 * request. Below the store and its users (the authorizer, the registry, the rotation), so each
 * of them reads the same record without importing another.
 */

import type { SignatureAlgorithm } from '../core/algorithm-names';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../core/defaults';
import type { KeySource } from '../core/key-source-url';
import { type KeyValidity, isValidAt } from '../core/key-validity';
import type { CoverageProfile } from '../core/profile-names';

export type { KeySource };

/** `disabled` clients are refused by the authorizer (`client_disabled`). */
export type ClientStatus = 'active' | 'disabled';

/** One public key registered on a client. */
export interface StoredPublicKey {
  /** SHA-256 of the SPKI DER, base64url (see `fingerprintOf` in lambda/core/keys.ts). */
  readonly fingerprint: string;
  /** Canonical SPKI PEM. */
  readonly spkiPem: string;
  /**
   * The one signature algorithm the key verifies (lambda/core/algorithms.ts). Absent on keys
   * registered before keys had one: the key type's own (RSA: rsa-v1_5-sha256).
   */
  readonly algorithm?: SignatureAlgorithm;
  /** ISO-8601 instant the key was added. */
  readonly addedAt: string;
  /** ISO-8601 instant after which the key no longer verifies (set on the old key by a rollover). */
  readonly notAfter?: string;
  /**
   * RFC 7638 SHA-256 JWK thumbprint, base64url (lambda/core/jwk-thumbprint.ts): a keyid that
   * names this key. Absent on keys registered before thumbprints were recorded.
   */
  readonly thumbprint?: string;
  /** True for a key read from the client's published key source ({@link ClientRecord.keySource}); absent for a registered one. */
  readonly published?: true;
  /** A published key's JWK `kid`, when it has one. */
  readonly kid?: string;
  /** A published key's `nbf`, ISO-8601: it does not verify before then. */
  readonly notBefore?: string;
  /** A published key's `exp`, ISO-8601: it does not verify from then on. */
  readonly expires?: string;
}

export interface ClientRecord {
  /** Service-generated, unguessable, URL-safe; what signers put in `keyid`. */
  readonly clientId: string;
  /**
   * The account (partner organisation) the client belongs to; fixed at creation. Records written
   * before accounts existed read as DEFAULT_ACCOUNT_ID (./account-id.ts).
   */
  readonly accountId: string;
  readonly name: string;
  readonly status: ClientStatus;
  /** Canonical allow-list entries (see `normaliseNetworkEntry` in lambda/core/network-entries.ts). */
  readonly networkWhitelist: readonly string[];
  readonly roles: readonly string[];
  /**
   * What this client's signatures must cover (lambda/core/profiles.ts), overriding the
   * deployment's SIGNET_PROFILE; absent: the deployment's. Not in the list index: listings leave it out.
   */
  readonly profile?: CoverageProfile;
  /**
   * One or more keys; several during a rollover. For a client with a {@link keySource}, the keys
   * its last successful fetch found (each `published`), replaced by the next one that differs.
   */
  readonly keys: readonly StoredPublicKey[];
  /**
   * Where the client's keys are published (a JWKS URL, or a Web Bot Auth directory origin),
   * refreshed off the request path; absent: the keys are the ones registered with the registry.
   */
  readonly keySource?: KeySource;
  /**
   * ISO-8601 instant of the last successful fetch of {@link keySource}. Published keys verify only
   * within the deployment's keep bound after it (SIGNET_KEY_SOURCE_KEEP_DAYS, default 7 days):
   * a source that keeps failing never evicts keys sooner, and never keeps them longer.
   */
  readonly keysFetchedAt?: string;
  /** Optimistic-concurrency version, starting at 1, +1 on every change. */
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/**
 * True while `key` has no not-after, or its not-after is still ahead: the registered-key lifecycle
 * (rollover, pruning). Whether a key verifies is {@link keyVerifiesAt}.
 */
export function isKeyActive(key: StoredPublicKey, nowMs: number): boolean {
  return key.notAfter === undefined || Date.parse(key.notAfter) > nowMs;
}

/** What the keep bound and the key windows read of a client record. */
export type KeySourceFields = Pick<ClientRecord, 'keySource' | 'keysFetchedAt'>;

/**
 * The keep bound as the key rules take it, in seconds: `keepDays` days (SIGNET_KEY_SOURCE_KEEP_DAYS),
 * DEFAULT_KEY_SOURCE_KEEP_DAYS when not given.
 */
export function keepSeconds(keepDays: number | undefined): number {
  return (keepDays ?? DEFAULT_KEY_SOURCE_KEEP_DAYS) * 86_400;
}

/**
 * The keep bound of a client's published keys, in unix seconds: `keepS` after the last successful
 * fetch of its key source. Undefined for a client without a source or a fetch time; 0 (long past:
 * fail closed) when the fetch time does not parse.
 */
export function keepBoundS(record: KeySourceFields, keepS: number): number | undefined {
  return record.keySource === undefined || record.keysFetchedAt === undefined ? undefined : keptUntil(record.keysFetchedAt, keepS);
}

/**
 * When a stored key verifies, in unix seconds (the authorizer's rule): a published key from its
 * nbf; every key until the earliest of its not-after, its exp and, for a published key, the keep
 * bound after the last successful fetch (for a client with no fetch time, the fetch that added the
 * key). `keepS` is the deployment's keep bound in seconds (SIGNET_KEY_SOURCE_KEEP_DAYS).
 */
export function keyValidity(key: StoredPublicKey, record: KeySourceFields, keepS: number): KeyValidity {
  const bounds = [unixSeconds(key.notAfter), unixSeconds(key.expires)];
  if (key.published === true) bounds.push(keepBoundS(record, keepS) ?? keptUntil(key.addedAt, keepS));
  const notAfterS = minimum(bounds);
  const notBeforeS = unixSeconds(key.notBefore);
  return { ...(notAfterS === undefined ? {} : { notAfterS }), ...(notBeforeS === undefined ? {} : { notBeforeS }) };
}

/** True when `key` of `record` verifies a request at `nowMs`: {@link keyValidity}, compared as the verifier does (whole seconds). */
export function keyVerifiesAt(key: StoredPublicKey, record: KeySourceFields, keepS: number, nowMs: number): boolean {
  return isValidAt(keyValidity(key, record, keepS), Math.floor(nowMs / 1000));
}

/** An ISO-8601 instant as unix seconds; undefined when absent; 0 (long past: fail closed) when it does not parse. */
function unixSeconds(iso: string | undefined): number | undefined {
  if (iso === undefined) return undefined;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/** `fetchedAt` + `keepS`, in unix seconds; 0 (long past: fail closed) when the instant does not parse. */
function keptUntil(fetchedAt: string, keepS: number): number {
  const fetched = unixSeconds(fetchedAt) ?? 0;
  return fetched === 0 ? 0 : fetched + keepS;
}

function minimum(values: readonly (number | undefined)[]): number | undefined {
  let least: number | undefined;
  for (const value of values) if (value !== undefined && (least === undefined || value < least)) least = value;
  return least;
}
