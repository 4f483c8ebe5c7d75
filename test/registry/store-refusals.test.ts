/**
 * The registry words the store's refusals (a code and what they are about) in its own routes;
 * every other error reaches the caller as it was thrown.
 */
import { SignetError } from '../../lambda/core/errors';
import { StoreRefusal } from '../../lambda/domain/store-refusal';
import { inRegistryWords } from '../../lambda/registry/store-refusals';

test('a store refusal keeps its code and cause and gains the route to look next', () => {
  const cause = new Error('underlying');
  const worded = inRegistryWords(new StoreRefusal('not_found', 'No account has the id (malformed id). Check the accountId.', { about: 'account', accountId: undefined }, { cause }));
  expect({ code: worded.code, status: worded.status, message: worded.message, cause: worded.cause }).toEqual({
    code: 'not_found',
    status: 404,
    message: 'No account has the id (malformed id). Check the accountId, or list accounts with GET /registry/accounts.',
    cause,
  });
});

test('any other error passes through unchanged', () => {
  const error = new SignetError('version_conflict', 'The client was changed by someone else.');
  expect(inRegistryWords(error)).toBe(error);
});
