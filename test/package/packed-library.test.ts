/**
 * Signet as a library: `npm pack` makes a tarball that a fresh CDK app installs and uses to put
 * `SignatureAuthorizer` in front of its own HttpApi route (and the client portal beside it). The app (TypeScript, in a temp folder)
 * imports `@signet-gateway/signet/cdk`, `@signet-gateway/signet/signer` and `@signet-gateway/signet/backend`, is type-checked and compiled with the
 * repository's TypeScript, then synthesised with `node`; the test reads its template and assets.
 * The same tarball, installed alone with production dependencies only (`npm install --omit=dev`)
 * in an empty folder, runs the compiled `signet` CLI without tsx.
 *
 * The test builds dist/ itself as `npm pack` would (prepack: build:dist, pinned by a test below), in
 * this process, then packs with `--ignore-scripts`: the app's type check then takes the declarations
 * the build parsed (aws-cdk-lib's, a million lines) instead of parsing them again, about 8 s of CPU.
 * The installs use npm's cache (`--prefer-offline`) and run side by side. The app takes aws-cdk-lib,
 * constructs and esbuild (and @types/node) as links to the copies this repository has installed,
 * at their versions (npm checks the package's peer ranges against them): unpacking aws-cdk-lib
 * anew, 230 MB, would be most of the test's time and tests nothing of Signet's.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { buildSync } from 'esbuild';
import ts from 'typescript';
import { LAMBDA_ENTRIES } from '../../lib/signet-function';
import { PORTAL_ENTRY } from '../../lib/portal-bundle';

const ROOT = resolve(__dirname, '..', '..');
const MINUTES = 60_000;
/** The package's name on npm: apps install and import it under this name. */
const PACKAGE_NAME = '@signet-gateway/signet';

/** A dependency on this repository's installed copy of `name` (npm links it). */
function installedCopy(name: string): string {
  return `file:${join(ROOT, 'node_modules', name)}`;
}

/** Runs a command; fails the test with its output if it exits non-zero. */
function run(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false', ...env } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** {@link run} without blocking, so two installs can share the wait. */
function runInBackground(command: string, args: readonly string[], cwd: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, npm_config_update_notifier: 'false' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (status) => {
      if (status === 0) done(stdout);
      else fail(new Error(`${command} ${args.join(' ')} (in ${cwd}) exited ${status}:\n${stdout}\n${stderr}`));
    });
  });
}

/** The repository's source files esbuild reads to bundle `entries` (type-only imports are not read). */
function sourcesOf(entries: readonly string[], platform: 'node' | 'browser'): Set<string> {
  const { metafile } = buildSync({ entryPoints: [...entries], absWorkingDir: ROOT, bundle: true, write: false, metafile: true, platform, outdir: 'out', packages: 'external', logLevel: 'silent' });
  return new Set(Object.keys(metafile.inputs));
}

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

