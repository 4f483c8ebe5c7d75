/**
 * How registry answers read on a terminal: tables for lists, a short summary for one record. No
 * PEM is ever printed here (fingerprints name keys); `--json` prints the registry's answer as it
 * came, for scripts. A body of an unexpected shape falls back to its JSON. Every string of the
 * answer is made printable (./printable.ts) before it is laid out: a record holds what callers
 * put in it (a refused request's path, a client's name), and none of it may drive the terminal.
 */
import { printableJson, printableLines, printableStrings } from './printable';

/** Turns a registry answer body into lines for a person. */
export type Formatter = (body: unknown) => string;

/** `format` given the body with every string in it, keys included, made printable (a body that is plain text keeps its lines). */
function printed(format: Formatter): Formatter {
  return (body) => format(typeof body === 'string' ? printableLines(body) : printableStrings(body));
}

type Row = Record<string, unknown>;

/** A plain-text table: a header row, then one row per item; columns padded, no trailing spaces. */
export function table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

const str = (value: unknown): string => (value === undefined || value === null ? '-' : Array.isArray(value) ? (value.length === 0 ? '-' : value.join(',')) : String(value));

function rowsOf(body: unknown, field: string): Row[] | undefined {
  const list = (body as Row | undefined)?.[field];
  return Array.isArray(list) && list.every((item) => typeof item === 'object' && item !== null) ? (list as Row[]) : undefined;
}

/** What the rows are called: one, and more than one. */
type Noun = readonly [singular: string, plural: string];

function withCursor(text: string, body: unknown, count: number, [one, many]: Noun): string {
  const { nextCursor: cursor, total } = body as Row;
  const of = typeof total === 'number' ? ` of ${total} matching` : '';
  const noun = count === 1 ? one : many;
  const footer = typeof cursor === 'string' ? `${count} ${noun} shown${of}; more with --cursor ${cursor}` : `${count} ${noun}${of}`;
  return count === 0 ? `no ${many}` : `${text}\n\n${footer}`;
}

/** A last use as the table shows it: the ISO-8601 instant, or `never`. */
function lastUse(value: unknown): string {
  return typeof value === 'string' ? value : 'never';
}

function keyCount(keys: unknown): string {
  if (!Array.isArray(keys)) return '-';
  const active = keys.filter((k) => (k as Row).active !== false).length;
  return active === keys.length ? String(keys.length) : `${keys.length} (${active} active)`;
}

function json(body: unknown): string {
  return printableJson(body);
}

/** `clients list` / `clients find`: id, name, status, roles, keys, last use, account. */
export const clientTable: Formatter = printed((body) => {
  const clients = rowsOf(body, 'clients');
  if (clients === undefined) return json(body);
  const rows = clients.map((c) => [str(c.clientId), str(c.name), str(c.status), str(c.roles), keyCount(c.keys), lastUse(c.lastUsedAt), str(c.accountId)]);
  return withCursor(table(['CLIENT ID', 'NAME', 'STATUS', 'ROLES', 'KEYS', 'LAST USED', 'ACCOUNT'], rows), body, rows.length, ['client', 'clients']);
});

/**
 * One client: its fields, its published key source and that source's state (when it has one),
 * then per key a line (fingerprint, added, not-after, last use) and a line of what names it
 * (thumbprint, algorithm; a published key's kid and nbf/exp).
 */
export const clientSummary: Formatter = printed((body) => {
  const c = body as Row | undefined;
  if (typeof c?.clientId !== 'string') return json(body);
  const lines = [
    `client    ${c.clientId}${typeof c.registration === 'string' ? ` (${c.registration})` : ''}`,
    `name      ${str(c.name)}`,
    `status    ${str(c.status)}`,
    `account   ${str(c.accountId)}`,
    `roles     ${str(c.roles)}`,
    `networks  ${str(c.networkWhitelist)}`,
    ...(typeof c.profile === 'string' ? [`profile   ${c.profile}`] : []),
    `version   ${str(c.version)}   updated ${str(c.updatedAt)}`,
    `last used ${lastUse(c.lastUsedAt)}`,
    ...keySourceLines(c),
  ];
  const keys = rowsOf(c, 'keys') ?? [];
  const published = keys.some((k) => k.published === true);
  lines.push(`keys      ${keys.length}${published ? ' (published: fetched from the source, replaced at each refresh)' : ''}`);
  for (const k of keys) {
    const notAfter = typeof k.notAfter === 'string' ? `, verifies until ${k.notAfter}` : '';
    lines.push(`  fingerprint ${str(k.fingerprint)}  added ${str(k.addedAt)}${notAfter}${k.active === false ? ', inactive' : ''}, last used ${lastUse(k.lastUsedAt)}`);
    const names = [
      ...(k.published === true ? [`kid ${str(k.kid)}`] : []),
      `thumbprint ${str(k.thumbprint)}`,
      `algorithm ${str(k.algorithm)}`,
      ...(k.published === true ? [`nbf ${str(k.notBefore)}`, `exp ${str(k.expires)}`] : []),
    ];
    lines.push(`      ${names.join('  ')}`);
  }
  return lines.join('\n');
});

