/**
 * How `signet clients show` and `signet keys refresh` read for a client whose keys come from a
 * published source: the source, its state (last and next fetch, last success, failing since, the
 * last error, until when the keys are kept, keys not used) and each key's kid, thumbprint,
 * algorithm and nbf/exp; a refresh says what it added, removed and left, or the error it recorded
 * and that nothing was removed. The end-to-end runs against the gateway are in
 * ./client-commands.e2e.test.ts; these pin every field's line, including the failing ones a
 * running gateway reaches only after a source fails.
 */
import { clientSummary, refreshSummary } from '../../bin/commands/registry-output';

const THUMB_A = 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U';
const THUMB_B = 'NtTwFD4GdBqF1R4hM4_gUQwzfwHWrrJ8QFZ9a2e64HA';

const publishedKey = (thumbprint: string, kid: string, extra: Record<string, unknown> = {}) => ({
  fingerprint: `fp-${kid}-${'x'.repeat(36)}`,
  publicKey: '-----BEGIN PUBLIC KEY-----\n...\n-----END PUBLIC KEY-----\n',
  algorithm: 'ed25519',
  addedAt: '2026-11-26T10:00:00.000Z',
  active: true,
  published: true,
  thumbprint,
  kid,
  ...extra,
});

const agentClient = (status: Record<string, unknown>, keys = [publishedKey(THUMB_A, 'k1', { expires: '2026-12-01T00:00:00.000Z' })]) => ({
  clientId: 'c_AgentAgentAgentAgent0A',
  accountId: 'acct_default',
  name: 'Agent',
  status: 'active',
  networkWhitelist: ['0.0.0.0'],
  roles: ['demo'],
  profile: 'web-bot-auth',
  keys,
  version: 3,
  createdAt: '2026-11-26T10:00:00.000Z',
  updatedAt: '2026-11-26T10:05:00.000Z',
  keySource: { signatureAgent: 'https://agent.example' },
  keySourceStatus: {
    url: 'https://agent.example/.well-known/http-message-signatures-directory',
    lastFetchAt: '2026-11-26T10:05:00.000Z',
    nextFetchAt: '2026-11-26T10:20:00.000Z',
    lastSuccessAt: '2026-11-26T10:05:00.000Z',
    keptUntil: '2026-12-03T10:05:00.000Z',
    ...status,
  },
});

test('a client with a published source shows the source, its state and each key with kid, thumbprint, algorithm, nbf and exp', () => {
  const text = clientSummary(agentClient({ refusedKeys: [{ kid: 'old', reason: 'key_in_use' }, { thumbprint: THUMB_B, reason: 'known_test_key' }] }));
  const lines = text.split('\n');
  expect(lines).toContain('profile   web-bot-auth');
  expect(lines).toContain('source    Web Bot Auth agent https://agent.example (its key directory)');
  expect(lines).toContain('  fetched from  https://agent.example/.well-known/http-message-signatures-directory');
  expect(lines).toContain('  last fetch    2026-11-26T10:05:00.000Z   next fetch 2026-11-26T10:20:00.000Z');
  expect(lines).toContain('  last success  2026-11-26T10:05:00.000Z');
  expect(lines).toContain('  kept until    2026-12-03T10:05:00.000Z (if no fetch succeeds by then, the keys stop verifying: key_expired)');
  expect(lines).toContain('  not used      kid old: key_in_use');
  expect(lines).toContain(`  not used      thumbprint ${THUMB_B}: known_test_key`);
  expect(text).not.toContain('failing since');
  expect(text).not.toContain('last error');
  expect(lines).toContain('keys      1 (published: fetched from the source, replaced at each refresh)');
  expect(lines).toContain(`      kid k1  thumbprint ${THUMB_A}  algorithm ed25519  nbf -  exp 2026-12-01T00:00:00.000Z`);
  expect(text).not.toContain('BEGIN PUBLIC KEY');
});

