/**
 * The CLI's argument parsing (bin/commands/args.ts): a key fingerprint or a cursor is base64url,
 * so one in 64 starts with `-`; it must be read as the argument or the option value it is, not as
 * an option (node's parser alone refuses `keys remove c_... -Xk3...` and `--fingerprint -Xk3...`).
 */
import { UsageError, parse } from '../../bin/commands/args';

const FINGERPRINT = `-${'Ab3_'.repeat(10)}xy`; // 43 base64url characters, starting with '-'
const OPTIONS = {
  fingerprint: { type: 'string' },
  cursor: { type: 'string' },
  json: { type: 'boolean' },
  header: { type: 'string', short: 'H', multiple: true },
  data: { type: 'string', short: 'd' },
  help: { type: 'boolean', short: 'h' },
} as const;

test('a positional that starts with "-" stays a positional, in its place', () => {
  expect(FINGERPRINT).toHaveLength(43);
  expect(parse(['c_x', FINGERPRINT, '--json'], OPTIONS)).toEqual({ values: { json: true }, positionals: ['c_x', FINGERPRINT] });
  expect(parse([FINGERPRINT, 'c_x'], OPTIONS).positionals).toEqual([FINGERPRINT, 'c_x']);
});

test('an option value that starts with "-" is the value', () => {
  expect(parse(['--fingerprint', FINGERPRINT], OPTIONS).values).toEqual({ fingerprint: FINGERPRINT });
  expect(parse(['--cursor', '-abc', '--json'], OPTIONS).values).toEqual({ cursor: '-abc', json: true });
  expect(parse(['-d', '-x', 'url'], OPTIONS)).toEqual({ values: { data: '-x' }, positionals: ['url'] });
});

test('options, short flags and "--" work as before; unknown options are still usage errors', () => {
  expect(parse(['-H', 'A: b', '-H', 'C: d', 'url', '-h'], OPTIONS)).toEqual({ values: { header: ['A: b', 'C: d'], help: true }, positionals: ['url'] });
  expect(parse(['--fingerprint=abc', 'x', '--', '-y'], OPTIONS)).toEqual({ values: { fingerprint: 'abc' }, positionals: ['x', '-y'] });
  expect(() => parse(['--bogus'], OPTIONS)).toThrow(UsageError);
  expect(() => parse(['-z'], OPTIONS)).toThrow(UsageError);
  expect(() => parse(['--json=yes'], OPTIONS)).toThrow(UsageError);
});
