/**
 * A local STAND-IN for AWS Secrets Manager, for Signet's tests and `npm start`.
 *
 * It is NOT an emulator of Secrets Manager. AWS publishes no official local Secrets Manager, so
 * this small HTTP server speaks the real wire protocol (AWS JSON 1.1: `POST /`, header
 * `X-Amz-Target: secretsmanager.<Operation>`, content type `application/x-amz-json-1.1`, errors
 * as `{"__type": "<Exception>", "message": ...}`) for exactly the operations Signet uses, so the
 * real `@aws-sdk/client-secrets-manager` client is exercised end to end. There is no KMS, IAM,
 * tagging, replication or version expiry.
 *
 * Who may ask (it holds private keys, e.g. `npm start`'s demo signing key):
 * - it listens on 127.0.0.1 only;
 * - it answers only requests whose `Host` is a loopback name with its port (`127.0.0.1:<port>`,
 *   `localhost:<port>`, `[::1]:<port>`), so a web page that points its own name at 127.0.0.1
 *   (DNS rebinding) is refused: 403 `AccessDeniedException`;
 * - every request must carry a valid AWS SigV4 signature (./sigv4-verifier.ts: service
 *   `secretsmanager`, the stand-in's region) made with the one key pair it was started with
 *   (`credentials`; `npm start` keeps its pair in `$SIGNET_HOME/secrets-manager-credentials.json`,
 *   ./secrets-manager-credentials.ts), else it answers as the service does
 *   (`MissingAuthenticationTokenException`, `IncompleteSignatureException`,
 *   `UnrecognizedClientException`, `InvalidSignatureException`, HTTP 400) and serves nothing.
 *
 * What it does enforce, as the service documents it (API reference for UpdateSecretVersionStage,
 * PutSecretValue, RotateSecret, and the rotation-function guide):
 * - a staging label is attached to at most one version of a secret;
 * - moving `AWSCURRENT` puts `AWSPREVIOUS` on the version `AWSCURRENT` left;
 * - UpdateSecretVersionStage: when the label is already on another version, `RemoveFromVersionId`
 *   must name that version (InvalidParameterException otherwise); `AWSCURRENT` can be moved but
 *   never removed outright;
 * - PutSecretValue is idempotent on `ClientRequestToken` (same token, same value: ignored; same
 *   token, different value: ResourceExistsException); `VersionStages` defaults to `AWSCURRENT`;
 *   the first version of a secret always gets `AWSCURRENT`;
 * - versions without labels are deprecated: hidden from DescribeSecret and (by default)
 *   ListSecretVersionIds, still readable by VersionId;
 * - RotateSecret attaches `AWSPENDING` to a new, empty version whose VersionId is the rotation's
 *   ClientRequestToken, then invokes the rotation function with `createSecret`, `setSecret`,
 *   `testSecret`, `finishSecret` (event `{ Step, SecretId: <ARN>, ClientRequestToken,
 *   RotationToken }`), as the service invokes the rotation Lambda. While `AWSPENDING` sits on a
 *   version other than the `AWSCURRENT` one, RotateSecret answers InvalidRequestException ("a
 *   previous rotation isn't complete") and reattempts that rotation with the same token.
 *
 * Where it necessarily differs: the service rotates asynchronously and reports failures only in
 * CloudWatch; the stand-in runs the four steps before answering RotateSecret, and reports a
 * failed step (or a finishSecret that did not make the pending version `AWSCURRENT`) as an
 * InvalidRequestException naming the step, plus in {@link SecretsManagerStandIn.rotations}. A
 * failed rotation never moves `AWSCURRENT` (only the rotation function moves labels).
 * Without a rotation handler, RotateSecret only records the rotation configuration when
 * `RotateImmediately` is false, and refuses otherwise (like a Lambda the service cannot invoke).
 *
 * State lives in memory, optionally mirrored to a JSON file (`statePath`, mode 0600: it holds
 * secret values, so keep it under the local `.signet/` directory only).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { writeFileAtomically } from './private-file';
import { newStandInCredentials } from './secrets-manager-credentials';
import { SigV4Credentials, verifySigV4 } from './sigv4-verifier';

/** Staging labels with a meaning to the service. */
export const AWSCURRENT = 'AWSCURRENT';
export const AWSPREVIOUS = 'AWSPREVIOUS';
export const AWSPENDING = 'AWSPENDING';

