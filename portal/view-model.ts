/**
 * What the portal shows about a client, computed from the registry's views (ClientView, KeyView,
 * AuthFailure in docs/openapi/registry.json): key ages and the 90-day rotation flag (the core's
 * rule, lambda/core/key-age.ts, the one `signet keys expiring` answers by), failure lines for the
 * troubleshooting view. Pure functions, tested under Node.
 */

import { DEFAULT_ROTATION_DAYS, isKeyDue, keyAgeDays, removalLeavesNoActiveKey } from './signet-core';

/** Keys older than this many days are flagged for rotation (the rotation interval). */
export const ROTATION_DAYS = DEFAULT_ROTATION_DAYS;

/** What the page reads of a key the registry lists (KeyView). */
interface ListedKey {
  readonly fingerprint: string;
  readonly addedAt: string;
  readonly active: boolean;
  readonly notAfter?: string;
  /** The signature algorithm the key verifies (e.g. `ed25519`); a registry that does not say lists RSA keys only. */
  readonly algorithm?: string;
  /** When a request this key signed was last accepted (ISO-8601); absent: never. */
  readonly lastUsedAt?: string;
}

interface KeyLine {
  fingerprint: string;
  addedAt: string;
  ageDays: number;
  /** e.g. `today`, `1 day`, `120 days` */
  age: string;
  /** older than ROTATION_DAYS: rotate it */
  due: boolean;
  active: boolean;
  notAfter: string | undefined;
  /** the key type shown: the algorithm, or `RSA` */
  type: string;
  lastUsedAt: string | undefined;
  /** false for the client's last active key: the registry refuses to remove it (`last_key`) */
  removable: boolean;
}

/** The key type shown: the registry's algorithm when it names one, else RSA (the only type before algorithms were listed). */
export function keyType(key: { readonly algorithm?: string }) {
  return key.algorithm ?? 'RSA';
}

/**
 * A key's line in the details.
 * @param keys all the client's keys (whether this one may be removed depends on them)
 */
export function keyLine(key: ListedKey, nowMs: number, keys: readonly ListedKey[] = [key]): KeyLine {
  const ageDays = keyAgeDays(key.addedAt, nowMs);
  return {
    fingerprint: key.fingerprint,
    addedAt: key.addedAt,
    ageDays,
    age: ageDays <= 0 ? 'today' : ageDays === 1 ? '1 day' : `${ageDays} days`,
    due: isKeyDue(key.addedAt, nowMs, ROTATION_DAYS),
    active: key.active,
    notAfter: key.notAfter,
    type: keyType(key),
    lastUsedAt: key.lastUsedAt,
    removable: !removalLeavesNoActiveKey(keys, key, (k) => k.active),
  };
}

/**
 * The summary shown in the client list: how many keys, and whether one is due for rotation.
 */
export function keySummary(client: { readonly keys: readonly ListedKey[] }, nowMs: number) {
  const lines = client.keys.map((k) => keyLine(k, nowMs, client.keys));
  const due = lines.filter((l) => l.due).length;
  const count = lines.length === 1 ? '1 key' : `${lines.length} keys`;
  return { lines, due, text: due === 0 ? count : `${count}, ${due} older than ${ROTATION_DAYS} days` };
}

/**
 * "never" for a client or key no accepted request used yet, else the instant as `format` writes it.
 */
export function lastUsedText(item: { readonly lastUsedAt?: string }, format: (iso: string) => string) {
  return item.lastUsedAt === undefined ? 'never' : format(item.lastUsedAt);
}

/**
 * One recent authentication failure, for the troubleshooting view.
 */
export function failureLine(failure: { at: string; reason: string; message?: string; sourceIp?: string; method?: string; path?: string; fingerprint?: string; }) {
  return {
    at: failure.at,
    reason: failure.reason,
    message: failure.message ?? '',
    request: [failure.method, failure.path].filter(Boolean).join(' '),
    sourceIp: failure.sourceIp ?? '',
    fingerprint: failure.fingerprint ?? '',
  };
}

/**
 * The counts of refusals anyone could have caused by naming the client (requests no key of it
 * signed), one row per window and reason, newest window first, for the troubleshooting view.
 */
export function unauthenticatedRows(unauthenticated: { windowSeconds: number; windows: { start: string; counts: Record<string, number>; }[]; } | undefined) {
  if (!unauthenticated) return [];
  return unauthenticated.windows.flatMap((w) =>
    Object.entries(w.counts)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([reason, count]) => ({ start: w.start, end: new Date(Date.parse(w.start) + unauthenticated.windowSeconds * 1000).toISOString(), reason, count })),
  );
}

/**
 * A fingerprint shortened for a table cell (the full one goes in a title and the details).
 */
export function shortFingerprint(fingerprint: string) {
  return fingerprint.length > 16 ? `${fingerprint.slice(0, 8)}…${fingerprint.slice(-6)}` : fingerprint;
}
