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
 * Where the services are: the flags, else `$SIGNET_HOME/local.json` (SIGNET_HOME defaults to
 * `.signet`), which the running local gateway writes (local/local-state.ts):
 * ```json
 * { "dynamoDbEndpoint": "http://127.0.0.1:41234", "secretsManagerEndpoint": "http://127.0.0.1:41235",
 *   "tableName": "signet-local-clients", "demoSecretId": "signet/local/demo", "region": "us-east-1" }
 * ```
 * An optional `"clientCacheTtlMs"` there tells how long the gateway's authorizer caches client
 * records; finishSecret waits that long after the new key was registered (default 60 s,
 * DEFAULT_CLIENT_CACHE_TTL_MS) so the gateway knows the new key before anyone signs with it.
 * `--settle-seconds 0` skips the wait.
 */
import { existsSync, readFileSync } from 'node:fs';
import { DEFAULT_CLIENT_CACHE_TTL_MS, DEFAULT_RSA_BITS, DEFAULT_ROTATION_GRACE_S, MIN_RSA_BITS } from '../../lambda/core/defaults';
import { KeyRotation } from '../../lambda/rotation/key-rotation';
import { rotateNow } from '../../lambda/rotation/rotate-now';
import { SecretsManagerSecretStore, createSecretsManagerClient } from '../../lambda/rotation/secrets-manager-secret-store';
import { AWSCURRENT } from '../../lambda/rotation/rotation-types';
import { parseSigningSecret } from '../../lambda/signer/signing-secret';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { writeClientDir } from '../../local/client-dir';
import { LocalStateFile, readLocalState } from '../../local/local-state';
import { LOCAL_REGION, displayPath, localPaths, signetHome } from '../../local/signet-home';
import { UsageError, parse } from './args';

/** Where the command finds the services, after flags and local.json are merged. */
interface Targets {
  readonly dynamoDbEndpoint: string;
  readonly secretsManagerEndpoint: string;
  readonly tableName: string;
  readonly secretId: string;
  readonly region: string;
  /** Set when the secret is the demo client's: its key directory is rewritten afterwards. */
  readonly demoDir?: string;
  readonly settleMs: number;
}

/** What the command waits with; tests pass a sleep that records the wait instead of taking it. */
export interface RotateDeps {
  /** @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
}

export async function run(argv: string[], deps: RotateDeps = {}): Promise<number> {
  const { values, positionals } = parse(argv, {
    'secret-id': { type: 'string' },
    'endpoint-dynamodb': { type: 'string' },
    'endpoint-secrets': { type: 'string' },
    table: { type: 'string' },
    region: { type: 'string' },
    'grace-seconds': { type: 'string' },
    bits: { type: 'string' },
    'settle-seconds': { type: 'string' },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0]!.slice(0, 40))}`);
  const graceS = wholeNumber(values, 'grace-seconds', DEFAULT_ROTATION_GRACE_S);
  const keyBits = wholeNumber(values, 'bits', DEFAULT_RSA_BITS);
  if (keyBits < MIN_RSA_BITS || keyBits > 8192 || keyBits % 8 !== 0) throw new UsageError(`--bits must be a multiple of 8 from ${MIN_RSA_BITS} to 8192`);
  const settleS = values['settle-seconds'] === undefined ? undefined : wholeNumber(values, 'settle-seconds', 0);
  const targets = resolveTargets(values, settleS);

  const sm = createSecretsManagerClient({ endpoint: targets.secretsManagerEndpoint, region: targets.region });
  const doc = createDocumentClient({ endpoint: targets.dynamoDbEndpoint });
  try {
    const store = new DynamoClientStore({ tableName: targets.tableName, client: doc });
    const secrets = new SecretsManagerSecretStore(sm);
    const rotation = new KeyRotation({ secrets, registry: store, keyBits, graceS, settleMs: targets.settleMs, sleep: deps.sleep });

    console.log(`rotating ${targets.secretId}: createSecret, setSecret, testSecret, finishSecret`);
    const result = await rotateNow(rotation, secrets, targets.secretId, {
      onStep: (step) => {
        if (step === 'finishSecret' && targets.settleMs > 0) {
          console.log(
            `  waiting up to ${Math.ceil(targets.settleMs / 1000)} s so the gateway's cached client record includes the new key (--settle-seconds 0 skips)`,
          );
        }
      },
    });
    if (result.resumed) console.log(`  an unfinished rotation (version ${result.versionId}) was found and completed`);
    for (const step of result.steps) console.log(`  ${step.step}: ${step.outcome}`);

    const current = await secrets.getVersion(result.secretArn, { stage: AWSCURRENT });
    const parsed = parseSigningSecret(current!.secretString);
    console.log(`new key ${parsed.key.fingerprint} of client ${parsed.secret.clientId} is AWSCURRENT (version ${result.versionId})`);
    const record = await store.getClient(parsed.secret.clientId, { consistentRead: true });
    for (const key of record?.keys ?? []) {
      if (key.fingerprint !== parsed.key.fingerprint) {
        console.log(`previous key ${key.fingerprint} ${key.notAfter ? `keeps verifying until ${key.notAfter}` : 'has no not-after (not held by this secret)'}`);
      }
    }
    if (targets.demoDir !== undefined) {
      writeClientDir(targets.demoDir, parsed.secret.clientId, parsed.key);
      console.log(`wrote ${displayPath(targets.demoDir)}/ (private.pkcs8.b64 and private.pem mode 0600, public.pem, client-id)`);
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
  let cacheTtlMs: number | undefined;
  if (!complete || existsSync(paths.localState)) {
    state = readLocalState(paths.localState); // says to run `npm start` when it is missing
    cacheTtlMs = optionalCacheTtl(paths.localState);
  }
  for (const endpoint of [given.dynamoDbEndpoint, given.secretsManagerEndpoint]) {
    if (endpoint !== undefined && !/^https?:\/\/[^\s/]+/.test(endpoint)) throw new UsageError(`endpoints must be URLs like http://127.0.0.1:8000; got ${JSON.stringify(endpoint.slice(0, 60))}`);
  }
  const secretId = given.secretId ?? state!.demoSecretId;
  return {
    dynamoDbEndpoint: given.dynamoDbEndpoint ?? state!.dynamoDbEndpoint,
    secretsManagerEndpoint: given.secretsManagerEndpoint ?? state!.secretsManagerEndpoint,
    tableName: given.tableName ?? state!.tableName,
    secretId,
    region: given.region ?? state?.region ?? LOCAL_REGION,
    demoDir: state !== undefined && secretId === state.demoSecretId ? paths.demoDir : undefined,
    settleMs: settleS !== undefined ? settleS * 1000 : (cacheTtlMs ?? DEFAULT_CLIENT_CACHE_TTL_MS),
  };
}

/** The optional `clientCacheTtlMs` of local.json (readLocalState keeps only the five fixed fields). */
function optionalCacheTtl(path: string): number | undefined {
  try {
    const value = (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>).clientCacheTtlMs;
    return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

function wholeNumber(values: Record<string, unknown>, name: string, fallback: number): number {
  const value = values[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\d{1,9}$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}
