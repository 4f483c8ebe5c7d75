/**
 * After a registry write the CLI says when the authorizers apply it, from the registry's
 * `x-signet-authorizer-cache-ttl` header, on stderr so that `--json` output stays one document.
 */
import { printAnswer, propagationNote } from '../../bin/commands/registry-client';

let stdout: string[];
let stderr: string[];
beforeEach(() => {
  stdout = [];
  stderr = [];
  jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void stdout.push(args.join(' ')));
  jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void stderr.push(args.join(' ')));
});
afterEach(() => jest.restoreAllMocks());

test('a deployed registry (60 s TTL): the note names the TTL; stdout holds only the JSON', () => {
  expect(printAnswer({ status: 200, body: { clientId: 'c_x', status: 'disabled' }, cacheTtlSeconds: 60 }, { json: true })).toBe(0);
  expect(JSON.parse(stdout.join('\n'))).toEqual({ clientId: 'c_x', status: 'disabled' });
  expect(stderr).toEqual(["note: authorizers that already hold this client's record may go on using the previous one for up to 60 s (their client cache TTL)."]);
});

test('0 s: applies to the next request; a read (no header) and a refusal get no note', () => {
  expect(propagationNote(0)).toBe('note: this change applies to the next request.');
  printAnswer({ status: 200, body: { clients: [] } });
  expect(stderr).toEqual([]);
  expect(printAnswer({ status: 409, body: { error: 'last_admin', message: 'Keep one administrator.' }, cacheTtlSeconds: 60 })).toBe(1);
  expect(stderr.join('\n')).not.toContain('note:');
});
