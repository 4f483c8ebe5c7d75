/**
 * The checks every rotation step starts with, as AWS's rotation function template makes them
 * (docs: "Lambda rotation functions", and the template's `lambda_handler`):
 *   1. the event names one of the four steps, a secret and a token;
 *   2. rotation is enabled on the secret;
 *   3. the token is one of the secret's labelled versions;
 *   4. a token already AWSCURRENT means that rotation finished: log and return;
 *   5. otherwise the token's version must carry AWSPENDING.
 */
import { SignetError } from '../core/errors';
import { AWSCURRENT, AWSPENDING, ROTATION_STEPS, RotationEvent, RotationStep, SecretDescription } from './rotation-types';

/** Where the token's version stands: still being rotated in, or already done. */
export type ProtocolState = 'pending' | 'current';

/**
 * Checks the event's shape (step 1) and returns it typed.
 * @throws SignetError `invalid_request` naming what is missing
 */
export function parseRotationEvent(event: unknown): RotationEvent {
  const fields = typeof event === 'object' && event !== null ? (event as Record<string, unknown>) : {};
  const step = fields.Step;
  if (typeof step !== 'string' || !(ROTATION_STEPS as readonly string[]).includes(step)) {
    throw new SignetError(
      'invalid_request',
      `The rotation event's Step must be one of ${ROTATION_STEPS.join(', ')}; got ${typeof step === 'string' ? JSON.stringify(step.slice(0, 40)) : 'none'}. Only Secrets Manager should invoke this function.`,
    );
  }
  for (const name of ['SecretId', 'ClientRequestToken'] as const) {
    const value = fields[name];
    if (typeof value !== 'string' || value.trim() === '' || value.length > 2048) {
      throw new SignetError('invalid_request', `The rotation event has no ${name} string. Only Secrets Manager should invoke this function.`);
    }
  }
  const rotationToken = fields.RotationToken;
  return {
    Step: step as RotationStep,
    SecretId: fields.SecretId as string,
    ClientRequestToken: fields.ClientRequestToken as string,
    ...(typeof rotationToken === 'string' ? { RotationToken: rotationToken } : {}),
  };
}

/**
 * Steps 2-5 on the secret's description.
 * @returns `current` when the token's version is already AWSCURRENT (the caller logs and returns), else `pending`
 * @throws SignetError `invalid_request` when rotation is disabled, the token is unknown, or it is not AWSPENDING
 */
export function checkRotationProtocol(description: SecretDescription, token: string, secretId: string): ProtocolState {
  requireRotationEnabled(description, secretId);
  const stages = description.versionIdsToStages[token];
  if (stages === undefined) {
    throw new SignetError(
      'invalid_request',
      `Secret version ${token} has no stage for rotation of secret ${secretId}: the token names no labelled version. Start the rotation with RotateSecret.`,
    );
  }
  if (stages.includes(AWSCURRENT)) return 'current';
  if (!stages.includes(AWSPENDING)) {
    throw new SignetError(
      'invalid_request',
      `Secret version ${token} is not set as ${AWSPENDING} for rotation of secret ${secretId} (its stages: ${stages.join(', ') || 'none'}). Start a new rotation with RotateSecret.`,
    );
  }
  return 'pending';
}

/**
 * Step 2 alone.
 * @throws SignetError `invalid_request` when rotation is not enabled on the secret
 */
export function requireRotationEnabled(description: SecretDescription, secretId: string): void {
  if (!description.rotationEnabled) {
    throw new SignetError(
      'invalid_request',
      `Secret ${secretId} is not enabled for rotation, so no rotation step runs on it. Enable rotation on the secret (RotatingSigningKey does) and rotate again.`,
    );
  }
}

/** The version id carrying `stage`, if any. */
export function versionWithStage(description: SecretDescription, stage: string): string | undefined {
  return Object.entries(description.versionIdsToStages).find(([, stages]) => stages.includes(stage))?.[0];
}
