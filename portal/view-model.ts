/**
 * What the portal shows about a client, computed from the registry's views (ClientView, KeyView,
 * AuthFailure in docs/openapi/registry.json): key ages and the 90-day rotation flag (the core's
 * rule, lambda/core/key-age.ts, the one `signet keys expiring` answers by), failure lines for the
 * troubleshooting view. Pure functions, tested under Node.
 */

import { DEFAULT_ROTATION_DAYS, isKeyDue, keyAgeDays } from './signet-core';

/** Keys older than this many days are flagged for rotation (the rotation interval). */
export const ROTATION_DAYS = DEFAULT_ROTATION_DAYS;

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
}

export function keyLine(key: { fingerprint: string; addedAt: string; active: boolean; notAfter?: string; }, nowMs: number): KeyLine {
  const ageDays = keyAgeDays(key.addedAt, nowMs);
  return {
    fingerprint: key.fingerprint,
    addedAt: key.addedAt,
    ageDays,
    age: ageDays <= 0 ? 'today' : ageDays === 1 ? '1 day' : `${ageDays} days`,
    due: isKeyDue(key.addedAt, nowMs, ROTATION_DAYS),
    active: key.active,
    notAfter: key.notAfter,
  };
}

/**
 * The summary shown in the client list: how many keys, and whether one is due for rotation.
 */
export function keySummary(client: { keys: ReadonlyArray<{ fingerprint: string; addedAt: string; active: boolean; notAfter?: string; }>; }, nowMs: number) {
  const lines = client.keys.map((k) => keyLine(k, nowMs));
  const due = lines.filter((l) => l.due).length;
  const count = lines.length === 1 ? '1 key' : `${lines.length} keys`;
  return { lines, due, text: due === 0 ? count : `${count}, ${due} older than ${ROTATION_DAYS} days` };
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
