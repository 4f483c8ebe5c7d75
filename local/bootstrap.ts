/**
 * Everything `npm start` needs before it can serve: DynamoDB Local with its files under
 * `$SIGNET_HOME/dynamodb` (or a DynamoDB the user already runs, `SIGNET_DYNAMODB_ENDPOINT`, which
 * is only checked to answer, and left running), the Secrets Manager stand-in with its state in
 * `$SIGNET_HOME/secrets-manager.json` (both listen on 127.0.0.1 only; the stand-in accepts only
 * requests signed with the key pair in `$SIGNET_HOME/secrets-manager-credentials.json`, created
 * on the first start, mode 0600, and DynamoDB Local started here only requests naming its access
 * key id), the client table, and two clients:
 *
 * - the **admin** (`registry:admin`, an operator), written to `$SIGNET_HOME/admin/`;
 * - the **demo** client (`demo`), written to `$SIGNET_HOME/demo/`, whose key also lives in the
 *   stand-in as the secret `signet/local/demo` in the rotation format
 *   (lambda/signer/signing-secret.ts), with rotation enabled, so `signet rotate` can rotate it.
 *
 * Both are in the default account (`acct_default`, lambda/store/account-id.ts), as the first
 * admin of a deployed stack is; partner accounts are created through the registry
 * (`signet accounts create`).
 *
 * Every step is "make it so", never "create": a second start finds the table, finds each key
 * already registered (registration is skipped and the holder's clientId reused, as the
 * registry does for a known key) and finds the secret. The demo secret's AWSCURRENT key is the
 * truth for the demo client: after a rotation, `$SIGNET_HOME/demo/` is rewritten from it.
 * If the database was deleted but the key files were kept, the keys are registered again
 * (new clientIds) and the files and the secret follow.
 */
import {
  CreateSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  RotateSecretCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS, DEFAULT_ROTATION_DAYS } from '../lambda/core/defaults';
import { PrivateKeyInfo, generateRsaKeyPair, spkiPemOf } from '../lambda/core/keys';
import { ParsedSigningSecret, parseSigningSecret, serializeSigningSecret, signingSecretFor } from '../lambda/signer/signing-secret';
import { DEFAULT_ACCOUNT_ID } from '../lambda/store/account-id';
import { DynamoClientStore } from '../lambda/store/client-store';
import { ensureClientTable } from '../lambda/store/table-setup';
import { hasClientKey, prepareClientDir, readClientKey, writeClientDir } from './client-dir';
import { type DynamoDbLocalCredentials, dynamoDbLocalClientConfig, startDynamoDbLocal } from './dynamodb-local';
import { lockHome } from './home-lock';
import { LocalStateFile, removeLocalState, writeLocalState } from './local-state';
import { ADMIN_ROLE, DEMO_ROLE } from './role-catalogue';
import { loadOrCreateStandInCredentials } from './secrets-manager-credentials';
import { SecretsManagerStandIn, startSecretsManagerStandIn } from './secrets-manager-standin';
import { GivenDynamoDb, LOCAL_DEMO_SECRET_ID, LOCAL_ENV, LOCAL_REGION, LOCAL_TABLE_NAME, LocalPaths, localPaths } from './signet-home';

/** The actor the audit trail records for clients `npm start` creates. */
export const LOCAL_BOOTSTRAP_ACTOR = 'local-bootstrap';

/**
 * The rotation function ARN recorded on the demo secret. Nothing is invoked there: locally
 * `signet rotate` runs the four steps itself; the ARN only lets rotation be enabled on the secret,
 * as the RotatingSigningKey construct enables it in AWS.
 */
export const LOCAL_ROTATION_LAMBDA_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:signet-local-rotation';

/** Where the local clients may call from: this machine only. */
export const LOCAL_NETWORK_WHITELIST: readonly string[] = Object.freeze(['127.0.0.1', '::1']);

