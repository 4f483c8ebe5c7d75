/**
 * The world rotation tests run in: DynamoDB Local with a client table, the Secrets Manager
 * stand-in, real SDK clients for both, a clock the test moves, and the authorizer's decision
 * (lambda/authorizer/authorize.ts) over the real store with no client cache.
 *
 * @example
 * let world: RotationWorld;
 * beforeAll(async () => { world = await startRotationWorld(); });
 * afterAll(() => world?.stop());
 */
import { randomBytes } from 'node:crypto';
import { CreateSecretCommand, DescribeSecretCommand, RotateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { AuthorizeDeps, Decision, authorize } from '../../lambda/authorizer/authorize';
import { ClientDirectory } from '../../lambda/authorizer/client-directory';
import { type KeyTypeName, PrivateKeyInfo, generateKeyPair, spkiPemOf } from '../../lambda/core/keys';
import { nextTestKey } from '../support/test-keys';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { signRequest } from '../../lambda/core/sign';
import { createVerifier, defaultVerifyPolicy } from '../../lambda/core/verify';
import { KeyRotation, KeyRotationOptions } from '../../lambda/rotation/key-rotation';
import { RotationKeyRegistry, RotationLogger, RotationSecretStore } from '../../lambda/rotation/rotation-types';
import { SecretsManagerSecretStore } from '../../lambda/rotation/secrets-manager-secret-store';
import { serializeSigningSecret, signingSecretFor } from '../../lambda/signer/signing-secret';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { SecretsManagerStandIn, startSecretsManagerStandIn } from '../../local/secrets-manager-standin';
import { TestDynamoDb, startTestDynamoDb } from '../support/dynamodb';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

export const LAMBDA_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:signet-rotation';
export const API_URL = 'https://api.example.com/api/echo?x=1';
export const GRACE_S = 86_400;

/** A clock shared by the store, the rotation, the verifier and the signers. */
export interface TestClock {
  ms: number;
  readonly nowMs: () => number;
  readonly nowS: () => number;
  advanceS(seconds: number): void;
}

export function testClock(startMs = Date.now()): TestClock {
  const clock: TestClock = {
    ms: startMs,
    nowMs: () => clock.ms,
    nowS: () => Math.floor(clock.ms / 1000),
    advanceS(seconds) {
      clock.ms += seconds * 1000;
    },
  };
  return clock;
}

/** The system clock, for tests where the rotation and a request loop run side by side. */
export function systemClock(): TestClock {
  return {
    get ms() {
      return Date.now();
    },
    nowMs: Date.now,
    nowS: () => Math.floor(Date.now() / 1000),
    advanceS() {
      throw new Error('the system clock cannot be moved');
    },
  };
}

export interface RotationWorld {
  readonly ddb: TestDynamoDb;
  readonly standIn: SecretsManagerStandIn;
  /** Real SDK client pointed at the stand-in. */
  readonly sm: SecretsManagerClient;
  readonly tableName: string;
  stop(): Promise<void>;
}

export async function startRotationWorld(): Promise<RotationWorld> {
  const [ddb, standIn] = await Promise.all([startTestDynamoDb(), startSecretsManagerStandIn()]);
  const sm = new SecretsManagerClient({ ...standIn.clientConfig, maxAttempts: 1 });
  const tableName = await ddb.createTable();
  return {
    ddb,
    standIn,
    sm,
    tableName,
    async stop() {
      sm.destroy();
      await Promise.all([standIn.stop(), ddb.stop()]);
    },
  };
}

/** A store on the world's table with the given clock. */
export function storeFor(world: RotationWorld, clock: TestClock): DynamoClientStore {
  return new DynamoClientStore({ tableName: world.tableName, client: world.ddb.client, now: () => new Date(clock.nowMs()), keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
}

/** A client registered with one key, and a secret holding that key with rotation enabled. */
export interface RotatingClient {
  readonly clientId: string;
  readonly secretName: string;
  readonly secretArn: string;
  readonly initialKey: PrivateKeyInfo;
  readonly initialVersionId: string;
}

let secrets = 0;

/** A new key of `type`: 2048-bit RSA from the test key pool (test/support/test-keys.ts), others generated. */
function pooledKey(type: KeyTypeName, rsaBits: number): PrivateKeyInfo {
  return type === 'rsa' && rsaBits === 2048 ? nextTestKey() : generateKeyPair(type, rsaBits);
}

export async function newRotatingClient(
  world: RotationWorld,
  store: DynamoClientStore,
  clock: TestClock,
  options: { bootstrapOnly?: boolean; rotationEnabled?: boolean; keyType?: KeyTypeName } = {},
): Promise<RotatingClient> {
  const initialKey = pooledKey(options.keyType ?? 'rsa', 2048);
  const { record } = await store.createClient(
    { name: 'Rotating partner', networkWhitelist: ['0.0.0.0'], roles: ['demo'], key: { fingerprint: initialKey.fingerprint, spkiPem: spkiPemOf(initialKey.publicKey), algorithm: initialKey.algorithm } },
    'test',
  );
  const secretName = `signet/test-${process.pid}-${++secrets}-${randomBytes(3).toString('hex')}`;
  const value = options.bootstrapOnly
    ? JSON.stringify({ clientId: record.clientId })
    : serializeSigningSecret(signingSecretFor(record.clientId, initialKey, new Date(clock.nowMs())));
  const created = await world.sm.send(new CreateSecretCommand({ Name: secretName, SecretString: value }));
  if (options.rotationEnabled !== false) {
    // Configures rotation without running one (the stand-in records it, as the service does).
    await world.sm.send(new RotateSecretCommand({ SecretId: secretName, RotationLambdaARN: LAMBDA_ARN, RotateImmediately: false }));
  }
  return { clientId: record.clientId, secretName, secretArn: created.ARN!, initialKey, initialVersionId: created.VersionId! };
}

/** KeyRotation over the world's real clients (wrappable for failure injection). */
export function rotationFor(
  world: RotationWorld,
  clock: TestClock,
  registry: RotationKeyRegistry,
  overrides: Partial<KeyRotationOptions> & { secrets?: RotationSecretStore } = {},
): KeyRotation {
  return new KeyRotation({
    secrets: overrides.secrets ?? new SecretsManagerSecretStore(world.sm),
    registry,
    graceS: GRACE_S,
    nowMs: clock.nowMs,
    generateKey: pooledKey,
    ...overrides,
  });
}

/** The authorizer's decision over the real store, no client cache, the test's clock. */
export function authorizerFor(store: DynamoClientStore, clock: TestClock): AuthorizeDeps {
  return {
    verifier: createVerifier({ policy: defaultVerifyPolicy({ nowS: clock.nowS }) }),
    directory: new ClientDirectory(store, { ttlMs: 0, negativeTtlMs: 0, nowMs: clock.nowMs }),
    roles: compileRoleCatalogue({ demo: ['* /api/**'] }),
  };
}

/** A GET of API_URL signed with `key` for `clientId` at the clock's time, through the authorizer's decision. */
export async function callWith(deps: AuthorizeDeps, clientId: string, key: PrivateKeyInfo | { key: PrivateKeyInfo['key'] }, clock: TestClock): Promise<Decision> {
  const { headers } = signRequest({ method: 'GET', url: API_URL, keyId: clientId, privateKey: key.key, created: clock.nowS() });
  return authorize({ request: { method: 'GET', targetUri: API_URL, headers: { ...headers, host: 'api.example.com' }, sourceIp: '203.0.113.9' }, operationPath: '/api/echo' }, deps);
}

/** The refusal code of a decision, or 'allowed'. */
export function outcome(decision: Decision): string {
  return decision.allowed ? 'allowed' : decision.error.code;
}

/** The secret's labelled versions. */
export async function stagesOf(world: RotationWorld, secretId: string): Promise<Record<string, string[]>> {
  return (await world.sm.send(new DescribeSecretCommand({ SecretId: secretId }))).VersionIdsToStages ?? {};
}

/** A logger that keeps every line (message and attributes) as JSON text, for "never logs key material". */
export function recordingLogger(): RotationLogger & { readonly lines: string[] } {
  const lines: string[] = [];
  const keep =
    (level: string) =>
    (message: string, ...attributes: Record<string, unknown>[]): void => {
      lines.push(JSON.stringify({ level, message, attributes }));
    };
  return { lines, debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') };
}

/** Someone else's changes, each run once just before the first call of an operation that `when` matches. */
class Interleavings<Op extends string> {
  private readonly pending: { op: Op; when: (args: unknown[]) => boolean; edit: () => Promise<void> }[] = [];

  add(op: Op, when: (args: unknown[]) => boolean, edit: () => Promise<void>): void {
    this.pending.push({ op, when, edit });
  }

  async before(op: Op, args: unknown[]): Promise<void> {
    const i = this.pending.findIndex((p) => p.op === op && p.when(args));
    if (i < 0) return;
    const [{ edit }] = this.pending.splice(i, 1);
    await edit();
  }
}

/**
 * Registry wrapper whose named operation throws once when `when` says so (a storage fault), or
 * (`interleaveOnce`) is preceded once by someone else's change.
 */
export class FlakyRegistry implements RotationKeyRegistry {
  private armed: { op: keyof RotationKeyRegistry; when: (args: unknown[]) => boolean } | undefined;
  private readonly interleavings = new Interleavings<keyof RotationKeyRegistry>();
  failures = 0;

  constructor(private readonly inner: RotationKeyRegistry) {}

  failOnce(op: keyof RotationKeyRegistry, when: (args: unknown[]) => boolean = () => true): void {
    this.armed = { op, when };
  }

  /** Runs `edit` (an operator's change, say) once, just before the first call of `op` that `when` matches; the call then goes on. */
  interleaveOnce(op: keyof RotationKeyRegistry, when: (args: unknown[]) => boolean, edit: () => Promise<void>): void {
    this.interleavings.add(op, when, edit);
  }

  private maybeFail(op: keyof RotationKeyRegistry, args: unknown[]): void {
    if (this.armed?.op === op && this.armed.when(args)) {
      this.armed = undefined;
      this.failures += 1;
      throw new Error(`injected ${op} failure`);
    }
  }

  async getClient(...args: Parameters<RotationKeyRegistry['getClient']>) {
    await this.interleavings.before('getClient', args);
    this.maybeFail('getClient', args);
    return this.inner.getClient(...args);
  }
  async addKey(...args: Parameters<RotationKeyRegistry['addKey']>) {
    await this.interleavings.before('addKey', args);
    this.maybeFail('addKey', args);
    return this.inner.addKey(...args);
  }
  async setKeyNotAfter(...args: Parameters<RotationKeyRegistry['setKeyNotAfter']>) {
    await this.interleavings.before('setKeyNotAfter', args);
    this.maybeFail('setKeyNotAfter', args);
    return this.inner.setKeyNotAfter(...args);
  }
  async removeKey(...args: Parameters<RotationKeyRegistry['removeKey']>) {
    await this.interleavings.before('removeKey', args);
    this.maybeFail('removeKey', args);
    return this.inner.removeKey(...args);
  }
}

/**
 * Secret-store wrapper whose named operation throws once when `when` says so: before the call, or
 * (`answerLost`) after it went through, as a call whose answer is lost once the service applied it.
 * `interleaveOnce` runs someone else's change just before a call (and before a fault armed on it).
 */
export class FlakySecrets implements RotationSecretStore {
  private armed: { op: keyof RotationSecretStore; when: (args: unknown[]) => boolean; answerLost: boolean }[] = [];
  private readonly interleavings = new Interleavings<keyof RotationSecretStore>();
  failures = 0;

  constructor(private readonly inner: RotationSecretStore) {}

  failOnce(op: keyof RotationSecretStore, when: (args: unknown[]) => boolean = () => true, options: { answerLost?: boolean } = {}): void {
    this.armed.push({ op, when, answerLost: options.answerLost ?? false });
  }

  /** Runs `edit` (an operator's change, say) once, just before the first call of `op` that `when` matches. */
  interleaveOnce(op: keyof RotationSecretStore, when: (args: unknown[]) => boolean, edit: () => Promise<void>): void {
    this.interleavings.add(op, when, edit);
  }

  private maybeFail(op: keyof RotationSecretStore, args: unknown[], answerLost = false): void {
    const i = this.armed.findIndex((a) => a.op === op && a.answerLost === answerLost && a.when(args));
    if (i < 0) return;
    this.armed.splice(i, 1);
    this.failures += 1;
    throw new Error(answerLost ? `injected ${op} failure after the call went through` : `injected ${op} failure`);
  }

  async describe(...args: Parameters<RotationSecretStore['describe']>) {
    await this.interleavings.before('describe', args);
    this.maybeFail('describe', args);
    return this.inner.describe(...args);
  }
  async getVersion(...args: Parameters<RotationSecretStore['getVersion']>) {
    await this.interleavings.before('getVersion', args);
    this.maybeFail('getVersion', args);
    return this.inner.getVersion(...args);
  }
  async putPendingVersion(...args: Parameters<RotationSecretStore['putPendingVersion']>) {
    await this.interleavings.before('putPendingVersion', args);
    this.maybeFail('putPendingVersion', args);
    return this.inner.putPendingVersion(...args);
  }
  async moveStage(...args: Parameters<RotationSecretStore['moveStage']>) {
    await this.interleavings.before('moveStage', args);
    this.maybeFail('moveStage', args);
    await this.inner.moveStage(...args);
    this.maybeFail('moveStage', args, true);
  }
}
