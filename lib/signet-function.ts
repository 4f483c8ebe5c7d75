/**
 * One way to build every Signet Lambda: Node.js 22 on arm64, bundled locally by esbuild (minified,
 * with source maps, never Docker), its own log group with a retention, and its own role that may
 * write only to that log group. Grants for data come from the construct that owns the data.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../lambda/observability';
import { SETTINGS } from '../lambda/settings';
import { PACKAGE_ROOT, findUp } from './package-root';

export { PACKAGE_ROOT };

/**
 * What the bundles leave out: the AWS SDK v3, which the Node.js 22 runtime provides. Inlining it
 * measured slower cold starts and bundles about five times larger (BENCHMARKS.md, "Cold init");
 * what the code needs from the runtime's copy is checked at init (lambda/runtime-sdk.ts).
 */
export const EXTERNAL_MODULES: readonly string[] = Object.freeze(['@aws-sdk/*']);

/** The lock files NodejsFunction knows (npm, yarn, pnpm, bun). */
const LOCK_FILES = ['package-lock.json', 'yarn.lock', 'pnpm-lock.yaml', 'bun.lock', 'bun.lockb'];

/**
 * The lock file esbuild bundles against; its folder is the bundling project root, which must hold
 * the entry files. In the repository that is its own package-lock.json. npm never packs a lock file,
 * so an installed Signet bundles against the lock file of the app that installed it (the nearest
 * one above `node_modules/@signet-gateway/signet`), with that app's esbuild and package manager,
 * as NodejsFunction does for the app's own functions.
 */
export function bundlingLockFile(packageRoot: string = PACKAGE_ROOT): string {
  const found = findUp(packageRoot, LOCK_FILES);
  if (found.names.length === 0) {
    throw new Error(
      `Signet bundles its Lambda functions with esbuild from the folder of your app's lock file, and found none above ${packageRoot} (${LOCK_FILES.join(', ')}): install your app's dependencies (npm install writes package-lock.json) before you synth.`,
    );
  }
  if (found.names.length > 1) {
    throw new Error(`Signet found several lock files in ${found.dir} (${found.names.join(', ')}) and cannot tell which package manager bundles its Lambda functions: keep one.`);
  }
  return path.join(found.dir, found.names[0]);
}

/**
 * Stops the synth with a sentence when esbuild cannot run where NodejsFunction looks for it
 * (installed beside the app, or on the PATH). Without it NodejsFunction would quietly switch to
 * Docker bundling, which Signet's functions are not set up for. esbuild is an optional peer
 * dependency: only apps that use `@signet-gateway/signet/cdk` need it.
 */
export function assertEsbuildInstalled(projectRoot: string, onPath: () => boolean = esbuildOnPath): void {
  try {
    require.resolve('esbuild/package.json', { paths: [projectRoot] });
    return;
  } catch {
    if (onPath()) return;
  }
  throw new Error(
    `Signet bundles its Lambda functions at synth with esbuild, without Docker, and found none in ${projectRoot} or on the PATH: add it to your app (npm install --save-dev esbuild@0.28).`,
  );
}

function esbuildOnPath(): boolean {
  const probe = spawnSync('esbuild', ['--version']);
  return probe.status === 0 && probe.error === undefined;
}

/** The Lambda entry files, relative to {@link PACKAGE_ROOT}, with their exported handler names. */
export const LAMBDA_ENTRIES = {
  httpApiAuthorizer: { file: 'lambda/handlers/authorizer.ts', handler: 'httpApiHandler' },
  restApiAuthorizer: { file: 'lambda/handlers/authorizer.ts', handler: 'restApiHandler' },
  registry: { file: 'lambda/handlers/registry.ts', handler: 'handler' },
  rotation: { file: 'lambda/handlers/rotation.ts', handler: 'handler' },
  echo: { file: 'lambda/handlers/echo.ts', handler: 'handler' },
  adminBootstrap: { file: 'lambda/handlers/admin-bootstrap.ts', handler: 'handler' },
  portal: { file: 'lambda/handlers/portal.ts', handler: 'handler' },
  keySourceRefresher: { file: 'lambda/handlers/refresh-key-sources.ts', handler: 'handler' },
} as const;

/** Which handler a {@link SignetFunction} runs. */
export type LambdaEntryName = keyof typeof LAMBDA_ENTRIES;