/** The four steps of the rotation protocol, in the order the service invokes them. */
export const ROTATION_STEPS = ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] as const;
export type RotationStep = (typeof ROTATION_STEPS)[number];

/** What the service sends the rotation Lambda (a superset of aws-lambda's SecretsManagerRotationEvent). */
export interface RotationEvent {
  readonly Step: RotationStep;
  /** The secret's ARN. */
  readonly SecretId: string;
  /** The VersionId of the version being rotated in (labelled AWSPENDING). */
  readonly ClientRequestToken: string;
  readonly RotationToken: string;
}

/** The local stand-in for the rotation Lambda: called once per step; a throw fails the rotation. */
export type RotationHandler = (event: RotationEvent) => unknown;

/** One rotation attempt, as recorded by the stand-in. */
export interface RotationRecord {
  readonly secretArn: string;
  readonly versionId: string;
  readonly ok: boolean;
  /** The steps that completed, in order. */
  readonly completedSteps: readonly RotationStep[];
  /** The step that failed, when `ok` is false (`finishSecret` also when it did not move AWSCURRENT). */
  readonly failedStep?: RotationStep;
  readonly message?: string;
}

/** The only interface the stand-in listens on. */
export const STAND_IN_HOST = '127.0.0.1';

/** The signing name SigV4 requests to Secrets Manager are scoped to. */
export const SECRETS_MANAGER_SIGNING_NAME = 'secretsmanager';

export interface SecretsManagerStandInOptions {
  /** Port to listen on (on 127.0.0.1); 0 picks a free one. @default 0 */
  readonly port?: number;
  /** Region written into ARNs. @default 'us-east-1' */
  readonly region?: string;
  /** Account written into ARNs. @default '000000000000' */
  readonly accountId?: string;
  /** JSON file mirroring the state across restarts (`npm start`). @default - memory only */
  readonly statePath?: string;
  /** The rotation function run by RotateSecret. @default - none (see the module comment) */
  readonly rotationHandler?: RotationHandler;
  /** The only key pair requests may be signed with. @default - a new random pair, see `clientConfig` */
  readonly credentials?: SigV4Credentials;
}

/** A running stand-in. */
export interface SecretsManagerStandIn {
  /** `http://host:port`, for the SDK client's `endpoint`. */
  readonly endpoint: string;
  readonly port: number;
  readonly region: string;
  /** Ready-made SDK client configuration: endpoint, region and the credentials it accepts. */
  readonly clientConfig: {
    readonly endpoint: string;
    readonly region: string;
    readonly credentials: SigV4Credentials;
  };
  /** Sets (or, with `undefined`, clears) the rotation function. */
  setRotationHandler(handler: RotationHandler | undefined): void;
  /**
   * Sets (or clears) what runs each time a secret's AWSCURRENT moves to another version (a key
   * rotation's finishSecret): the local gateway forgets its cached client records then.
   */
  onCurrentVersionMoved(listener: ((secretName: string) => void) | undefined): void;
  /** Every rotation attempt so far, oldest first. */
  rotations(): readonly RotationRecord[];
  /** Stops listening and closes open connections. */
  stop(): Promise<void>;
}

