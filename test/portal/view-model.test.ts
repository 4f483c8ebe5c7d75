/**
 * What the portal shows per client (portal/view-model.ts) and where it sends its calls
 * (portal/registry-client.ts apiBaseOf): key ages counted as the registry counts them, the
 * 90-day rotation flag, failure lines, and the API base kept with its stage.
 */
import { DEFAULT_ROTATION_DAYS } from '../../lambda/core/defaults';
import { rotationCutoff } from '../../lambda/core/key-age';
import { runInPortal } from './portal-modules';

const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const daysAgo = (days: number, extraMs = 0) => new Date(NOW - days * 86_400_000 - extraMs).toISOString();

test('the rotation threshold is the registry default (90 days)', () => {
  expect(runInPortal<number>('return m.view.ROTATION_DAYS;')).toBe(DEFAULT_ROTATION_DAYS);
});

test('key lines: age in whole days, flagged only when older than 90 days', () => {
  const keys = [
    { fingerprint: 'a'.repeat(43), addedAt: daysAgo(0), active: true },
    { fingerprint: 'b'.repeat(43), addedAt: daysAgo(1), active: true },
    { fingerprint: 'c'.repeat(43), addedAt: daysAgo(90), active: true },
    { fingerprint: 'd'.repeat(43), addedAt: daysAgo(90, 1000), active: true },
    { fingerprint: 'e'.repeat(43), addedAt: daysAgo(400), active: false, notAfter: daysAgo(2) },
  ];
  const out = runInPortal<{ lines: Array<{ age: string; ageDays: number; due: boolean; active: boolean; notAfter?: string }>; due: number; text: string }>(
    'return m.view.keySummary({ keys: input.keys }, input.now);',
    { keys, now: NOW },
  );
  expect(out.lines.map((l) => [l.age, l.ageDays, l.due])).toEqual([
    ['today', 0, false],
    ['1 day', 1, false],
    ['90 days', 90, false],
    ['90 days', 90, true],
    ['400 days', 400, true],
  ]);
  expect(out.lines[4]).toMatchObject({ active: false, notAfter: daysAgo(2) });
  expect(out.due).toBe(2);
  expect(out.text).toBe('5 keys, 2 older than 90 days');
});

test('a single fresh key reads "1 key"', () => {
  const out = runInPortal<{ text: string; due: number }>('return m.view.keySummary({ keys: input }, Date.now());', [{ fingerprint: 'f'.repeat(43), addedAt: new Date().toISOString(), active: true }]);
  expect(out).toMatchObject({ text: '1 key', due: 0 });
});

test('the page flags exactly the keys the registry lists as expiring (the same core rule, at and around the boundary)', () => {
  const ages = [0, 89.99, 90, 90.00001, 91, 120, 400];
  const keys = ages.map((days, i) => ({ fingerprint: String(i).repeat(43), addedAt: new Date(NOW - days * 86_400_000).toISOString(), active: true }));
  const flagged = runInPortal<boolean[]>('return m.view.keySummary({ keys: input.keys }, input.now).lines.map((l) => l.due);', { keys, now: NOW });
  const cutoff = rotationCutoff(NOW, DEFAULT_ROTATION_DAYS);
  expect(flagged).toEqual(keys.map((k) => k.addedAt < cutoff));
  expect(flagged).toEqual([false, false, false, true, true, true, true]);
});

test('removable: every key but the last active one (the registry refuses that one, last_key)', () => {
  const key = (n: number, active: boolean) => ({ fingerprint: String(n).repeat(43), addedAt: daysAgo(n), active, ...(active ? {} : { notAfter: daysAgo(1) }) });
  const removable = (keys: unknown[]) => runInPortal<boolean[]>('return m.view.keySummary({ keys: input }, Date.now()).lines.map((l) => l.removable);', keys);
  expect(removable([key(1, true)])).toEqual([false]);
  expect(removable([key(1, true), key(2, true)])).toEqual([true, true]);
  // An expired key may go; the one active key may not.
  expect(removable([key(1, true), key(2, false)])).toEqual([false, true]);
  // The only key, even expired, may not.
  expect(removable([key(2, false)])).toEqual([false]);
});

test('key type: the algorithm when the registry names one, else RSA; last use: the instant, or "never"', () => {
  const out = runInPortal<string[]>(
    `const k = { fingerprint: 'a'.repeat(43), addedAt: input.at, active: true };
     return [
       m.view.keyLine(k, input.now).type,
       m.view.keyLine({ ...k, algorithm: 'ed25519' }, input.now).type,
       m.view.lastUsedText(k, (iso) => 'at ' + iso),
       m.view.lastUsedText({ ...k, lastUsedAt: input.at }, (iso) => 'at ' + iso),
     ];`,
    { at: daysAgo(3), now: NOW },
  );
  expect(out).toEqual(['RSA', 'ed25519', 'never', `at ${daysAgo(3)}`]);
});

