/**
 * The client registry table (DynamoDB, single-table layout from `lambda/store/table-schema.ts`)
 * and the grants every other Signet part gets on it.
 */
import { RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import {
  AUTH_FAILURE_COUNTER_ATTRIBUTE,
  FAILURE_LOG_PREFIX,
  ITEM,
  KEY_LAST_USE_ATTRIBUTES,
  KEY_SOURCE_PREFIX,
  KEY_USE_PREFIX,
  LIST_INDEX_NAME,
  LIST_INDEX_PARTITION_KEY,
  LIST_INDEX_PROJECTED_ATTRIBUTES,
  LIST_INDEX_SORT_KEY,
  PARTITION_KEY,
  SORT_KEY,
  TTL_ATTRIBUTE,
  REPLAY_PREFIX,
  THUMBPRINT_PREFIX,
  UNAUTHENTICATED_FAILURE_ATTRIBUTES,
} from '../lambda/store/table-schema';

/** Read actions on client, key and audit items (and the list index). */
const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];
/** Item writes; transactions need the per-item action of each part, plus ConditionCheckItem. */
const WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'];

/** The item actions a key rotation needs (on its client's items and key-ownership items only). */
export const ROTATION_TABLE_ACTIONS: readonly string[] = Object.freeze(['dynamodb:GetItem', ...WRITE_ACTIONS]);

/** Partition keys of every item that belongs to a client (record, audit entries). */
const CLIENT_ITEMS_PATTERN = ITEM.clientPk('*');
/** Partition keys of key-ownership items. */
const KEY_ITEMS_PATTERN = ITEM.keyPk('*');
/** Partition keys of the keys' thumbprint index items, written and deleted with their ownership items (`THUMB#<thumbprint>`); a thumbprint keyid finds its key's client with one GetItem. */
export const THUMBPRINT_ITEMS_PATTERN = `${THUMBPRINT_PREFIX}*`;
/** Partition keys of the key source status items (`SOURCE#<clientId>`). */
export const KEY_SOURCE_ITEMS_PATTERN = `${KEY_SOURCE_PREFIX}*`;
/**
 * The partitions the key source refresher reads and writes items in: client records and their
 * audit entries, key ownership and thumbprint index items (put and deleted with the keys), and
 * key source status items. test/cdk checks the refresher's store against this list.
 */
export const KEY_SOURCE_REFRESHER_PARTITIONS: readonly string[] = Object.freeze([CLIENT_ITEMS_PATTERN, KEY_ITEMS_PATTERN, THUMBPRINT_ITEMS_PATTERN, KEY_SOURCE_ITEMS_PATTERN]);
/** The item actions the key source refresher needs on {@link KEY_SOURCE_REFRESHER_PARTITIONS} (transactions need each part's action). */
export const KEY_SOURCE_REFRESHER_ITEM_ACTIONS: readonly string[] = Object.freeze(['dynamodb:GetItem', 'dynamodb:BatchGetItem', ...WRITE_ACTIONS]);
/** The one list-index partition the refresher queries: the due key sources, sorted by next fetch. */
export const KEY_SOURCE_REFRESHER_INDEX_PARTITIONS: readonly string[] = Object.freeze([ITEM.keySourcesPartition]);
/** Partition keys of the clients' failure logs, written by the authorizer (`FAIL#<clientId>`). */
export const FAILURE_LOG_ITEMS_PATTERN = `${FAILURE_LOG_PREFIX}*`;
/** Partition keys of the keys' last-use items, written by the authorizer (`USE#<fingerprint>`). */
export const KEY_USE_ITEMS_PATTERN = `${KEY_USE_PREFIX}*`;

