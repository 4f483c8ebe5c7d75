/**
 * The DynamoDB document client the stores use. Handlers build one at module scope (reused across
 * invocations); tests and `npm start` pass an endpoint to reach DynamoDB Local.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Marshalling the stores rely on: `undefined` attributes are dropped, never written. A fresh
 * object per client: the SDK annotates the options it is given.
 */
function translateConfig(): { marshallOptions: { removeUndefinedValues: boolean } } {
  return { marshallOptions: { removeUndefinedValues: true } };
}

export interface DocumentClientOptions {
  /**
   * DynamoDB Local's endpoint, e.g. `http://127.0.0.1:8000` (local runs and tests only). With an
   * endpoint, fixed local credentials and region are used: DynamoDB Local accepts any.
   * @default - the AWS endpoint of the Lambda's region
   */
  readonly endpoint?: string;
}

/** A document client; with `endpoint` it talks to DynamoDB Local (any credentials work there). */
export function createDocumentClient(options: DocumentClientOptions = {}): DynamoDBDocumentClient {
  const client = options.endpoint
    ? new DynamoDBClient({
        endpoint: options.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      })
    : new DynamoDBClient({});
  return toDocumentClient(client);
}

/** Wraps a low-level client (or passes a document client through) with Signet's marshalling. */
export function toDocumentClient(client: DynamoDBDocumentClient | DynamoDBClient): DynamoDBDocumentClient {
  if (client instanceof DynamoDBDocumentClient) return client;
  return DynamoDBDocumentClient.from(client, translateConfig());
}