/** Starts a stand-in and resolves once it listens. */
export async function startSecretsManagerStandIn(options: SecretsManagerStandInOptions = {}): Promise<SecretsManagerStandIn> {
  const region = options.region ?? 'us-east-1';
  const store = new SecretStore(region, options.accountId ?? '000000000000', options.statePath);
  store.rotationHandler = options.rotationHandler;
  const credentials = { ...(options.credentials ?? newStandInCredentials()) };
  const access: AccessRules = { credentials, region, hosts: new Set() };
  const server = createServer((req, res) => void serve(store, access, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, STAND_IN_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  for (const name of LOOPBACK_NAMES) access.hosts.add(`${name}:${port}`);
  const endpoint = `http://${STAND_IN_HOST}:${port}`;
  return {
    endpoint,
    port,
    region,
    clientConfig: { endpoint, region, credentials: { ...credentials } },
    setRotationHandler: (handler) => {
      store.rotationHandler = handler;
    },
    onCurrentVersionMoved: (listener) => {
      store.currentMoved = listener;
    },
    rotations: () => [...store.rotationLog],
    stop: () => closeServer(server),
  };
}

// ---------------------------------------------------------------------------------------------
// Errors: the service's exception names; all client faults are HTTP 400 as the service answers.

class ServiceError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

const notFound = (message = "Secrets Manager can't find the specified secret."): ServiceError =>
  new ServiceError('ResourceNotFoundException', message);
const invalidParameter = (message: string): ServiceError => new ServiceError('InvalidParameterException', message);
const invalidRequest = (message: string): ServiceError => new ServiceError('InvalidRequestException', message);

// ---------------------------------------------------------------------------------------------
// State.

interface VersionState {
  versionId: string;
  /** Exactly one of secretString / secretBinary (Base64), or neither for a rotation's empty AWSPENDING version. */
  secretString?: string;
  secretBinary?: string;
  stages: string[];
  createdDate: number;
  lastAccessedDate?: number;
}

interface RotationRules {
  AutomaticallyAfterDays?: number;
  Duration?: string;
  ScheduleExpression?: string;
}

interface SecretState {
  arn: string;
  name: string;
  description?: string;
  createdDate: number;
  lastChangedDate: number;
  lastAccessedDate?: number;
  lastRotatedDate?: number;
  deletedDate?: number;
  rotationEnabled: boolean;
  rotationLambdaArn?: string;
  rotationRules?: RotationRules;
  /** In creation order. */
  versions: VersionState[];
}

interface PersistedState {
  readonly format: 'signet-secrets-manager-stand-in/1';
  readonly secrets: SecretState[];
}

type Input = Record<string, unknown>;
type Output = Record<string, unknown>;

const SECRET_NAME = /^[A-Za-z0-9/_+=.@-]{1,512}$/;
const DAY_S = 86_400;

/** Epoch seconds with milliseconds, the JSON protocol's timestamp form. */
const nowS = (): number => Date.now() / 1000;

class SecretStore {
  readonly secrets: SecretState[] = [];
  readonly rotationLog: RotationRecord[] = [];
  rotationHandler: RotationHandler | undefined;
  currentMoved: ((secretName: string) => void) | undefined;
  private readonly rotating = new Set<string>();

  constructor(
    private readonly region: string,
    private readonly accountId: string,
    private readonly statePath: string | undefined,
  ) {
    if (statePath !== undefined && existsSync(statePath)) this.load(statePath);
  }

  // --- Operations -----------------------------------------------------------------------------

  CreateSecret(input: Input): Output {
    const name = requiredString(input, 'Name');
    if (!SECRET_NAME.test(name)) {
      throw invalidParameter('Name must be 1-512 characters: letters, digits and /_+=.@-');
    }
    const existing = this.secrets.find((s) => s.name === name);
    if (existing?.deletedDate !== undefined) {
      throw invalidRequest("You can't create this secret because a secret with this name is already scheduled for deletion.");
    }
    if (existing) throw new ServiceError('ResourceExistsException', `The operation failed because the secret ${name} already exists.`);
    const value = secretValue(input, false);
    const now = nowS();
    const secret: SecretState = {
      arn: `arn:aws:secretsmanager:${this.region}:${this.accountId}:secret:${name}-${randomSuffix()}`,
      name,
      description: optionalString(input, 'Description'),
      createdDate: now,
      lastChangedDate: now,
      rotationEnabled: false,
      versions: [],
    };
    let versionId: string | undefined;
    if (value) {
      versionId = token(input);
      secret.versions.push({ versionId, ...value, stages: [AWSCURRENT], createdDate: now });
    }
    this.secrets.push(secret);
    this.save();
    return { ARN: secret.arn, Name: secret.name, ...(versionId ? { VersionId: versionId } : {}) };
  }

  DescribeSecret(input: Input): Output {
    const secret = this.find(input);
    const versionIdsToStages: Record<string, string[]> = {};
    for (const v of secret.versions) if (v.stages.length > 0) versionIdsToStages[v.versionId] = [...v.stages];
    const days = secret.rotationRules?.AutomaticallyAfterDays;
    return dropUndefined({
      ARN: secret.arn,
      Name: secret.name,
      Description: secret.description,
      RotationEnabled: secret.rotationEnabled,
      RotationLambdaARN: secret.rotationLambdaArn,
      RotationRules: secret.rotationRules,
      LastRotatedDate: secret.lastRotatedDate,
      LastChangedDate: secret.lastChangedDate,
      LastAccessedDate: secret.lastAccessedDate,
      DeletedDate: secret.deletedDate,
      NextRotationDate:
        secret.rotationEnabled && days !== undefined ? (secret.lastRotatedDate ?? secret.createdDate) + days * DAY_S : undefined,
      CreatedDate: secret.createdDate,
      VersionIdsToStages: versionIdsToStages,
    });
  }

  GetSecretValue(input: Input): Output {
    const secret = this.findLive(input);
    const versionId = optionalString(input, 'VersionId');
    const stage = optionalString(input, 'VersionStage');
    let version: VersionState | undefined;
    if (versionId !== undefined) {
      version = secret.versions.find((v) => v.versionId === versionId);
      if (version && stage !== undefined && !version.stages.includes(stage)) version = undefined;
    } else {
      version = secret.versions.find((v) => v.stages.includes(stage ?? AWSCURRENT));
    }
    if (!version || (version.secretString === undefined && version.secretBinary === undefined)) {
      const which = [versionId !== undefined ? `VersionId: ${versionId}` : '', `staging label: ${stage ?? (versionId ? '(any)' : AWSCURRENT)}`]
        .filter(Boolean)
        .join(', ');
      throw notFound(`Secrets Manager can't find the specified secret value for ${which}.`);
    }
    const now = nowS();
    version.lastAccessedDate = now;
    secret.lastAccessedDate = now;
    return dropUndefined({
      ARN: secret.arn,
      Name: secret.name,
      VersionId: version.versionId,
      SecretString: version.secretString,
      SecretBinary: version.secretBinary,
      VersionStages: [...version.stages],
      CreatedDate: version.createdDate,
    });
  }

  PutSecretValue(input: Input): Output {
    const secret = this.findLive(input);
    const value = secretValue(input, true)!;
    const versionId = token(input);
    const stages = optionalStages(input) ?? [AWSCURRENT];
    const existing = secret.versions.find((v) => v.versionId === versionId);
    if (existing && (existing.secretString !== undefined || existing.secretBinary !== undefined)) {
      if (existing.secretString !== value.secretString || existing.secretBinary !== value.secretBinary) {
        throw new ServiceError(
          'ResourceExistsException',
          `A version with VersionId ${versionId} already exists with a different value; versions cannot be modified. Use a new ClientRequestToken.`,
        );
      }
      return { ARN: secret.arn, Name: secret.name, VersionId: versionId, VersionStages: [...existing.stages] };
    }
    const now = nowS();
    // An empty version is the AWSPENDING placeholder RotateSecret made: createSecret fills it.
    const version: VersionState = existing ?? { versionId, stages: [], createdDate: now };
    Object.assign(version, value);
    if (!existing) secret.versions.push(version);
    const isFirst = !secret.versions.some((v) => v !== version && (v.secretString !== undefined || v.secretBinary !== undefined));
    for (const stage of isFirst && !stages.includes(AWSCURRENT) ? [...stages, AWSCURRENT] : stages) {
      attachLabel(secret, stage, version);
    }
    secret.lastChangedDate = now;
    this.save();
    return { ARN: secret.arn, Name: secret.name, VersionId: versionId, VersionStages: [...version.stages] };
  }

  UpdateSecretVersionStage(input: Input): Output {
    const secret = this.findLive(input);
    const stage = requiredString(input, 'VersionStage');
    checkLabel(stage);
    const moveTo = optionalString(input, 'MoveToVersionId');
    const removeFrom = optionalString(input, 'RemoveFromVersionId');
    if (moveTo === undefined && removeFrom === undefined) {
      throw invalidParameter('Specify MoveToVersionId, RemoveFromVersionId, or both.');
    }
    const holder = secret.versions.find((v) => v.stages.includes(stage));
    if (removeFrom !== undefined && holder?.versionId !== removeFrom) {
      throw invalidParameter(
        `The staging label ${stage} is not attached to version ${removeFrom}` +
          (holder ? ` (it is on ${holder.versionId}).` : ' (it is not attached to any version).'),
      );
    }
    if (moveTo === undefined) {
      if (stage === AWSCURRENT) {
        throw invalidParameter(`You can only move staging label ${AWSCURRENT} to a different secret version. It can't be completely removed.`);
      }
      holder!.stages = holder!.stages.filter((s) => s !== stage);
    } else {
      const target = secret.versions.find((v) => v.versionId === moveTo);
      if (!target) throw notFound(`Secrets Manager can't find the specified secret version: ${moveTo}.`);
      if (holder && holder !== target && removeFrom === undefined) {
        throw invalidParameter(
          `The staging label ${stage} is already attached to version ${holder.versionId}; pass RemoveFromVersionId=${holder.versionId} to move it.`,
        );
      }
      attachLabel(secret, stage, target);
    }
    secret.lastChangedDate = nowS();
    this.save();
    if (stage === AWSCURRENT && moveTo !== undefined && holder !== undefined && holder.versionId !== moveTo) this.currentMoved?.(secret.name);
    return { ARN: secret.arn, Name: secret.name };
  }

  ListSecretVersionIds(input: Input): Output {
    const secret = this.find(input);
    const includeDeprecated = input.IncludeDeprecated === true;
    const all = [...secret.versions].reverse().filter((v) => includeDeprecated || v.stages.length > 0);
    const maxResults = optionalInteger(input, 'MaxResults', 1, 100) ?? all.length;
    const nextToken = optionalString(input, 'NextToken');
    const start = nextToken === undefined ? 0 : Number.parseInt(nextToken, 10);
    if (!Number.isInteger(start) || start < 0 || start > all.length) throw invalidParameter('NextToken is not valid.');
    const page = all.slice(start, start + maxResults);
    return dropUndefined({
      ARN: secret.arn,
      Name: secret.name,
      Versions: page.map((v) =>
        dropUndefined({ VersionId: v.versionId, VersionStages: [...v.stages], CreatedDate: v.createdDate, LastAccessedDate: v.lastAccessedDate }),
      ),
      NextToken: start + page.length < all.length ? String(start + page.length) : undefined,
    });
  }

  async RotateSecret(input: Input): Promise<Output> {
    const secret = this.findLive(input);
    const lambdaArn = optionalString(input, 'RotationLambdaARN') ?? secret.rotationLambdaArn;
    if (lambdaArn === undefined) {
      throw invalidRequest(
        "You tried to enable rotation on a secret that doesn't already have a Lambda function ARN configured and you didn't include such an ARN as a parameter in this call.",
      );
    }
    secret.rotationLambdaArn = lambdaArn;
    if (input.RotationRules !== undefined) secret.rotationRules = rotationRules(input.RotationRules);
    secret.rotationEnabled = true;
    secret.lastChangedDate = nowS();
    this.save();
    if (input.RotateImmediately === false) return { ARN: secret.arn, Name: secret.name };

    const handler = this.rotationHandler;
    if (handler === undefined) {
      throw invalidRequest(
        'The Secrets Manager stand-in has no rotation handler to invoke (the local equivalent of a Lambda it cannot call); give startSecretsManagerStandIn a rotationHandler or call setRotationHandler.',
      );
    }
    const current = secret.versions.find((v) => v.stages.includes(AWSCURRENT));
    const pending = secret.versions.find((v) => v.stages.includes(AWSPENDING));
    if (pending && pending !== current) {
      // The service answers this and retries the unfinished rotation with its original token.
      if (!this.rotating.has(secret.arn)) await this.runRotation(secret, pending.versionId, handler);
      throw invalidRequest("A previous rotation isn't complete. That rotation will be reattempted.");
    }
    const versionId = token(input);
    const existing = secret.versions.find((v) => v.versionId === versionId);
    if (existing?.stages.includes(AWSCURRENT)) {
      return { ARN: secret.arn, Name: secret.name, VersionId: versionId }; // this token's rotation already finished
    }
    if (existing) throw new ServiceError('ResourceExistsException', `A version with VersionId ${versionId} already exists; use a new ClientRequestToken.`);
    const placeholder: VersionState = { versionId, stages: [], createdDate: nowS() };
    secret.versions.push(placeholder);
    attachLabel(secret, AWSPENDING, placeholder);
    this.save();
    const record = await this.runRotation(secret, versionId, handler);
    if (!record.ok) {
      throw invalidRequest(
        `Rotation of ${secret.name} failed at step ${record.failedStep}: ${record.message} ` +
          `AWSCURRENT was not moved by the stand-in; version ${versionId} keeps AWSPENDING, and the next RotateSecret reattempts it.`,
      );
    }
    return { ARN: secret.arn, Name: secret.name, VersionId: versionId };
  }

  DeleteSecret(input: Input): Output {
    const secret = this.find(input);
    const force = input.ForceDeleteWithoutRecovery === true;
    const window = optionalInteger(input, 'RecoveryWindowInDays', 7, 30);
    if (force && window !== undefined) {
      throw invalidParameter("You can't use ForceDeleteWithoutRecovery in conjunction with RecoveryWindowInDays.");
    }
    const now = nowS();
    if (force) {
      this.secrets.splice(this.secrets.indexOf(secret), 1);
    } else {
      secret.deletedDate ??= now + (window ?? 30) * DAY_S;
    }
    this.save();
    return { ARN: secret.arn, Name: secret.name, DeletionDate: force ? now : secret.deletedDate };
  }

  RestoreSecret(input: Input): Output {
    const secret = this.find(input);
    delete secret.deletedDate;
    this.save();
    return { ARN: secret.arn, Name: secret.name };
  }

  // --- Rotation -------------------------------------------------------------------------------

  private async runRotation(secret: SecretState, versionId: string, handler: RotationHandler): Promise<RotationRecord> {
    this.rotating.add(secret.arn);
    const completedSteps: RotationStep[] = [];
    const rotationToken = randomUUID();
    let record: RotationRecord;
    try {
      for (const step of ROTATION_STEPS) {
        try {
          await handler({ Step: step, SecretId: secret.arn, ClientRequestToken: versionId, RotationToken: rotationToken });
        } catch (error) {
          record = { secretArn: secret.arn, versionId, ok: false, completedSteps, failedStep: step, message: describeFailure(error) };
          return record;
        }
        completedSteps.push(step);
      }
      const finished = secret.versions.find((v) => v.versionId === versionId)?.stages.includes(AWSCURRENT) === true;
      record = finished
        ? { secretArn: secret.arn, versionId, ok: true, completedSteps }
        : {
            secretArn: secret.arn,
            versionId,
            ok: false,
            completedSteps,
            failedStep: 'finishSecret',
            message: `finishSecret returned, but version ${versionId} is not AWSCURRENT: the rotation function did not finish.`,
          };
      if (finished) {
        secret.lastRotatedDate = nowS();
        this.save();
      }
      return record;
    } finally {
      this.rotating.delete(secret.arn);
      this.rotationLog.push(record!);
    }
  }

  // --- Lookup and persistence -----------------------------------------------------------------

  /** SecretId may be the name, the full ARN, or the ARN without its random suffix. */
  private find(input: Input): SecretState {
    const id = requiredString(input, 'SecretId');
    const secret =
      this.secrets.find((s) => s.name === id || s.arn === id) ?? this.secrets.find((s) => s.arn.slice(0, -7) === id);
    if (!secret) throw notFound();
    return secret;
  }

  private findLive(input: Input): SecretState {
    const secret = this.find(input);
    if (secret.deletedDate !== undefined) {
      throw invalidRequest("You can't perform this operation on the secret because it was marked for deletion.");
    }
    return secret;
  }

  private load(path: string): void {
    const text = readFileSync(path, 'utf8');
    let parsed: Partial<PersistedState>;
    try {
      parsed = JSON.parse(text) as Partial<PersistedState>;
    } catch {
      // The parser's message may quote the text around the fault, and this file holds private keys: not kept.
      throw new Error(`${path} is not valid JSON; move it away or delete it (it holds the local signing secrets).`);
    }
    if (parsed.format !== 'signet-secrets-manager-stand-in/1' || !Array.isArray(parsed.secrets)) {
      throw new Error(`${path} is not a Secrets Manager stand-in state file; move it away or delete it.`);
    }
    this.secrets.push(...parsed.secrets);
  }

  private save(): void {
    if (this.statePath === undefined) return;
    const state: PersistedState = { format: 'signet-secrets-manager-stand-in/1', secrets: this.secrets };
    mkdirSync(dirname(this.statePath), { recursive: true, mode: 0o700 });
    // It holds signing secrets (private keys): a new 0600 file renamed into place, never written through a link.
    writeFileAtomically(this.statePath, JSON.stringify(state, null, 2), 0o600);
  }
}

const OPERATIONS = [
  'CreateSecret',
  'DescribeSecret',
  'GetSecretValue',
  'PutSecretValue',
  'UpdateSecretVersionStage',
  'ListSecretVersionIds',
  'RotateSecret',
  'DeleteSecret',
  'RestoreSecret',
] as const;
type Operation = (typeof OPERATIONS)[number];

// ---------------------------------------------------------------------------------------------
// Label rules.

/**
 * Puts `stage` on `target`, removing it from any other version first. Moving AWSCURRENT puts
 * AWSPREVIOUS on the version it left.
 */
function attachLabel(secret: SecretState, stage: string, target: VersionState): void {
  const holder = secret.versions.find((v) => v.stages.includes(stage));
  if (holder === target) return;
  if (holder) holder.stages = holder.stages.filter((s) => s !== stage);
  target.stages.push(stage);
  if (stage === AWSCURRENT && holder) attachLabel(secret, AWSPREVIOUS, holder);
}

function checkLabel(stage: string): void {
  if (stage.length < 1 || stage.length > 256) throw invalidParameter('A staging label must be 1-256 characters.');
}

// ---------------------------------------------------------------------------------------------
// Input helpers (the SDK validates little client-side; the service validates here).

function requiredString(input: Input, name: string): string {
  const value = input[name];
  if (typeof value !== 'string' || value === '') throw invalidParameter(`${name} is required and must be a non-empty string.`);
  return value;
}

function optionalString(input: Input, name: string): string | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '') throw invalidParameter(`${name} must be a non-empty string.`);
  return value;
}