test('a failing source shows since when it fails and the last error with its HTTP status', () => {
  const text = clientSummary(
    agentClient({
      lastSuccessAt: '2026-11-25T08:00:00.000Z',
      failingSince: '2026-11-25T09:00:00.000Z',
      consecutiveFailures: 5,
      lastError: { code: 'http_error', status: 503, message: 'The key source answered HTTP 503.', at: '2026-11-26T10:05:00.000Z' },
    }),
  );
  expect(text.split('\n')).toEqual(
    expect.arrayContaining([
      '  last success  2026-11-25T08:00:00.000Z',
      '  failing since 2026-11-25T09:00:00.000Z (5 failed fetches in a row)',
      '  last error    http_error (HTTP 503): The key source answered HTTP 503. [2026-11-26T10:05:00.000Z]',
    ]),
  );
});

test('a JWKS client names its URL; a registered key shows its thumbprint and algorithm but no kid or nbf/exp', () => {
  const jwks = clientSummary({ ...agentClient({}), profile: undefined, keySource: { jwksUri: 'https://partner.example/jwks.json' } });
  expect(jwks).toContain('\nsource    JWKS https://partner.example/jwks.json\n');
  expect(jwks).not.toContain('profile');
  const registered = clientSummary({
    ...agentClient({}, [{ fingerprint: 'f'.repeat(43), algorithm: 'ed25519', addedAt: '2026-11-26T10:00:00.000Z', active: true, thumbprint: THUMB_B } as ReturnType<typeof publishedKey>]),
    keySource: undefined,
    keySourceStatus: undefined,
  });
  expect(registered).not.toContain('source');
  expect(registered).toContain(`\nkeys      1\n  fingerprint ${'f'.repeat(43)}  added 2026-11-26T10:00:00.000Z, last used`);
  expect(registered).toMatch(new RegExp(`\\n {6}thumbprint ${THUMB_B} {2}algorithm ed25519$`));
});

test('a refresh that worked says what it added, removed and left (counts or lists of keys), then the client', () => {
  const client = agentClient({});
  expect(refreshSummary({ client, refresh: { ok: true, added: 1, removed: 1, unchanged: 0 } }).split('\n')[0]).toBe('refreshed c_AgentAgentAgentAgent0A: keys 1 added, 1 removed, 0 unchanged');
  const listed = refreshSummary({ client, refresh: { ok: true, added: [{ kid: 'k2', thumbprint: THUMB_B }], removed: [], unchanged: [THUMB_A] } });
  expect(listed.split('\n')[0]).toBe(`refreshed c_AgentAgentAgentAgent0A: keys 1 added (k2), 0 removed, 1 unchanged (${THUMB_A})`);
  expect(listed).toContain('\nclient    c_AgentAgentAgentAgent0A\n');
  // The registry's form: fingerprints added and removed, and whether the set stayed the same.
  expect(refreshSummary({ client, refresh: { ok: true, added: ['fpNew'], removed: ['fpOld'], unchanged: false } }).split('\n')[0]).toBe('refreshed c_AgentAgentAgentAgent0A: keys 1 added (fpNew), 1 removed (fpOld)');
  expect(refreshSummary({ client, refresh: { ok: true, added: [], removed: [], unchanged: true } }).split('\n')[0]).toBe('refreshed c_AgentAgentAgentAgent0A: keys unchanged (the source lists the same key)');
});

test('a refresh that failed says the recorded error, that nothing was removed and until when the keys are kept', () => {
  const error = { code: 'timeout', message: 'The key source did not answer within 5 s.', at: '2026-11-26T10:05:00.000Z' };
  const text = refreshSummary({ client: agentClient({ lastError: error, failingSince: '2026-11-26T10:05:00.000Z' }), refresh: { ok: false, added: 0, removed: 0, unchanged: 0, error } });
  const [first, second] = text.split('\n');
  expect(first).toBe('refresh of c_AgentAgentAgentAgent0A FAILED: timeout: The key source did not answer within 5 s. [2026-11-26T10:05:00.000Z]');
  expect(second).toBe(
    'nothing was removed: its key is kept and verifies until 2026-12-03T10:05:00.000Z unless a fetch succeeds before; the error is recorded on the client and the refresher tries again.',
  );
});

test('an answer of another shape prints as JSON', () => {
  expect(refreshSummary({ error: 'x' })).toBe(JSON.stringify({ error: 'x' }, null, 2));
});
