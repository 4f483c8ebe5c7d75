/**
 * `signet rotate [--secret-id ID] [--endpoint-dynamodb URL] [--endpoint-secrets URL] [--table NAME]
 *  [--region R] [--grace-seconds N] [--bits N] [--settle-seconds N]`
 *
 * Rotates a signing key held in the local Secrets Manager stand-in through all four steps, with
 * the same rotation logic the Lambda runs (lambda/rotation/). With no `--secret-id` it rotates
 * the demo client's key and rewrites `$SIGNET_HOME/demo/` from the new AWSCURRENT value, so
 * `signet request --client $SIGNET_HOME/demo ...` signs with the new key while the old key keeps
 * verifying until its grace ends.
 *
 * The stand-in runs inside the `npm start` process, where no rotation function can be invoked,
 * so this command plays the service's part itself (lambda/rotation/rotate-now.ts): it reattempts
 * an unfinished rotation, or opens a new one with a fresh token, then runs createSecret,
 * setSecret, testSecret and finishSecret in order against the endpoints.
 *
 * The stand-in accepts only requests signed with `$SIGNET_HOME/secrets-manager-credentials.json`,
 * which `npm start` creates; this command signs with it (so `SIGNET_HOME` must name the home of
 * the gateway whose stand-in it talks to, also when the endpoints come from flags).
 *
 * Where the services are: the flags, else `$SIGNET_HOME/local.json` (SIGNET_HOME defaults to
 * `.signet`), which the running local gateway writes (local/local-state.ts):
 * ```json
 * { "dynamoDbEndpoint": "http://127.0.0.1:41234", "secretsManagerEndpoint": "http://127.0.0.1:41235",
 *   "tableName": "signet-local-clients", "demoSecretId": "signet/local/demo", "region": "us-east-1" }
 * ```
 * Against `npm start` there is no wait: its authorizer forgets its cached client records the
 * moment the stand-in (in the same process) makes the new key AWSCURRENT (`"rotationSettleMs": 0`
 * in local.json says so). Against other services finishSecret waits, after the new key was
 * registered, as long as the authorizers cache client records (`"clientCacheTtlMs"` in local.json,
 * else DEFAULT_CLIENT_CACHE_TTL_MS, 60 s), so they know the new key before anyone signs with it.
 * `--settle-seconds N` sets the wait. The operators that can still sign (`last_admin`) are counted
 * by the gateway's keep bound of published keys (`"keySourceKeepDays"` in local.json, else 7 days).
 *
 * Progress: each of the four steps is printed as it starts and as it ends, and the wait counts
 * down (every second on a terminal, every 10 s otherwise). How to wait and where to print are
 * injected ({@link RotateIo}), so a test runs a 60 s wait in no time.
 */
import { existsSync } from 'node:fs';
import { DEFAULT_CLIENT_CACHE_TTL_MS, DEFAULT_KEY_SOURCE_KEEP_DAYS, DEFAULT_RSA_BITS, DEFAULT_ROTATION_GRACE_S, MIN_RSA_BITS } from '../../lambda/core/defaults';
import { KeyRotation } from '../../lambda/rotation/key-rotation';
import { rotateNow } from '../../lambda/rotation/rotate-now';
import { SecretsManagerSecretStore, createSecretsManagerClient } from '../../lambda/rotation/secrets-manager-secret-store';
import { AWSCURRENT } from '../../lambda/rotation/rotation-types';
import { parseSigningSecret } from '../../lambda/signer/signing-secret';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { writeClientDir } from '../../local/client-dir';
import { LocalStateFile, readLocalState } from '../../local/local-state';
import { readStandInCredentials } from '../../local/secrets-manager-credentials';
import { LOCAL_REGION, displayPath, localPaths, signetHome } from '../../local/signet-home';
import { UsageError, parse } from './args';
import { RegistryClient } from './registry-client';
import { CommandHelp } from './help';