const APP_TS = `
import { App, Stack } from 'aws-cdk-lib';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { generateKeyPairSync } from 'node:crypto';
import { withSignedBody } from '@signet-gateway/signet/backend';
import { ClientPortal, ClientRegistry, SignatureAuthorizer } from '@signet-gateway/signet/cdk';
import { createSigner, type Signer } from '@signet-gateway/signet/signer';

async function main(): Promise<void> {
  const app = new App({ outdir: process.argv[2] });
  const stack = new Stack(app, 'OrdersStack');
  const api = new apigwv2.HttpApi(stack, 'OrdersApi');
  const orders = new lambda.Function(stack, 'Orders', {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => ({ statusCode: 201 });'),
  });
  const registry = new ClientRegistry(stack, 'Registry');
  const authorizer = new SignatureAuthorizer(stack, 'Authorizer', {
    registry,
    roleCatalogue: { 'orders:write': ['POST /orders'] },
  });
  api.addRoutes({
    path: '/orders',
    methods: [apigwv2.HttpMethod.POST],
    integration: new HttpLambdaIntegration('Orders', orders),
    authorizer: authorizer.httpAuthorizer(),
  });
  new ClientPortal(stack, 'Portal', { httpApi: api });
  const assembly = app.synth();

  // The partner's side and the backend's side, from the same package.
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signer: Signer = createSigner({ clientId: 'partner-1', privateKey });
  const body = '{"sku":"A-1"}';
  const headers = await signer.sign({ method: 'POST', url: 'https://api.example.com/orders', body });
  const backend = withSignedBody(async (_event: APIGatewayProxyEventV2) => ({ statusCode: 201, body: 'created' }));
  const event = (sent: string) =>
    ({ body: sent, isBase64Encoded: false, requestContext: { requestId: 'r-1', authorizer: { lambda: { clientId: 'partner-1', keyFingerprint: 'the-fingerprint', contentDigest: headers['content-digest'] } } } }) as unknown as APIGatewayProxyEventV2;
  const accepted = await backend(event(body), {});
  const refused = await backend(event('{"sku":"B-2"}'), {});

  console.log(JSON.stringify({
    template: assembly.getStackByName('OrdersStack').templateFullPath,
    assemblyDir: assembly.directory,
    signedHeaders: Object.keys(headers).sort(),
    accepted,
    refused,
  }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'node16',
    moduleResolution: 'node16',
    strict: true,
    types: ['node'],
    outDir: 'out',
    skipLibCheck: false,
  },
  files: ['app.ts'],
};

/**
 * A compiler host that keeps every declaration file it parses under node_modules, by path and parse
 * options, for the next program made with `cache`: the build and the app's check read the same
 * aws-cdk-lib and @types/node (the app links the repository's copies, and TypeScript follows the links).
 * A kept file is also bound once; each program still checks it with a checker of its own.
 */
function sharedDeclarationsHost(options: ts.CompilerOptions, cache: Map<string, ts.SourceFile>): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const parse = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile) => {
    if (shouldCreateNewSourceFile || !fileName.includes('/node_modules/')) return parse(fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile);
    const parseOptions = typeof languageVersionOrOptions === 'object' ? languageVersionOrOptions : { languageVersion: languageVersionOrOptions };
    const key = `${fileName}|${parseOptions.languageVersion}|${parseOptions.impliedNodeFormat}|${parseOptions.jsDocParsingMode}`;
    let file = cache.get(key);
    if (file === undefined) {
      file = parse(fileName, languageVersionOrOptions, onError);
      if (file !== undefined) cache.set(key, file);
    }
    return file;
  };
  return host;
}

function formatted(diagnostics: readonly ts.Diagnostic[], dir: string): string {
  return ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (name) => name, getCurrentDirectory: () => dir, getNewLine: () => '\n' });
}

/**
 * What prepack runs (`npm run build:dist`): dist/ removed, then tsconfig.build.json compiled; any
 * diagnostic fails it, as it fails `tsc`.
 */
function buildDist(cache: Map<string, ts.SourceFile>): void {
  rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.build.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(`tsconfig.build.json cannot be read:\n${formatted([diagnostic], ROOT)}`);
    },
  }) as ts.ParsedCommandLine;
  const program = ts.createProgram({
    rootNames: config.fileNames,
    options: config.options,
    host: sharedDeclarationsHost(config.options, cache),
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(config),
  });
  const emitted = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  if (diagnostics.length > 0 || emitted.emitSkipped) throw new Error(`dist/ did not build:\n${formatted(diagnostics, ROOT)}`);
}

interface PackResult {
  filename: string;
  size: number;
  files: { path: string }[];
}

interface AppOutput {
  template: string;
  assemblyDir: string;
  signedHeaders: string[];
  accepted: { statusCode: number; body: string };
  refused: { statusCode: number; body: string };
}

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
}

/**
 * Type-checks the app against the package's declarations, and the declarations themselves
 * (skipLibCheck is off), then compiles the app; with the repository's TypeScript, so the app need not
 * install one. Diagnostics are asked of those files only: the checker reads what they use of
 * aws-cdk-lib's thousands of declaration files without checking each one whole, as `tsc` would.
 */
function typeCheckAndCompile(app: string, cache: Map<string, ts.SourceFile>): void {
  const config = ts.parseJsonConfigFileContent(TSCONFIG, ts.sys, app);
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, host: sharedDeclarationsHost(config.options, cache) });
  const appFile = program.getSourceFile(config.fileNames[0]) as ts.SourceFile;
  const declarations = program.getSourceFiles().filter((file) => file.fileName.includes(`/node_modules/${PACKAGE_NAME}/`));
  expect(declarations.map((file) => relative(app, file.fileName))).toEqual(expect.arrayContaining([`node_modules/${PACKAGE_NAME}/dist/lib/index.d.ts`]));
  const diagnostics = [
    ...config.errors,
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...[appFile, ...declarations].flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]),
  ];
  if (diagnostics.length > 0) throw new Error(`the app or the package's declarations do not type-check:\n${formatted(diagnostics, app)}`);
  const emitted = program.emit(appFile);
  if (emitted.emitSkipped) throw new Error(`the app did not compile:\n${formatted(emitted.diagnostics, app)}`);
}

