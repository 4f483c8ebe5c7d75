/**
 * testSecret's check: a request signed with the pending key must verify against the client's
 * registry record through the SAME core verifier the authorizer runs (parse and check, then
 * verify with the record's keys, not-after included), not through a shortcut `crypto.verify`.
 */
import { KeyObject } from 'node:crypto';
import { SignetError } from '../core/errors';
import { importPublicKey } from '../core/keys';
import { signRequest } from '../core/sign';
import { SignedRequest } from '../core/types';
import { VerificationKey, defaultVerifyPolicy, parseRequestSignature, verifyParsedSignature } from '../core/verify';
import type { ClientRecord } from '../domain/client-record';

/** The URL the probe is signed for; `.invalid` (RFC 2606): it is never sent anywhere. */
export const ROTATION_PROBE_URL = 'https://rotation-probe.signet.invalid/signet/rotation-probe?check=pending-key';

/** Input of {@link probePendingKey}. */
export interface PendingKeyProbe {
  /** The client (the probe's keyid). */
  readonly clientId: string;
  /** The pending private key. */
  readonly privateKey: KeyObject;
  /** Its fingerprint, which must be the key that verifies. */
  readonly fingerprint: string;
  /** The client's record, as the registry holds it now. */
  readonly record: ClientRecord;
  /** The current time, unix seconds (signing time and the verifier's clock). */
  readonly nowS: number;
}

/**
 * The record's keys as the verifier takes them, imported through the core (the same conversion
 * as the authorizer's client directory). A key that no longer imports is skipped.
 */
export function verificationKeysOf(record: ClientRecord): VerificationKey[] {
  const keys: VerificationKey[] = [];
  for (const stored of record.keys) {
    let key: KeyObject;
    try {
      key = importPublicKey(stored.spkiPem).key;
    } catch {
      continue;
    }
    if (stored.notAfter === undefined) {
      keys.push({ fingerprint: stored.fingerprint, key });
    } else {
      // An unreadable not-after counts as long past (fail closed), as in the authorizer.
      const notAfterMs = Date.parse(stored.notAfter);
      keys.push({ fingerprint: stored.fingerprint, key, notAfterS: Number.isNaN(notAfterMs) ? 0 : Math.floor(notAfterMs / 1000) });
    }
  }
  return keys;
}

/**
 * Signs a probe (POST with a body, so Content-Digest is covered too) with the pending key and
 * verifies it against the record.
 * @throws SignetError the verifier's code (`signature_mismatch` when the record lacks the key,
 *   `key_expired` when its not-after has passed), or `internal_error` when another key verified
 */
export function probePendingKey(probe: PendingKeyProbe): void {
  const body = JSON.stringify({ probe: 'signet key rotation', clientId: probe.clientId });
  const { headers } = signRequest({
    method: 'POST',
    url: ROTATION_PROBE_URL,
    body,
    keyId: probe.clientId,
    privateKey: probe.privateKey,
    created: probe.nowS,
  });
  const request: SignedRequest = {
    method: 'POST',
    targetUri: ROTATION_PROBE_URL,
    headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    hasBody: true,
  };
  const policy = defaultVerifyPolicy({ nowS: () => probe.nowS });
  const parsed = parseRequestSignature(request, policy);
  const { fingerprint } = verifyParsedSignature(parsed, verificationKeysOf(probe.record), policy);
  if (fingerprint !== probe.fingerprint) {
    throw new SignetError('internal_error', `The rotation probe verified with key ${fingerprint}, not with the pending key ${probe.fingerprint}.`);
  }
}