/** Where the command finds the services, after flags and local.json are merged. */
interface Targets {
  readonly dynamoDbEndpoint: string;
  readonly secretsManagerEndpoint: string;
  /** The key pair the stand-in accepts: `$SIGNET_HOME/secrets-manager-credentials.json`. */
  readonly secretsManagerCredentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /**
   * What DynamoDB is signed with: the same key pair when it is the DynamoDB Local npm start runs
   * (it answers only that access key id); otherwise placeholders, as npm start signs a DynamoDB the
   * user runs (one without -sharedDb keeps a database per access key id).
   */
  readonly dynamoDbCredentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | undefined;
  readonly tableName: string;
  readonly secretId: string;
  readonly region: string;
  /** Set when the secret is the demo client's: its key directory is rewritten afterwards. */
  readonly demoDir?: string;
  readonly settleMs: number;
  /** The keep bound the rotation counts operators by (`last_admin`): the gateway's, from local.json, else the default. */
  readonly keySourceKeepDays: number;
  /** True when the wait is 0 because the running `npm start` learns the new key at once. */
  readonly localGateway: boolean;
}

const OPTIONS = {
  'secret-id': { type: 'string' },
  'endpoint-dynamodb': { type: 'string' },
  'endpoint-secrets': { type: 'string' },
  table: { type: 'string' },
  region: { type: 'string' },
  'grace-seconds': { type: 'string' },
  bits: { type: 'string' },
  'settle-seconds': { type: 'string' },
  endpoint: { type: 'string' },
  admin: { type: 'string' },
} as const;

export const HELP: CommandHelp = {
  summary: "rotate the local demo key (or another signing-key secret) through Secrets Manager's four steps, showing each",
  usage: 'rotate [--secret-id ID] [--endpoint-dynamodb URL --endpoint-secrets URL --table NAME] [--region R] [--grace-seconds N] [--bits N] [--settle-seconds N | --endpoint URL [--admin DIR]]',
  options: OPTIONS,
  flags: {
    'secret-id': { meaning: 'the signing-key secret to rotate', value: 'ID', default: "the demo client's, signet/local/demo" },
    'endpoint-dynamodb': { meaning: 'DynamoDB endpoint holding the client table', value: 'URL', default: 'from $SIGNET_HOME/local.json (the running `npm start`)' },
    'endpoint-secrets': { meaning: 'Secrets Manager endpoint', value: 'URL', default: 'from $SIGNET_HOME/local.json' },
    table: { meaning: 'the client table', value: 'NAME', default: 'from $SIGNET_HOME/local.json' },
    region: { meaning: 'the region written into the SDK clients', value: 'R', default: 'us-east-1' },
    'grace-seconds': { meaning: 'how long the previous key keeps verifying', value: 'N', default: String(DEFAULT_ROTATION_GRACE_S) },
    bits: { meaning: 'RSA size of the new key', value: 'N', default: String(DEFAULT_RSA_BITS) },
    'settle-seconds': {
      meaning: "how long finishSecret waits so the gateway's cached client record holds the new key before it is used (0: no wait)",
      value: 'N',
      default: `none against npm start (it learns the new key at once); with --endpoint the client cache TTL that API reports; otherwise ${DEFAULT_CLIENT_CACHE_TTL_MS / 1000} s unless local.json says another`,
    },
    endpoint: { meaning: "the API whose authorizers must learn the new key: the wait is the client cache TTL it reports (its registry's x-signet-authorizer-cache-ttl); for a deployed stack its ApiUrl output", value: 'URL' },
    admin: { meaning: 'client directory of a registry admin, to ask --endpoint (a signed GET /registry/roles)', value: 'DIR', default: '$SIGNET_HOME/admin' },
  },
  notes: ['Needs `npm start` running (it writes $SIGNET_HOME/local.json), or all of --endpoint-dynamodb, --endpoint-secrets, --table and --secret-id.'],
  examples: ['rotate', 'rotate --settle-seconds 0'],
};

/** What the four steps do, for the progress lines. */
const STEP_MEANINGS: Readonly<Record<string, string>> = {
  createSecret: 'make a new key pair and store it as AWSPENDING',
  setSecret: "add the new public key to the client's record (both keys verify)",
  testSecret: "check that a probe signed with the new key verifies against the client's record",
  finishSecret: 'wait for the gateway cache, make the new key AWSCURRENT, start the old key\'s grace',
};

/** finishSecret against `npm start`, which learns the new key at once. */
const LOCAL_FINISH_MEANING = "make the new key AWSCURRENT and start the old key's grace (no wait: the local gateway learns the new key at once)";

/** Where `rotate` prints and how it waits. */
export interface RotateIo {
  readonly print: (line: string) => void;
  /** Waits `ms`. @default setTimeout */
  readonly sleep: (ms: number) => Promise<void>;
  /** Rewrite the countdown in place, every second (a terminal), or print a line every 10 s. */
  readonly interactive: boolean;
}

