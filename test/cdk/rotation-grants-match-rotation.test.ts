/**
 * RotatingSigningKey grants its rotation function only its own secret (four actions) and, in the
 * table, only its client's items and key-ownership items. Two full rotations run here against
 * DynamoDB Local and the Secrets Manager stand-in through the real SDK clients; every request the
 * rotation sends is recorded and checked against those grants (neither emulator enforces IAM).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateSecretCommand, RotateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { dynamoDbLocalClientConfig } from '../../local/dynamodb-local';
import { SecretsManagerStandIn, startSecretsManagerStandIn } from '../../local/secrets-manager-standin';
import { KeyRotation } from '../../lambda/rotation/key-rotation';
import { parseRotationEvent } from '../../lambda/rotation/rotation-protocol';
import { SecretsManagerSecretStore, createSecretsManagerClient } from '../../lambda/rotation/secrets-manager-secret-store';
import { DynamoClientStore } from '../../lambda/store/client-store';
import { ROTATION_TABLE_ACTIONS } from '../../lib/client-registry';
import { ROTATION_SECRET_ACTIONS } from '../../lib/rotating-signing-key';
import { TestDynamoDb, startTestDynamoDb } from '../support/dynamodb';
import { newClient } from '../support/registry-fixtures';
import { DEFAULT_KEY_SOURCE_KEEP_DAYS } from '../../lambda/core/defaults';

interface Sent {
  readonly command: string;
  readonly input: Record<string, unknown>;
}

const LAMBDA_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:signet-rotation';

let ddb: TestDynamoDb;
let standIn: SecretsManagerStandIn;
let tableDriver: DynamoDBClient;
let secretsDriver: SecretsManagerClient;
const tableRequests: Sent[] = [];
const secretRequests: Sent[] = [];
let clientId: string;
let secretArn: string;

function recordInto<T extends { middlewareStack: DynamoDBClient['middlewareStack'] }>(client: T, into: Sent[]): T {
  (client.middlewareStack as DynamoDBClient['middlewareStack']).add(
    (next, context) => async (args) => {
      into.push({ command: String(context.commandName), input: args.input as Record<string, unknown> });
      return next(args);
    },
    { step: 'build', name: 'recordRequests' },
  );
  return client;
}

beforeAll(async () => {
  ddb = await startTestDynamoDb();
  standIn = await startSecretsManagerStandIn();
  const tableName = await ddb.createTable();
  clientId = (await new DynamoClientStore({ tableName, client: ddb.client, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS }).createClient(newClient(0), 'test')).record.clientId;

  secretsDriver = new SecretsManagerClient(standIn.clientConfig);
  secretArn = (await secretsDriver.send(new CreateSecretCommand({ Name: 'signet/partner-key', SecretString: JSON.stringify({ clientId }) }))).ARN!;

  // The rotation function's own clients, recorded: what it sends is what its role must allow.
  tableDriver = recordInto(new DynamoDBClient(dynamoDbLocalClientConfig(ddb.endpoint)), tableRequests);
  const rotationSecrets = recordInto(createSecretsManagerClient({ endpoint: standIn.endpoint, credentials: standIn.clientConfig.credentials }) as never, secretRequests) as SecretsManagerClient;
  const rotation = new KeyRotation({
    secrets: new SecretsManagerSecretStore(rotationSecrets),
    registry: new DynamoClientStore({ tableName, client: tableDriver, keySourceKeepDays: DEFAULT_KEY_SOURCE_KEEP_DAYS }),
    graceS: 0,
    settleMs: 0,
  });
  standIn.setRotationHandler(async (event) => {
    await rotation.run(parseRotationEvent(event));
  });

  // The first rotation writes the first key; the second expires the first (grace 0) and removes it.
  for (let i = 0; i < 2; i++) {
    await secretsDriver.send(new RotateSecretCommand({ SecretId: secretArn, RotationLambdaARN: LAMBDA_ARN, RotationRules: { AutomaticallyAfterDays: 90 } }));
  }
});

afterAll(async () => {
  tableDriver?.destroy();
  secretsDriver?.destroy();
  await standIn?.stop();
  await ddb?.stop();
});

test('both rotations completed all four steps', () => {
  const rotations = standIn.rotations();
  expect(rotations).toHaveLength(2);
  for (const r of rotations) expect(r).toMatchObject({ ok: true, completedSteps: ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] });
});

test('every Secrets Manager request is one of the four granted actions, on this secret', () => {
  expect(secretRequests.length).toBeGreaterThan(8);
  const actions = new Set(secretRequests.map((r) => `secretsmanager:${r.command.replace(/Command$/, '')}`));
  expect([...actions].filter((a) => !ROTATION_SECRET_ACTIONS.includes(a))).toEqual([]);
  expect(actions).toEqual(new Set(ROTATION_SECRET_ACTIONS)); // and each of them is really needed
  for (const r of secretRequests) expect(r.input.SecretId).toBe(secretArn);
});

test('every DynamoDB request is a granted item action on this client\'s items, key-ownership and thumbprint items, or a removed key\'s last use', () => {
  const ops = tableRequests.flatMap(({ command, input }) => {
    if (command === 'TransactWriteItemsCommand') {
      return (input.TransactItems as Array<Record<string, Record<string, unknown>>>).map((item) => {
        const [kind, part] = Object.entries(item)[0];
        return { action: { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' }[kind] ?? kind, input: part };
      });
    }
    return [{ action: command.replace(/Command$/, ''), input }];
  });
  expect(ops.length).toBeGreaterThan(4);
  const actions = new Set(ops.map((o) => `dynamodb:${o.action}`));
  expect([...actions].filter((a) => !ROTATION_TABLE_ACTIONS.includes(a))).toEqual([]);
  expect([...actions]).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem']));
  for (const op of ops) {
    const keyed = (op.input.Key ?? op.input.Item) as Record<string, { S: string }>;
    // A removed key's last use goes with it: DeleteItem is all the grant allows on USE# items.
    if (keyed.pk.S.startsWith('USE#')) expect(op.action).toBe('DeleteItem');
    else expect(keyed.pk.S === `CLIENT#${clientId}` || keyed.pk.S.startsWith('KEY#') || keyed.pk.S.startsWith('THUMB#')).toBe(true);
  }
  expect(ops.some((op) => ((op.input.Key ?? op.input.Item) as Record<string, { S: string }>).pk.S.startsWith('USE#'))).toBe(true);
});
