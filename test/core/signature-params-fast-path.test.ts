/**
 * readSignatureInput / readSignatureValue take a fast path for canonical text. These tests check
 * that, for every input, the fast path and the full RFC 8941 parse agree exactly (same result, or
 * the same refusal), on canonical text and on near-canonical text that must fall back.
 */
import fc from 'fast-check';
import { isSignetError } from '../../lambda/core/errors';
import {
  parseSignatureInputMember,
  parseSignatureMember,
  readSignatureInput,
  readSignatureValue,
} from '../../lambda/core/signature-params';

type Outcome = { ok: unknown } | { code: string };

function outcome(f: () => unknown): Outcome {
  try {
    const value = f();
    return { ok: value instanceof Uint8Array ? Buffer.from(value).toString('hex') : JSON.parse(JSON.stringify(value, (_k, v: unknown) => (v instanceof Map ? [...v] : v))) };
  } catch (error) {
    if (isSignetError(error)) return { code: error.code };
    throw error;
  }
}

const componentName = fc.constantFrom('@method', '@target-uri', '@authority', '@path', '@query', 'date', 'content-digest', 'content-type', 'x-a', 'Date', '@Method');
const keyid = fc.string({ minLength: 0, maxLength: 20, unit: fc.constantFrom('a', 'Z', '0', '_', '-', ' ', '"', '\\', '~', 'é') });
const param = fc.oneof(
  fc.integer({ min: -5, max: 2_000_000_000 }).map((n) => `;created=${n}`),
  fc.integer({ min: 0, max: 2_000_000_000 }).map((n) => `;expires=${n}`),
  keyid.map((k) => `;keyid="${k}"`),
  fc.constantFrom(';alg="rsa-v1_5-sha256"', ';alg="hmac-sha256"', ';nonce="n1"', ';tag="t"', ';created="1"', ';keyid=5', ';alg=rsa', ';x=1', ';flag', ';created=01', ';created=1.5'),
);
const signatureInput = fc
  .tuple(fc.constantFrom('sig', 'proxy', 'sig1'), fc.array(componentName, { maxLength: 6 }), fc.array(param, { maxLength: 6 }), fc.constantFrom('', ' ', ', other=("a")', '  '))
  .map(([label, names, params, tail]) => `${label}=(${names.map((n) => `"${n}"`).join(' ')})${params.join('')}${tail}`);

test('Signature-Input: the fast path and the full parse agree on canonical and near-canonical text', () => {
  fc.assert(
    fc.property(signatureInput, (text) => {
      expect(outcome(() => readSignatureInput(text, 'sig'))).toEqual(outcome(() => parseSignatureInputMember(text, 'sig')));
    }),
    { numRuns: 3000 },
  );
});

test('Signature-Input: the scheme\'s own form is read by the fast path with the right values', () => {
  const text = 'sig=("@method" "@target-uri" "content-digest" "date");created=1795305317;keyid="c_1";alg="rsa-v1_5-sha256"';
  const read = readSignatureInput(text, 'sig');
  expect(read).toMatchObject({ created: 1795305317, keyid: 'c_1', alg: 'rsa-v1_5-sha256', signatureParams: text.slice(4) });
  expect(read.covered.map((c) => c.serialized)).toEqual(['"@method"', '"@target-uri"', '"content-digest"', '"date"']);
  expect(outcome(() => read)).toEqual(outcome(() => parseSignatureInputMember(text, 'sig')));
});

const canonicalBase64 = fc.uint8Array({ minLength: 1, maxLength: 300 }).map((b) => Buffer.from(b).toString('base64'));
/** Canonical base64 with one character replaced: base64url, whitespace, stray padding, or a last character whose spare bits are not zero. */
const base64Text = fc.oneof(
  canonicalBase64,
  fc
    .tuple(canonicalBase64, fc.nat(), fc.constantFrom('-', '_', ' ', '\t', '!', '=', '.', 'B', 'f', '/', '+'))
    .map(([b64, at, c]) => {
      const i = at % b64.length;
      return b64.slice(0, i) + c + b64.slice(i + 1);
    }),
);
const signatureValue = fc
  .tuple(fc.constantFrom('sig', 'other'), base64Text, fc.constantFrom('', '=', '==', 'A', ' ', ', x=:AA==:'))
  .chain(([label, b64, tail]) =>
    fc.constantFrom(`${label}=:${b64}:${tail}`, `${label}=:${b64}${tail}:`, `${label}=:${b64.replace(/=+$/, '')}:`, `${label}=${b64}`),
  );

test('Signature: the fast path and the full parse agree', () => {
  fc.assert(
    fc.property(signatureValue, (text) => {
      expect(outcome(() => readSignatureValue(text, 'sig'))).toEqual(outcome(() => parseSignatureMember(text, 'sig')));
    }),
    { numRuns: 3000 },
  );
});