const DEFAULT_IO: RotateIo = {
  print: (line) => console.log(line),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  get interactive() {
    return process.stdout.isTTY === true;
  },
};

/**
 * Waits `ms` while counting down: `waiting 60 s ...`, then every 10 s (or every second, in place,
 * on a terminal) how long is left.
 */
export async function countdown(ms: number, io: RotateIo): Promise<void> {
  const tick = io.interactive ? 1000 : 10_000;
  let left = ms;
  while (left > 0) {
    const text = `    ${Math.ceil(left / 1000)} s left until the gateway's cached client record holds the new key`;
    if (io.interactive) process.stdout.write(`\r${text}\x1b[K`);
    else io.print(text);
    const step = left % tick === 0 ? tick : left % tick;
    await io.sleep(step);
    left -= step;
  }
  if (io.interactive) process.stdout.write('\r\x1b[K');
  io.print('    waited: the gateway now knows the new key');
}

export async function run(argv: string[], io: RotateIo = DEFAULT_IO): Promise<number> {
  const { values, positionals } = parse(argv, OPTIONS);
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0]!.slice(0, 40))}`);
  const graceS = wholeNumber(values, 'grace-seconds', DEFAULT_ROTATION_GRACE_S);
  const keyBits = wholeNumber(values, 'bits', DEFAULT_RSA_BITS);
  if (keyBits < MIN_RSA_BITS || keyBits > 8192 || keyBits % 8 !== 0) throw new UsageError(`--bits must be a multiple of 8 from ${MIN_RSA_BITS} to 8192`);
  let settleS = values['settle-seconds'] === undefined ? undefined : wholeNumber(values, 'settle-seconds', 0);
  const api = typeof values.endpoint === 'string' && values.endpoint !== '' ? values.endpoint : undefined;
  if (api !== undefined && settleS !== undefined) throw new UsageError('give --settle-seconds or --endpoint, not both');
  if (api === undefined && values.admin !== undefined) throw new UsageError('--admin goes with --endpoint (the API to ask for its authorizer cache TTL)');
  if (api !== undefined) {
    // The deployed authorizers cache client records this long: the new key must be in them before it is used.
    settleS = await RegistryClient.fromOptions({ endpoint: api, admin: values.admin }).authorizerCacheTtlSeconds();
    io.print(`the API at ${api} reports an authorizer client cache TTL of ${settleS} s: the new key becomes AWSCURRENT that long after it is registered`);
  }
  const targets = resolveTargets(values, settleS);

  const sm = createSecretsManagerClient({ endpoint: targets.secretsManagerEndpoint, region: targets.region, credentials: targets.secretsManagerCredentials });
  const doc = createDocumentClient({ endpoint: targets.dynamoDbEndpoint, localCredentials: targets.dynamoDbCredentials });
  try {
    const store = new DynamoClientStore({ tableName: targets.tableName, client: doc, keySourceKeepDays: targets.keySourceKeepDays });
    const secrets = new SecretsManagerSecretStore(sm);
    const sleep = async (ms: number): Promise<void> => {
      io.print(`    waiting ${Math.ceil(ms / 1000)} s so the gateway's cached client record includes the new key (--settle-seconds 0 skips)`);
      await countdown(ms, io);
    };
    const rotation = new KeyRotation({ secrets, registry: store, keyBits, graceS, settleMs: targets.settleMs, sleep });

    io.print(`rotating ${targets.secretId} in four steps:`);
    const stepNumber = (step: string): number => ['createSecret', 'setSecret', 'testSecret', 'finishSecret'].indexOf(step) + 1;
    const result = await rotateNow(rotation, secrets, targets.secretId, {
      onStep: (step) => io.print(`  [${stepNumber(step)}/4] ${step}: ${step === 'finishSecret' && targets.localGateway ? LOCAL_FINISH_MEANING : (STEP_MEANINGS[step] ?? '')} ...`),
      onStepDone: (step) => io.print(`  [${stepNumber(step.step)}/4] ${step.step}: ${step.outcome}${step.step === 'createSecret' && step.fingerprint !== undefined ? ` (new key ${step.fingerprint})` : ''}`),
    });
    if (result.resumed) io.print(`  an unfinished rotation (version ${result.versionId}) was found and completed`);
    if (targets.localGateway) {
      io.print('no wait: the local gateway (npm start) forgot its cached client records when the new key became AWSCURRENT, so the new key verifies on the next request');
      io.print("  (a deployed API's rotation function waits out its authorizers' client cache TTL instead, the x-signet-authorizer-cache-ttl its registry reports)");
    }

    const current = await secrets.getVersion(result.secretArn, { stage: AWSCURRENT });
    const parsed = parseSigningSecret(current!.secretString);
    io.print(`new key ${parsed.key.fingerprint} of client ${parsed.secret.clientId} is AWSCURRENT (version ${result.versionId})`);
    const record = await store.getClient(parsed.secret.clientId, { consistentRead: true });
    for (const key of record?.keys ?? []) {
      if (key.fingerprint !== parsed.key.fingerprint) {
        io.print(`previous key ${key.fingerprint} ${key.notAfter ? `keeps verifying until ${key.notAfter}` : 'has no not-after (not held by this secret)'}`);
      }
    }
    if (targets.demoDir !== undefined) {
      writeClientDir(targets.demoDir, parsed.secret.clientId, parsed.key);
      io.print(`wrote ${displayPath(targets.demoDir)}/ (private.pkcs8.b64 and private.pem mode 0600, public.pem, client-id)`);
    }
    return 0;
  } finally {
    sm.destroy();
    doc.destroy();
  }
}

