/**
 * The admin-bootstrap custom resource handler against DynamoDB Local, answering a local listener
 * that plays CloudFormation's pre-signed response URL; and its Lambda entry, configured through
 * its environment.
 */
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { type AdminBootstrapHandler, BOOTSTRAP_ACTOR, createAdminBootstrap } from '../../lambda/bootstrap/admin-bootstrap';
import { loadConfig } from '../../lambda/config';
import { importPublicKey } from '../../lambda/core/keys';
import { ENV } from '../../lambda/config-env';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { type CfnResponse, type CfnResponseListener, cfnEvent, startCfnResponseListener } from '../support/cfn-response';
import { TestDynamoDb, startTestDynamoDb } from '../support/dynamodb';
import { spkiPem, testKey } from '../support/registry-fixtures';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

type BootstrapResponse = CfnResponse<{ ClientId: string; Fingerprint: string; Registration: string }>;

let ddb: TestDynamoDb;
let tableName: string;
let listener: CfnResponseListener;
/** What the handler logged, as `message {attributes}` lines. */
const logged: string[] = [];

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  tableName = await ddb.createTable();
  listener = await startCfnResponseListener();
});

/** The function as a stack deploys it for the admin key of this fingerprint (`null`: without one). */
function deployedFor(fingerprint: string | null): AdminBootstrapHandler {
  const config = loadConfig({ [ENV.tableName]: tableName, [ENV.dynamoDbEndpoint]: ddb.endpoint, ...(fingerprint !== null ? { [ENV.adminKeyFingerprint]: fingerprint } : {}) });
  return createAdminBootstrap(config, { logger: { error: (message, ...attributes) => void logged.push(`${message} ${JSON.stringify(attributes)}`) } });
}

/** The fingerprint of the key an event names, as the stack computed it at synth (none for text that is no public key). */
function fingerprintIn(e: CloudFormationCustomResourceEvent): string | null {
  try {
    return importPublicKey((e.ResourceProperties as unknown as { PublicKeyPem: string }).PublicKeyPem).fingerprint;
  } catch {
    return null;
  }
}

afterAll(async () => {
  await listener?.close();
  await ddb?.stop();
});

const context = { logStreamName: '2026/11/21/[$LATEST]abc' };
const responses = () => listener.responses;

function event(requestType: 'Create' | 'Update' | 'Delete', properties: Record<string, string>, physicalId?: string, oldProperties?: Record<string, string>): CloudFormationCustomResourceEvent {
  return cfnEvent(listener, 'Custom::SignetAdminBootstrap', requestType, properties, { physicalId, oldProperties });
}

/** Runs `e` through the function deployed for `deployed` (by default: for the key the event names, as CloudFormation's events do). */
async function run(e: CloudFormationCustomResourceEvent, deployed: string | null = fingerprintIn(e)): Promise<BootstrapResponse> {
  const before = responses().length;
  await deployedFor(deployed)(e, context);
  expect(responses()).toHaveLength(before + 1);
  return responses()[responses().length - 1].body as BootstrapResponse;
}

const adminProps = () => ({ PublicKeyPem: spkiPem(testKey(0)), ClientName: 'ops admin', NetworkWhitelist: '["203.0.113.7","2001:db8::/32"]' });

test('Create registers a registry:admin client through the store, audited as the bootstrap', async () => {
  const reply = await run(event('Create', adminProps()));
  expect(reply.Status).toBe('SUCCESS');
  expect(reply.Data?.Registration).toBe('created');
  expect(reply.Data?.Fingerprint).toBe(testKey(0).fingerprint);
  expect(reply.PhysicalResourceId).toBe(`signet-admin-${reply.Data!.ClientId}`);
  expect(reply.LogicalResourceId).toBe('AdminBootstrapC18CE766');

  const store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  const record = await store.getClient(reply.Data!.ClientId);
  expect(record).toMatchObject({ name: 'ops admin', status: 'active', roles: ['registry:admin'], networkWhitelist: ['203.0.113.7', '2001:db8::/32'] });
  expect(record!.keys.map((k) => k.fingerprint)).toEqual([testKey(0).fingerprint]);
  expect((await store.findByFingerprint(testKey(0).fingerprint))?.clientId).toBe(reply.Data!.ClientId);
  const audit = await store.listAudit(reply.Data!.ClientId);
  expect(audit.items.map((a) => [a.actor, a.action])).toEqual([[BOOTSTRAP_ACTOR, 'client.created']]);
});