export interface LocalBootstrapOptions {
  /** The state directory (absolute). */
  readonly home: string;
  /** DynamoDB Local's port. @default - a free port */
  readonly dynamoDbPort?: number;
  /**
   * A DynamoDB the user runs (`SIGNET_DYNAMODB_ENDPOINT`, read by givenDynamoDb in ./signet-home.ts): used with its
   * table instead of starting DynamoDB Local, and left running on stop.
   * @default - DynamoDB Local started here, its files in `$SIGNET_HOME/dynamodb`, table LOCAL_TABLE_NAME
   */
  readonly dynamoDb?: GivenDynamoDb;
  /**
   * Runs once the home is locked, before any service starts or any file is written: the gateway
   * claims its port here, so that a port in use fails the start at once. Its error stops the start.
   */
  readonly beforeServices?: () => Promise<void>;
}

/** How long a given DynamoDB has to answer its first request before the start fails, in ms. @default 5_000 */
export const GIVEN_DYNAMODB_ANSWER_TIMEOUT_MS = 5_000;

/** The DynamoDB the gateway's table lives in. */
export interface LocalDynamoDb {
  readonly endpoint: string;
  /** The DynamoDB Local process this start runs; undefined for a given DynamoDB (not ours to stop). */
  readonly pid: number | undefined;
  /** `started`: DynamoDB Local run by this gateway; `given`: the one `SIGNET_DYNAMODB_ENDPOINT` names. */
  readonly origin: 'started' | 'given';
  /** What its clients sign with: the home's credentials for DynamoDB Local started here (it answers no other), placeholders for a given one. */
  readonly credentials: DynamoDbLocalCredentials;
}

/** A client `npm start` made sure of. */
export interface BootstrappedClient {
  readonly clientId: string;
  readonly fingerprint: string;
  /** Its client directory. */
  readonly dir: string;
  /** `created`: registered by this start; `reused`: its key was registered already. */
  readonly registration: 'created' | 'reused';
}

/** The running local services, and how to stop them. */
export interface LocalServices {
  readonly paths: LocalPaths;
  readonly dynamoDb: LocalDynamoDb;
  readonly secretsManager: SecretsManagerStandIn;
  readonly state: LocalStateFile;
  readonly admin: BootstrappedClient;
  readonly demo: BootstrappedClient;
  /** Stops the stand-in and DynamoDB Local if started here (waiting for the JVM to exit), removes local.json and the pid file. */
  stop(): Promise<void>;
}

/**
 * Starts the local services and bootstraps the table and the two clients.
 * @throws Error when another gateway holds this SIGNET_HOME, or a service cannot start (nothing is left running)
 */
