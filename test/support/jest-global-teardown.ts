/** Jest global teardown: stops the run's shared DynamoDB Local and closes its Chromium (see jest-global-setup.ts). */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { takeSharedChromium, takeSharedDynamoDb } from './jest-global-state';

export default async function globalTeardown(): Promise<void> {
  await takeSharedChromium()?.close();
  const shared = takeSharedDynamoDb();
  if (shared === undefined) return;
  await (await shared.starting)?.stop();
  rmSync(dirname(shared.failureFile), { recursive: true, force: true });
}
