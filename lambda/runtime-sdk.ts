/**
 * The AWS SDK the functions run is the Lambda runtime's, not the one the tests pin: the bundles
 * keep `@aws-sdk/*` external (lib/signet-function.ts), because inlining it made every cold start
 * slower and every bundle about five times larger (BENCHMARKS.md, "Cold init"). What Signet needs
 * from that SDK is therefore a floor, checked once per cold start: a runtime (or a layer, which
 * comes first on the module path) with an older SDK stops the function at init with a sentence,
 * instead of misbehaving on the first request.
 *
 * What the code relies on, and since when (docs/deploy.md, "The AWS SDK the functions run"):
 * - `requestHandler` given as a plain object (`{ requestTimeout, connectionTimeout }`), which
 *   bounds every DynamoDB call of the authorizer: 3.521.0 (February 2024). Older SDKs take only a
 *   handler instance.
 * - `DynamoDBDocumentClient` with `removeUndefinedValues`, `TransactWriteCommand`,
 *   `TransactionCanceledException.CancellationReasons`, and errors told apart by `name`
 *   (never `instanceof`, so two copies of the SDK cannot confuse it): long before that.
 */

/** The SDK packages the functions import; each is resolved from the runtime at init. */
export const RUNTIME_SDK_PACKAGES = Object.freeze(['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/client-secrets-manager'] as const);

/** The oldest SDK version with every feature listed above. @default '3.521.0' */
export const MIN_RUNTIME_SDK_VERSION = '3.521.0';

/** The version of each SDK package as this process resolves it (the runtime's in Lambda). */
export function runtimeSdkVersions(load: (pkg: string) => string = installedVersion): Record<string, string> {
  return Object.fromEntries(RUNTIME_SDK_PACKAGES.map((pkg) => [pkg, load(pkg)]));
}

/**
 * Throws, naming the package, its version and the fix, when an SDK package is older than
 * {@link MIN_RUNTIME_SDK_VERSION} (or its version cannot be read).
 */
export function assertRuntimeSdk(versions: Record<string, string> = runtimeSdkVersions()): void {
  const old = Object.entries(versions).filter(([, version]) => !atLeast(version, MIN_RUNTIME_SDK_VERSION));
  if (old.length === 0) return;
  throw new Error(
    `Signet needs the AWS SDK for JavaScript ${MIN_RUNTIME_SDK_VERSION} or later, and this function loads ${old.map(([pkg, version]) => `${pkg} ${version}`).join(', ')}. ` +
      'The SDK comes from the Lambda runtime, or from a layer that ships its own: use the nodejs22.x runtime Signet deploys, and remove the layer or update its SDK.',
  );
}

/**
 * Each package's manifest, required by its literal name so the bundler sees it and keeps it
 * external (`@aws-sdk/*`): what is read is the copy the function runs.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- a lazy read, caught when absent: an import would be hoisted and uncatchable */
const MANIFESTS: Record<(typeof RUNTIME_SDK_PACKAGES)[number], () => unknown> = {
  '@aws-sdk/client-dynamodb': () => require('@aws-sdk/client-dynamodb/package.json'),
  '@aws-sdk/lib-dynamodb': () => require('@aws-sdk/lib-dynamodb/package.json'),
  '@aws-sdk/client-secrets-manager': () => require('@aws-sdk/client-secrets-manager/package.json'),
};
/* eslint-enable @typescript-eslint/no-require-imports */

function installedVersion(pkg: string): string {
  try {
    return String((MANIFESTS[pkg as keyof typeof MANIFESTS]() as { version?: unknown }).version);
  } catch {
    return 'unreadable';
  }
}

/** True when dotted version `version` is `minimum` or later (`unreadable` and other text: false). */
function atLeast(version: string, minimum: string): boolean {
  const parse = (v: string) => (/^\d+\.\d+\.\d+/.test(v) ? v.split('.', 3).map((part) => parseInt(part, 10)) : undefined);
  const [have, need] = [parse(version), parse(minimum)];
  if (have === undefined || need === undefined) return false;
  for (let i = 0; i < 3; i++) if (have[i] !== need[i]) return have[i] > need[i];
  return true;
}
