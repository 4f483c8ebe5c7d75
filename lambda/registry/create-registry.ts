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
import type { KeySource } from '../domain/client-record';
import { type KeySourceFetch, fetchKeySource } from '../key-sources/fetch-key-source';
import { DynamoKeySourceStore } from '../store/key-source-store';
import { REGISTRY_SERVICE_NAME, RegistryHandler, createRegistryHandler } from './registry-handler';
import { ModulusVerdicts } from '../core/rsa-modulus';

export interface RegistryDependencies {
  /** @default a Powertools logger named signet-registry */
  readonly logger?: Logger;
  /** @default one for `config.dynamoDbEndpoint` */
  readonly doc?: DynamoDBDocumentClient;
  /**
   * Also accept `http://127.0.0.1` and `http://localhost` key sources (the local gateway only;
   * never deployed). @default false
   */
  readonly allowLocalHttp?: boolean;
  /** @default - `fetchKeySource` with the system resolver and the pinned connector */
  readonly fetchKeySource?: (source: KeySource, held?: ReadonlySet<string>) => Promise<KeySourceFetch>;
}

export function createRegistry(config: SignetConfig, dependencies: RegistryDependencies = {}): RegistryHandler {
  const doc = dependencies.doc ?? createDocumentClient({ endpoint: config.dynamoDbEndpoint });
  const store = new DynamoClientStore({ tableName: config.tableName, client: doc, keySourceKeepDays: config.keySourceKeepDays });
  const allowLocalHttp = dependencies.allowLocalHttp ?? false;
  // The verdicts on published RSA moduli, kept for as long as the function's environment lives.
  const modulusVerdicts = new ModulusVerdicts();
  return createRegistryHandler({
    store,
    keySources: new DynamoKeySourceStore({ tableName: config.tableName, client: doc }, store),
    fetchKeySource: dependencies.fetchKeySource ?? ((source, heldThumbprints) => fetchKeySource(source, { allowLocalHttp, nowS: () => Math.floor(Date.now() / 1000), modulusVerdicts, heldThumbprints })),
    keySourceRefreshIntervalS: config.keySourceRefreshMinutes * 60,
    requireSignedDirectories: config.requireSignedDirectories,
    keySourceKeepDays: config.keySourceKeepDays,
    roles: compileRoleCatalogue(config.roleCatalogue),
    publicBaseUrl: config.publicBaseUrl,
    logger: dependencies.logger ?? new Logger({ serviceName: REGISTRY_SERVICE_NAME }),
    authorizerCacheTtlMs: config.clientCacheTtlMs,
  });
}
