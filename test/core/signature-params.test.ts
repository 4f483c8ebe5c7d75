import fc from 'fast-check';
import { MAX_SIGNATURE_HEADER_BYTES } from '../../lambda/core/defaults';
import { isSignetError } from '../../lambda/core/errors';
import { readSignatureInput, readSignatureValue } from '../../lambda/core/signature-params';
import { PROXY_REQUEST, PROXY_SIG_SIGNATURE_B64, toSignedRequest } from '../fixtures/rfc9421';
import { errorOf } from './helpers';

describe('readSignatureInput', () => {
  it('serialises the §2.3 example exactly and reads its parameters', () => {
    const params = '("@target-uri" "@authority" "date" "cache-control");keyid="test-key-rsa-pss";alg="rsa-pss-sha512";created=1618884475;expires=1618884775';
    const input = readSignatureInput(`sig1=${params}`, 'sig1');
    expect(input.signatureParams).toBe(params);
    expect(input.covered.map((c) => c.serialized)).toEqual(['"@target-uri"', '"@authority"', '"date"', '"cache-control"']);
    expect(input).toMatchObject({ label: 'sig1', keyid: 'test-key-rsa-pss', alg: 'rsa-pss-sha512', created: 1618884475, expires: 1618884775 });
  });

  it('serialises non-canonical whitespace canonically (RFC 8941 §4.1), keeping parameter order', () => {
    const input = readSignatureInput('sig=(  "@method"   "date"  );  keyid="k";created=5;  alg="rsa-v1_5-sha256"', 'sig');
    expect(input.signatureParams).toBe('("@method" "date");keyid="k";created=5;alg="rsa-v1_5-sha256"');
  });

  it('picks the requested label among several (the RFC §4.3 header) and reads component parameters', () => {
    const req = toSignedRequest(PROXY_REQUEST);
    expect(readSignatureInput(req.headers['signature-input'], 'proxy_sig').keyid).toBe('test-key-rsa');
    expect(readSignatureInput(req.headers['signature-input'], 'sig1').keyid).toBe('test-key-ecc-p256');
    const withParam = readSignatureInput('sig=("@query-param";name="Pet" "content-digest";key="sha-256")', 'sig');
    expect(withParam.covered.map((c) => [c.name, c.serialized])).toEqual([
      ['@query-param', '"@query-param";name="Pet"'],
      ['content-digest', '"content-digest";key="sha-256"'],
    ]);
  });

  it('reads nonce and tag', () => {
    expect(readSignatureInput('sig=();nonce="n1";tag="t1"', 'sig')).toMatchObject({ nonce: 'n1', tag: 't1' });
  });

  it('refuses a missing label with signature_label_missing naming the labels found', () => {
    const error = errorOf(() => readSignatureInput('other=("@method");created=1, proxy=()', 'sig'));
    expect(error.code).toBe('signature_label_missing');
    expect(error.message).toContain('"other"');
    expect(error.message).toContain('"proxy"');
  });

  it.each([
    ['not a dictionary', 'this is not a dictionary'],
    ['an item instead of an inner list', 'sig="@method"'],
    ['a token component', 'sig=(method)'],
    ['an integer component', 'sig=(1)'],
    ['an upper-case component', 'sig=("@Method")'],
    ['an upper-case field', 'sig=("Date")'],
    ['a component listed twice', 'sig=("@method" "date" "@method")'],
    ['created as a decimal', 'sig=("@method");created=1618884475.5'],
    ['created as a string', 'sig=("@method");created="1618884475"'],
    ['created as a boolean', 'sig=("@method");created'],
    ['expires as a token', 'sig=("@method");expires=never'],
    ['keyid as a token', 'sig=("@method");keyid=client'],
    ['keyid as an integer', 'sig=("@method");keyid=7'],
    ['alg as a token', 'sig=("@method");alg=rsa'],
    ['nonce as bytes', 'sig=("@method");nonce=:AAAA:'],
    // RFC 9651 types that RFC 9421 signature parameters do not use: parsed, then refused as the wrong type.
    ['created as an RFC 9651 date', 'sig=("@method");created=@1618884475'],
    ['expires as an RFC 9651 date', 'sig=("@method");expires=@1618884775'],
    ['keyid as an RFC 9651 display string', 'sig=("@method");keyid=%"client"'],
    ['a display-string component', 'sig=(%"@method")'],
    ['a date component', 'sig=(@1618884475)'],
    ['an unterminated inner list', 'sig=("@method"'],
    ['an upper-case label', 'SIG=("@method")'],
    ['too long', `sig=("@method");keyid="${'k'.repeat(MAX_SIGNATURE_HEADER_BYTES)}"`],
  ])('refuses %s with malformed_signature_input', (_name, value) => {
    expect(errorOf(() => readSignatureInput(value, 'sig')).code).toBe('malformed_signature_input');
  });

  it('reads an empty field as an empty dictionary: signature_label_missing', () => {
    expect(errorOf(() => readSignatureInput('', 'sig')).code).toBe('signature_label_missing');
  });

  it('does not treat the same component with different parameters as a duplicate', () => {
    expect(readSignatureInput('sig=("content-digest" "content-digest";sf)', 'sig').covered).toHaveLength(2);
  });

  it('throws only SignetErrors for arbitrary input (property)', () => {
    const sfish = fc.string({ unit: fc.constantFrom(...'sig=()";:@-_ ,*?abcdz019\\./'.split('')), maxLength: 60 });
    fc.assert(
      fc.property(sfish, (value) => {
        for (const read of [() => readSignatureInput(value, 'sig'), () => readSignatureValue(value, 'sig')]) {
          try {
            read();
          } catch (error) {
            expect(isSignetError(error)).toBe(true);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('readSignatureValue', () => {
  it('returns the bytes of the requested label (the RFC §4.3 proxy_sig value)', () => {
    const req = toSignedRequest(PROXY_REQUEST);
    const bytes = readSignatureValue(req.headers.signature, 'proxy_sig');
    expect(bytes.length).toBe(256);
    expect(bytes.toString('base64')).toBe(PROXY_SIG_SIGNATURE_B64);
    expect(readSignatureValue(req.headers.signature, 'sig1').length).toBe(64);
  });

  it('refuses a missing label with signature_label_missing', () => {
    expect(errorOf(() => readSignatureValue('other=:AAAA:', 'sig')).code).toBe('signature_label_missing');
  });

  it.each([
    ['not a dictionary', 'AAAA'],
    ['a string instead of bytes', 'sig="AAAA"'],
    ['a token', 'sig=AAAA'],
    ['an inner list of bytes', 'sig=(:AAAA:)'],
    ['an empty byte sequence', 'sig=::'],
    ['invalid base64', 'sig=:AA*A:'],
    ['an RFC 9651 date', 'sig=@1618884475'],
    ['an RFC 9651 display string', 'sig=%"AAAA"'],
    ['too long', `sig=:${'A'.repeat(MAX_SIGNATURE_HEADER_BYTES)}:`],
  ])('refuses %s with malformed_signature', (_name, value) => {
    expect(errorOf(() => readSignatureValue(value, 'sig')).code).toBe('malformed_signature');
  });
});
