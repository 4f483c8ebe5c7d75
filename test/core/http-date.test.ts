import fc from 'fast-check';
import { formatHttpDate, parseHttpDate } from '../../lambda/core/http-date';

describe('formatHttpDate (IMF-fixdate, RFC 9110 §5.6.7)', () => {
  it('formats the RFC 9110 example exactly', () => {
    expect(formatHttpDate(784111777)).toBe('Sun, 06 Nov 1994 08:49:37 GMT');
  });

  it('formats the RFC 9421 test-request Date', () => {
    expect(formatHttpDate(1618884475)).toBe('Tue, 20 Apr 2021 02:07:55 GMT');
  });

  it('pads day, hour, minute and second to two digits', () => {
    expect(formatHttpDate(Date.UTC(2026, 0, 1, 0, 0, 0) / 1000)).toBe('Thu, 01 Jan 2026 00:00:00 GMT');
    expect(formatHttpDate(0)).toBe('Thu, 01 Jan 1970 00:00:00 GMT');
  });

  it('drops fractional seconds', () => {
    expect(formatHttpDate(784111777.9)).toBe('Sun, 06 Nov 1994 08:49:37 GMT');
  });

  it('agrees with Date#toUTCString (an independent IMF-fixdate writer) for 1970-9999 (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253402300799 }), (unixS) => {
        expect(formatHttpDate(unixS)).toBe(new Date(unixS * 1000).toUTCString());
      }),
      { numRuns: 1000 },
    );
  });
});

describe('parseHttpDate', () => {
  it('parses the RFC 9110 example', () => {
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(784111777);
  });

  it('round-trips every second from 1970 to 9999 (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253402300799 }), (unixS) => {
        expect(parseHttpDate(formatHttpDate(unixS))).toBe(unixS);
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts 29 Feb in leap years only', () => {
    expect(parseHttpDate('Tue, 29 Feb 2000 00:00:00 GMT')).toBe(951782400);
    expect(parseHttpDate('Thu, 29 Feb 2024 12:00:00 GMT')).toBe(1709208000);
    expect(parseHttpDate('Mon, 29 Feb 1900 00:00:00 GMT')).toBeUndefined();
    expect(parseHttpDate('Sun, 29 Feb 2023 00:00:00 GMT')).toBeUndefined();
  });

  it.each([
    ['RFC 850 form', 'Sunday, 06-Nov-94 08:49:37 GMT'],
    ['asctime form', 'Sun Nov  6 08:49:37 1994'],
    ['ISO 8601', '1994-11-06T08:49:37Z'],
    ['unix seconds', '784111777'],
    ['wrong day name', 'Mon, 06 Nov 1994 08:49:37 GMT'],
    ['full day name', 'Sunday, 06 Nov 1994 08:49:37 GMT'],
    ['31 Feb', 'Tue, 31 Feb 2026 10:00:00 GMT'],
    ['31 Apr', 'Fri, 31 Apr 2026 10:00:00 GMT'],
    ['day 00', 'Sun, 00 Nov 1994 08:49:37 GMT'],
    ['day 32', 'Sun, 32 Jan 2026 08:49:37 GMT'],
    ['hour 24', 'Sun, 06 Nov 1994 24:00:00 GMT'],
    ['minute 60', 'Sun, 06 Nov 1994 08:60:37 GMT'],
    ['second 61', 'Sun, 06 Nov 1994 08:49:61 GMT'],
    ['UTC instead of GMT', 'Sun, 06 Nov 1994 08:49:37 UTC'],
    ['numeric zone', 'Sun, 06 Nov 1994 08:49:37 +0000'],
    ['another zone', 'Sun, 06 Nov 1994 08:49:37 PST'],
    ['no zone', 'Sun, 06 Nov 1994 08:49:37'],
    ['lower-case gmt', 'Sun, 06 Nov 1994 08:49:37 gmt'],
    ['lower-case day name', 'sun, 06 Nov 1994 08:49:37 GMT'],
    ['lower-case month', 'Sun, 06 nov 1994 08:49:37 GMT'],
    ['upper-case month', 'Sun, 06 NOV 1994 08:49:37 GMT'],
    ['one-digit day', 'Sun, 6 Nov 1994 08:49:37 GMT'],
    ['one-digit hour', 'Sun, 06 Nov 1994 8:49:37 GMT'],
    ['two-digit year', 'Sun, 06 Nov 94 08:49:37 GMT'],
    ['extra space after comma', 'Sun,  06 Nov 1994 08:49:37 GMT'],
    ['extra space before GMT', 'Sun, 06 Nov 1994 08:49:37  GMT'],
    ['leading space', ' Sun, 06 Nov 1994 08:49:37 GMT'],
    ['trailing space', 'Sun, 06 Nov 1994 08:49:37 GMT '],
    ['trailing LF', 'Sun, 06 Nov 1994 08:49:37 GMT\n'],
    ['no comma', 'Sun 06 Nov 1994 08:49:37 GMT'],
    ['tab separator', 'Sun,\t06 Nov 1994 08:49:37 GMT'],
    ['fractional seconds', 'Sun, 06 Nov 1994 08:49:37.5 GMT'],
    ['non-ASCII digits', 'Sun, ٠٦ Nov 1994 08:49:37 GMT'],
    ['empty', ''],
  ])('refuses the %s', (_name, value) => {
    expect(parseHttpDate(value)).toBeUndefined();
  });

  it('reads a leap second (60) as the next second', () => {
    expect(parseHttpDate('Sat, 31 Dec 2016 23:59:60 GMT')).toBe(1483228800);
  });

  // Once a bug: Date.UTC maps years 0-99 to 1900-1999, so a four-digit year
  // below 0100 is read as the wrong year. "0070" must not be read as 1970.
  it('does not read a year below 0100 as 19xx', () => {
    const parsed = parseHttpDate('Thu, 01 Jan 0070 00:00:00 GMT');
    expect(parsed).not.toBe(0);
  });

  it('never throws, whatever the input (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (value) => {
        const parsed = parseHttpDate(value);
        expect(parsed === undefined || Number.isInteger(parsed)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});