/** Flags first; whatever they leave out comes from `$SIGNET_HOME/local.json`. */
function resolveTargets(values: Record<string, unknown>, settleS: number | undefined): Targets {
  const flag = (name: string): string | undefined => {
    const value = values[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} needs a value`);
    return value.trim();
  };
  const given = {
    dynamoDbEndpoint: flag('endpoint-dynamodb'),
    secretsManagerEndpoint: flag('endpoint-secrets'),
    tableName: flag('table'),
    secretId: flag('secret-id'),
    region: flag('region'),
  };
  const home = signetHome();
  const paths = localPaths(home);
  const complete = given.dynamoDbEndpoint !== undefined && given.secretsManagerEndpoint !== undefined && given.tableName !== undefined && given.secretId !== undefined;
  let state: LocalStateFile | undefined;
  if (!complete) {
    state = readLocalState(paths); // says to run `npm start` when it is missing or its gateway is gone
  } else if (existsSync(paths.localState)) {
    // Every endpoint given: the file only adds what its running gateway knows; one left by a gateway that is gone is not read.
    try {
      state = readLocalState(paths);
    } catch {
      state = undefined;
    }
  }
  for (const endpoint of [given.dynamoDbEndpoint, given.secretsManagerEndpoint]) {
    if (endpoint !== undefined && !/^https?:\/\/[^\s/]+/.test(endpoint)) throw new UsageError(`endpoints must be URLs like http://127.0.0.1:8000; got ${JSON.stringify(endpoint.slice(0, 60))}`);
  }
  const secretId = given.secretId ?? state!.demoSecretId;
  const secretsManagerEndpoint = given.secretsManagerEndpoint ?? state!.secretsManagerEndpoint;
  // The running `npm start` whose stand-in holds the secret learns the new key at once.
  const onLocalGateway = state?.rotationSettleMs === 0 && secretsManagerEndpoint === state.secretsManagerEndpoint;
  const dynamoDbEndpoint = given.dynamoDbEndpoint ?? state!.dynamoDbEndpoint;
  const credentials = readStandInCredentials(paths.secretsManagerCredentials);
  return {
    dynamoDbEndpoint,
    secretsManagerEndpoint,
    secretsManagerCredentials: credentials,
    dynamoDbCredentials: state?.dynamoDbOrigin === 'started' && dynamoDbEndpoint === state.dynamoDbEndpoint ? credentials : undefined,
    tableName: given.tableName ?? state!.tableName,
    secretId,
    region: given.region ?? state?.region ?? LOCAL_REGION,
    demoDir: state !== undefined && secretId === state.demoSecretId ? paths.demoDir : undefined,
    settleMs: settleS !== undefined ? settleS * 1000 : onLocalGateway ? 0 : (state?.clientCacheTtlMs ?? DEFAULT_CLIENT_CACHE_TTL_MS),
    localGateway: settleS === undefined && onLocalGateway,
    keySourceKeepDays: state?.keySourceKeepDays ?? DEFAULT_KEY_SOURCE_KEEP_DAYS,
  };
}

function wholeNumber(values: Record<string, unknown>, name: string, fallback: number): number {
  const value = values[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\d{1,9}$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}
