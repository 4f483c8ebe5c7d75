/**
 * The admin-bootstrap custom resource handler against DynamoDB Local, answering a local listener
 * that plays CloudFormation's pre-signed response URL.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import { ENV } from '../../lambda/config-env';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { BOOTSTRAP_ACTOR, handler } from '../../lambda/bootstrap/admin-bootstrap-handler';
import { TestDynamoDb, startTestDynamoDb } from '../support/dynamodb';
import { spkiPem, testKey } from '../support/registry-fixtures';

interface CfnResponse {
  Status: 'SUCCESS' | 'FAILED';
  Reason: string;
  PhysicalResourceId: string;
  RequestId: string;
  LogicalResourceId: string;
  StackId: string;
  Data?: { ClientId: string; Fingerprint: string; Registration: string };
}

let ddb: TestDynamoDb;
let tableName: string;
let server: Server;
let responseUrl: string;
const responses: Array<{ contentType: string | undefined; body: CfnResponse }> = [];
const savedEnv = { ...process.env };

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  tableName = await ddb.createTable();
  process.env[ENV.tableName] = tableName;
  process.env[ENV.dynamoDbEndpoint] = ddb.endpoint;
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      responses.push({ contentType: req.headers['content-type'], body: JSON.parse(text) as CfnResponse });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  responseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cfn-response?X-Amz-Signature=x`;
});

afterAll(async () => {
  process.env = savedEnv;
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await ddb?.stop();
});

const context = { logStreamName: '2026/11/21/[$LATEST]abc' } as Context;

function event(requestType: 'Create' | 'Update' | 'Delete', properties: Record<string, string>, physicalId?: string): CloudFormationCustomResourceEvent {
  const base = {
    ServiceToken: 'arn:aws:lambda:eu-west-1:123456789012:function:bootstrap',
    ResponseURL: responseUrl,
    StackId: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/Signet/1',
    RequestId: `req-${responses.length + 1}`,
    LogicalResourceId: 'AdminBootstrapC18CE766',
    ResourceType: 'Custom::SignetAdminBootstrap',
    ResourceProperties: { ServiceToken: 'x', ...properties },
  };
  if (requestType === 'Create') return { ...base, RequestType: 'Create' };
  if (requestType === 'Update') return { ...base, RequestType: 'Update', PhysicalResourceId: physicalId!, OldResourceProperties: { ServiceToken: 'x' } };
  return { ...base, RequestType: 'Delete', PhysicalResourceId: physicalId! };
}

async function run(e: CloudFormationCustomResourceEvent): Promise<CfnResponse> {
  const before = responses.length;
  await handler(e, context);
  expect(responses).toHaveLength(before + 1);
  return responses[responses.length - 1].body;
}

const adminProps = () => ({ PublicKeyPem: spkiPem(testKey(0)), ClientName: 'ops admin', NetworkWhitelist: '["203.0.113.7","2001:db8::/32"]' });

test('Create registers a registry:admin client through the store, audited as the bootstrap', async () => {
  const reply = await run(event('Create', adminProps()));
  expect(reply.Status).toBe('SUCCESS');
  expect(reply.Data?.Registration).toBe('created');
  expect(reply.Data?.Fingerprint).toBe(testKey(0).fingerprint);
  expect(reply.PhysicalResourceId).toBe(`signet-admin-${reply.Data!.ClientId}`);
  expect(reply.LogicalResourceId).toBe('AdminBootstrapC18CE766');

  const store = new DynamoClientStore({ tableName, client: ddb.client });
  const record = await store.getClient(reply.Data!.ClientId);
  expect(record).toMatchObject({ name: 'ops admin', status: 'active', roles: ['registry:admin'], networkWhitelist: ['203.0.113.7', '2001:db8::/32'] });
  expect(record!.keys.map((k) => k.fingerprint)).toEqual([testKey(0).fingerprint]);
  expect((await store.findByFingerprint(testKey(0).fingerprint))?.clientId).toBe(reply.Data!.ClientId);
  const audit = await store.listAudit(reply.Data!.ClientId);
  expect(audit.items.map((a) => [a.actor, a.action])).toEqual([[BOOTSTRAP_ACTOR, 'client.created']]);
});

test('the response goes out with an empty content type, as the pre-signed URL requires', () => {
  expect(responses[0].contentType).toBe('');
});

test('Update (or a second Create) with the same key writes nothing and returns the holder', async () => {
  const first = responses.find((r) => r.body.Data?.Registration === 'created')!.body;
  const again = await run(event('Update', adminProps(), first.PhysicalResourceId));
  expect(again.Status).toBe('SUCCESS');
  expect(again.Data).toEqual({ ClientId: first.Data!.ClientId, Fingerprint: first.Data!.Fingerprint, Registration: 'skipped' });
  expect(again.PhysicalResourceId).toBe(first.PhysicalResourceId);
  const store = new DynamoClientStore({ tableName, client: ddb.client });
  expect((await store.listAudit(first.Data!.ClientId)).items).toHaveLength(1);
});

test('Delete leaves the admin in the registry', async () => {
  const first = responses.find((r) => r.body.Data?.Registration === 'created')!.body;
  const reply = await run(event('Delete', adminProps(), first.PhysicalResourceId));
  expect(reply.Status).toBe('SUCCESS');
  expect(reply.PhysicalResourceId).toBe(first.PhysicalResourceId);
  const store = new DynamoClientStore({ tableName, client: ddb.client });
  expect(await store.getClient(first.Data!.ClientId)).toBeDefined();
});

test('a private key fails the resource with the stable code, and the key appears nowhere in the answer or the log', async () => {
  const privatePem = testKey(1).key.export({ type: 'pkcs8', format: 'pem' }) as string;
  const logged: string[] = [];
  const spy = jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
  try {
    const reply = await run(event('Create', { ...adminProps(), PublicKeyPem: privatePem }));
    expect(reply.Status).toBe('FAILED');
    expect(reply.Reason).toMatch(/^private_key_submitted: /);
    expect(reply.Data).toBeUndefined();
    const everything = JSON.stringify(reply) + logged.join('\n');
    expect(everything).not.toContain(testKey(1).pkcs8Base64.slice(30, 70));
    expect(everything).not.toContain('PRIVATE KEY-----');
    expect(logged.join('\n')).toContain('"code":"private_key_submitted"');
  } finally {
    spy.mockRestore();
  }
});

test('a bad allow-list entry fails with invalid_network and writes nothing', async () => {
  const spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    const reply = await run(event('Create', { ...adminProps(), PublicKeyPem: spkiPem(testKey(2)), NetworkWhitelist: '["intranet"]' }));
    expect(reply.Status).toBe('FAILED');
    expect(reply.Reason).toMatch(/^invalid_network: /);
    const store = new DynamoClientStore({ tableName, client: ddb.client });
    expect(await store.findByFingerprint(testKey(2).fingerprint)).toBeUndefined();
  } finally {
    spy.mockRestore();
  }
});
