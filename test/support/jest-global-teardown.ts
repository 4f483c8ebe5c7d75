/** Jest global teardown: stops the run's shared DynamoDB Local (see jest-global-setup.ts). */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { takeSharedDynamoDb } from './jest-global-state';

export default async function globalTeardown(): Promise<void> {
  const shared = takeSharedDynamoDb();
  if (shared === undefined) return;
  await (await shared.starting)?.stop();
  rmSync(dirname(shared.failureFile), { recursive: true, force: true });
}