/** The Lambda runtime every Signet function uses (the one the handlers are written and tested for). */
export const SIGNET_RUNTIME = lambda.Runtime.NODEJS_22_X;

/** The CPU architecture of every Signet function (cheaper per ms than x86_64, and faster for RSA). */
export const SIGNET_ARCHITECTURE = lambda.Architecture.ARM_64;

/** Log retention used when a construct is not told otherwise. @default logs.RetentionDays.ONE_MONTH */
export const DEFAULT_LOG_RETENTION: logs.RetentionDays = SETTINGS.logRetention.default;

/** CloudWatch namespace of the metrics Signet's Lambdas emit through Powertools Metrics. */
export { METRICS_NAMESPACE };

export interface SignetFunctionProps {
  /** Which handler to run. */
  readonly entry: LambdaEntryName;
  /** `POWERTOOLS_SERVICE_NAME`: the `service` key in every log line and the `service` metric dimension. */
  readonly serviceName: string;
  /** Extra environment variables (from the settings table: lib/setting-props.ts). @default - none */
  readonly environment?: Readonly<Record<string, string>>;
  /** @default 256 */
  readonly memorySizeMb?: number;
  /** @default Duration.seconds(10) */
  readonly timeout?: Duration;
  /** Concurrent executions reserved for (and capping) the function. @default - none: the account's unreserved pool */
  readonly reservedConcurrency?: number;
  /** How long the function's log group keeps events. @default DEFAULT_LOG_RETENTION (one month) */
  readonly logRetention?: logs.RetentionDays;
  /** What happens to the log group when it leaves the stack. @default RemovalPolicy.RETAIN */
  readonly logRemovalPolicy?: RemovalPolicy;
  /** Short description shown in the Lambda console. @default - none */
  readonly description?: string;
  /**
   * Files shipped next to the bundle, in a folder of the same name: `{ dir: 'portal', files: [...] }`
   * copies `<PACKAGE_ROOT>/portal/<file>` to `<bundle>/portal/<file>`, and each of `built` (absolute
   * paths of files made at synth) to the same folder. @default - none
   */
  readonly assets?: { readonly dir: string; readonly files: readonly string[]; readonly built?: readonly string[] };
}

/**
 * A Signet Lambda function. The function itself is the child `Resource`; the log group is `LogGroup`,
 * the role is `ServiceRole`.
 */
export class SignetFunction extends Construct {
  /** The function. */
  readonly function: NodejsFunction;
  /** Its log group (retention set, written only by this function). */
  readonly logGroup: logs.LogGroup;
  /** Its execution role: may write its own logs, nothing else until a construct grants more. */
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: SignetFunctionProps) {
    super(scope, id);
    const entry = LAMBDA_ENTRIES[props.entry];
    const lockFile = bundlingLockFile();
    const projectRoot = path.dirname(lockFile);
    assertEsbuildInstalled(projectRoot);

    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      retention: props.logRetention ?? DEFAULT_LOG_RETENTION,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN,
    });
    // A role of our own instead of AWSLambdaBasicExecutionRole: logs go to this group only.
    this.role = new iam.Role(this, 'ServiceRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of the Signet ${props.serviceName} function`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Resource', {
      entry: path.join(PACKAGE_ROOT, entry.file),
      handler: entry.handler,
      projectRoot,
      depsLockFilePath: lockFile,
      runtime: SIGNET_RUNTIME,
      architecture: SIGNET_ARCHITECTURE,
      memorySize: props.memorySizeMb ?? 256,
      timeout: props.timeout ?? Duration.seconds(10),
      reservedConcurrentExecutions: props.reservedConcurrency,
      description: props.description,
      role: this.role,
      logGroup: this.logGroup,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: props.serviceName,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        POWERTOOLS_LOG_LEVEL: 'INFO',
        ...props.environment,
      },
      bundling: {
        forceDockerBundling: false, // esbuild from devDependencies (an installed Signet: the app's): synth works offline, without Docker
        logLevel: LogLevel.WARNING, // esbuild's warnings and errors, not its size table for every bundle
        minify: true,
        sourceMap: true,
        sourceMapMode: SourceMapMode.DEFAULT,
        sourcesContent: false,
        target: 'node22',
        format: OutputFormat.CJS,
        // The AWS SDK v3 is part of the Node.js 22 runtime; not bundling it keeps cold starts short.
        externalModules: [...EXTERNAL_MODULES],
        ...(props.assets ? { commandHooks: copyAssets(props.assets, path.relative(projectRoot, PACKAGE_ROOT)) } : {}),
      },
    });
    // At synth, once every construct has added its variables: a deploy would fail on Lambda's 4 KB.
    this.node.addValidation({
      validate: () => {
        const cfn = this.function.node.defaultChild as lambda.CfnFunction;
        const resolved = Stack.of(this).resolve(cfn.environment) as { variables?: Record<string, unknown> } | undefined;
        const problem = environmentSizeProblem(props.serviceName, resolved?.variables ?? {});
        return problem === undefined ? [] : [problem];
      },
    });
    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions-L1',
      reason: `Signet pins ${SIGNET_RUNTIME.name}: the handlers are bundled for and tested on it; newer runtimes are adopted deliberately, for every function at once.`,
    });
  }
}

