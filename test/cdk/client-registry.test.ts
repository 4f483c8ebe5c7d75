/**
 * ClientRegistry: the table's protections, its layout against lambda/store/table-schema.ts,
 * replicas, and what each grant allows.
 */
import { KEY_LAST_USE_ATTRIBUTES, UNAUTHENTICATED_FAILURE_ATTRIBUTES } from '../../lambda/store/table-schema';
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { createTableInput } from '../../lambda/store/table-schema';
import {
  AUTH_FAILURE_COUNTER_ATTRIBUTES,
  AUTH_FAILURE_ITEM_ATTRIBUTES,
  ClientRegistry,
  IClientRegistry,
  REPLAY_ITEMS_PATTERN,
} from '../../lib/client-registry';
import { Statement, actionsOf, appWithoutBundling, logicalIdOf, statementsOfRole } from './helpers';

function registryStack(region?: string, replicaRegions?: string[]): { stack: Stack; registry: ClientRegistry } {
  const app = appWithoutBundling();
  const stack = new Stack(app, 'Test', region ? { env: { account: '123456789012', region } } : {});
  const registry = new ClientRegistry(stack, 'Registry', { replicaRegions });
  return { stack, registry };
}

/** Grants `grant` to a fresh role and returns that role's statements. */
function statementsOf(grant: (registry: IClientRegistry, role: iam.IRole) => void, imported = false): Statement[] {
  const app = appWithoutBundling();
  const stack = new Stack(app, 'Grants');
  const registry: IClientRegistry = imported ? ClientRegistry.fromTableName(stack, 'Imported', 'signet-clients') : new ClientRegistry(stack, 'Registry');
  const role = new iam.Role(stack, 'Grantee', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
  grant(registry, role);
  return statementsOfRole(Template.fromStack(stack), 'Grantee');
}

describe('ClientRegistry table', () => {
  const { stack, registry } = registryStack();
  const template = Template.fromStack(stack);
  const expected = createTableInput('unused');

  test('is one on-demand table with point-in-time recovery, deletion protection and TTL on expiresAt', () => {
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      Replicas: [
        Match.objectLike({
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          DeletionProtectionEnabled: true,
        }),
      ],
    });
  });

  test('is retained when removed from the stack or replaced', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  test('has exactly the key schema, attributes and list index of lambda/store/table-schema.ts', () => {
    const table = Object.values(template.findResources('AWS::DynamoDB::GlobalTable'))[0].Properties;
    expect(table.KeySchema).toEqual(expected.KeySchema);
    expect(new Set(table.AttributeDefinitions.map(JSON.stringify))).toEqual(new Set(expected.AttributeDefinitions!.map((a) => JSON.stringify(a))));
    expect(table.GlobalSecondaryIndexes).toEqual(
      expected.GlobalSecondaryIndexes!.map((gsi) => ({ IndexName: gsi.IndexName, KeySchema: gsi.KeySchema, Projection: gsi.Projection })),
    );
  });

  test('the table is the construct\'s Resource child', () => {
    expect(logicalIdOf(registry.table)).toMatch(/^Registry[0-9A-F]{8}$/);
  });

  test('protections can be lifted for throw-away stacks', () => {
    const app = appWithoutBundling();
    const throwAway = new Stack(app, 'ThrowAway');
    new ClientRegistry(throwAway, 'Registry', { deletionProtection: false, removalPolicy: RemovalPolicy.DESTROY });
    const t = Template.fromStack(throwAway);
    t.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Delete' });
    t.hasResourceProperties('AWS::DynamoDB::GlobalTable', { Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })] });
  });
});