test('the response goes out with an empty content type, as the pre-signed URL requires', () => {
  expect(responses()[0].contentType).toBe('');
});

test('Update (or a second Create) with the same key and properties writes nothing and returns the holder', async () => {
  const first = responses().find((r) => r.body.Data?.Registration === 'created')!.body;
  const again = await run(event('Update', adminProps(), first.PhysicalResourceId, adminProps()));
  expect(again.Status).toBe('SUCCESS');
  expect(again.Data).toEqual({ ClientId: first.Data!.ClientId, Fingerprint: first.Data!.Fingerprint, Registration: 'skipped' });
  expect(again.PhysicalResourceId).toBe(first.PhysicalResourceId);
  const store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  expect((await store.listAudit(first.Data!.ClientId)).items).toHaveLength(1);
});

test("a key the admin replaced through the registry is not registered again: not by an upgrade adding ServiceTimeout (nothing is touched), nor by a deploy renaming the admin (the name goes to the admin's client)", async () => {
  const store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  const props = { PublicKeyPem: spkiPem(testKey(5)), ClientName: 'rotated admin', NetworkWhitelist: '["203.0.113.7"]' };
  const created = await run(event('Create', props));
  const clientId = created.Data!.ClientId;
  // Through the registry, the admin replaced the deployed key with another.
  const record = (await store.getClient(clientId, { consistentRead: true }))!;
  const replacement = testKey(6);
  await store.updateClient(clientId, record.version, { key: { fingerprint: replacement.fingerprint, spkiPem: spkiPem(replacement) } }, 'c_operator');
  expect(await store.findByFingerprint(testKey(5).fingerprint, { consistentRead: true })).toBeUndefined();

  const upgraded = { ...event('Update', props, created.PhysicalResourceId, props), ResourceProperties: { ServiceToken: 'x', ServiceTimeout: '180', ...props } } as CloudFormationCustomResourceEvent;
  const reply = await run(upgraded);
  expect(reply).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: created.PhysicalResourceId, Data: { ClientId: clientId, Fingerprint: testKey(5).fingerprint, Registration: 'skipped' } });
  expect(await store.findByFingerprint(testKey(5).fingerprint, { consistentRead: true })).toBeUndefined();
  expect((await store.getClient(clientId, { consistentRead: true }))!.keys.map((k) => k.fingerprint)).toEqual([replacement.fingerprint]);

  const renamed = { ...props, ClientName: 'platform admin' };
  const rename = await run(event('Update', renamed, created.PhysicalResourceId, props));
  expect(rename).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: created.PhysicalResourceId, Data: { ClientId: clientId, Registration: 'updated' } });
  expect(await store.findByFingerprint(testKey(5).fingerprint, { consistentRead: true })).toBeUndefined();
  expect(await store.getClient(clientId, { consistentRead: true })).toMatchObject({ name: 'platform admin', keys: [expect.objectContaining({ fingerprint: replacement.fingerprint })] });
});