let work: string;
let packed: PackResult;
/** An empty folder where only the tarball was installed, with its production dependencies. */
let cliOnly: string;
let output: AppOutput;
let resources: Record<string, Resource>;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'signet-packed-'));
  const parsed = new Map<string, ts.SourceFile>();
  buildDist(parsed);
  packed = (JSON.parse(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT)) as PackResult[])[0];

  cliOnly = join(work, 'cli-only');
  mkdirSync(cliOnly);
  writeFileSync(join(cliOnly, 'package.json'), JSON.stringify({ name: 'cli-only', private: true }));
  const cliInstall = runInBackground('npm', ['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', join(work, packed.filename)], cliOnly);

  const app = join(work, 'orders-app');
  mkdirSync(app);
  const linked = (names: string[]) => Object.fromEntries(names.map((name) => [name, installedCopy(name)]));
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({
      name: 'orders-app',
      private: true,
      dependencies: { [PACKAGE_NAME]: `file:../${packed.filename}`, ...linked(['aws-cdk-lib', 'constructs']) },
      devDependencies: linked(['esbuild', '@types/node']),
    }),
  );
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  writeFileSync(join(app, 'app.ts'), APP_TS);
  await Promise.all([runInBackground('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], app), cliInstall]);
  typeCheckAndCompile(app, parsed);
  parsed.clear();
  // Without the CDK's built-in template validation (`cdk synth --no-validation`), about 6 s of CPU here:
  // test/cdk/signet-stack-http.test.ts validates Signet's stacks.
  output = JSON.parse(run(process.execPath, [join(app, 'out', 'app.js'), join(app, 'cdk.out')], app, { CDK_VALIDATION: 'false' })) as AppOutput;
  resources = (JSON.parse(readFileSync(output.template, 'utf8')) as { Resources: Record<string, Resource> }).Resources;
}, 6 * MINUTES);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

function ofType(type: string): [string, Resource][] {
  return Object.entries(resources).filter(([, resource]) => resource.Type === type);
}

test('npm pack builds dist/ as this test does: prepack runs build:dist, which removes dist/ and compiles tsconfig.build.json', () => {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  expect(scripts.prepack).toBe('npm run build:dist');
  expect(scripts['build:dist']).toBe(`node -e "require('fs').rmSync('dist',{recursive:true,force:true})" && tsc -p tsconfig.build.json`);
});

test('the tarball holds the built entry points with their declarations, and the Lambda sources the constructs bundle', () => {
  const files = new Set(packed.files.map((file) => file.path));
  for (const entry of ['dist/lib/index', 'dist/lambda/signer/index', 'dist/lambda/backend/signed-body']) {
    expect({ entry, js: files.has(`${entry}.js`), dts: files.has(`${entry}.d.ts`) }).toEqual({ entry, js: true, dts: true });
  }
  for (const { file } of Object.values(LAMBDA_ENTRIES)) expect({ file, packed: files.has(file) }).toEqual({ file, packed: true });
  expect(files.has('portal/index.html')).toBe(true);
  // Tests, the CDK app, the local gateway and the repository's tooling stay out.
  expect([...files].filter((file) => /^(test|bench|scripts)\/|^bin\/app\.ts$|^local\/(main|gateway|local-gateway)\.ts$|\.test\.ts$/.test(file))).toEqual([]);
});

test('the tarball holds no source maps and nothing only the OpenAPI generation reads (the route prose)', () => {
  const files = packed.files.map((file) => file.path);
  expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
  const bundled = new Set([
    ...sourcesOf([...new Set(Object.values(LAMBDA_ENTRIES).map((entry) => entry.file))], 'node'),
    ...sourcesOf([relative(ROOT, PORTAL_ENTRY)], 'browser'),
  ]);
  const generationOnly = [...sourcesOf(['scripts/openapi.ts'], 'node')].filter((file) => !bundled.has(file));
  expect(generationOnly.length).toBeGreaterThan(0);
  expect(files.filter((file) => generationOnly.includes(file))).toEqual([]);
  // The CLI ships compiled: none of its TypeScript.
  expect(files.filter((file) => /^(bin|local)\/.*\.ts$/.test(file))).toEqual([]);
  expect(files).toEqual(expect.arrayContaining(['bin/signet.cjs', 'dist/bin/signet.js', 'dist/bin/cli.js']));
});

test('installed alone with production dependencies, the CLI runs compiled, without tsx', () => {
  const installed = join(cliOnly, 'node_modules');
  expect(existsSync(join(installed, PACKAGE_NAME, 'package.json'))).toBe(true);
  expect(existsSync(join(installed, 'tsx'))).toBe(false);
  expect(filesUnder(join(installed, PACKAGE_NAME)).filter((file) => file.endsWith('.map'))).toEqual([]);
  // No NODE_OPTIONS or NODE_PATH from this run can lend it a loader.
  const env = { ...process.env, NODE_OPTIONS: '', NODE_PATH: '' };
  const signet = (...args: string[]) => spawnSync(join(installed, '.bin', 'signet'), args, { cwd: cliOnly, env, encoding: 'utf8', timeout: 60_000 });
  const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
  expect(signet('--version')).toMatchObject({ status: 0, stdout: `${version}\n`, stderr: '' });
  const help = signet('help');
  expect(help).toMatchObject({ status: 0, stderr: '' });
  expect(help.stdout).toMatch(/^Usage: signet <command>/);
  expect(help.stdout).toMatch(/^ {2}keygen /m);
  expect(spawnSync(process.execPath, ['-e', "require.resolve('tsx')"], { cwd: cliOnly, env }).status).not.toBe(0);
});

test('the app puts the packaged SignatureAuthorizer in front of its own HttpApi route', () => {
  const functions = ofType('AWS::Lambda::Function').filter(([, fn]) => fn.Properties.Handler === 'index.httpApiHandler');
  expect(functions).toHaveLength(1);
  const [authorizerFnId, authorizerFn] = functions[0];
  expect(authorizerFn.Properties.Runtime).toBe('nodejs22.x');

  const authorizers = ofType('AWS::ApiGatewayV2::Authorizer');
  expect(authorizers).toHaveLength(1);
  const [authorizerId, authorizer] = authorizers[0];
  expect(authorizer.Properties.AuthorizerType).toBe('REQUEST');
  expect(JSON.stringify(authorizer.Properties.AuthorizerUri)).toContain(`"${authorizerFnId}"`);

  const route = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties).find((r) => r.RouteKey === 'POST /orders');
  expect(route).toMatchObject({ AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: authorizerId } });
});

