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

const CHROMIUM_KEY = Symbol.for('signet.test.sharedChromium');
type ChromiumHolder = { [CHROMIUM_KEY]?: { close(): Promise<void> } };

/** The run's browser server (test/support/shared-chromium.ts), for the teardown to close. */
export function setSharedChromium(server: { close(): Promise<void> }): void {
  (globalThis as ChromiumHolder)[CHROMIUM_KEY] = server;
}

export function takeSharedChromium(): { close(): Promise<void> } | undefined {
  const server = (globalThis as ChromiumHolder)[CHROMIUM_KEY];
  delete (globalThis as ChromiumHolder)[CHROMIUM_KEY];
  return server;
}

const TEMP_DIR_KEY = Symbol.for('signet.test.runTempDir');
type TempDirHolder = { [TEMP_DIR_KEY]?: string };

/** The run's temporary directory (TMPDIR of its processes), for the teardown to remove. */
export function setRunTempDir(dir: string): void {
  (globalThis as TempDirHolder)[TEMP_DIR_KEY] = dir;
}

export function takeRunTempDir(): string | undefined {
  const dir = (globalThis as TempDirHolder)[TEMP_DIR_KEY];
  delete (globalThis as TempDirHolder)[TEMP_DIR_KEY];
  return dir;
}