describe('ClientRegistry replicaRegions', () => {
  test('adds one replica per region, each with point-in-time recovery and deletion protection', () => {
    const { stack } = registryStack('eu-west-1', ['us-east-1', 'ap-southeast-2']);
    const table = Object.values(Template.fromStack(stack).findResources('AWS::DynamoDB::GlobalTable'))[0].Properties;
    const replicas = table.Replicas as Array<Record<string, unknown>>;
    expect(replicas.map((r) => r.Region).sort()).toEqual(['ap-southeast-2', 'eu-west-1', 'us-east-1']);
    for (const replica of replicas) {
      expect(replica.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
      expect(replica.DeletionProtectionEnabled).toBe(true);
    }
    expect(table.StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
  });

  test('without replicas the table lives in the stack region only', () => {
    const { stack } = registryStack('eu-west-1');
    const table = Object.values(Template.fromStack(stack).findResources('AWS::DynamoDB::GlobalTable'))[0].Properties;
    expect(table.Replicas).toHaveLength(1);
    expect(table.Replicas[0].Region).toBe('eu-west-1');
  });

  test('refuses replicas in a region-agnostic stack, naming the fix', () => {
    expect(() => registryStack(undefined, ['us-east-1'])).toThrow(/no explicit region: give it env\.region/);
  });

  test('reports every bad region at once', () => {
    expect(() => registryStack('eu-west-1', ['eu-west-1', 'Mars', 'us-east-1', 'us-east-1'])).toThrow(
      /eu-west-1 is the stack's own region.*"Mars" is not a region name.*us-east-1 is listed twice/,
    );
  });
});

describe('ClientRegistry grants', () => {
  test('grantLookupClients: GetItem on client records of this table only', () => {
    const statements = statementsOf((r, role) => r.grantLookupClients(role));
    expect(statements).toHaveLength(1);
    const [s] = statements;
    expect(actionsOf(s)).toEqual(['dynamodb:GetItem']);
    expect(s.Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^Registry/), 'Arn'] });
    expect(s.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['CLIENT#*'] } });
  });

  test('grantReadClients: reads on the table and the list index, no Scan, no writes', () => {
    const [s] = statementsOf((r, role) => r.grantReadClients(role));
    expect(actionsOf(s).sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query']);
    expect(s.Resource).toEqual([
      { 'Fn::GetAtt': [expect.stringMatching(/^Registry/), 'Arn'] },
      { 'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^Registry/), 'Arn'] }, '/index/gsi1']] },
    ]);
  });

  test('grantWriteClients: item writes on the table (the transactions need ConditionCheckItem), still no Scan or admin', () => {
    const statements = statementsOf((r, role) => r.grantWriteClients(role));
    const actions = statements.flatMap(actionsOf);
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem']));
    expect(actions.filter((a) => /Scan|DeleteTable|UpdateTable|\*/.test(a))).toEqual([]);
    const writes = statements.find((s) => actionsOf(s).includes('dynamodb:PutItem'))!;
    expect(writes.Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^Registry/), 'Arn'] });
  });

  test('grantRecordFailures: counter update, failure items and unauthenticated counts, limited to their attributes on the failure-log partitions, never a client\'s', () => {
    const statements = statementsOf((r, role) => r.grantRecordFailures(role));
    expect(statements).toHaveLength(3);
    const [update, counts] = statements.filter((s) => actionsOf(s).includes('dynamodb:UpdateItem'));
    const put = statements.find((s) => actionsOf(s).includes('dynamodb:PutItem'))!;
    expect(actionsOf(update)).toEqual(['dynamodb:UpdateItem']);
    expect(actionsOf(counts)).toEqual(['dynamodb:UpdateItem']);
    expect(actionsOf(put)).toEqual(['dynamodb:PutItem']);
    expect(update.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['FAIL#*'] },
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...AUTH_FAILURE_COUNTER_ATTRIBUTES] },
    });
    expect(counts.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['FAIL#*'] },
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...UNAUTHENTICATED_FAILURE_ATTRIBUTES] },
    });
    expect(put.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['FAIL#*'] },
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...AUTH_FAILURE_ITEM_ATTRIBUTES] },
    });
    // The attributes that would let a writer change who a client is are never grantable here.
    for (const forbidden of ['roles', 'keys', 'status', 'networkWhitelist', 'version']) {
      expect([...AUTH_FAILURE_COUNTER_ATTRIBUTES, ...AUTH_FAILURE_ITEM_ATTRIBUTES, ...UNAUTHENTICATED_FAILURE_ATTRIBUTES]).not.toContain(forbidden);
    }
  });

  test("grantRecordKeyUse: UpdateItem of a last-use item's attributes only, and a condition check (a read) of key items: never who holds the key, never a client record", () => {
    const [s, check, ...more] = statementsOf((r, role) => r.grantRecordKeyUse(role));
    expect(more).toEqual([]);
    expect(actionsOf(s)).toEqual(['dynamodb:UpdateItem']);
    expect(s.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['USE#*'] },
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'lastUsedAt', 'lastUsedBy'] },
    });
    expect(actionsOf(check)).toEqual(['dynamodb:ConditionCheckItem']);
    expect(check.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['KEY#*'] } });
    for (const forbidden of ['clientId', 'fingerprint', 'addedAt', 'notAfter', 'gsi1pk', 'gsi1sk']) expect(KEY_LAST_USE_ATTRIBUTES).not.toContain(forbidden);
  });

  test('grantRecordReplays: PutItem of replay markers only', () => {
    const [s] = statementsOf((r, role) => r.grantRecordReplays(role));
    expect(actionsOf(s)).toEqual(['dynamodb:PutItem']);
    expect(s.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [REPLAY_ITEMS_PATTERN] },
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'expiresAt'] },
    });
    expect(REPLAY_ITEMS_PATTERN).toBe('REPLAY#*');
  });

  test('grantRotateKeys: this client\'s items and key-ownership items, and deleting a removed key\'s last use, nothing else', () => {
    const [s, use, ...more] = statementsOf((r, role) => r.grantRotateKeys(role, 'c_AAAAAAAAAAAAAAAAAAAAAA'));
    expect(more).toEqual([]);
    expect(actionsOf(use)).toEqual(['dynamodb:DeleteItem']);
    expect(use.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['USE#*'] } });
    expect(actionsOf(s).sort()).toEqual(['dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']);
    expect(s.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['CLIENT#c_AAAAAAAAAAAAAAAAAAAAAA', 'KEY#*', 'THUMB#*'] } });
  });

  test('grantCreateClients: reads and puts of client and key items, updates of client records (a changed admin name or allow-list) and of the admin roster item, no delete', () => {
    const [s, roster, records, ...more] = statementsOf((r, role) => r.grantCreateClients(role));
    expect(more).toEqual([]);
    expect(actionsOf(s).sort()).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem']);
    expect(s.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['CLIENT#*', 'KEY#*', 'THUMB#*'] } });
    expect(actionsOf(roster)).toEqual(['dynamodb:UpdateItem']);
    expect(roster.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ROSTER#registry:admin'] } });
    expect(actionsOf(records)).toEqual(['dynamodb:UpdateItem']);
    expect(records.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['CLIENT#*'] } });
  });

  test('an imported registry (fromTableName) grants on that table and its list index', () => {
    const [s] = statementsOf((r, role) => r.grantReadClients(role), true);
    const text = JSON.stringify(s.Resource);
    expect(text).toContain(':table/signet-clients');
    expect(text).toContain(':table/signet-clients/index/gsi1');
    expect(text).not.toContain('"*"');
  });

  test('no grant ever names a wildcard resource', () => {
    const all = statementsOf((r, role) => {
      r.grantLookupClients(role);
      r.grantReadClients(role);
      r.grantWriteClients(role);
      r.grantRecordFailures(role);
      r.grantRecordReplays(role);
      r.grantRotateKeys(role, 'c_AAAAAAAAAAAAAAAAAAAAAA');
      r.grantCreateClients(role);
    });
    expect(all.length).toBeGreaterThanOrEqual(9);
    for (const s of all) expect(JSON.stringify(s.Resource)).not.toMatch(/"\*"|index\/\*/);
  });
});