/** What a key source is, in words: `JWKS https://...` or `Web Bot Auth agent https://...`. */
export function keySourceText(source: unknown): string | undefined {
  const s = source as Row | undefined;
  if (typeof s?.jwksUri === 'string') return `JWKS ${s.jwksUri}`;
  if (typeof s?.signatureAgent === 'string') return `Web Bot Auth agent ${s.signatureAgent} (its key directory)`;
  return undefined;
}

/** A client's key source and its state, or nothing for a client with registered keys. */
function keySourceLines(c: Row): string[] {
  const source = keySourceText(c.keySource);
  if (source === undefined) return [];
  const status = (c.keySourceStatus ?? {}) as Row;
  const lines = [`source    ${source}`];
  if (typeof status.url === 'string') lines.push(`  fetched from  ${status.url}`);
  lines.push(`  last fetch    ${str(status.lastFetchAt)}   next fetch ${str(status.nextFetchAt)}`);
  lines.push(`  last success  ${str(status.lastSuccessAt)}`);
  if (typeof status.failingSince === 'string') {
    const times = typeof status.consecutiveFailures === 'number' && status.consecutiveFailures > 0 ? ` (${status.consecutiveFailures} failed ${status.consecutiveFailures === 1 ? 'fetch' : 'fetches in a row'})` : '';
    lines.push(`  failing since ${status.failingSince}${times}`);
  }
  const error = status.lastError as Row | undefined;
  if (typeof error?.code === 'string') lines.push(`  last error    ${errorText(error)}`);
  if (typeof status.keptUntil === 'string') {
    lines.push(`  kept until    ${status.keptUntil} (if no fetch succeeds by then, the keys stop verifying: key_expired)`);
  }
  for (const refused of rowsOf(status, 'refusedKeys') ?? []) {
    const name = typeof refused.kid === 'string' ? `kid ${refused.kid}` : `thumbprint ${str(refused.thumbprint)}`;
    lines.push(`  not used      ${name}: ${str(refused.reason)}`);
  }
  return lines;
}

/** A recorded fetch error: `code (HTTP 503): sentence, at ...`. */
function errorText(error: Row): string {
  const status = typeof error.status === 'number' ? ` (HTTP ${error.status})` : '';
  const at = typeof error.at === 'string' ? ` [${error.at}]` : '';
  return `${str(error.code)}${status}: ${str(error.message)}${at}`;
}

/** How many keys a refresh field names: a count, or a list of keys. */
function keysIn(value: unknown): { count: number; names: string[] } {
  if (typeof value === 'number') return { count: value, names: [] };
  if (!Array.isArray(value)) return { count: 0, names: [] };
  const names = value.map((k) => (typeof k === 'string' ? k : typeof (k as Row)?.kid === 'string' ? String((k as Row).kid) : str((k as Row)?.thumbprint ?? (k as Row)?.fingerprint)));
  return { count: value.length, names };
}

/**
 * `keys refresh`: what the refresh did (keys added, removed, unchanged), or the error it recorded
 * and that the keys were kept; then the client as it is now.
 */
export const refreshSummary: Formatter = printed((body) => {
  const b = body as Row | undefined;
  const refresh = b?.refresh as Row | undefined;
  const client = b?.client as Row | undefined;
  if (typeof refresh?.ok !== 'boolean' || typeof client?.clientId !== 'string') return json(body);
  const lines: string[] = [];
  if (refresh.ok) {
    const keys = rowsOf(client, 'keys')?.length ?? 0;
    const fields = typeof refresh.unchanged === 'boolean' ? (['added', 'removed'] as const) : (['added', 'removed', 'unchanged'] as const);
    const parts = fields.map((field) => {
      const { count, names } = keysIn(refresh[field]);
      return `${count} ${field}${names.length > 0 ? ` (${names.join(', ')})` : ''}`;
    });
    lines.push(
      refresh.unchanged === true
        ? `refreshed ${client.clientId}: keys unchanged (the source lists the same ${keys === 1 ? 'key' : `${keys} keys`})`
        : `refreshed ${client.clientId}: keys ${parts.join(', ')}`,
    );
  } else {
    const error = (refresh.error ?? (client.keySourceStatus as Row | undefined)?.lastError) as Row | undefined;
    const keys = rowsOf(client, 'keys')?.length ?? 0;
    const keptUntil = (client.keySourceStatus as Row | undefined)?.keptUntil;
    lines.push(`refresh of ${client.clientId} FAILED: ${error !== undefined ? errorText(error) : 'no reason given'}`);
    lines.push(
      `nothing was removed: its ${keys === 1 ? 'key is' : `${keys} keys are`} kept${typeof keptUntil === 'string' ? ` and ${keys === 1 ? 'verifies' : 'verify'} until ${keptUntil} unless a fetch succeeds before` : ''}; the error is recorded on the client and the refresher tries again.`,
    );
  }
  return `${lines.join('\n')}\n\n${clientSummary(client)}`;
});

