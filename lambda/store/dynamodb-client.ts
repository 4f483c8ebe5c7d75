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
   * endpoint, a fixed local region and `localCredentials` are used.
   * @default - the AWS endpoint of the Lambda's region
   */
  readonly endpoint?: string;
  /**
   * With `endpoint`: what to sign with. `npm start`'s DynamoDB Local answers only its home's
   * access key id; the tests' accepts any.
   * @default - fixed placeholder credentials
   */
  readonly localCredentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /**
   * Give up on one HTTP call after this long, so a hanging connection ends in the caller's
   * stale-if-error or fail-closed path rather than the Lambda timeout.
   * @default - the SDK's default (no request timeout)
   */
  readonly requestTimeoutMs?: number;
  /** Attempts per call, retries included. @default - the SDK's default (3) */
  readonly maxAttempts?: number;
}

/** What a client of DynamoDB Local signs with when given no `localCredentials` (an emulator started without an access key id accepts any). */
export const PLACEHOLDER_LOCAL_CREDENTIALS: { readonly accessKeyId: string; readonly secretAccessKey: string } = { accessKeyId: 'local', secretAccessKey: 'local' };

/** A document client; with `endpoint` it talks to DynamoDB Local. */
export function createDocumentClient(options: DocumentClientOptions = {}): DynamoDBDocumentClient {
  const tuning = {
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
    ...(options.requestTimeoutMs !== undefined
      ? { requestHandler: { requestTimeout: options.requestTimeoutMs, connectionTimeout: options.requestTimeoutMs } }
      : {}),
  };
  const client = options.endpoint
    ? new DynamoDBClient({
        ...tuning,
        endpoint: options.endpoint,
        region: 'us-east-1',
        credentials: { ...(options.localCredentials ?? PLACEHOLDER_LOCAL_CREDENTIALS) },
      })
    : new DynamoDBClient(tuning);
  return toDocumentClient(client);
}

/** Wraps a low-level client (or passes a document client through) with Signet's marshalling. */
export function toDocumentClient(client: DynamoDBDocumentClient | DynamoDBClient): DynamoDBDocumentClient {
  if (client instanceof DynamoDBDocumentClient) return client;
  return DynamoDBDocumentClient.from(client, translateConfig());
}
