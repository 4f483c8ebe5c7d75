/**
 * The client table as the store's classes share it: the SDK client, the table name, the clock,
 * and one Query with its errors translated (./store-errors.ts), paged by {@link pageSize}.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, toDocumentClient } from './dynamodb-client';
import type { Item } from './item-codec';
import { storageError } from './store-errors';

/** Page size when the caller gives none. @default 50 */
export const DEFAULT_PAGE_SIZE = 50;
/** Largest page size. @default 100 */
export const MAX_PAGE_SIZE = 100;

/** Where a small store of the client table reads and writes, and its clock. */
export interface DynamoTableOptions {
  /** The client table (see ./table-schema.ts). */
  readonly tableName: string;
  /**
   * SDK client, built once at module scope by the handler; tests pass one pointed at DynamoDB Local.
   * @default - a document client for the Lambda's region
   */
  readonly client?: DynamoDBDocumentClient | DynamoDBClient;
  /** Clock. @default - () => new Date() */
  readonly now?: () => Date;
}

/** The registry's store ({@link DynamoTableOptions}, and the keep bound its `last_admin` rule counts operators by). */
export interface DynamoClientStoreOptions extends DynamoTableOptions {
  /**
   * SIGNET_KEY_SOURCE_KEEP_DAYS: how long published keys verify after their source's last
   * successful fetch, in days; an operator whose keys no longer verify does not count (`last_admin`).
   * Required, so every store counts operators by the deployment's bound (DEFAULT_KEY_SOURCE_KEEP_DAYS
   * only where nothing configures one).
   */
  readonly keySourceKeepDays: number;
}

export abstract class DynamoTable {
  protected readonly doc: DynamoDBDocumentClient;
  protected readonly tableName: string;
  protected readonly now: () => Date;

  constructor(options: DynamoTableOptions) {
    if (!options.tableName) throw new Error('DynamoClientStore needs a tableName.');
    this.tableName = options.tableName;
    this.doc = options.client ? toDocumentClient(options.client) : createDocumentClient();
    this.now = options.now ?? (() => new Date());
  }

  protected async query(action: string, input: Omit<ConstructorParameters<typeof QueryCommand>[0], 'TableName'>): Promise<{ items: Item[]; lastKey?: Item }> {
    try {
      const out = await this.doc.send(new QueryCommand({ TableName: this.tableName, ...input }));
      return { items: out.Items ?? [], lastKey: out.LastEvaluatedKey };
    } catch (error) {
      throw storageError(error, action);
    }
  }
}

/** A page size within 1..MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE for anything not whole. */
export function pageSize(limit: number): number {
  return Number.isInteger(limit) ? Math.min(Math.max(limit, 1), MAX_PAGE_SIZE) : DEFAULT_PAGE_SIZE;
}
