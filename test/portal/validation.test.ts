/**
 * The client form (portal/validation.ts checkClientForm, on the core's field rules bundled into
 * portal.js) against the API's request validation (lambda/registry/validation.ts): a whole
 * form gives the body the registry accepts, or, field by field, the code and sentence the
 * registry would answer, so what the form says inline next to a field is what the API would say.
 */
import { isSignetError } from '../../lambda/core/errors';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { parseCreateRequest, parsePatchRequest } from '../../lambda/registry/validation';
import { spkiPem, testKey } from '../support/registry-fixtures';
import { runInPortal } from './portal-modules';

type Outcome = { value?: unknown; code?: string; message?: string };

function core(fn: () => unknown): Outcome {
  try {
    return { value: fn() };
  } catch (error) {
    if (!isSignetError(error)) throw error;
    return { code: error.code, message: error.message };
  }
}

describe('the form against POST /registry/clients and PATCH validation', () => {
  const known = ['demo', 'registry:admin'];
  const catalogue = compileRoleCatalogue({ 'registry:admin': ['* /registry/**'], demo: ['* /api/*'] });
  let publicKey: string;
  let privateKey: string;
  beforeAll(() => {
    publicKey = spkiPem(testKey(0));
    privateKey = testKey(0).key.export({ type: 'pkcs8', format: 'pem' }) as string;
  });
  const valid = () => ({ name: 'Partner', networkWhitelist: ['203.0.113.7'], publicKey, roles: ['demo'] });

  /** One bad field at a time: the form's error for that field must be the API's refusal. */
  const cases: Array<[string, string, (v: ReturnType<typeof valid>) => Record<string, unknown>]> = [
    ['name', 'an empty name', (v) => ({ ...v, name: '   ' })],
    ['name', 'a name too long', (v) => ({ ...v, name: 'n'.repeat(129) })],
    ['name', 'a name with a line break', (v) => ({ ...v, name: 'a\nb' })],
    ['networkWhitelist', 'an empty whitelist', (v) => ({ ...v, networkWhitelist: [] })],
    ['networkWhitelist', 'a bad address', (v) => ({ ...v, networkWhitelist: ['203.0.113.7', '999.0.0.1'] })],
    ['networkWhitelist', 'too many addresses', (v) => ({ ...v, networkWhitelist: Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`) })],
    ['roles', 'no roles', (v) => ({ ...v, roles: [] })],
    ['roles', 'an unknown role', (v) => ({ ...v, roles: ['demo', 'root'] })],
    ['publicKey', 'a private key', (v) => ({ ...v, publicKey: privateKey })],
    ['publicKey', 'an empty key', (v) => ({ ...v, publicKey: '' })],
    ['publicKey', 'a key too long', (v) => ({ ...v, publicKey: 'A'.repeat(16_385) })],
  ];

  test.each(cases)('%s: %s', (field, _what, mutate) => {
    const values = mutate(valid());
    const [portal] = runInPortal<Array<{ errors: Record<string, { code: string; message: string }>; body: Record<string, unknown> }>>(
      `return [await m.validation.checkClientForm(input.values, { mode: 'create', knownRoles: input.known })].map((r) => ({
        errors: Object.fromEntries(Object.entries(r.errors).map(([k, e]) => [k, { code: e.code, message: e.message }])), body: r.body }));`,
      { values, known },
    );
    const api = core(() => parseCreateRequest(values, catalogue));
    expect(Object.keys(portal.errors)).toEqual([field]);
    expect(portal.errors[field]).toEqual({ code: api.code, message: api.message });
  });

  /** What the form says for each refusal: the form's words where the API's speak of its fields, the API's sentence where it already speaks of the value. */
  const formSays: Record<string, string | 'the API sentence'> = {
    'an empty name': 'Enter a name.',
    'a name too long': 'Shorten the name to 128 characters or fewer (it has 129).',
    'a name with a line break': 'Remove the line break or tab from the name: it must be one line of text.',
    'an empty whitelist': 'Add at least one address, or 0.0.0.0 for everyone.',
    'a bad address': 'the API sentence',
    'too many addresses': 'The list is full: at most 100 addresses or ranges. Use wider ranges, or 0.0.0.0 for everyone.',
    'no roles': 'Choose at least one role.',
    'an unknown role': 'root is not a role you may give: untick it, or ask the API owner.',
    'a private key': 'the API sentence',
    'an empty key': "Paste the partner's public key (public.pem), or generate a key pair below.",
    'a key too long': 'the API sentence',
  };

  test('each refusal is shown in the form\'s words, never the API\'s field names; the code stays the API\'s', () => {
    const forms = cases.map(([field, what, mutate]) => ({ field, what, values: mutate(valid()) }));
    const shown = runInPortal<Array<{ code: string; words: string }>>(
      `return Promise.all(input.forms.map(async ({ field, values }) => {
        const error = (await m.validation.checkClientForm(values, { mode: 'create', knownRoles: input.known })).errors[field];
        const words = m.formWords.formWords(field, error, { name: values.name, networkWhitelist: values.networkWhitelist, publicKey: values.publicKey, roles: { chosen: values.roles, known: input.known } });
        return { code: error.code, words };
      }));`,
      { forms, known },
    );
    forms.forEach(({ what, values }, i) => {
      const api = core(() => parseCreateRequest(values, catalogue));
      const expected = formSays[what] === 'the API sentence' ? api.message : formSays[what];
      expect([what, shown[i]]).toEqual([what, { code: api.code, words: expected }]);
      expect([what, /networkWhitelist|name must|roles must|\["0\.0\.0\.0"\]/.test(shown[i].words)]).toEqual([what, false]);
    });
  });

  test('a valid form gives the body the API accepts, and the key it will store', () => {
    const values = { ...valid(), name: '  Partner  ', networkWhitelist: ['203.0.113.7/32', '2001:DB8::/32', '203.0.113.7'] };
    const out = runInPortal<{ errors: object; body: Record<string, unknown>; key: { fingerprint: string } }>(
      `const r = await m.validation.checkClientForm(input.values, { mode: 'create', knownRoles: input.known }); return { errors: r.errors, body: r.body, key: r.key };`,
      { values, known },
    );
    expect(out.errors).toEqual({});
    expect(out.key.fingerprint).toBe(testKey(0).fingerprint);
    const api = parseCreateRequest(out.body, catalogue);
    expect(api).toMatchObject({ name: 'Partner', networkWhitelist: ['203.0.113.7', '2001:db8::/32'], roles: ['demo'] });
    expect(out.body).toEqual({ name: 'Partner', networkWhitelist: ['203.0.113.7', '2001:db8::/32'], publicKey, roles: ['demo'] });
  });

  test('editing sends only what changed; an empty key box keeps the keys', () => {
    const current = { name: 'Partner', networkWhitelist: ['203.0.113.7'], roles: ['demo'] };
    const out = runInPortal<Array<{ errors: object; body: Record<string, unknown> }>>(
      `return Promise.all(input.forms.map(async (values) => {
        const r = await m.validation.checkClientForm(values, { mode: 'edit', knownRoles: input.known, current: input.current });
        return { errors: Object.keys(r.errors), body: r.body };
      }));`,
      {
        known,
        current,
        forms: [
          { ...current, publicKey: '' },
          { ...current, name: 'Renamed', publicKey: '' },
          { ...current, roles: ['registry:admin', 'demo'], networkWhitelist: ['203.0.113.7', '198.51.100.0/24'], publicKey: '' },
          { ...current, publicKey },
          { ...current, publicKey: privateKey },
        ],
      },
    );
    expect(out[0]).toEqual({ errors: [], body: {} });
    expect(out[1]).toEqual({ errors: [], body: { name: 'Renamed' } });
    expect(out[2]).toEqual({ errors: [], body: { networkWhitelist: ['203.0.113.7', '198.51.100.0/24'], roles: ['registry:admin', 'demo'] } });
    expect(out[3]).toEqual({ errors: [], body: { publicKey } });
    expect(out[4]).toEqual({ errors: ['publicKey'], body: {} });
    for (const o of out.slice(1, 4)) expect(() => parsePatchRequest({ ...o.body, version: 1 }, catalogue)).not.toThrow();
  });

  test('a name stored before a rule refused it does not block an edit that keeps it; a new one is checked', () => {
    const current = { name: 'Acme\u00ad Ltd', networkWhitelist: ['203.0.113.7'], roles: ['demo'] };
    const out = runInPortal<Array<{ errors: string[]; body: Record<string, unknown> }>>(
      `return Promise.all(input.forms.map(async (values) => {
        const r = await m.validation.checkClientForm(values, { mode: 'edit', knownRoles: input.known, current: input.current });
        return { errors: Object.keys(r.errors), body: r.body };
      }));`,
      { known, current, forms: [{ ...current, roles: ['demo', 'registry:admin'], publicKey: '' }, { ...current, name: 'Acme\u00ad Holdings', publicKey: '' }] },
    );
    expect(out).toEqual([
      { errors: [], body: { roles: ['demo', 'registry:admin'] } },
      { errors: ['name'], body: {} },
    ]);
  });

  test('a published source instead of a key: checked by the core URL rules (http to 127.0.0.1 only where the portal is served over http), sent only when it changes', () => {
    const jwks = { jwksUri: 'https://partner.example/.well-known/jwks.json' };
    const local = { signatureAgent: 'http://127.0.0.1:8088' };
    const current = { name: 'Partner', networkWhitelist: ['203.0.113.7'], roles: ['demo'], keySource: jwks };
    const out = runInPortal<Array<{ errors: Record<string, { code: string; message: string }>; body: Record<string, unknown> }>>(
      `return Promise.all(input.cases.map(async ([values, options]) => {
        const r = await m.validation.checkClientForm(values, { knownRoles: input.known, ...options });
        return { errors: Object.fromEntries(Object.entries(r.errors).map(([f, e]) => [f, { code: e.code, message: e.message }])), body: r.body };
      }));`,
      {
        known,
        cases: [
          [{ ...valid(), publicKey: '', source: jwks }, { mode: 'create' }],
          [{ ...valid(), publicKey: '', source: local }, { mode: 'create' }],
          [{ ...valid(), publicKey: '', source: local }, { mode: 'create', allowLocalHttp: true }],
          [{ ...valid(), publicKey: '', source: { signatureAgent: 'https://agent.example/path' } }, { mode: 'create' }],
          [{ ...valid(), publicKey: '', source: { jwksUri: 'partner.example' } }, { mode: 'create' }],
          [{ ...current, publicKey: '', source: jwks }, { mode: 'edit', current }],
          [{ ...current, publicKey: '', source: { signatureAgent: 'https://agent.example' } }, { mode: 'edit', current }],
        ],
      },
    );
    expect(out[0]).toEqual({ errors: {}, body: { name: 'Partner', networkWhitelist: ['203.0.113.7'], roles: ['demo'], ...jwks } });
    expect(out[1].errors.source).toEqual({ code: 'key_source_refused', message: 'The signature agent origin uses http; key sources are fetched over https (plain http to 127.0.0.1 and localhost is for the local gateway only).' });
    expect(out[2]).toEqual({ errors: {}, body: expect.objectContaining(local) });
    expect(out[3].errors.source.message).toMatch(/^The signature agent is an origin \(scheme, host and port, e\.g\. https:\/\/agent\.example\)/);
    expect(out[4].errors.source.message).toBe('The JWKS URI is not an absolute URL; give e.g. https://partner.example/.well-known/jwks.json.');
    expect(out[5]).toEqual({ errors: {}, body: {} });
    expect(out[6]).toEqual({ errors: {}, body: { signatureAgent: 'https://agent.example' } });
    // What the form sends is what the registry's contract accepts.
    expect(parseCreateRequest(out[0].body, catalogue)).toMatchObject({ keySource: jwks });
    expect(() => parsePatchRequest({ ...out[6].body, version: 1 }, catalogue)).not.toThrow();
  });
});
