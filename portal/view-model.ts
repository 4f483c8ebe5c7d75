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

/** What the page reads of an audit entry, a client's (`GET .../clients/{id}/audit`) or an account's (`GET .../accounts/{id}/audit`, which may list its clients' changes too). */
interface ListedAuditEntry {
  readonly at: string;
  readonly actor: string;
  readonly action: string;
  /** set on a client's entries */
  readonly clientId?: string;
  readonly changes?: Readonly<Record<string, { readonly from?: string | readonly string[]; readonly to?: string | readonly string[] } | undefined>>;
  readonly keysAdded?: readonly string[];
  readonly keysRemoved?: readonly string[];
  readonly keysExpired?: readonly string[];
  readonly keyNotAfter?: { readonly fingerprint: string; readonly from?: string; readonly to?: string };
}

/** The words for a field the audit records a change of. */
const AUDITED_FIELDS: Readonly<Record<string, string>> = { name: 'name', status: 'status', networkWhitelist: 'whitelist', roles: 'roles', profile: 'profile', roleCeiling: 'role ceiling' };

const shown = (value: string | readonly string[] | undefined) => (value === undefined ? 'nothing' : typeof value === 'string' ? value : value.length === 0 ? 'none' : value.join(', '));

/**
 * An audit entry as a line of the page: when, who (the signer is "you"; a client by its name when
 * the page knows it), and what changed, in words.
 * @param names clientId → name, for the clients the page has listed
 */
export function auditLine(entry: ListedAuditEntry, context: { readonly signerId?: string; readonly names?: ReadonlyMap<string, string> } = {}) {
  const nameOf = (clientId: string) => context.names?.get(clientId);
  const who = entry.actor === context.signerId ? `you (${entry.actor})` : nameOf(entry.actor) ? `${nameOf(entry.actor)} (${entry.actor})` : entry.actor;
  const changes = Object.entries(entry.changes ?? {})
    .filter(([, change]) => change !== undefined)
    .map(([field, change]) => `${AUDITED_FIELDS[field] ?? field} ${shown(change?.from)} → ${shown(change?.to)}`);
  const keys = (list: readonly string[] | undefined) => (list ?? []).map(shortFingerprint).join(', ');
  let what: string;
  switch (entry.action) {
    case 'client.created':
      what = 'Client created';
      break;
    case 'client.updated':
      what = changes.length > 0 ? `Changed ${changes.join('; ')}` : 'Client updated';
      break;
    case 'client.disabled':
      what = 'Client disabled';
      break;
    case 'client.enabled':
      what = 'Client enabled';
      break;
    case 'key.added':
      what = `Key ${keys(entry.keysAdded)} added${entry.keysRemoved?.length ? `; expired key ${keys(entry.keysRemoved)} dropped` : ''}`;
      break;
    case 'key.removed':
      what = `Key ${keys(entry.keysRemoved)} removed`;
      break;
    case 'key.not_after_set':
      what = entry.keyNotAfter
        ? `Key ${shortFingerprint(entry.keyNotAfter.fingerprint)} ${entry.keyNotAfter.to ? `verifies until ${entry.keyNotAfter.to}` : 'verifies with no end date'}`
        : 'Key end date changed';
      break;
    case 'key_source.refreshed': {
      const parts = [
        entry.keysAdded?.length ? `added ${keys(entry.keysAdded)}` : '',
        entry.keysRemoved?.length ? `removed ${keys(entry.keysRemoved)}` : '',
        entry.keysExpired?.length ? `ended ${keys(entry.keysExpired)} (no longer published)` : '',
      ].filter((part) => part !== '');
      what = `Keys from the source${parts.length > 0 ? `: ${parts.join('; ')}` : ' refreshed'}`;
      break;
    }
    case 'account.created':
      what = 'Account created';
      break;
    case 'account.updated':
      what = changes.length > 0 ? `Changed ${changes.join('; ')}` : 'Account updated';
      break;
    default:
      what = [entry.action, ...changes].join(': ');
  }
  const client = entry.clientId === undefined ? undefined : nameOf(entry.clientId) ? `${nameOf(entry.clientId)} (${entry.clientId})` : entry.clientId;
  return { at: entry.at, who, what, action: entry.action, client };
}

/** A client's key source in words: what kind, and the URL or origin it names. */
export function keySourceLabel(source: { readonly jwksUri?: string; readonly signatureAgent?: string } | undefined) {
  if (source?.jwksUri !== undefined) return { kind: 'JWKS URL', value: source.jwksUri };
  if (source?.signatureAgent !== undefined) return { kind: 'Web Bot Auth directory', value: source.signatureAgent };
  return undefined;
}

