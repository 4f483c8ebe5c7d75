/**
 * The client record as the store returns it: one read returns everything needed to verify a
 * request. Below the store and its users (the authorizer, the registry, the rotation), so each
 * of them reads the same record without importing another.
 */

import type { SignatureAlgorithm } from '../core/algorithm-names';
import type { CoverageProfile } from '../core/profile-names';

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
  /** One or more keys; several during a rollover. */
  readonly keys: readonly StoredPublicKey[];
  /** Optimistic-concurrency version, starting at 1, +1 on every change. */
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** True while `key` verifies at `nowMs`: it has no not-after, or its not-after is still ahead. */
export function isKeyActive(key: StoredPublicKey, nowMs: number): boolean {
  return key.notAfter === undefined || Date.parse(key.notAfter) > nowMs;
}
