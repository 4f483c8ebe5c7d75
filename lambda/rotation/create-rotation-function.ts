/**
 * `createRotationFunction(config, dependencies)`: the rotation Lambda built from a checked
 * configuration, like `createAuthorizer` and `createRegistry`. Secrets Manager invokes it with
 * `{ Step, SecretId, ClientRequestToken, RotationToken }` for createSecret, setSecret, testSecret
 * and finishSecret (./rotation-handler.ts runs the step); CloudFormation invokes it once per deploy
 * as the custom resource that checks its client is registered before the first rotation runs
 * (./signing-key-client-check.ts). The Lambda entry (lambda/handlers/rotation.ts) calls it with
 * `loadConfig()` and Powertools; tests call it with their own configuration and clients.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { isCustomResourceEvent } from '../bootstrap/custom-resource';
import type { SignetConfig } from '../config';
import { DynamoClientStore } from '../store/client-store';
import { createDocumentClient } from '../store/dynamodb-client';
import { KeyRotation } from './key-rotation';
import { type RotationContext, type RotationMetrics, createRotationHandler } from './rotation-handler';
import type { RotationLogger, RotationStep } from './rotation-types';
import { SecretsManagerSecretStore, createSecretsManagerClient } from './secrets-manager-secret-store';
import { createSigningKeyClientCheck } from './signing-key-client-check';

/** What Secrets Manager sends the rotation function. */
export interface RotationLambdaEvent {
  readonly SecretId: string;
  readonly ClientRequestToken: string;
  readonly Step: RotationStep;
  readonly RotationToken?: string;
}

export interface RotationFunctionDependencies {
  readonly logger: RotationLogger;
  /** Where RotationSucceeded / RotationFailed are counted (the caller publishes them); none: not counted. */
  readonly metrics?: RotationMetrics;
  /** @default one for `config.secretsManagerEndpoint` */
  readonly secretsManager?: SecretsManagerClient;
  /** @default one for `config.dynamoDbEndpoint` */
  readonly doc?: DynamoDBDocumentClient;
}

export type RotationFunction = (
  event: RotationLambdaEvent | CloudFormationCustomResourceEvent,
  context?: RotationContext & { readonly logStreamName?: string },
) => Promise<void>;

export function createRotationFunction(config: SignetConfig, dependencies: RotationFunctionDependencies): RotationFunction {
  const { logger, metrics } = dependencies;
  const secretsManager = dependencies.secretsManager ?? createSecretsManagerClient({ endpoint: config.secretsManagerEndpoint });
  const store = new DynamoClientStore({ tableName: config.tableName, client: dependencies.doc ?? createDocumentClient({ endpoint: config.dynamoDbEndpoint }), keySourceKeepDays: config.keySourceKeepDays });
  const rotation = new KeyRotation({
    secrets: new SecretsManagerSecretStore(secretsManager),
    registry: store,
    keyBits: config.rotationKeyBits,
    graceS: config.rotationGraceS,
    // Authorizers cache client records this long: finishSecret waits so they all know the new key.
    settleMs: config.clientCacheTtlMs,
    logger,
  });
  const runStep = createRotationHandler({ rotation, logger, metrics });
  const checkClient = createSigningKeyClientCheck({ registry: store, tableName: config.tableName, logger });
  return (event, context) => (isCustomResourceEvent(event) ? checkClient(event, context) : runStep(event, context));
}