/** `clients failures`: the recent refusals. */
export const failureTable: Formatter = printed((body) => {
  const failures = rowsOf(body, 'failures');
  if (failures === undefined) return json(body);
  const rows = failures.map((f) => [str(f.at), str(f.reason), `${str(f.method)} ${str(f.path)}`, str(f.sourceIp), str(f.message)]);
  const recorded = withCursor(table(['AT', 'CODE', 'REQUEST', 'SOURCE IP', 'MESSAGE'], rows), body, rows.length, ['recorded refusal', 'recorded refusals']);
  return [recorded, ...unauthenticatedLines(body)].join('\n');
});

/**
 * The refusals of requests no key of the client signed (a wrong key, a bad signature, a stale
 * Date): counted per reason and window, since anyone can cause them by naming the client. They
 * are what a partner whose signing is broken causes, so the table says them too.
 */
function unauthenticatedLines(body: unknown): string[] {
  const { unauthenticated } = body as Row;
  const listed = (unauthenticated as Row | undefined)?.windows;
  const windows = Array.isArray(listed) ? listed.filter((w): w is Row => typeof w === 'object' && w !== null) : [];
  if (windows.length === 0) return [];
  const lines = windows.map((w) => `  ${str(w.start)}  ${Object.entries((w.counts as Row | undefined) ?? {}).map(([code, n]) => `${code} ${str(n)}`).join(', ')}`);
  return ['', 'Also refused, whose signature no key of this client verified (counts per hour; anyone can cause these by naming it, and so does a request changed after it was signed):', ...lines, 'To see why a request you signed was refused: signet request -v, or signet explain.'];
}

/** `keys expiring`. */
export const expiringTable: Formatter = printed((body) => {
  const keys = rowsOf(body, 'keys');
  if (keys === undefined) return json(body);
  const rows = keys.map((k) => [str(k.clientId), str(k.fingerprint), str(k.addedAt), str(k.ageDays), str(k.notAfter)]);
  const days = (body as Row).olderThanDays;
  return withCursor(table(['CLIENT ID', 'FINGERPRINT', 'ADDED', 'AGE (DAYS)', 'NOT AFTER'], rows), body, rows.length, [`key older than ${str(days)} days`, `keys older than ${str(days)} days`]);
});

/** `accounts list`. */
export const accountTable: Formatter = printed((body) => {
  const accounts = rowsOf(body, 'accounts');
  if (accounts === undefined) return json(body);
  const rows = accounts.map((a) => [str(a.accountId), str(a.name), str(a.roleCeiling), str(a.version)]);
  return withCursor(table(['ACCOUNT ID', 'NAME', 'ROLE CEILING', 'VERSION'], rows), body, rows.length, ['account', 'accounts']);
});

/** One account. */
export const accountSummary: Formatter = printed((body) => {
  const a = body as Row | undefined;
  if (typeof a?.accountId !== 'string') return json(body);
  return [`account       ${a.accountId}`, `name          ${str(a.name)}`, `role ceiling  ${str(a.roleCeiling)}`, `version       ${str(a.version)}   updated ${str(a.updatedAt)}`].join('\n');
});

/** `accounts audit` and `clients audit`: who changed what, newest first as the registry gives it. */
export const auditTable: Formatter = printed((body) => {
  const entries = rowsOf(body, 'entries');
  if (entries === undefined) return json(body);
  const rows = entries.map((e) => [str(e.at), str(e.action), str(e.clientId ?? e.accountId), str(e.actor), str(e.version), changed(e)]);
  return withCursor(table(['AT', 'ACTION', 'RECORD', 'ACTOR', 'VERSION', 'CHANGED'], rows), body, rows.length, ['audit entry', 'audit entries']);
});

function changed(entry: Row): string {
  const parts = Object.keys((entry.changes as Row | undefined) ?? {});
  for (const [field, label] of [['keysAdded', 'key added'], ['keysRemoved', 'key removed'], ['keysExpired', 'key withdrawn by its source, expired'], ['keyNotAfter', 'key not-after']] as const) {
    if (entry[field] !== undefined) parts.push(label);
  }
  return parts.length === 0 ? '-' : parts.join(', ');
}