test('the authorizer was bundled from the packaged TypeScript into an asset of the app', () => {
  const [, authorizerFn] = ofType('AWS::Lambda::Function').find(([, fn]) => fn.Properties.Handler === 'index.httpApiHandler')!;
  const s3Key = (authorizerFn.Properties.Code as { S3Key: string }).S3Key;
  const bundle = join(output.assemblyDir, `asset.${s3Key.replace(/\.zip$/, '')}`, 'index.js');
  expect(existsSync(bundle)).toBe(true);
  expect(statSync(bundle).size).toBeGreaterThan(10_000);
  // The handler's exports, and Powertools bundled in (the AWS SDK stays external, in the runtime).
  const code = readFileSync(bundle, 'utf8');
  expect(code).toContain('httpApiHandler');
  expect(code).toContain('POWERTOOLS_SERVICE_NAME');
});

test('the portal function ships the packaged portal files next to its bundle', () => {
  const [, portalFn] = ofType('AWS::Lambda::Function').find(([, fn]) => JSON.stringify(fn.Properties.Description ?? '').includes('client portal'))!;
  const asset = join(output.assemblyDir, `asset.${(portalFn.Properties.Code as { S3Key: string }).S3Key.replace(/\.zip$/, '')}`);
  expect(existsSync(join(asset, 'index.js'))).toBe(true);
  expect(readFileSync(join(asset, 'portal', 'index.html'), 'utf8')).toEqual(readFileSync(join(ROOT, 'portal', 'index.html'), 'utf8'));
  // The page's script, bundled at the app's synth from the installed package's TypeScript.
  expect(readFileSync(join(asset, 'portal', 'portal.js'), 'utf8')).toContain('RSASSA-PKCS1-v1_5');
});

test('the signet CLI runs from the installed package', () => {
  const app = join(work, 'orders-app');
  const help = run('npx', ['--no-install', 'signet', 'help'], app);
  expect(help).toMatch(/^Usage: signet <command>/m);
  const keys = join(work, 'keys');
  expect(run('npx', ['--no-install', 'signet', 'keygen', '--out', keys], app)).toMatch(/^fingerprint: [A-Za-z0-9_-]{43}$/m);
  expect(existsSync(join(keys, 'public.pem'))).toBe(true);
});

test('@signet-gateway/signet/signer and @signet-gateway/signet/backend load from the package and work together', () => {
  expect(output.signedHeaders).toEqual(['content-digest', 'date', 'signature', 'signature-input']);
  expect(output.accepted).toEqual({ statusCode: 201, body: 'created' });
  expect(output.refused.statusCode).toBe(400);
  expect(JSON.parse(output.refused.body)).toMatchObject({ error: 'digest_mismatch' });
});