function optionalInteger(input: Input, name: string, min: number, max: number): number | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidParameter(`${name} must be a whole number from ${min} to ${max}.`);
  }
  return value;
}

/** The version id: ClientRequestToken (32-64 characters, as the service requires) or a new UUID. */
function token(input: Input): string {
  const value = optionalString(input, 'ClientRequestToken');
  if (value === undefined) return randomUUID();
  if (value.length < 32 || value.length > 64) throw invalidParameter('ClientRequestToken must be 32-64 characters (a UUID is recommended).');
  return value;
}

function optionalStages(input: Input): string[] | undefined {
  const value = input.VersionStages;
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length < 1 || value.length > 20 || value.some((s) => typeof s !== 'string')) {
    throw invalidParameter('VersionStages must list 1-20 staging labels.');
  }
  const stages = [...new Set(value as string[])];
  stages.forEach(checkLabel);
  return stages;
}

function secretValue(input: Input, required: boolean): { secretString?: string; secretBinary?: string } | undefined {
  const text = input.SecretString;
  const binary = input.SecretBinary;
  if (text !== undefined && binary !== undefined) throw invalidParameter('Specify either SecretString or SecretBinary, not both.');
  if (typeof text === 'string') {
    if (text.length > 65_536) throw invalidParameter('SecretString is longer than 65536 characters.');
    return { secretString: text };
  }
  if (typeof binary === 'string') return { secretBinary: binary };
  if (text !== undefined || binary !== undefined) throw invalidParameter('SecretString must be a string and SecretBinary Base64.');
  if (required) throw invalidParameter('You must provide either SecretString or SecretBinary.');
  return undefined;
}