export async function bootstrapLocal(options: LocalBootstrapOptions): Promise<LocalServices> {
  const paths = localPaths(options.home);
  // Created 0700; an existing one must be a directory of this user's that others cannot write
  // (they could swap local.json or the key files in it), not a symbolic link.
  prepareClientDir(paths.home);
  const lock = lockHome(paths.pidFile);
  // One left by a gateway that did not stop (a crash) names a port nothing serves: client commands would go there.
  removeLocalState(paths.localState);
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async (): Promise<void> => {
    removeLocalState(paths.localState);
    const results = await Promise.allSettled(stops.reverse().map((stop) => stop()));
    stops.length = 0;
    lock.release();
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  };

  try {
    await options.beforeServices?.();
    // The home's credentials open both local services: the stand-in checks their SigV4
    // signature, DynamoDB Local started here their access key id.
    const credentials = loadOrCreateStandInCredentials(paths.secretsManagerCredentials);
    const dynamoDb = await localDynamoDb(options, paths, stops, credentials);
    const tableName = options.dynamoDb?.tableName ?? LOCAL_TABLE_NAME;
    const secretsManager = await startSecretsManagerStandIn({ statePath: paths.secretsManagerState, region: LOCAL_REGION, credentials });
    stops.push(() => secretsManager.stop());

    const ddbClient = new DynamoDBClient(dynamoDbLocalClientConfig(dynamoDb.endpoint, dynamoDb.credentials));
    const sm = new SecretsManagerClient({ ...secretsManager.clientConfig, maxAttempts: 1 });
    try {
      await ensureClientTable(ddbClient, tableName);
      // The handlers' configuration is loaded after this (it needs these endpoints): the local default
      // bound. Registering a client removes no operator, so no `last_admin` check reads it here.
      const store = new DynamoClientStore({ tableName, client: ddbClient, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
      const admin = await ensureAdminClient(store, paths.adminDir);
      const demo = await ensureDemoClient(store, sm, paths.demoDir);
      const state: LocalStateFile = {
        dynamoDbEndpoint: dynamoDb.endpoint,
        secretsManagerEndpoint: secretsManager.endpoint,
        tableName,
        demoSecretId: LOCAL_DEMO_SECRET_ID,
        region: LOCAL_REGION,
        dynamoDbOrigin: dynamoDb.origin,
      };
      writeLocalState(paths.localState, state);
      let stopping: Promise<void> | undefined;
      return { paths, dynamoDb, secretsManager, state, admin, demo, stop: () => (stopping ??= stopAll()) };
    } finally {
      ddbClient.destroy();
      sm.destroy();
    }
  } catch (error) {
    await stopAll().catch(() => undefined);
    throw error;
  }
}

/** DynamoDB Local started for this home (its stop queued in `stops`), or the given DynamoDB once it answers. */
async function localDynamoDb(options: LocalBootstrapOptions, paths: LocalPaths, stops: (() => Promise<void>)[], credentials: DynamoDbLocalCredentials): Promise<LocalDynamoDb> {
  if (options.dynamoDb === undefined) {
    const started = await startDynamoDbLocal({ dbPath: paths.dynamoDbDir, port: options.dynamoDbPort, credentials });
    stops.push(() => started.stop());
    return { endpoint: started.endpoint, pid: started.pid, origin: 'started', credentials };
  }
  await checkAnswers(options.dynamoDb.endpoint);
  return { endpoint: options.dynamoDb.endpoint, pid: undefined, origin: 'given', credentials: dynamoDbLocalClientConfig(options.dynamoDb.endpoint).credentials };
}

/**
 * One ListTables with a short timeout and no retry.
 * @throws Error naming SIGNET_DYNAMODB_ENDPOINT and what to do, when it does not answer as DynamoDB
 */
async function checkAnswers(endpoint: string): Promise<void> {
  const client = new DynamoDBClient({ ...dynamoDbLocalClientConfig(endpoint), maxAttempts: 1 });
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(GIVEN_DYNAMODB_ANSWER_TIMEOUT_MS) });
  } catch (error) {
    throw new Error(
      `${LOCAL_ENV.dynamoDbEndpoint}=${endpoint} does not answer as DynamoDB (${failureReason(error)}). ` +
        `Start that DynamoDB first, or unset ${LOCAL_ENV.dynamoDbEndpoint} to have npm start run DynamoDB Local itself.`,
      { cause: error },
    );
  } finally {
    client.destroy();
  }
}

/** What went wrong, in a word where there is one: ECONNREFUSED, ENOTFOUND, a timeout, the service's error name. */
function failureReason(error: unknown): string {
  const { code, name, message } = (error ?? {}) as { code?: unknown; name?: unknown; message?: unknown };
  if (name === 'AbortError' || name === 'TimeoutError') return `no answer within ${GIVEN_DYNAMODB_ANSWER_TIMEOUT_MS} ms`;
  if (typeof code === 'string') return code;
  // A network error the SDK wrapped keeps its code only in the message ("connect ECONNREFUSED 127.0.0.1:8000").
  const errno = typeof message === 'string' ? /\bE[A-Z]{3,}\b/.exec(message)?.[0] : undefined;
  if (errno !== undefined) return errno;
  return typeof name === 'string' && name !== 'Error' ? name : String(message ?? error);
}

