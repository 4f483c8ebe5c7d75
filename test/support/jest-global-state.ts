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

/** A value the setup leaves for the teardown under `name` (in the global symbol registry: each may load this module anew). */
function handOver<T>(name: string): { set(value: T): void; take(): T | undefined } {
  const key = Symbol.for(`signet.test.${name}`);
  const holder = globalThis as unknown as Record<symbol, T | undefined>;
  return {
    set: (value) => {
      holder[key] = value;
    },
    take: () => {
      const value = holder[key];
      delete holder[key];
      return value;
    },
  };
}

const sharedDynamoDb = handOver<SharedDynamoDb>('sharedDynamoDb');
export const setSharedDynamoDb = sharedDynamoDb.set;
export const takeSharedDynamoDb = sharedDynamoDb.take;

/** The run's browser server (test/support/shared-chromium.ts), for the teardown to close. */
const sharedChromium = handOver<{ close(): Promise<void> }>('sharedChromium');
export const setSharedChromium = sharedChromium.set;
export const takeSharedChromium = sharedChromium.take;

/** The run's temporary directory (TMPDIR of its processes), for the teardown to remove. */
const runTempDir = handOver<string>('runTempDir');
export const setRunTempDir = runTempDir.set;
export const takeRunTempDir = runTempDir.take;
