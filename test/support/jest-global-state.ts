/**
 * What the Jest global setup hands to the global teardown (both run in Jest's main process and
 * share its global object; the test files never see it).
 */
import type { DynamoDbLocal } from '../../local/dynamodb-local';

interface SharedDynamoDb {
  readonly starting: Promise<DynamoDbLocal | undefined>;
  /** Lives in a temporary directory of its own, removed with it. */
  readonly failureFile: string;
}

const KEY = Symbol.for('signet.test.sharedDynamoDb');
type Holder = { [KEY]?: SharedDynamoDb };

export function setSharedDynamoDb(shared: SharedDynamoDb): void {
  (globalThis as Holder)[KEY] = shared;
}

export function takeSharedDynamoDb(): SharedDynamoDb | undefined {
  const shared = (globalThis as Holder)[KEY];
  delete (globalThis as Holder)[KEY];
  return shared;
}
