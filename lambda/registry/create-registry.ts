/**
 * The registry's handler built from a checked configuration: its DynamoDB store, role catalogue,
 * public base URL and the cache TTL it announces after a write. The Lambda entry
 * (lambda/handlers/registry.ts) calls it with `loadConfig()`; the local gateway with its own.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SignetConfig } from '../config';
import { compileRoleCatalogue } from '../core/role-policy';
import { DynamoClientStore } from '../store/client-store';
import { createDocumentClient } from '../store/dynamodb-client';
import { REGISTRY_SERVICE_NAME, RegistryHandler, createRegistryHandler } from './registry-handler';

export interface RegistryDependencies {
  /** @default a Powertools logger named signet-registry */
  readonly logger?: Logger;
  /** @default one for `config.dynamoDbEndpoint` */
  readonly doc?: DynamoDBDocumentClient;
}

export function createRegistry(config: SignetConfig, dependencies: RegistryDependencies = {}): RegistryHandler {
  return createRegistryHandler({
    store: new DynamoClientStore({ tableName: config.tableName, client: dependencies.doc ?? createDocumentClient({ endpoint: config.dynamoDbEndpoint }) }),
    roles: compileRoleCatalogue(config.roleCatalogue),
    publicBaseUrl: config.publicBaseUrl,
    logger: dependencies.logger ?? new Logger({ serviceName: REGISTRY_SERVICE_NAME }),
    authorizerCacheTtlMs: config.clientCacheTtlMs,
  });
}
