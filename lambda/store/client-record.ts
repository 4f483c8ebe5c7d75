/**
 * The client record as the store returns it, and the read
 * interface the authorizer depends on. One read returns everything needed to verify a request.
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

/** What the authorizer needs from the store: one read by clientId. */
export interface ClientReader {
  /** The record, or undefined when no client has this id. Throws on a storage failure. */
  getClient(clientId: string): Promise<ClientRecord | undefined>;
}

/**
 * What the authorizer writes: the last authentication failures per client, so a partner can
 * troubleshoot (`GET /registry/clients/{clientId}/auth-failures`).
 */
export interface AuthFailureRecorder {
  /**
   * Records a refused request of a client the caller has just read (the authorizer records
   * nothing for a clientId it did not find); keeps only the most recent few, each expiring after
   * a TTL. Resolves false (and writes nothing) for an id of the wrong shape.
   * `detail` is a sentence, or structured fields; it must never hold a signature, base or key.
   */
  recordAuthFailure(
    clientId: string,
    reason: string,
    detail?: string | { message?: string; sourceIp?: string; method?: string; path?: string; fingerprint?: string },
  ): Promise<boolean>;
  /**
   * Adds `count` refusals with `reason` to the client's count for the current window: for
   * requests that named the client but no key of its signed, which anyone can send. Keeps no
   * text from the request; at most one item per client and window, each expiring after a TTL.
   * Resolves false (and writes nothing) when the clientId or the reason code is not valid.
   */
  countUnauthenticatedFailures(clientId: string, reason: string, count: number): Promise<boolean>;
}

/**
 * What the authorizer writes after an allowed request: that the key verified a request of the
 * client now (`lastUsedAt` in the registry's answers). One conditional write (a transaction
 * with a condition check), never a read.
 */
export interface KeyUseRecorder {
  /**
   * Records the use. Resolves false (and writes nothing) when the key is not registered to this
   * client, or a later use is already recorded. Throws on a storage failure.
   */
  recordKeyUse(clientId: string, fingerprint: string): Promise<boolean>;
}

/** True while `key` verifies at `nowMs`: it has no not-after, or its not-after is still ahead. */
export function isKeyActive(key: StoredPublicKey, nowMs: number): boolean {
  return key.notAfter === undefined || Date.parse(key.notAfter) > nowMs;
}