/** The admin: the key in `dir` (or a new one), registered with `registry:admin`. */
async function ensureAdminClient(store: DynamoClientStore, dir: string): Promise<BootstrappedClient> {
  const key = hasClientKey(dir) ? readClientKey(dir) : generateRsaKeyPair();
  const { clientId, registration } = await register(store, key, 'local admin', ADMIN_ROLE);
  writeClientDir(dir, clientId, key);
  return { clientId, fingerprint: key.fingerprint, dir, registration };
}

/**
 * The demo client: the secret's AWSCURRENT key when the secret exists (it may have been
 * rotated), else the key in `dir` (or a new one); registered with `demo`; the secret and `dir`
 * brought in line with it.
 */
async function ensureDemoClient(store: DynamoClientStore, sm: SecretsManagerClient, dir: string): Promise<BootstrappedClient> {
  const current = await readSigningSecret(sm, LOCAL_DEMO_SECRET_ID);
  const key = current?.key ?? (hasClientKey(dir) ? readClientKey(dir) : generateRsaKeyPair());
  const { clientId, registration } = await register(store, key, 'local demo', DEMO_ROLE);
  if (current === undefined) {
    await sm.send(
      new CreateSecretCommand({
        Name: LOCAL_DEMO_SECRET_ID,
        Description: 'Signing key of the local demo client (npm start)',
        SecretString: serializeSigningSecret(signingSecretFor(clientId, key, new Date())),
      }),
    );
  } else if (current.secret.clientId !== clientId) {
    // The database was reset and the key registered anew: the secret must name the new clientId.
    await sm.send(
      new PutSecretValueCommand({
        SecretId: LOCAL_DEMO_SECRET_ID,
        SecretString: serializeSigningSecret(signingSecretFor(clientId, key, new Date(current.secret.createdAt))),
      }),
    );
  }
  await enableRotation(sm, LOCAL_DEMO_SECRET_ID);
  writeClientDir(dir, clientId, key);
  return { clientId, fingerprint: key.fingerprint, dir, registration };
}

/** Turns rotation on for the secret (every DEFAULT_ROTATION_DAYS days), without rotating now. */
async function enableRotation(sm: SecretsManagerClient, secretId: string): Promise<void> {
  const description = await sm.send(new DescribeSecretCommand({ SecretId: secretId }));
  if (description.RotationEnabled === true) return;
  await sm.send(
    new RotateSecretCommand({
      SecretId: secretId,
      RotationLambdaARN: LOCAL_ROTATION_LAMBDA_ARN,
      RotationRules: { AutomaticallyAfterDays: DEFAULT_ROTATION_DAYS },
      RotateImmediately: false,
    }),
  );
}

/** Registers the key, or finds the client that already holds it. */
async function register(
  store: DynamoClientStore,
  key: PrivateKeyInfo,
  name: string,
  role: string,
): Promise<{ clientId: string; registration: 'created' | 'reused' }> {
  const { record, created } = await store.createClient(
    {
      accountId: DEFAULT_ACCOUNT_ID,
      name,
      networkWhitelist: LOCAL_NETWORK_WHITELIST,
      roles: [role],
      key: { fingerprint: key.fingerprint, spkiPem: spkiPemOf(key.publicKey) },
    },
    LOCAL_BOOTSTRAP_ACTOR,
  );
  return { clientId: record.clientId, registration: created ? 'created' : 'reused' };
}

/** The secret's AWSCURRENT signing key, or undefined when the secret does not exist. */
async function readSigningSecret(sm: SecretsManagerClient, secretId: string): Promise<ParsedSigningSecret | undefined> {
  try {
    const out = await sm.send(new GetSecretValueCommand({ SecretId: secretId }));
    if (out.SecretString === undefined) return undefined;
    return parseSigningSecret(out.SecretString);
  } catch (error) {
    if ((error as { name?: string }).name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}
