/**
 * A whole rotation driven from outside Secrets Manager, the way the service drives it: for
 * `signet rotate`, which runs in its own process while the local stand-in (inside the gateway
 * process) has no rotation function to invoke.
 *
 * What the service does, and this does in its place:
 * - rotation must be enabled on the secret;
 * - when a version other than AWSCURRENT carries AWSPENDING, a previous rotation is unfinished:
 *   it is reattempted with its own token (as RotateSecret does);
 * - otherwise a fresh token names the new version. The service would create that version empty
 *   and labelled AWSPENDING; no API lets a caller do that, so the version is created by
 *   createSecret's own work (`KeyRotation.createPendingVersion`, PutSecretValue with AWSPENDING);
 * - then the four steps run in order through `KeyRotation.run`, each with its protocol checks.
 */
import { randomUUID } from 'node:crypto';
import { KeyRotation } from './key-rotation';
import { requireRotationEnabled, versionWithStage } from './rotation-protocol';
import { AWSCURRENT, AWSPENDING, ROTATION_STEPS, RotationSecretStore, StepResult } from './rotation-types';

export interface RotateNowResult {
  /** The secret's ARN. */
  readonly secretArn: string;
  /** The version that is now AWSCURRENT. */
  readonly versionId: string;
  /** True when an unfinished rotation was completed instead of a new one started. */
  readonly resumed: boolean;
  /** What each step did, in order (createSecret: what opening the new version did). */
  readonly steps: readonly StepResult[];
  readonly clientId?: string;
  /** Fingerprint of the key now AWSCURRENT. */
  readonly fingerprint?: string;
}

export interface RotateNowOptions {
  /** Token (VersionId) of a new rotation. @default - a random UUID */
  readonly token?: string;
  /** Told before each step runs (progress output). */
  readonly onStep?: (step: string) => void;
  /** Told what each step did as soon as it finished (progress output). */
  readonly onStepDone?: (result: StepResult) => void;
}

/**
 * Rotates `secretId` through all four steps now.
 * @throws SignetError from the protocol checks or a failed step; as with the service, AWSCURRENT is then unchanged and a rerun reattempts the same rotation
 */
export async function rotateNow(rotation: KeyRotation, secrets: RotationSecretStore, secretId: string, options: RotateNowOptions = {}): Promise<RotateNowResult> {
  const description = await secrets.describe(secretId);
  requireRotationEnabled(description, secretId);
  const current = versionWithStage(description, AWSCURRENT);
  const unfinished = versionWithStage(description, AWSPENDING);
  const resumed = unfinished !== undefined && unfinished !== current;
  const token = resumed ? unfinished : (options.token ?? randomUUID());
  const opened = resumed ? undefined : await rotation.createPendingVersion(description.arn, token);

  const steps: StepResult[] = [];
  for (const step of ROTATION_STEPS) {
    options.onStep?.(step);
    const result = await rotation.run({ Step: step, SecretId: description.arn, ClientRequestToken: token });
    // createSecret then finds the version opened above: report what opening it did.
    const done = step === 'createSecret' && opened !== undefined ? opened : result;
    steps.push(done);
    options.onStepDone?.(done);
  }
  const known = steps.find((s) => s.clientId !== undefined);
  return { secretArn: description.arn, versionId: token, resumed, steps, clientId: known?.clientId, fingerprint: known?.fingerprint };
}