function rotationRules(value: unknown): RotationRules {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidParameter('RotationRules must be an object.');
  const raw = value as Input;
  const days = optionalInteger(raw, 'AutomaticallyAfterDays', 1, 1000);
  const rules: RotationRules = dropUndefined({
    AutomaticallyAfterDays: days,
    Duration: optionalString(raw, 'Duration'),
    ScheduleExpression: optionalString(raw, 'ScheduleExpression'),
  });
  if (rules.AutomaticallyAfterDays === undefined) {
    const rate = /^rate\((\d+) days?\)$/.exec(rules.ScheduleExpression ?? '');
    if (rate) rules.AutomaticallyAfterDays = Number(rate[1]);
  }
  return rules;
}

function dropUndefined<T extends Record<string, unknown>>(value: T): T {
  for (const key of Object.keys(value)) if (value[key] === undefined) delete value[key];
  return value;
}

function randomSuffix(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(6)].map((b) => alphabet[b % alphabet.length]).join('');
}

/** A rotation failure as reported: the error's name and first 300 characters of its message. */
function describeFailure(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const label = typeof code === 'string' ? `${error.name} (${code})` : error.name;
    return `${label}: ${error.message.slice(0, 300)}`;
  }
  return 'the rotation function threw a non-Error value.';
}

