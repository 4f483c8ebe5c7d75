/**
 * Jest global teardown: stops the run's shared DynamoDB Local, closes its Chromium and removes
 * the run's temporary directory (see jest-global-setup.ts).
 */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { takeRunTempDir, takeSharedChromium, takeSharedDynamoDb } from './jest-global-state';

export default async function globalTeardown(): Promise<void> {
  await takeSharedChromium()?.close();
  const shared = takeSharedDynamoDb();
  if (shared !== undefined) {
    await (await shared.starting)?.stop();
    rmSync(dirname(shared.failureFile), { recursive: true, force: true });
  }
  const tempDir = takeRunTempDir();
  if (tempDir !== undefined) rmSync(tempDir, { recursive: true, force: true });
}