/** What other constructs need from a registry: its table and its grants. */
export interface IClientRegistry {
  /** The client table (in this stack's region). */
  readonly table: dynamodb.ITableV2;
  /** What the authorizer reads: GetItem on client records (`CLIENT#…`) and thumbprint index items (`THUMB#…`) only. */
  grantLookupClients(grantee: iam.IGrantable): iam.Grant;
  /** Reads clients, keys, audit entries and recorded failures (GetItem, BatchGetItem, Query; table and list index). */
  grantReadClients(grantee: iam.IGrantable): iam.Grant;
  /** Everything the registry handlers do: reads plus item writes and transactions (no Scan, no table admin). */
  grantWriteClients(grantee: iam.IGrantable): iam.Grant;
  /**
   * Writes the per-client auth-failure ring: UpdateItem of the ring counter and PutItem of failure
   * items, and UpdateItem of the unauthenticated-failure counts, on the failure-log partitions
   * (`FAIL#…`) only, limited to those attributes: no write reaches a client record, an audit entry
   * or a key.
   */
  grantRecordFailures(grantee: iam.IGrantable): iam.Grant;
  /** Conditional PutItem of single-use replay markers (`REPLAY#…` items, key and TTL attributes only). */
  grantRecordReplays(grantee: iam.IGrantable): iam.Grant;
  /**
   * Records a key's last use: UpdateItem on the last-use partitions (`USE#…`) only, limited to the
   * last-use attributes, and ConditionCheckItem (a read) on `KEY#…` items, so it cannot change who
   * holds a key nor any client record.
   */
  grantRecordKeyUse(grantee: iam.IGrantable): iam.Grant;
  /**
   * Registers new clients (the admin bootstrap): GetItem / PutItem on `CLIENT#…` and `KEY#…` items,
   * UpdateItem of client records (a redeploy that changes the admin's name or allow-list) and of
   * the admin roster item.
   */
  grantCreateClients(grantee: iam.IGrantable): iam.Grant;
  /** What a key rotation does for one client: its own record and audit items, key-ownership items, and DeleteItem of removed keys' last use (`USE#…`). */
  grantRotateKeys(grantee: iam.IGrantable, clientId: string): iam.Grant;
  /**
   * What the key source refresher does: item reads and writes (transactions included) on client,
   * key ownership, thumbprint index and key source status partitions only, DeleteItem of a removed
   * key's last use (`USE#…`), and a Query of the list index's due-sources partition
   * (`KEY_SOURCES`) only. No Scan, no other partition.
   */
  grantRefreshKeySources(grantee: iam.IGrantable): iam.Grant;
}

/**
 * Attributes the auth-failure recorder (`DynamoClientStore.recordAuthFailure`) touches when it
 * bumps the ring counter (`FAIL#<clientId>`, `SEQ`). test/cdk checks the store against this list.
 */
export const AUTH_FAILURE_COUNTER_ATTRIBUTES: readonly string[] = Object.freeze([PARTITION_KEY, SORT_KEY, AUTH_FAILURE_COUNTER_ATTRIBUTE, TTL_ATTRIBUTE]);

/** Attributes of an auth-failure item (`FAIL#<clientId>`, `SLOT#<slot>`), keys and TTL included. */
export const AUTH_FAILURE_ITEM_ATTRIBUTES: readonly string[] = Object.freeze([
  PARTITION_KEY,
  SORT_KEY,
  TTL_ATTRIBUTE,
  'seq',
  'at',
  'reason',
  'message',
  'sourceIp',
  'method',
  'path',
  'fingerprint',
]);

/** Partition keys of replay markers (lambda/store/replay-store.ts); the condition on {@link IClientRegistry.grantRecordReplays}. */
export const REPLAY_ITEMS_PATTERN = `${REPLAY_PREFIX}*`;

/** Attributes of a replay marker, keys and TTL included. */
export const REPLAY_ITEM_ATTRIBUTES: readonly string[] = Object.freeze([PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE]);

abstract class ClientRegistryBase extends Construct implements IClientRegistry {
  abstract readonly table: dynamodb.ITableV2;

  /** ARN of the list index (`gsi1`). */
  get listIndexArn(): string {
    return `${this.table.tableArn}/index/${LIST_INDEX_NAME}`;
  }

  grantLookupClients(grantee: iam.IGrantable): iam.Grant {
    // A thumbprint keyid is one GetItem of its THUMB# item, then the client record.
    return this.grantOn(grantee, ['dynamodb:GetItem'], [this.table.tableArn], [CLIENT_ITEMS_PATTERN, THUMBPRINT_ITEMS_PATTERN]);
  }

  grantReadClients(grantee: iam.IGrantable): iam.Grant {
    return this.grantOn(grantee, READ_ACTIONS, [this.table.tableArn, this.listIndexArn]);
  }

  grantWriteClients(grantee: iam.IGrantable): iam.Grant {
    const read = this.grantReadClients(grantee);
    return read.combine(this.grantOn(grantee, WRITE_ACTIONS, [this.table.tableArn]));
  }