/** A recorded fetch error in one line: `http_error (HTTP 503): sentence`. */
export function fetchErrorText(error: { readonly code: string; readonly message: string; readonly status?: number }) {
  return `${error.code}${error.status !== undefined ? ` (HTTP ${error.status})` : ''}: ${error.message}`;
}

/**
 * The state of a client's key source as label/value rows, in the order they read: what is
 * fetched, when last and next, the last success, since when it fails and why, until when the
 * keys are kept, and the keys of the last fetch that are not used.
 * @param format how an instant is written
 */
export function keySourceRows(
  status: {
    readonly url?: string;
    readonly lastFetchAt?: string;
    readonly nextFetchAt?: string;
    readonly lastSuccessAt?: string;
    readonly failingSince?: string;
    readonly consecutiveFailures?: number;
    readonly lastError?: { readonly code: string; readonly message: string; readonly status?: number; readonly at?: string };
    readonly refusedKeys?: ReadonlyArray<{ readonly kid?: string; readonly thumbprint?: string; readonly reason: string }>;
    readonly keptUntil?: string;
  } | undefined,
  format: (iso: string) => string,
) {
  const when = (iso: string | undefined) => (iso === undefined ? 'never' : format(iso));
  const rows: Array<{ label: string; value: string; warning?: boolean }> = [];
  if (status?.url !== undefined) rows.push({ label: 'Fetched from', value: status.url });
  rows.push({ label: 'Last fetch', value: when(status?.lastFetchAt) }, { label: 'Next fetch', value: when(status?.nextFetchAt) }, { label: 'Last success', value: when(status?.lastSuccessAt) });
  if (status?.failingSince !== undefined) {
    const times = status.consecutiveFailures !== undefined && status.consecutiveFailures > 0 ? ` (${status.consecutiveFailures} failed ${status.consecutiveFailures === 1 ? 'fetch' : 'fetches in a row'})` : '';
    rows.push({ label: 'Failing since', value: `${format(status.failingSince)}${times}`, warning: true });
  }
  if (status?.lastError !== undefined) rows.push({ label: 'Last error', value: `${fetchErrorText(status.lastError)}${status.lastError.at !== undefined ? ` (${format(status.lastError.at)})` : ''}`, warning: status.failingSince !== undefined });
  if (status?.keptUntil !== undefined) {
    rows.push({ label: 'Keys kept until', value: `${format(status.keptUntil)}: if no fetch succeeds by then, its keys stop verifying (key_expired)` });
  }
  for (const key of status?.refusedKeys ?? []) {
    rows.push({ label: 'Not used', value: `${key.kid !== undefined ? `kid ${key.kid}` : `thumbprint ${key.thumbprint ?? '?'}`}: ${key.reason}` });
  }
  return rows;
}

/** How many keys a refresh names (a count, or a list of keys). */
function refreshCount(keys: number | ReadonlyArray<unknown> | undefined) {
  return typeof keys === 'number' ? keys : (keys?.length ?? 0);
}

/**
 * What a "Refresh keys now" did, in one sentence: the keys added, removed and unchanged, or the
 * error it recorded and that the keys were kept.
 */
export function refreshOutcomeText(
  name: string,
  refresh: {
    readonly ok: boolean;
    readonly added?: number | ReadonlyArray<unknown>;
    readonly removed?: number | ReadonlyArray<unknown>;
    /** a count, the keys, or whether the key set stayed the same */
    readonly unchanged?: number | ReadonlyArray<unknown> | boolean;
    readonly error?: { readonly code: string; readonly message: string; readonly status?: number };
  },
  keptUntil: string | undefined,
  format: (iso: string) => string,
) {
  if (!refresh.ok) {
    const why = refresh.error !== undefined ? fetchErrorText(refresh.error) : 'no reason given';
    const kept = keptUntil !== undefined ? `: they verify until ${format(keptUntil)} unless a fetch succeeds before` : '';
    return `The keys of ${name} could not be fetched (${why}). Nothing was removed: its keys are kept${kept}.`;
  }
  if (refresh.unchanged === true) return `Keys of ${name} refreshed: unchanged (the source lists the same keys).`;
  const [added, removed] = [refresh.added, refresh.removed].map(refreshCount);
  const counted = (n: number, word: string) => `${n} ${n === 1 ? 'key' : 'keys'} ${word}`;
  const unchanged = typeof refresh.unchanged === 'boolean' ? '' : `, ${refreshCount(refresh.unchanged)} unchanged`;
  return `Keys of ${name} refreshed: ${counted(added, 'added')}, ${removed} removed${unchanged}.`;
}
