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

const canonicalName = fc.constantFrom('@method', '@target-uri', '@authority', '@path', '@query', 'date', 'content-digest', 'content-type', 'x-a', 'x_1.2', '@query-param');
const oddName = fc.constantFrom('Date', '@Method', '', 'a b', 'é', '*', 'a"b', 'a\\b');
const keyid = fc.string({ minLength: 0, maxLength: 20, unit: fc.constantFrom('a', 'Z', '0', '_', '-', ' ', '~', '!', '#') });
const canonicalParam = fc.oneof(
  fc.integer({ min: -5, max: 2_000_000_000 }).map((n) => `;created=${n}`),
  fc.integer({ min: 0, max: 2_000_000_000 }).map((n) => `;expires=${n}`),
  keyid.map((k) => `;keyid="${k}"`),
  fc.constantFrom(';alg="rsa-v1_5-sha256"', ';alg="hmac-sha256"', ';nonce="n1"', ';tag="t"', ';x=1', ';*k="v"', ';a-b.c_d*=3', ';keyid=""', ';created=0', ';created=999999999999999', ';x=-7'),
  // Names as long as a defined parameter's, or sharing its first letters, are other parameters.
  fc.constantFrom(';createz=1', ';expirez="e"', ';keyie="k"', ';noncf=2', ';alh="x"', ';tah=1', ';crea=1', ';keyids="a"', ';algo="x"', ';tags=3', ';ex=4'),
);
const oddParam = fc.constantFrom(
  ';created="1"', ';keyid=5', ';alg=rsa', ';flag', ';created=01', ';created=1.5', ';created=-0', ';expires=1234567890123456', ';keyid="a\\"b"',
  ';keyid="é"', ';Created=1', ';1x=1', ';x=', ';=1', ';x="', ';x=?1', ';x=-', ';x=:AA==:', ';x=tok',
);
/** What Signet's signers send: label sig, lower-case names, single spaces, integer and plain-string parameters. */
const canonicalInput = fc
  .tuple(fc.array(canonicalName, { maxLength: 6 }), fc.array(canonicalParam, { maxLength: 6 }))
  .map(([names, params]) => `sig=(${names.map((n) => `"${n}"`).join(' ')})${params.join('')}`);
/** Canonical names with another separator, and canonical parameters with one odd one among them. */
const oneOddPart = fc
  .tuple(
    fc.array(canonicalName, { minLength: 1, maxLength: 4 }),
    fc.constantFrom(' ', '  ', '\t', '', ' \t', ','),
    fc.array(canonicalParam, { maxLength: 4 }),
    fc.oneof(oddParam, canonicalParam),
    fc.nat(),
  )
  .map(([names, separator, params, odd, at]) => {
    const i = at % (params.length + 1);
    return `sig=(${names.map((n) => `"${n}"`).join(separator)})${[...params.slice(0, i), odd, ...params.slice(i)].join('')}`;
  });
/** Canonical text with one character replaced or inserted somewhere. */
const editedInput = fc
  .tuple(canonicalInput, fc.nat(), fc.boolean(), fc.constantFrom('"', '\\', ' ', '\t', '0', '-', ';', '=', '(', ')', 'A', ',', '*', '.', 'é', '1', ':', '?'))
  .map(([text, at, insert, c]) => {
    const i = at % (text.length + 1);
    return text.slice(0, i) + c + text.slice(insert ? i : i + 1);
  });
/** Anything nearby: other labels, odd names and parameters, other separators, trailing members. */
const wildInput = fc
  .tuple(
    fc.constantFrom('sig', 'proxy', 'sig1'),
    fc.array(fc.oneof(canonicalName, oddName), { maxLength: 6 }),
    fc.constantFrom(' ', '  ', ''),
    fc.array(fc.oneof(canonicalParam, oddParam), { maxLength: 6 }),
    fc.constantFrom('', ' ', ', other=("a")', '  ', ';'),
  )
  .map(([label, names, separator, params, tail]) => `${label}=(${names.map((n) => `"${n}"`).join(separator)})${params.join('')}${tail}`);
/** Values of the parameters Signet's signers send (created, keyid, alg, in that order), canonical or just off it, and what may follow them. */
const SIGNET_ORDER = {
  created: ['0', '7', '1795305317', '999999999999999', '01', '-1', '-0', '1.5', '1234567890123456', '"1"', ''],
  keyid: ['"c_1"', '""', '" ~!#Z_-0"', '"a\\"b"', '"a\\\\b"', '"é"', '"\t"', '5', '"'],
  alg: ['"rsa-v1_5-sha256"', '"ed25519"', '"hmac-sha256"', '""', 'rsa', '"rsa-v1_5-sha256', '"a\\"b"'],
  tail: ['', ';nonce="n"', ';keyid="x"', ';created=1', ' ', ',', ', proxy=("a")', ';'],
};
const signetOrder = fc
  .tuple(fc.array(canonicalName, { maxLength: 4 }), fc.constantFrom(...SIGNET_ORDER.created), fc.oneof(keyid.map((k) => `"${k}"`), fc.constantFrom(...SIGNET_ORDER.keyid)), fc.constantFrom(...SIGNET_ORDER.alg), fc.constantFrom(...SIGNET_ORDER.tail))
  .map(([names, created, id, alg, tail]) => `sig=(${names.map((n) => `"${n}"`).join(' ')});created=${created};keyid=${id};alg=${alg}${tail}`);
const signatureInput = fc.oneof(canonicalInput, oneOddPart, editedInput, wildInput, signetOrder);

test("Signature-Input in the order Signet's signers use: every combination of canonical and odd values reads as the full parse does", () => {
  for (const created of SIGNET_ORDER.created) {
    for (const id of SIGNET_ORDER.keyid) {
      for (const alg of SIGNET_ORDER.alg) {
        for (const tail of SIGNET_ORDER.tail) {
          const text = `sig=("@method" "date");created=${created};keyid=${id};alg=${alg}${tail}`;
          expect({ text, read: outcome(() => readSignatureInput(text, 'sig')) }).toEqual({ text, read: outcome(() => parseSignatureInputMember(text, 'sig')) });
        }
      }
    }
  }
});

test('Signature-Input: the fast path and the full parse agree on canonical and near-canonical text', () => {
  fc.assert(
    fc.property(signatureInput, (text) => {
      expect(outcome(() => readSignatureInput(text, 'sig'))).toEqual(outcome(() => parseSignatureInputMember(text, 'sig')));
    }),
    { numRuns: 6000 },
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
const oddChar = fc.constantFrom('-', '_', ' ', '\t', '!', '=', '.', 'B', 'f', '/', '+', 'é', ':', '\n');
/** Canonical base64 with a character replaced: base64url, whitespace, stray padding, or a last character whose spare bits are not zero. */
const replaced = (text: fc.Arbitrary<string>) =>
  fc.tuple(text, fc.nat(), oddChar).map(([b64, at, c]) => {
    const i = at % b64.length;
    return b64.slice(0, i) + c + b64.slice(i + 1);
  });
/** Canonical base64 with four characters inserted or removed (the length stays a multiple of four). */
const resized = fc
  .tuple(canonicalBase64, fc.nat(), fc.boolean(), fc.array(oddChar, { minLength: 4, maxLength: 4 }))
  .map(([b64, at, insert, cs]) => {
    const i = at % b64.length;
    return insert ? b64.slice(0, i) + cs.join('') + b64.slice(i) : b64.slice(0, i) + b64.slice(i + 4);
  });
const base64Text = fc.oneof(canonicalBase64, replaced(canonicalBase64), replaced(replaced(canonicalBase64)), resized);
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