test('failure lines: reason, message, request and source, nothing invented', () => {
  const out = runInPortal<unknown[]>('return input.map((f) => m.view.failureLine(f));', [
    { at: '2026-01-05T10:00:00.000Z', reason: 'signature_mismatch', message: 'The signature does not verify.', sourceIp: '203.0.113.7', method: 'POST', path: '/api/orders', fingerprint: 'x'.repeat(43) },
    { at: '2026-01-05T09:59:00.000Z', reason: 'clock_skew' },
  ]);
  expect(out).toEqual([
    { at: '2026-01-05T10:00:00.000Z', reason: 'signature_mismatch', message: 'The signature does not verify.', request: 'POST /api/orders', sourceIp: '203.0.113.7', fingerprint: 'x'.repeat(43) },
    { at: '2026-01-05T09:59:00.000Z', reason: 'clock_skew', message: '', request: '', sourceIp: '', fingerprint: '' },
  ]);
});

test('apiBaseOf: the API base is the page URL up to /portal/, stage or base path kept', () => {
  const pages = [
    'http://127.0.0.1:3000/portal/',
    'http://127.0.0.1:3000/portal/index.html?x=1#top',
    'https://abc.execute-api.eu-west-1.amazonaws.com/prod/portal/',
    'https://api.example.com/v1/portal',
    'https://api.example.com/portalx/',
  ];
  expect(runInPortal<string[]>('return input.map((p) => m.client.apiBaseOf(p));', pages)).toEqual([
    'http://127.0.0.1:3000/',
    'http://127.0.0.1:3000/',
    'https://abc.execute-api.eu-west-1.amazonaws.com/prod/',
    'https://api.example.com/v1/',
    'https://api.example.com/',
  ]);
});

test('unauthenticatedRows: one row per window and reason (reasons in order), with the window end; none without counts', () => {
  const out = runInPortal<unknown[]>('return [m.view.unauthenticatedRows(input), m.view.unauthenticatedRows(undefined)];', {
    windowSeconds: 3600,
    windows: [
      { start: '2026-01-05T10:00:00.000Z', counts: { signature_mismatch: 50, clock_skew: 2 } },
      { start: '2026-01-05T09:00:00.000Z', counts: { expired: 1 } },
    ],
  });
  expect(out).toEqual([
    [
      { start: '2026-01-05T10:00:00.000Z', end: '2026-01-05T11:00:00.000Z', reason: 'clock_skew', count: 2 },
      { start: '2026-01-05T10:00:00.000Z', end: '2026-01-05T11:00:00.000Z', reason: 'signature_mismatch', count: 50 },
      { start: '2026-01-05T09:00:00.000Z', end: '2026-01-05T10:00:00.000Z', reason: 'expired', count: 1 },
    ],
    [],
  ]);
});

test('audit lines: who (you, a listed client by name, or a fixed actor), and what changed in words', () => {
  const fp = (c: string) => c.repeat(43);
  const entries = [
    { at: '2026-06-01T10:00:00.000Z', actor: 'c_admin', action: 'client.created', clientId: 'c_acme', version: 1 },
    { at: '2026-06-01T10:01:00.000Z', actor: 'c_admin', action: 'key.added', clientId: 'c_acme', version: 2, keysAdded: [fp('n')], keysRemoved: [fp('o')] },
    { at: '2026-06-01T10:02:00.000Z', actor: 'c_other', action: 'client.updated', clientId: 'c_acme', version: 3, changes: { name: { from: 'Acme', to: 'Acme Pay' }, roles: { from: ['demo'], to: [] } } },
    { at: '2026-06-01T10:03:00.000Z', actor: 'rotation', action: 'key.removed', clientId: 'c_acme', version: 4, keysRemoved: [fp('o')] },
    { at: '2026-06-01T10:04:00.000Z', actor: 'bootstrap', action: 'account.created', accountId: 'acct_x', version: 1 },
    { at: '2026-06-01T10:05:00.000Z', actor: 'key-source-refresher', action: 'key_source.refreshed', clientId: 'c_acme', version: 5, keysAdded: [fp('n')], keysRemoved: [fp('o')] },
    { at: '2026-06-01T10:06:00.000Z', actor: 'key-source-refresher', action: 'key_source.refreshed', clientId: 'c_acme', version: 6, keysExpired: [fp('n')] },
  ];
  const lines = runInPortal<Array<{ who: string; what: string; client?: string }>>(
    `const names = new Map([['c_acme', 'Acme'], ['c_other', 'Other admin']]);
     return input.map((e) => m.view.auditLine(e, { signerId: 'c_admin', names }));`,
    entries,
  );
  expect(lines.map((l) => [l.who, l.what, l.client])).toEqual([
    ['you (c_admin)', 'Client created', 'Acme (c_acme)'],
    ['you (c_admin)', `Key ${fp('n').slice(0, 8)}…${fp('n').slice(-6)} added; expired key ${fp('o').slice(0, 8)}…${fp('o').slice(-6)} dropped`, 'Acme (c_acme)'],
    ['Other admin (c_other)', 'Changed name Acme → Acme Pay; roles demo → none', 'Acme (c_acme)'],
    ['rotation', `Key ${fp('o').slice(0, 8)}…${fp('o').slice(-6)} removed`, 'Acme (c_acme)'],
    ['bootstrap', 'Account created', undefined],
    ['key-source-refresher', `Keys from the source: added ${fp('n').slice(0, 8)}…${fp('n').slice(-6)}; removed ${fp('o').slice(0, 8)}…${fp('o').slice(-6)}`, 'Acme (c_acme)'],
    ['key-source-refresher', `Keys from the source: ended ${fp('n').slice(0, 8)}…${fp('n').slice(-6)} (no longer published)`, 'Acme (c_acme)'],
  ]);
});

