/**
 * `x-date`, the browser's Date (lambda/core/defaults.ts DATE_FIELDS): fetch cannot send Date (a
 * forbidden request header), so a browser signer covers `x-date` instead. Covering it satisfies
 * the date requirement without allowLegacy, and it gets every check `date` gets; the signatures
 * are built by the independent signer of ./helpers.ts, not by the core.
 */
import { DATE_FIELDS } from '../../lambda/core/defaults';
import { signRequest } from '../../lambda/core/sign';
import { verifyRequest } from '../../lambda/core/verify';
import { NOW_S, PlainRequest, TestKeys, codeOf, imfDate, independentBase, policyAt, profileParams, rsaKeys, signCustom, verificationKey } from './helpers';

let alice: TestKeys;
beforeAll(() => {
  alice = rsaKeys();
});

const keys = () => [verificationKey(alice)];

function browserGet(xDate: string, created = NOW_S, components = ['@method', '@target-uri', 'x-date']): PlainRequest {
  return signCustom({ method: 'GET', targetUri: 'https://a.example/registry/clients', headers: { 'x-date': xDate } }, { components, params: profileParams(created) }, alice.privateKey);
}

/** Signed over x-date, then sent without the X-Date header. */
function withoutXDate(): PlainRequest {
  const { 'x-date': _dropped, ...headers } = browserGet(imfDate(NOW_S)).headers;
  return { ...browserGet(imfDate(NOW_S)), headers };
}

async function rejection(req: PlainRequest, nowS = NOW_S): Promise<string> {
  return codeOf(() => verifyRequest(req, policyAt(nowS), keys));
}

test('the date fields are date and x-date, in that order', () => {
  expect(DATE_FIELDS).toEqual(['date', 'x-date']);
});

test('a signature covering x-date (no Date header) verifies with the default policy, legacy off', async () => {
  const verdict = await verifyRequest(browserGet(imfDate(NOW_S)), policyAt(NOW_S), keys);
  expect(verdict.covered).toEqual(['"@method"', '"@target-uri"', '"x-date"']);
  expect(policyAt().allowLegacy).toBe(false);
});

test('covering neither date nor x-date is still refused without allowLegacy', async () => {
  expect(await rejection(browserGet(imfDate(NOW_S), NOW_S, ['@method', '@target-uri']))).toBe('missing_component');
});

test('x-date gets the checks date gets: missing, malformed, off from created, stale, future', async () => {
  expect(await rejection(withoutXDate())).toBe('missing_date');
  expect(await rejection(browserGet('yesterday'))).toBe('malformed_date');
  expect(await rejection(browserGet(imfDate(NOW_S + 31)))).toBe('clock_skew');
  expect(await rejection(browserGet(imfDate(NOW_S - 310), NOW_S - 290))).toBe('expired');
  expect(await rejection(browserGet(imfDate(NOW_S + 45), NOW_S + 25))).toBe('clock_skew');
});

test('the missing_date message names the X-Date header', async () => {
  await expect(verifyRequest(withoutXDate(), policyAt(NOW_S), keys)).rejects.toThrow(/no X-Date header/);
});

test('changing the X-Date value after signing breaks the signature', async () => {
  const req = browserGet(imfDate(NOW_S));
  expect(await rejection({ ...req, headers: { ...req.headers, 'x-date': imfDate(NOW_S - 1) } })).toBe('signature_mismatch');
});

test('when both are covered, both are checked', async () => {
  const req = signCustom(
    { method: 'GET', targetUri: 'https://a.example/', headers: { date: imfDate(NOW_S), 'x-date': 'not a date' } },
    { components: ['@method', '@target-uri', 'date', 'x-date'], params: profileParams(NOW_S) },
    alice.privateKey,
  );
  expect(await rejection(req)).toBe('malformed_date');
});

describe('signRequest dateField', () => {
  test("'x-date' puts the date in X-Date, covers x-date in place of date, and verifies", async () => {
    const body = '{"name":"x"}';
    const { headers, base } = signRequest({ method: 'post', url: 'https://a.example/registry/clients', body, keyId: 'c_1', privateKey: alice.privateKey, created: NOW_S, dateField: 'x-date' });
    expect(Object.keys(headers).sort()).toEqual(['content-digest', 'signature', 'signature-input', 'x-date']);
    expect(headers['x-date']).toBe(imfDate(NOW_S));
    expect(headers['signature-input']).toBe(`sig=("@method" "@target-uri" "content-digest" "x-date");created=${NOW_S};keyid="c_1";alg="rsa-v1_5-sha256"`);
    const req = { method: 'POST', targetUri: 'https://a.example/registry/clients', headers: { ...headers, 'content-length': String(body.length) } };
    expect(base).toBe(independentBase(req, ['@method', '@target-uri', 'content-digest', 'x-date'], headers['signature-input'].slice(4)));
    await expect(verifyRequest(req, policyAt(NOW_S), keys)).resolves.toEqual({
      keyId: 'c_1',
      fingerprint: alice.fingerprint,
      created: NOW_S,
      covered: ['"@method"', '"@target-uri"', '"content-digest"', '"x-date"'],
      contentDigest: headers['content-digest'],
      profile: 'signet',
      coversMethod: true,
      coversPath: true,
    });
  });

  test("the default stays 'date', and legacy still sends neither", () => {
    const plain = signRequest({ method: 'GET', url: 'https://a.example/', keyId: 'c', privateKey: alice.privateKey, created: NOW_S });
    expect(plain.headers.date).toBe(imfDate(NOW_S));
    expect(plain.headers['x-date']).toBeUndefined();
    const legacy = signRequest({ method: 'GET', url: 'https://a.example/', keyId: 'c', privateKey: alice.privateKey, created: NOW_S, legacy: true, dateField: 'x-date' });
    expect(Object.keys(legacy.headers).sort()).toEqual(['signature', 'signature-input']);
  });

  test('an unknown dateField is refused', async () => {
    const code = await codeOf(() =>
      signRequest({ method: 'GET', url: 'https://a.example/', keyId: 'c', privateKey: alice.privateKey, created: NOW_S, dateField: 'x-when' as 'x-date' }),
    );
    expect(code).toBe('invalid_request');
  });
});
