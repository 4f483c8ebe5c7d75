/**
 * Jest global setup: one DynamoDB Local for the whole run, shared by every worker and file
 * (test/support/dynamodb.ts connects to it; each file gets tables of its own). Starting a JVM per
 * file cost ~5 s of CPU each, about 25 times per run.
 *
 * The emulator is started but not waited for: files that never touch DynamoDB start at once,
 * and the first file that needs it waits until it answers. A start failure is written where the
 * tests read it, so they fail at once with the reason (e.g. no Java 17) instead of timing out.
 *
 * A run started from inside a run (test/scripts/test-runner.test.ts runs `npm test` on a small
 * fixture suite) inherits the outer run's emulator through the environment and uses it: a JVM
 * for a suite that may not touch DynamoDB at all cost ~5 s of CPU each time.
 *
 * Also quiets, for the test processes and their children, npm's warnings and the AWS SDK's
 * notice that SDK releases from 2027 need Node 22: it is printed by every process that loads the
 * SDK, and the project runs on Node 20 locally and Node 22 on Lambda on purpose.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DYNAMODB_LOCAL_HOST, type DynamoDbLocal, findFreePort, startDynamoDbLocal } from '../../local/dynamodb-local';
import { SHARED_DYNAMODB_ENDPOINT_ENV, SHARED_DYNAMODB_FAILURE_FILE_ENV } from './dynamodb';
import { setSharedDynamoDb } from './jest-global-state';

export default async function globalSetup(): Promise<void> {
  // The SDK's documented switch (@aws-sdk/core emitWarningIfUnsupportedVersion).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // The CDK runs esbuild through `npx`, which repeats npm's warnings about the machine's own npm
  // configuration for every bundle; errors still print.
  process.env.npm_config_loglevel ??= 'error';

  // An outer run's emulator: it outlives this run (the outer run stops it), so nothing to stop here.
  if (process.env[SHARED_DYNAMODB_ENDPOINT_ENV] !== undefined && process.env[SHARED_DYNAMODB_FAILURE_FILE_ENV] !== undefined) return;

  const port = await findFreePort();
  const failureFile = join(mkdtempSync(join(tmpdir(), 'signet-jest-')), 'dynamodb-failure.txt');
  process.env[SHARED_DYNAMODB_ENDPOINT_ENV] = `http://${DYNAMODB_LOCAL_HOST}:${port}`;
  process.env[SHARED_DYNAMODB_FAILURE_FILE_ENV] = failureFile;
  const starting: Promise<DynamoDbLocal | undefined> = startDynamoDbLocal({ port }).catch((error: Error) => {
    writeFileSync(failureFile, error.message);
    return undefined;
  });
  setSharedDynamoDb({ starting, failureFile });
}
