import { isSignetError } from '../../lambda/core/errors';
import { isInnerList, parseDictionaryField, serializeDictionaryValue, serializeInnerListValue, serializeMemberValue } from '../../lambda/core/structured-fields';
import { errorOf } from './helpers';

describe('structured fields (RFC 8941 through structured-headers)', () => {
  it('parses a dictionary and serialises it canonically', () => {
    const dict = parseDictionaryField('a=1,   b=2;x=1;y=2,   c=(a   b   c), d', 'malformed_digest', 'Example-Dict');
    expect(serializeDictionaryValue(dict)).toBe('a=1, b=2;x=1;y=2, c=(a b c), d');
  });

  it('serialises members the way RFC 9421 §2.1.2 prints them', () => {
    const dict = parseDictionaryField('a=1, b=2;x=1;y=2, c=(a   b    c), d', 'malformed_digest', 'Example-Dict');
    const members = Object.fromEntries([...dict].map(([k, v]) => [k, serializeMemberValue(v)]));
    expect(members).toEqual({ a: '1', d: '?1', b: '2;x=1;y=2', c: '(a b c)' });
    expect(isInnerList(dict.get('c')!)).toBe(true);
    expect(isInnerList(dict.get('a')!)).toBe(false);
  });

  it('serialises an inner list with parameters (§2.3 shape)', () => {
    const dict = parseDictionaryField('sig=("@method" "date");created=1;keyid="k"', 'malformed_signature_input', 'Signature-Input');
    const member = dict.get('sig')!;
    expect(isInnerList(member)).toBe(true);
    expect(serializeInnerListValue(member as Parameters<typeof serializeInnerListValue>[0])).toBe('("@method" "date");created=1;keyid="k"');
  });

  it('turns a parse failure into the given SignetError code, naming the field', () => {
    const error = errorOf(() => parseDictionaryField('sig=(', 'malformed_signature_input', 'Signature-Input'));
    expect(error.code).toBe('malformed_signature_input');
    expect(error.message).toContain('Signature-Input');
  });

  it.each([['a=1,'], ['A=1'], ['a=1;;b'], ['a="unterminated'], ['a=:not base64!:'], ['a=1 b=2'], ['a=?2'], ['a=1.2345']])('refuses %j with a SignetError', (value) => {
    try {
      parseDictionaryField(value, 'malformed_digest', 'X');
      throw new Error('should not parse');
    } catch (error) {
      expect(isSignetError(error)).toBe(true);
    }
  });
});