test('Update with another allow-list and name applies both to the admin, audited as the bootstrap, and says updated', async () => {
  const { record } = await new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS }).createClient(
    { name: 'ops admin', networkWhitelist: ['203.0.113.7'], roles: ['registry:admin'], key: { fingerprint: testKey(3).fingerprint, spkiPem: spkiPem(testKey(3)) } },
    BOOTSTRAP_ACTOR,
  );
  const before = { PublicKeyPem: spkiPem(testKey(3)), ClientName: 'ops admin', NetworkWhitelist: '["203.0.113.7"]' };
  const after = { ...before, ClientName: 'platform admin', NetworkWhitelist: '["198.51.100.0/24","2001:db8::/32"]' };
  const reply = await run(event('Update', after, `signet-admin-${record.clientId}`, before));
  expect(reply.Status).toBe('SUCCESS');
  expect(reply.Data).toEqual({ ClientId: record.clientId, Fingerprint: testKey(3).fingerprint, Registration: 'updated' });

  const store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  expect(await store.getClient(record.clientId, { consistentRead: true })).toMatchObject({
    name: 'platform admin',
    networkWhitelist: ['198.51.100.0/24', '2001:db8::/32'],
    roles: ['registry:admin'],
    version: record.version + 1,
  });
  const [latest] = (await store.listAudit(record.clientId)).items;
  expect(latest).toMatchObject({ actor: BOOTSTRAP_ACTOR, version: record.version + 1 });
});

test('Update that changes only the allow-list leaves a name edited through the registry as it is', async () => {
  const store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  const { record } = await store.createClient(
    { name: 'ops admin', networkWhitelist: ['203.0.113.7'], roles: ['registry:admin'], key: { fingerprint: testKey(4).fingerprint, spkiPem: spkiPem(testKey(4)) } },
    BOOTSTRAP_ACTOR,
  );
  const renamed = await store.updateClient(record.clientId, record.version, { name: 'Renamed by an operator' }, 'c_OperatorOperatorOpera0');
  const before = { PublicKeyPem: spkiPem(testKey(4)), ClientName: 'ops admin', NetworkWhitelist: '["203.0.113.7"]' };
  const reply = await run(event('Update', { ...before, NetworkWhitelist: '["203.0.113.8"]' }, `signet-admin-${record.clientId}`, before));
  expect(reply.Data?.Registration).toBe('updated');
  expect(await store.getClient(record.clientId, { consistentRead: true })).toMatchObject({
    name: 'Renamed by an operator',
    networkWhitelist: ['203.0.113.8'],
    version: renamed.version + 1,
  });
});

test('Delete leaves the admin in the registry', async () => {
  const first = responses().find((r) => r.body.Data?.Registration === 'created')!.body;
  const reply = await run(event('Delete', adminProps(), first.PhysicalResourceId));
  expect(reply.Status).toBe('SUCCESS');
  expect(reply.PhysicalResourceId).toBe(first.PhysicalResourceId);
  const store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  expect(await store.getClient(first.Data!.ClientId)).toBeDefined();
});

test('a private key fails the resource with the stable code, and the key appears nowhere in the answer or the log', async () => {
  const privatePem = testKey(1).key.export({ type: 'pkcs8', format: 'pem' }) as string;
  const from = logged.length;
  const reply = await run(event('Create', { ...adminProps(), PublicKeyPem: privatePem }));
  expect(reply.Status).toBe('FAILED');
  expect(reply.Reason).toMatch(/^private_key_submitted: /);
  expect(reply.Data).toBeUndefined();
  const lines = logged.slice(from);
  const everything = JSON.stringify(reply) + lines.join('\n');
  expect(everything).not.toContain(testKey(1).pkcs8Base64.slice(30, 70));
  expect(everything).not.toContain('PRIVATE KEY-----');
  expect(lines).toEqual([expect.stringMatching(/^admin bootstrap failed .*"code":"private_key_submitted"/)]);
});

test('a bad allow-list entry fails with invalid_network and writes nothing', async () => {
  const reply = await run(event('Create', { ...adminProps(), PublicKeyPem: spkiPem(testKey(2)), NetworkWhitelist: '["intranet"]' }));
  expect(reply.Status).toBe('FAILED');
  expect(reply.Reason).toMatch(/^invalid_network: /);
  const store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  expect(await store.findByFingerprint(testKey(2).fingerprint)).toBeUndefined();
});

