/**
 * The shapes of key rotation: the event Secrets Manager sends, the staging labels, and the two
 * small interfaces the rotation logic works through (the secret, and the client registry).
 * Nothing here touches an SDK: `secrets-manager-secret-store.ts` adapts Secrets Manager, and
 * `DynamoClientStore` (lambda/store) already is a {@link RotationKeyRegistry}.
 */
import type { ClientRecord } from '../domain/client-record';
import type { NewKey } from '../domain/store-types';

/** The version a rotation is done with: what signers read. */
export const AWSCURRENT = 'AWSCURRENT';
/** The version being rotated in. */
export const AWSPENDING = 'AWSPENDING';
/** The version AWSCURRENT left (Secrets Manager moves this label itself). */
export const AWSPREVIOUS = 'AWSPREVIOUS';

/** The four steps of the Secrets Manager rotation protocol, in the order the service invokes them. */
export const ROTATION_STEPS = ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] as const;
export type RotationStep = (typeof ROTATION_STEPS)[number];

/** Audit-trail actor of every registry change a rotation makes. */
export const ROTATION_ACTOR = 'rotation';

/** What Secrets Manager invokes the rotation function with (once per step). */
export interface RotationEvent {
  readonly Step: RotationStep;
  /** The secret's ARN (or name). */
  readonly SecretId: string;
  /** The VersionId being rotated in; it carries AWSPENDING until finishSecret. */
  readonly ClientRequestToken: string;
  /** Sent by the service since 2024; not used by Signet. */
  readonly RotationToken?: string;
}

/** DescribeSecret, reduced to what the protocol checks read. */
export interface SecretDescription {
  /** The secret's ARN. */
  readonly arn: string;
  readonly rotationEnabled: boolean;
  /** Every labelled version and its staging labels. */
  readonly versionIdsToStages: Readonly<Record<string, readonly string[]>>;
}

/** One version of the secret that holds a value. */
export interface SecretVersion {
  readonly versionId: string;
  readonly secretString: string;
}

/**
 * The secret, as rotation needs it. Implemented over the SDK by `SecretsManagerSecretStore`;
 * tests wrap it to inject failures. Errors are `SignetError`s (the adapter translates).
 */
export interface RotationSecretStore {
  /** DescribeSecret. */
  describe(secretId: string): Promise<SecretDescription>;
  /**
   * GetSecretValue by version id and/or staging label. Undefined when there is no such version,
   * the label is not on it, or it has no value yet (the empty AWSPENDING version RotateSecret makes).
   */
  getVersion(secretId: string, selector: { readonly versionId?: string; readonly stage?: string }): Promise<SecretVersion | undefined>;
  /**
   * PutSecretValue(ClientRequestToken = versionId, VersionStages = [AWSPENDING]). Idempotent for the
   * same value; a different value under an existing version id is `version_conflict`.
   */
  putPendingVersion(secretId: string, versionId: string, secretString: string): Promise<void>;
  /** UpdateSecretVersionStage: puts `stage` on `toVersionId` and/or takes it off `fromVersionId`. */
  moveStage(secretId: string, stage: string, move: { readonly toVersionId?: string; readonly fromVersionId?: string }): Promise<void>;
}

/**
 * The registry operations rotation uses; `DynamoClientStore` implements them (key ownership,
 * the last-key rule and optimistic versions are enforced there). With `expectedVersion`, a write
 * to a record at any other version changes nothing and fails with `version_conflict`.
 */
export interface RotationKeyRegistry {
  getClient(clientId: string, options?: { consistentRead?: boolean }): Promise<ClientRecord | undefined>;
  addKey(clientId: string, key: NewKey, actor: string): Promise<ClientRecord>;
  setKeyNotAfter(clientId: string, fingerprint: string, notAfter: string | undefined, actor: string, expectedVersion?: number): Promise<ClientRecord>;
  removeKey(clientId: string, fingerprint: string, actor: string, expectedVersion?: number): Promise<ClientRecord>;
}

/**
 * Where rotation writes its log lines (a Powertools `Logger` fits). Attributes are ids,
 * fingerprints, labels and instants: never a key, a secret value or a signature.
 */
export interface RotationLogger {
  debug(message: string, ...attributes: Record<string, unknown>[]): void;
  info(message: string, ...attributes: Record<string, unknown>[]): void;
  warn(message: string, ...attributes: Record<string, unknown>[]): void;
  error(message: string, ...attributes: Record<string, unknown>[]): void;
}

/** What one step did. */
export interface StepResult {
  readonly step: RotationStep;
  /**
   * - `done`: the step made its change;
   * - `unchanged`: the change was already made (a rerun);
   * - `already_current`: the token's version is already AWSCURRENT, nothing to do (protocol).
   */
  readonly outcome: 'done' | 'unchanged' | 'already_current';
  /** The client whose key rotates (absent for `already_current`). */
  readonly clientId?: string;
  /** Fingerprint of the key being rotated in (absent for `already_current`). */
  readonly fingerprint?: string;
}
