/**
 * The admin roster: one item listing every active operator (`registry:admin`), so a change that
 * would take away the last operator able to administer the registry can be refused inside its own
 * transaction (`last_admin`), also when two operators change at once. The rules of who counts are
 * ../domain/operator-rules.ts.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { canAdminister, isActiveAdmin } from '../domain/operator-rules';
import type { ClientRecord } from '../domain/client-record';
import type { TransactItem } from './client-transaction';
import { type DynamoTableOptions, DynamoTable, MAX_PAGE_SIZE } from './dynamo-table';
import { rosterKey } from './item-codec';
import { errorName, storageError } from './store-errors';
import type { Page } from '../domain/store-types';

/** What the roster reads of the registry: client records, and the account and client lists. */
export interface RosterClients {
  getClient(clientId: string, options: { consistentRead: boolean }): Promise<ClientRecord | undefined>;
  listAccounts(cursor: string | undefined, limit: number): Promise<Page<{ readonly accountId: string }>>;
  listClients(cursor: string | undefined, limit: number, accountId: string): Promise<Page<ClientRecord>>;
}

export class DynamoAdminRoster extends DynamoTable {
  constructor(
    options: DynamoTableOptions,
    private readonly clients: RosterClients,
  ) {
    super(options);
  }

  /**
   * Makes sure the admin roster is complete: on a table whose roster was never built (one from
   * before the roster, or new), every account's client list is read and each operator it shows is
   * confirmed by a consistent read (the list index may lag: a client shown active may have been
   * disabled a moment ago), then merged into the roster, which is marked built. Only one build
   * ever lands (the condition on `built`), so a stale one cannot re-add an operator removed since.
   * A lagging list can only leave an operator out, which errs on the side of refusing.
   */
  /** Every client the account lists show as an active operator (the list index may lag). */
  private async listedOperators(): Promise<string[]> {
    const listed: string[] = [];
    for (let accounts: string | undefined, first = true; first || accounts !== undefined; first = false) {
      const page = await this.clients.listAccounts(accounts, MAX_PAGE_SIZE);
      for (const account of page.items) {
        for (let clients: string | undefined, firstClients = true; firstClients || clients !== undefined; firstClients = false) {
          const found = await this.clients.listClients(clients, MAX_PAGE_SIZE, account.accountId);
          for (const record of found.items) if (isActiveAdmin(record)) listed.push(record.clientId);
          clients = found.nextCursor;
        }
      }
      accounts = page.nextCursor;
    }
    return listed;
  }

  async ensureBuilt(): Promise<void> {
    try {
      const out = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: rosterKey(), ConsistentRead: true }));
      if (out.Item?.built === true) return;
    } catch (error) {
      throw storageError(error, 'read the admin roster');
    }
    const listed = await this.listedOperators();
    const confirmed: string[] = [];
    for (const clientId of listed) {
      const record = await this.clients.getClient(clientId, { consistentRead: true });
      if (record !== undefined && isActiveAdmin(record)) confirmed.push(clientId);
    }
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: rosterKey(),
          UpdateExpression: confirmed.length > 0 ? 'SET #built = :true, #type = :type ADD #admins :ids' : 'SET #built = :true, #type = :type',
          ConditionExpression: 'attribute_not_exists(#built)',
          ExpressionAttributeNames: { '#built': 'built', '#type': 'type', ...(confirmed.length > 0 ? { '#admins': 'admins' } : {}) },
          ExpressionAttributeValues: { ':true': true, ':type': 'admin-roster', ...(confirmed.length > 0 ? { ':ids': new Set(confirmed) } : {}) },
        }),
      );
    } catch (error) {
      // Built by a concurrent change meanwhile: that one stands.
      if (errorName(error) !== 'ConditionalCheckFailedException') throw storageError(error, 'build the admin roster');
    }
  }

  /**
   * Another operator (on the admin roster, read consistently) that can administer the registry for
   * at least {@link OPERATOR_KEY_MARGIN_MS}: its record at the version read, or null when none can.
   * `keepS`: the keep bound of published keys, in seconds ({@link canAdminister}).
   */
  async otherAbleOperator(clientId: string, nowMs: number, keepS: number): Promise<{ clientId: string; version: number } | null> {
    await this.ensureBuilt();
    let admins: string[];
    try {
      const out = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: rosterKey(), ConsistentRead: true }));
      const listed = out.Item?.admins as Set<string> | undefined;
      admins = listed === undefined ? [] : [...listed];
    } catch (error) {
      throw storageError(error, 'read the admin roster');
    }
    for (const id of admins.filter((a) => a !== clientId).sort()) {
      const record = await this.clients.getClient(id, { consistentRead: true });
      if (record !== undefined && canAdminister(record, nowMs, keepS)) return { clientId: id, version: record.version };
    }
    return null;
  }

  /**
   * The roster's part of a transaction. An operator leaving is removed only if the roster is built
   * and another active operator stays on it (this is what makes `last_admin` hold under
   * concurrency); one joining is added, whether or not the roster exists or is built yet.
   */
  change(clientId: string, change: 'added' | 'removed'): TransactItem {
    const ids = new Set([clientId]);
    if (change === 'added') {
      return {
        Update: {
          TableName: this.tableName,
          Key: rosterKey(),
          UpdateExpression: 'ADD #admins :ids',
          ExpressionAttributeNames: { '#admins': 'admins' },
          ExpressionAttributeValues: { ':ids': ids },
        },
      };
    }
    return {
      Update: {
        TableName: this.tableName,
        Key: rosterKey(),
        UpdateExpression: 'DELETE #admins :ids',
        ConditionExpression: 'attribute_exists(#built) AND ((contains(#admins, :id) AND size(#admins) > :one) OR (NOT contains(#admins, :id) AND size(#admins) >= :one))',
        ExpressionAttributeNames: { '#admins': 'admins', '#built': 'built' },
        ExpressionAttributeValues: { ':ids': ids, ':id': clientId, ':one': 1 },
      },
    };
  }
}