/**
 * esbuild hooks that copy `assets` next to the bundle (the handler reads them from there).
 * `packageDir` is where Signet's package lies inside the bundling project root (`inputDir`):
 * '' in the repository, `node_modules/@signet-gateway/signet` in an app.
 */
function copyAssets(assets: NonNullable<SignetFunctionProps['assets']>, packageDir: string) {
  return {
    beforeBundling: (): string[] => [],
    beforeInstall: (): string[] => [],
    afterBundling: (inputDir: string, outputDir: string): string[] => {
      const sourceDir = path.posix.join(inputDir, packageDir.split(path.sep).join('/'), assets.dir);
      return [
        `mkdir -p "${outputDir}/${assets.dir}"`,
        `cp ${[...assets.files.map((f) => `${sourceDir}/${f}`), ...(assets.built ?? [])].map((f) => `"${f}"`).join(' ')} "${outputDir}/${assets.dir}/"`,
      ];
    },
  };
}

/** What Lambda allows for a function's environment variables, all together (its quotas page). */
export const LAMBDA_ENVIRONMENT_LIMIT_BYTES = 4096;

/** What a value CloudFormation fills in at deploy (a table's name, an ARN) is counted as: longer than any Signet passes. */
export const DEPLOY_TIME_VALUE_ESTIMATE_BYTES = 128;

/**
 * Why a function's environment would not fit, or undefined: Lambda measures the variables written
 * as JSON (names, quotes and escapes included), so a catalogue full of `"` counts each of them
 * twice. `variables` is the resolved environment of the CloudFormation resource, where a value
 * known only at deploy is an intrinsic function object.
 */
export function environmentSizeProblem(serviceName: string, variables: Readonly<Record<string, unknown>>): string | undefined {
  const measured: Record<string, string> = {};
  for (const [name, value] of Object.entries(variables)) measured[name] = estimatedValue(value);
  const bytes = Buffer.byteLength(JSON.stringify(measured));
  if (bytes <= LAMBDA_ENVIRONMENT_LIMIT_BYTES) return undefined;
  const [largest, largestBytes] = Object.entries(measured)
    .map(([name, value]) => [name, Buffer.byteLength(JSON.stringify(value))] as const)
    .sort((a, b) => b[1] - a[1])[0];
  return (
    `the ${serviceName} function's environment would be about ${bytes} bytes as Lambda measures it (its variables as JSON, ` +
    `a value CloudFormation fills in at deploy counted as ${DEPLOY_TIME_VALUE_ESTIMATE_BYTES}), over the ${LAMBDA_ENVIRONMENT_LIMIT_BYTES} it allows, ` +
    `and the deploy would fail: the largest is ${largest} (${largestBytes} bytes), so shorten that setting (a role catalogue: fewer, broader patterns)`
  );
}

/** A value as it will be at deploy, or a stand-in of its largest plausible length. */
function estimatedValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && 'Fn::Join' in value) {
    const [separator, parts] = (value as { 'Fn::Join': [unknown, unknown] })['Fn::Join'];
    // A list known only at deploy (a parameter's list, an import) is one value of unknown length.
    if (typeof separator === 'string' && Array.isArray(parts)) return parts.map(estimatedValue).join(separator);
  }
  return 'x'.repeat(DEPLOY_TIME_VALUE_ESTIMATE_BYTES);
}
