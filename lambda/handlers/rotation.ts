/**
 * The rotation Lambda: Secrets Manager invokes it with `{ Step, SecretId, ClientRequestToken,
 * RotationToken }` for createSecret, setSecret, testSecret and finishSecret. CloudFormation
 * invokes it once per deploy as the custom resource that checks its client is registered before
 * the first rotation runs (lambda/rotation/signing-key-client-check.ts). Config, SDK clients,
 * store, logger and metrics are built once per cold start; the steps live in lambda/rotation/.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { isCustomResourceEvent } from '../bootstrap/custom-resource';
import { loadConfig } from '../config';
import { KeyRotation } from '../rotation/key-rotation';
import { ROTATION_SERVICE_NAME, createRotationHandler } from '../rotation/rotation-handler';
import { SecretsManagerSecretStore, createSecretsManagerClient } from '../rotation/secrets-manager-secret-store';
import type { RotationStep } from '../rotation/rotation-types';
import { createSigningKeyClientCheck } from '../rotation/signing-key-client-check';
import { DynamoClientStore } from '../store/client-store';
import { createDocumentClient } from '../store/dynamodb-client';
import { METRICS_NAMESPACE } from '../observability';
import { assertRuntimeSdk } from '../runtime-sdk';

assertRuntimeSdk(); // the runtime's SDK, not the pinned one: stop at init if it lacks what the code relies on
const config = loadConfig();
const logger = new Logger({ serviceName: ROTATION_SERVICE_NAME });
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: ROTATION_SERVICE_NAME });
const secretsManager = createSecretsManagerClient({ endpoint: config.secretsManagerEndpoint });
const store = new DynamoClientStore({ tableName: config.tableName, client: createDocumentClient({ endpoint: config.dynamoDbEndpoint }) });

const rotation = new KeyRotation({
  secrets: new SecretsManagerSecretStore(secretsManager),
  registry: store,
  keyBits: config.rotationKeyBits,
  graceS: config.rotationGraceS,
  // Authorizers cache client records this long: finishSecret waits so they all know the new key.
  settleMs: config.clientCacheTtlMs,
  logger,
});

const run = createRotationHandler({ rotation, logger, metrics });
const checkClient = createSigningKeyClientCheck({ registry: store, tableName: config.tableName });

/** What Secrets Manager sends the rotation function. */
export interface RotationLambdaEvent {
  readonly SecretId: string;
  readonly ClientRequestToken: string;
  readonly Step: RotationStep;
  readonly RotationToken?: string;
}

export async function handler(event: RotationLambdaEvent | CloudFormationCustomResourceEvent, context?: { getRemainingTimeInMillis(): number; logStreamName?: string }): Promise<void> {
  if (isCustomResourceEvent(event)) await checkClient(event, context);
  else await run(event, context);
}