describe("a client's published key source", () => {
  const format = (iso: string) => `<${iso}>`;
  const status = {
    url: 'https://agent.example/.well-known/http-message-signatures-directory',
    lastFetchAt: '2026-06-01T12:00:00.000Z',
    nextFetchAt: '2026-06-01T12:01:00.000Z',
    failingSince: '2026-06-01T11:00:00.000Z',
    consecutiveFailures: 1,
    lastError: { code: 'http_error', status: 503, message: 'The key source answered HTTP 503.', at: '2026-06-01T12:00:00.000Z' },
    refusedKeys: [{ kid: 'k9', reason: 'key_in_use' }, { thumbprint: 'T', reason: 'expired' }],
    keptUntil: '2026-06-08T11:00:00.000Z',
  };
  // One child process for the three cases below.
  let out: { labels: unknown[]; rows: Array<{ label: string; value: string; warning?: boolean }>; outcomes: string[] };
  beforeAll(() => {
    out = runInPortal(
      `const f = (iso) => '<' + iso + '>';
       return {
         labels: [m.view.keySourceLabel({ jwksUri: 'https://partner.example/jwks.json' }), m.view.keySourceLabel({ signatureAgent: 'https://agent.example' }), m.view.keySourceLabel(undefined) ?? null],
         rows: m.view.keySourceRows(input, f),
         outcomes: [
           m.view.refreshOutcomeText('Agent', { ok: true, added: 1, removed: 2, unchanged: 0 }, undefined, f),
           m.view.refreshOutcomeText('Agent', { ok: true, added: [{ kid: 'a' }, { kid: 'b' }], removed: [], unchanged: ['x'] }, undefined, f),
           m.view.refreshOutcomeText('Agent', { ok: true, added: ['fpNew'], removed: [], unchanged: false }, undefined, f),
           m.view.refreshOutcomeText('Agent', { ok: true, added: [], removed: [], unchanged: true }, undefined, f),
           m.view.refreshOutcomeText('Agent', { ok: false, added: 0, removed: 0, unchanged: 0, error: { code: 'timeout', message: 'No answer within 5 s.' } }, '2026-06-08T11:00:00.000Z', f),
         ],
       };`,
      status,
    );
  });

  test('reads as the kind chosen in the form and the URL or origin it names', () => {
    expect(out.labels).toEqual([{ kind: 'JWKS URL', value: 'https://partner.example/jwks.json' }, { kind: 'Web Bot Auth directory', value: 'https://agent.example' }, null]);
  });

  test("its state: what is fetched, last and next fetch, last success, failing since with the error, keys kept until, keys not used; none yet: 'never'", () => {
    expect(out.rows).toEqual([
      { label: 'Fetched from', value: status.url },
      { label: 'Last fetch', value: format(status.lastFetchAt) },
      { label: 'Next fetch', value: format(status.nextFetchAt) },
      { label: 'Last success', value: 'never' },
      { label: 'Failing since', value: `${format(status.failingSince)} (1 failed fetch)`, warning: true },
      { label: 'Last error', value: `http_error (HTTP 503): The key source answered HTTP 503. (${format(status.lastError.at)})`, warning: true },
      { label: 'Keys kept until', value: `${format(status.keptUntil)}: if no fetch succeeds by then, its keys stop verifying (key_expired)` },
      { label: 'Not used', value: 'kid k9: key_in_use' },
      { label: 'Not used', value: 'thumbprint T: expired' },
    ]);
  });

  test('a refresh says what it added, removed and left, or the error and that the keys were kept', () => {
    expect(out.outcomes).toEqual([
      'Keys of Agent refreshed: 1 key added, 2 removed, 0 unchanged.',
      'Keys of Agent refreshed: 2 keys added, 0 removed, 1 unchanged.',
      'Keys of Agent refreshed: 1 key added, 0 removed.',
      'Keys of Agent refreshed: unchanged (the source lists the same keys).',
      'The keys of Agent could not be fetched (timeout: No answer within 5 s.). Nothing was removed: its keys are kept: they verify until <2026-06-08T11:00:00.000Z> unless a fetch succeeds before.',
    ]);
  });
});