// ---------------------------------------------------------------------------------------------
// HTTP: the AWS JSON 1.1 protocol.

const JSON_CONTENT_TYPE = 'application/x-amz-json-1.1';
const MAX_BODY_BYTES = 1_048_576;

/** Names a request to the stand-in may address it by (with its port). */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'] as const;

/** Who may ask: the key pair, the region of the credential scope, the accepted `Host` values. */
interface AccessRules {
  readonly credentials: SigV4Credentials;
  readonly region: string;
  /** `<loopback name>:<port>`, lower case. */
  readonly hosts: Set<string>;
}

/** Refuses a request not addressed to a loopback name with the stand-in's port (checked before the body is read). */
function checkHost(access: AccessRules, req: IncomingMessage): void {
  const host = req.headers.host?.toLowerCase();
  if (host === undefined || !access.hosts.has(host)) {
    throw new ServiceError(
      'AccessDeniedException',
      `The Secrets Manager stand-in answers only requests addressed to ${[...access.hosts].join(', ')}; this one was addressed to ` +
        `${host === undefined ? 'no Host' : JSON.stringify(host.slice(0, 100))}. Call it through its endpoint URL (a web page that resolves its own name to 127.0.0.1 is refused).`,
      403,
    );
  }
}

/** Refuses a request not signed (SigV4) with the stand-in's key pair. */
function checkSignature(access: AccessRules, req: IncomingMessage, body: Buffer): void {
  const refusal = verifySigV4(
    { method: req.method ?? '', url: req.url ?? '/', rawHeaders: req.rawHeaders, body },
    { credentials: access.credentials, region: access.region, service: SECRETS_MANAGER_SIGNING_NAME },
  );
  if (refusal !== undefined) {
    throw new ServiceError(
      refusal.type,
      `${refusal.message} (Secrets Manager stand-in: sign with the credentials it was started with; for \`npm start\` they are in $SIGNET_HOME/secrets-manager-credentials.json.)`,
      refusal.status,
    );
  }
}

