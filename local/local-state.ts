/**
 * `$SIGNET_HOME/local.json`: where the running local gateway's services listen, for the local
 * tools that talk to them directly (`signet rotate` reads it to reach the Secrets Manager
 * stand-in and DynamoDB Local). Written when `npm start` is ready, removed when it stops, so
 * its presence means a gateway is (or was, if it was killed) running.
 *
 * ```json
 * { "dynamoDbEndpoint": "http://127.0.0.1:41234", "secretsManagerEndpoint": "http://127.0.0.1:41235",
 *   "tableName": "signet-local-clients", "demoSecretId": "signet/local/demo", "region": "us-east-1" }
 * ```
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

/** The file's fields, exactly. */
export interface LocalStateFile {
  readonly dynamoDbEndpoint: string;
  readonly secretsManagerEndpoint: string;
  readonly tableName: string;
  readonly demoSecretId: string;
  readonly region: string;
}

const FIELDS: readonly (keyof LocalStateFile)[] = ['dynamoDbEndpoint', 'secretsManagerEndpoint', 'tableName', 'demoSecretId', 'region'];

/** Writes the file (only the five fields, in this order). */
export function writeLocalState(path: string, state: LocalStateFile): void {
  const ordered = Object.fromEntries(FIELDS.map((field) => [field, state[field]]));
  writeFileSync(path, `${JSON.stringify(ordered, null, 2)}\n`);
}

/**
 * Reads the file.
 * @throws Error saying to run `npm start` when it is missing or incomplete
 */
export function readLocalState(path: string): LocalStateFile {
  if (!existsSync(path)) throw new Error(`${path} does not exist: start the local gateway first (\`npm start\`).`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (cause) {
    throw new Error(`${path} is not valid JSON; restart the local gateway (\`npm start\`) to rewrite it.`, { cause });
  }
  const record = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const missing = FIELDS.filter((field) => typeof record[field] !== 'string' || record[field] === '');
  if (missing.length > 0) throw new Error(`${path} lacks ${missing.join(', ')}; restart the local gateway (\`npm start\`) to rewrite it.`);
  return Object.fromEntries(FIELDS.map((field) => [field, record[field]])) as unknown as LocalStateFile;
}

/** Removes the file (when the gateway stops). */
export function removeLocalState(path: string): void {
  rmSync(path, { force: true });
}
