/**
 * The registry Lambda: every `/registry/...` route (docs/openapi/registry.json), behind the
 * Signet authorizer with the `registry:admin` role. Accepts HTTP API (payload 2.0) and REST (v1)
 * proxy events. Config, SDK client, store and logger are built once per cold start.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { loadConfig } from '../config';
import { compileRoleCatalogue } from '../core/role-policy';
import { REGISTRY_SERVICE_NAME, createRegistryHandler } from '../registry/registry-handler';
import { DynamoClientStore } from '../store/client-store';
import { createDocumentClient } from '../store/dynamodb-client';

const config = loadConfig();

export const handler = createRegistryHandler({
  store: new DynamoClientStore({
    tableName: config.tableName,
    client: createDocumentClient({ endpoint: config.dynamoDbEndpoint }),
  }),
  roles: compileRoleCatalogue(config.roleCatalogue),
  publicBaseUrl: config.publicBaseUrl,
  logger: new Logger({ serviceName: REGISTRY_SERVICE_NAME }),
  authorizerCacheTtlMs: config.clientCacheTtlMs,
});