  grantRecordFailures(grantee: iam.IGrantable): iam.Grant {
    // The failure-log partitions only (a grant on CLIENT#* would reach every sort key of a client:
    // its record and audit entries), and attribute-limited within them.
    const on = [FAILURE_LOG_ITEMS_PATTERN];
    const counter = this.grantOn(grantee, ['dynamodb:UpdateItem'], [this.table.tableArn], on, AUTH_FAILURE_COUNTER_ATTRIBUTES);
    const counts = this.grantOn(grantee, ['dynamodb:UpdateItem'], [this.table.tableArn], on, UNAUTHENTICATED_FAILURE_ATTRIBUTES);
    return counter.combine(counts).combine(this.grantOn(grantee, ['dynamodb:PutItem'], [this.table.tableArn], on, AUTH_FAILURE_ITEM_ATTRIBUTES));
  }

  grantRecordReplays(grantee: iam.IGrantable): iam.Grant {
    return this.grantOn(grantee, ['dynamodb:PutItem'], [this.table.tableArn], [REPLAY_ITEMS_PATTERN], REPLAY_ITEM_ATTRIBUTES);
  }

  grantRecordKeyUse(grantee: iam.IGrantable): iam.Grant {
    // The write goes to the key's last-use item; the ownership item is only checked (a read).
    const write = this.grantOn(grantee, ['dynamodb:UpdateItem'], [this.table.tableArn], [KEY_USE_ITEMS_PATTERN], KEY_LAST_USE_ATTRIBUTES);
    return write.combine(this.grantOn(grantee, ['dynamodb:ConditionCheckItem'], [this.table.tableArn], [KEY_ITEMS_PATTERN]));
  }

  grantCreateClients(grantee: iam.IGrantable): iam.Grant {
    const create = this.grantOn(grantee, ['dynamodb:GetItem', 'dynamodb:PutItem'], [this.table.tableArn], [CLIENT_ITEMS_PATTERN, KEY_ITEMS_PATTERN, THUMBPRINT_ITEMS_PATTERN]);
    // A client created with registry:admin joins the admin roster in the same transaction (lambda/store/table-schema.ts).
    const roster = this.grantOn(grantee, ['dynamodb:UpdateItem'], [this.table.tableArn], [ITEM.adminRosterPk]);
    // A redeploy with another admin name or allow-list updates the record (its audit entry is a PutItem above).
    return create.combine(roster).combine(this.grantOn(grantee, ['dynamodb:UpdateItem'], [this.table.tableArn], [CLIENT_ITEMS_PATTERN]));
  }

  grantRotateKeys(grantee: iam.IGrantable, clientId: string): iam.Grant {
    const own = this.grantOn(
      grantee,
      [...ROTATION_TABLE_ACTIONS],
      [this.table.tableArn],
      [ITEM.clientPk(clientId), KEY_ITEMS_PATTERN, THUMBPRINT_ITEMS_PATTERN],
    );
    // Removing a key deletes its last use in the same transaction.
    return own.combine(this.grantOn(grantee, ['dynamodb:DeleteItem'], [this.table.tableArn], [KEY_USE_ITEMS_PATTERN]));
  }

  grantRefreshKeySources(grantee: iam.IGrantable): iam.Grant {
    const items = this.grantOn(grantee, [...KEY_SOURCE_REFRESHER_ITEM_ACTIONS], [this.table.tableArn], KEY_SOURCE_REFRESHER_PARTITIONS);
    // A key gone from the source takes its last use with it, in the same transaction (as a rotation's removed key).
    const lastUse = this.grantOn(grantee, ['dynamodb:DeleteItem'], [this.table.tableArn], [KEY_USE_ITEMS_PATTERN]);
    // On an index, dynamodb:LeadingKeys is the index's partition key: the due list, nothing else.
    return items.combine(lastUse).combine(this.grantOn(grantee, ['dynamodb:Query'], [this.listIndexArn], KEY_SOURCE_REFRESHER_INDEX_PARTITIONS));
  }

  /**
   * @param leadingKeys partition-key patterns every item touched must match (`dynamodb:LeadingKeys`)
   * @param attributes the only attribute names the request may touch (`dynamodb:Attributes`, keys included)
   */
  private grantOn(
    grantee: iam.IGrantable,
    actions: string[],
    resourceArns: string[],
    leadingKeys?: readonly string[],
    attributes?: readonly string[],
  ): iam.Grant {
    const conditions: Record<string, Record<string, string[]>> = {};
    if (leadingKeys) conditions['ForAllValues:StringLike'] = { 'dynamodb:LeadingKeys': [...leadingKeys] };
    if (attributes) conditions['ForAllValues:StringEquals'] = { 'dynamodb:Attributes': [...attributes] };
    return iam.Grant.addToPrincipal({
      grantee,
      actions,
      resourceArns,
      conditions: Object.keys(conditions).length > 0 ? conditions : undefined,
    });
  }
}