async function serve(store: SecretStore, access: AccessRules, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    checkHost(access, req);
    const body = await readBody(req);
    checkSignature(access, req, body);
    if (req.method !== 'POST') throw new ServiceError('UnknownOperationException', 'Only POST / with X-Amz-Target is served.');
    const target = req.headers['x-amz-target'];
    const operation = typeof target === 'string' && target.startsWith('secretsmanager.') ? target.slice('secretsmanager.'.length) : undefined;
    if (operation === undefined || !(OPERATIONS as readonly string[]).includes(operation)) {
      throw new ServiceError('UnknownOperationException', `The stand-in does not serve ${String(target)}; it serves ${OPERATIONS.join(', ')}.`);
    }
    let input: unknown;
    try {
      input = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
    } catch {
      throw new ServiceError('SerializationException', 'The request body is not valid JSON.');
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw new ServiceError('SerializationException', 'The request body must be a JSON object.');
    }
    const output = await store[operation as Operation](input as Input);
    send(res, 200, output);
  } catch (error) {
    if (error instanceof ServiceError) {
      send(res, error.status, { __type: error.type, message: error.message, Message: error.message }, error.type);
    } else {
      const message = 'The stand-in failed unexpectedly; see its process output.';
      console.error('secrets-manager-standin: internal error', error instanceof Error ? error.message : typeof error);
      send(res, 500, { __type: 'InternalServiceError', message, Message: message }, 'InternalServiceError');
    }
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ServiceError('InvalidParameterException', 'The request body is larger than 1 MiB.');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, status: number, body: unknown, errorType?: string): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': JSON_CONTENT_TYPE,
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
    ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
  });
  res.end(text);
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}
