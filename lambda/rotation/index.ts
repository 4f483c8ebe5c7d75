/** Key rotation with the Secrets Manager protocol: what the handler, the local stand-in and `signet rotate` use. */
export { KeyRotation, MIN_PENDING_KEY_TTL_S, reasonOf } from './key-rotation';
export type { KeyRotationOptions, RunLimits } from './key-rotation';
export { ROTATION_METRICS, ROTATION_SERVICE_NAME, SETTLE_MARGIN_MS, createRotationHandler } from './rotation-handler';
export type { RotationContext, RotationHandlerDeps, RotationMetrics } from './rotation-handler';
export { ROTATION_PROBE_URL, probePendingKey, verificationKeysOf } from './rotation-probe';
export type { PendingKeyProbe } from './rotation-probe';
export { checkRotationProtocol, parseRotationEvent, requireRotationEnabled, versionWithStage } from './rotation-protocol';
export type { ProtocolState } from './rotation-protocol';
export { rotateNow } from './rotate-now';
export type { RotateNowOptions, RotateNowResult } from './rotate-now';
export { AWSCURRENT, AWSPENDING, AWSPREVIOUS, ROTATION_ACTOR, ROTATION_STEPS } from './rotation-types';
export type {
  RotationEvent,
  RotationKeyRegistry,
  RotationLogger,
  RotationSecretStore,
  RotationStep,
  SecretDescription,
  SecretVersion,
  StepResult,
} from './rotation-types';
export { SecretsManagerSecretStore, createSecretsManagerClient } from './secrets-manager-secret-store';
export { clientIdOfSecret, keyOfSecret } from './secret-contents';