test("an invocation naming another key than the stack's is refused and writes nothing: whoever may invoke the function cannot make an operator of their key", async () => {
  const store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  const other = { ...adminProps(), PublicKeyPem: spkiPem(testKey(7)), NetworkWhitelist: '["0.0.0.0"]' };
  for (const deployed of [testKey(0).fingerprint, null]) {
    const reply = await run(event('Create', other), deployed);
    expect(reply.Status).toBe('FAILED');
    expect(reply.Reason).toMatch(deployed === null ? /^invalid_request: .*registers no admin key/ : /^invalid_request: This function registers only the admin key its stack was deployed with/);
  }
  expect(await store.findByFingerprint(testKey(7).fingerprint, { consistentRead: true })).toBeUndefined();
});

test("the admin's key held by a client that is not an operator (a partner registered it first) fails the deploy; that client is neither reported nor edited", async () => {
  const store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
  const account = await store.createAccount({ name: 'Squatters', roleCeiling: ['demo'] }, 'test');
  const { record: squat } = await store.createClient(
    { accountId: account.accountId, name: 'not the admin', networkWhitelist: ['198.51.100.1'], roles: ['demo'], key: { fingerprint: testKey(8).fingerprint, spkiPem: spkiPem(testKey(8)) } },
    'c_PartnerAdminPartnerAd0',
  );
  const props = { PublicKeyPem: spkiPem(testKey(8)), ClientName: 'ops admin', NetworkWhitelist: '["0.0.0.0"]' };
  for (const e of [event('Create', props), event('Update', { ...props, ClientName: 'platform admin' }, 'signet-admin-x', props)]) {
    const reply = await run(e);
    expect(reply.Status).toBe('FAILED');
    expect(reply.Reason).toMatch(new RegExp(`^key_already_registered: The admin key .* is registered on client ${squat.clientId} .*which is not an operator`));
  }
  expect(await store.getClient(squat.clientId, { consistentRead: true })).toMatchObject({ name: 'not the admin', networkWhitelist: ['198.51.100.1'], version: squat.version });
});

describe('lambda/handlers/admin-bootstrap.ts', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  test('reads its table from the environment at cold start, registers through it, and logs a failure as a Powertools JSON line', async () => {
    Object.assign(process.env, { [ENV.tableName]: tableName, [ENV.dynamoDbEndpoint]: ddb.endpoint, [ENV.adminKeyFingerprint]: testKey(5).fingerprint, POWERTOOLS_LOG_LEVEL: 'INFO' });
    let entry: AdminBootstrapHandler | undefined;
    jest.isolateModules(() => {
      entry = (require('../../lambda/handlers/admin-bootstrap') as { handler: AdminBootstrapHandler }).handler;
    });
    const before = responses().length;
    await entry!(event('Create', { ...adminProps(), PublicKeyPem: spkiPem(testKey(5)) }), context);
    const reply = responses()[before].body as BootstrapResponse;
    expect(reply).toMatchObject({ Status: 'SUCCESS', Data: { Registration: 'created', Fingerprint: testKey(5).fingerprint } });
    const store = new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS });
    expect((await store.findByFingerprint(testKey(5).fingerprint))?.clientId).toBe(reply.Data!.ClientId);

    const written: string[] = [];
    const spies = [process.stdout, process.stderr].map((stream) =>
      jest.spyOn(stream, 'write').mockImplementation(((chunk: string) => written.push(String(chunk)) > 0) as typeof stream.write),
    );
    try {
      await entry!(event('Create', { ...adminProps(), PublicKeyPem: spkiPem(testKey(5)), NetworkWhitelist: '["intranet"]' }), context);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(responses().at(-1)!.body.Status).toBe('FAILED');
    const lines = written.join('').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([expect.objectContaining({ level: 'ERROR', message: 'admin bootstrap failed', service: 'signet-admin-bootstrap', code: 'invalid_network' })]);
  });
});
