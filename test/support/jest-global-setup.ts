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
 * When the run has browser tests to run, it also launches the run's one Chromium
 * (test/support/shared-chromium.ts): each browser test file opens a context of its own on it
 * instead of launching Chromium itself (about a second of CPU per file). A run without browser
 * tests (the path patterns select none) launches none.
 *
 * Every temporary file the run makes (CDK's `cdk.out` directories, the examples' builds, the
 * portal's bundles, DynamoDB Local's native library) goes in one directory of the run's own: the
 * setup points TMPDIR there for the test processes and their children, and the teardown removes
 * it, so a run leaves nothing behind in the machine's temporary directory (the CDK alone made
 * about 70 directories a run, and no test can remove those).
 *
 * Also quiets, for the test processes and their children, npm's warnings and the AWS SDK's
 * notice that SDK releases from 2027 need Node 22: it is printed by every process that loads the
 * SDK, and the project runs on Node 20 locally and Node 22 on Lambda on purpose.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { GlobalConfig, ProjectConfig } from 'jest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DYNAMODB_LOCAL_HOST, type DynamoDbLocal, findFreePort, startDynamoDbLocal } from '../../local/dynamodb-local';
import { SHARED_DYNAMODB_ENDPOINT_ENV, SHARED_DYNAMODB_FAILURE_FILE_ENV } from './dynamodb';
import { setRunTempDir, setSharedChromium, setSharedDynamoDb } from './jest-global-state';
import { SHARED_CHROMIUM_ENDPOINT_ENV, launchSharedChromium, runHasBrowserTests } from './shared-chromium';

export default async function globalSetup(globalConfig: GlobalConfig, projectConfig: ProjectConfig): Promise<void> {
  // The SDK's documented switch (@aws-sdk/core emitWarningIfUnsupportedVersion).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // The CDK runs esbuild through `npx`, which repeats npm's warnings about the machine's own npm
  // configuration for every bundle; errors still print.
  process.env.npm_config_loglevel ??= 'error';
  useRunTempDir();

  await startSharedDynamoDb();
  await startSharedChromium(globalConfig, projectConfig);
}

/** Points os.tmpdir() of every later process of the run (workers, their children) at a directory the teardown removes. */
function useRunTempDir(): void {
  const dir = mkdtempSync(join(tmpdir(), 'signet-test-run-'));
  process.env.TMPDIR = dir;
  setRunTempDir(dir);
}

/** The run's emulator, started and not waited for (test/support/dynamodb.ts waits), unless an outer run's is there. */
async function startSharedDynamoDb(): Promise<void> {
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

/**
 * The run's Chromium, when it may run a browser test (its testMatch selects `.test.ts` files, as
 * the project's does and a fixture suite's does not, and its path patterns select a browser test
 * file) and there is no outer run's. A launch that fails is left to the files: each then launches
 * its own and fails with the reason.
 */
async function startSharedChromium(globalConfig: GlobalConfig, projectConfig: ProjectConfig): Promise<void> {
  if (process.env[SHARED_CHROMIUM_ENDPOINT_ENV] !== undefined) return;
  if (!projectConfig.testMatch.some((glob) => glob.endsWith('.test.ts'))) return;
  const patterns = globalConfig.testPathPatterns.toExecutor({ rootDir: globalConfig.rootDir });
  if (!runHasBrowserTests(join(globalConfig.rootDir, 'test'), (path) => !patterns.isSet() || patterns.isMatch(path))) return;
  const server = await launchSharedChromium().catch(() => undefined);
  if (server === undefined) return;
  process.env[SHARED_CHROMIUM_ENDPOINT_ENV] = server.wsEndpoint();
  setSharedChromium(server);
}