export interface ClientRegistryProps {
  /**
   * Regions the table is replicated to (a DynamoDB global table), for APIs served from several
   * regions. Each regional Signet stack then reads its local replica (`ClientRegistry.fromTableName`).
   * The stack must have an explicit region, and it must not be in this list.
   * @default - no replicas (a single-region table)
   */
  readonly replicaRegions?: readonly string[];
  /**
   * Physical table name. Needed to find the replicas from other regions. Give it at the first
   * deploy: setting or changing it later replaces the table, and the stack then works on a new,
   * empty one (the old one is retained, not moved).
   * @default - a name generated by CloudFormation
   */
  readonly tableName?: string;
  /**
   * Refuses DeleteTable while set (on every replica).
   * @default true
   */
  readonly deletionProtection?: boolean;
  /**
   * What happens to the table when it leaves the stack. The registry holds every client's keys:
   * keep it unless this is a throw-away test stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The client registry: one on-demand DynamoDB table (TableV2) with point-in-time recovery,
 * deletion protection, RETAIN, and TTL on `expiresAt` for short-lived items (auth failures,
 * replay markers). Key schema, list index and TTL attribute come from `lambda/store/table-schema.ts`.
 *
 * @example
 * const registry = new ClientRegistry(this, 'Registry', { replicaRegions: ['eu-west-1'] });
 * registry.grantReadClients(myFunction);
 */
export class ClientRegistry extends ClientRegistryBase {
  /**
   * A registry whose table already exists (e.g. the local replica of a global table created by
   * another stack). Grants work the same way; the list index `gsi1` is assumed to exist.
   */
  static fromTableName(scope: Construct, id: string, tableName: string): IClientRegistry {
    class Imported extends ClientRegistryBase {
      readonly table = dynamodb.TableV2.fromTableName(this, 'Resource', tableName);
    }
    return new Imported(scope, id);
  }

  /** The table. Its ID is `Resource`. */
  readonly table: dynamodb.TableV2;

  constructor(scope: Construct, id: string, props: ClientRegistryProps = {}) {
    super(scope, id);
    const replicaRegions = [...(props.replicaRegions ?? [])];
    validateReplicaRegions(Stack.of(this).region, replicaRegions, this.node.path);

    this.table = new dynamodb.TableV2(this, 'Resource', {
      tableName: props.tableName,
      partitionKey: { name: PARTITION_KEY, type: dynamodb.AttributeType.STRING },
      sortKey: { name: SORT_KEY, type: dynamodb.AttributeType.STRING },
      billing: dynamodb.Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.deletionProtection ?? true,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
      timeToLiveAttribute: TTL_ATTRIBUTE,
      globalSecondaryIndexes: [
        {
          indexName: LIST_INDEX_NAME,
          partitionKey: { name: LIST_INDEX_PARTITION_KEY, type: dynamodb.AttributeType.STRING },
          sortKey: { name: LIST_INDEX_SORT_KEY, type: dynamodb.AttributeType.STRING },
          projectionType: dynamodb.ProjectionType.INCLUDE,
          nonKeyAttributes: [...LIST_INDEX_PROJECTED_ATTRIBUTES],
        },
      ],
      replicas: replicaRegions.map((region) => ({ region })),
    });
  }
}

/** Checks `replicaRegions` against the stack's region; every problem in one error. */
function validateReplicaRegions(stackRegion: string, regions: readonly string[], path: string): void {
  if (regions.length === 0) return;
  const problems: string[] = [];
  if (Token.isUnresolved(stackRegion)) {
    problems.push('the stack has no explicit region: give it env.region (or CDK_DEFAULT_REGION) to use replicas');
  }
  const seen = new Set<string>();
  for (const region of regions) {
    if (!/^[a-z]{2}(-[a-z]+)+-\d$/.test(region)) problems.push(`${JSON.stringify(region)} is not a region name like "eu-west-1"`);
    if (region === stackRegion) problems.push(`${region} is the stack's own region; list only the other regions`);
    if (seen.has(region)) problems.push(`${region} is listed twice`);
    seen.add(region);
  }
  if (problems.length > 0) throw new Error(`${path}: invalid replicaRegions: ${problems.join('; ')}.`);
}
