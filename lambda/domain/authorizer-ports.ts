/**
 * What the authorizer needs from storage, stated below both: one read per client, the failure
 * log's writes, the keys' last use and the replay guard. lambda/store implements them on
 * DynamoDB; the authorizer and tests depend only on these interfaces.
 */
import type { ClientRecord } from './client-record';

/** What the authorizer needs from the store: one read by clientId, or two by a key's JWK thumbprint. */
export interface ClientReader {
  /** The record, or undefined when no client has this id. Throws on a storage failure. */
  getClient(clientId: string): Promise<ClientRecord | undefined>;
  /**
   * The client whose key has this RFC 7638 thumbprint, with that key's fingerprint: one read of
   * the thumbprint index, then the client record. Undefined when no key has it (or the keyid
   * cannot be a thumbprint, answered without a read). The record may no longer hold the key (a
   * change between the two reads): the caller checks. Throws on a storage failure.
   */
  getClientByThumbprint(thumbprint: string): Promise<{ readonly record: ClientRecord; readonly fingerprint: string } | undefined>;
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

/**
 * The replay port: the verifier (core) claims an accepted request's signatures through it, so it is
 * declared there; lambda/store/replay-store.ts implements it on DynamoDB.
 */
export type { ReplayClaim, ReplayGuard } from '../core/verify';
