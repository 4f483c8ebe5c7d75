/**
 * The client record as the store returns it: one read returns everything needed to verify a
 * request. Below the store and its users (the authorizer, the registry, the rotation), so each
 * of them reads the same record without importing another.
 */

import type { SignatureAlgorithm } from '../core/algorithm-names';
import type { KeySource } from '../core/key-source-url';
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

/** True while `key` verifies at `nowMs`: it has no not-after, or its not-after is still ahead. */
export function isKeyActive(key: StoredPublicKey, nowMs: number): boolean {
  return key.notAfter === undefined || Date.parse(key.notAfter) > nowMs;
}
