/**
 * The rotation function's door (createRotationHandler): event checks, the RotationSucceeded /
 * RotationFailed metrics, rethrown failures; the entry wrapper that publishes those metrics; and
 * the Lambda module lambda/handlers/rotation.ts itself, configured through its environment, run by
 * the stand-in's RotateSecret, and as the custom resource that fails a deploy whose signing-key
 * client is not registered.
 */
import { GetSecretValueCommand, InvalidRequestException, RotateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { ENV } from '../../lambda/config-env';
import { isSignetError } from '../../lambda/core/errors';
import { flushingMetrics, powertoolsFor } from '../../lambda/handlers/entry';
import { ROTATION_METRICS, RotationMetrics, createRotationHandler } from '../../lambda/rotation/rotation-handler';
import { parseSigningSecret } from '../../lambda/signer/signing-secret';
import { cfnEvent, startCfnResponseListener } from '../support/cfn-response';
import {
  RotationWorld,
  newRotatingClient,
  recordingLogger,
  rotationFor,
  stagesOf,
  startRotationWorld,
  storeFor,
  systemClock,
  testClock,
} from './harness';

let world: RotationWorld;
beforeAll(async () => {
  world = await startRotationWorld();
});
afterAll(async () => {
  await world?.stop();
});
afterEach(() => world.standIn.setRotationHandler(undefined));

/** Records what the door asks Powertools Metrics to do. */
function recordingMetrics(): RotationMetrics & { metrics: string[]; metadata: Record<string, string> } {
  const out = {
    metrics: [] as string[],
    metadata: {} as Record<string, string>,
    addMetric(name: string, unit: string, value: number) {
      out.metrics.push(`${name}:${unit}:${value}`);
    },
    addMetadata(key: string, value: string) {
      out.metadata[key] = value;
    },
  };
  return out;
}

/** The JSON lines written to stdout while `run` runs (Powertools writes there). */
async function stdoutLines(run: () => Promise<unknown>): Promise<Record<string, any>[]> {
  const written: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation(((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stdout.write);
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return written.join('').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, any>);
}

describe('createRotationHandler', () => {
  test('counts one RotationSucceeded per completed rotation, and nothing for the other steps', async () => {
    const clock = testClock();
    const store = storeFor(world, clock);
    const client = await newRotatingClient(world, store, clock);
    const metrics = recordingMetrics();
    const logger = recordingLogger();
    const handler = createRotationHandler({ rotation: rotationFor(world, clock, store), logger, metrics });
    world.standIn.setRotationHandler((event) => handler(event, { getRemainingTimeInMillis: () => 60_000 }));
    await world.sm.send(new RotateSecretCommand({ SecretId: client.secretName }));
    expect(metrics.metrics).toEqual([`${ROTATION_METRICS.succeeded}:Count:1`]);
    expect(logger.lines.filter((l) => l.includes('rotation step completed'))).toHaveLength(4);
  });

  test('a failed step counts RotationFailed with the step, logs it, and rethrows so the service sees it fail', async () => {
    const clock = testClock();
    const store = storeFor(world, clock);
    const client = await newRotatingClient(world, store, clock, { rotationEnabled: false });
    const metrics = recordingMetrics();
    const logger = recordingLogger();
    const handler = createRotationHandler({ rotation: rotationFor(world, clock, store), logger, metrics });
    const error = await handler({ Step: 'setSecret', SecretId: client.secretName, ClientRequestToken: client.initialVersionId }).catch((e: unknown) => e);
    expect(isSignetError(error) && error.code).toBe('invalid_request');
    expect(metrics.metrics).toEqual([`${ROTATION_METRICS.failed}:Count:1`]);
    expect(metrics.metadata).toEqual({ step: 'setSecret' });
    expect(logger.lines.some((l) => l.includes('rotation step failed') && l.includes('not enabled for rotation'))).toBe(true);
  });

  test.each([
    ['no Step', { SecretId: 's', ClientRequestToken: 't' }, /Step must be one of createSecret, setSecret, testSecret, finishSecret/],
    ['an unknown Step', { Step: 'dropSecret', SecretId: 's', ClientRequestToken: 't' }, /got "dropSecret"/],
    ['no SecretId', { Step: 'createSecret', ClientRequestToken: 't' }, /no SecretId/],
    ['no ClientRequestToken', { Step: 'createSecret', SecretId: 's' }, /no ClientRequestToken/],
    ['not an object', 'createSecret', /Step must be one of/],
  ])('an event with %s is refused with invalid_request', async (_name, event, message) => {
    const clock = testClock();
    const metrics = recordingMetrics();
    const handler = createRotationHandler({ rotation: rotationFor(world, clock, storeFor(world, clock)), logger: recordingLogger(), metrics });
    const error = await handler(event).catch((e: unknown) => e);
    expect(isSignetError(error) && error.code).toBe('invalid_request');
    expect((error as Error).message).toMatch(message);
    expect(metrics.metrics).toEqual([`${ROTATION_METRICS.failed}:Count:1`]);
  });
});

describe('the Lambda entry wrapper (flushingMetrics)', () => {
  test('publishes what an invocation counted as one EMF line, even when it throws; an invocation that counted nothing writes nothing', async () => {
    const clock = testClock();
    const store = storeFor(world, clock);
    const client = await newRotatingClient(world, store, clock, { rotationEnabled: false });
    const { metrics } = powertoolsFor('rotation');
    const handler = flushingMetrics(metrics, createRotationHandler({ rotation: rotationFor(world, clock, store), logger: recordingLogger(), metrics }));
    const failed = await stdoutLines(() => handler({ Step: 'setSecret', SecretId: client.secretName, ClientRequestToken: client.initialVersionId }).catch(() => undefined));
    expect(failed).toEqual([expect.objectContaining({ [ROTATION_METRICS.failed]: 1, step: 'setSecret', service: 'signet-rotation' })]);
    expect(failed[0]._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: 'Signet', Metrics: [{ Name: ROTATION_METRICS.failed, Unit: 'Count' }] });

    const counted: string[] = [];
    const quiet = flushingMetrics(metrics, async () => 'done');
    expect(await stdoutLines(async () => counted.push(await quiet(undefined)))).toEqual([]);
    expect(counted).toEqual(['done']);
  });
});

describe('lambda/handlers/rotation.ts', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  test('reads its config from the environment (table, endpoints, grace, key size) and rotates through the service', async () => {
    const clock = systemClock();
    const store = storeFor(world, clock);
    const client = await newRotatingClient(world, store, clock);
    Object.assign(process.env, {
      [ENV.tableName]: world.tableName,
      [ENV.dynamoDbEndpoint]: world.ddb.endpoint,
      [ENV.secretsManagerEndpoint]: world.standIn.endpoint,
      // The stand-in verifies SigV4: the Lambda signs with the credentials its environment holds.
      AWS_ACCESS_KEY_ID: world.standIn.clientConfig.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: world.standIn.clientConfig.credentials.secretAccessKey,
      [ENV.rotationGraceS]: '7200',
      [ENV.rotationKeyBits]: '3072',
      [ENV.clientCacheTtlMs]: '0',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
    });
    let module: typeof import('../../lambda/handlers/rotation') | undefined;
    jest.isolateModules(() => {
      module = require('../../lambda/handlers/rotation');
    });
    world.standIn.setRotationHandler((event) => module!.handler(event));

    const before = Date.now();
    const out = await world.sm.send(new RotateSecretCommand({ SecretId: client.secretName }));
    const after = Date.now();
    expect(await stagesOf(world, client.secretName)).toEqual({ [client.initialVersionId]: ['AWSPREVIOUS'], [out.VersionId!]: ['AWSCURRENT'] });
    const current = parseSigningSecret((await world.sm.send(new GetSecretValueCommand({ SecretId: client.secretName }))).SecretString!);
    expect(current.key.bits).toBe(3072);
    const record = (await store.getClient(client.clientId, { consistentRead: true }))!;
    const notAfterMs = Date.parse(record.keys[0]!.notAfter!);
    expect(notAfterMs).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 7_200_000);
    expect(notAfterMs).toBeLessThanOrEqual(after + 7_200_000);

    // A step the protocol refuses fails the invocation (the stand-in reports the failed step).
    world.standIn.setRotationHandler((event) => module!.handler({ ...event, ClientRequestToken: client.initialVersionId + '-x' }));
    await expect(world.sm.send(new RotateSecretCommand({ SecretId: client.secretName }))).rejects.toBeInstanceOf(InvalidRequestException);
    expect(world.standIn.rotations().at(-1)).toMatchObject({ ok: false, failedStep: 'createSecret' });

    // As CloudFormation's custom resource, before the schedule exists: the client must be registered.
    const listener = await startCfnResponseListener();
    try {
      const check = (requestType: 'Create' | 'Update' | 'Delete', clientId: string, oldClientId: string = clientId) =>
        module!.handler(cfnEvent(listener, 'Custom::SignetSigningKeyClient', requestType, { ClientId: clientId }, { physicalId: `signet-signing-key-client-${oldClientId}`, oldProperties: { ClientId: oldClientId } }));
      await check('Create', client.clientId);
      expect(listener.responses.at(-1)!.body).toMatchObject({
        Status: 'SUCCESS',
        PhysicalResourceId: `signet-signing-key-client-${client.clientId}`,
        Data: { ClientId: client.clientId, Status: 'active' },
      });
      const missing = 'c_NotRegisteredNotRegis0';
      await check('Create', missing);
      const refused = listener.responses.at(-1)!.body;
      expect(refused.Status).toBe('FAILED');
      expect(refused.Reason).toBe(
        `not_found: Client ${missing} is not registered in the client table ${world.tableName}, and its key's first rotation runs as soon as this deploy creates the rotation schedule, so it would fail. ` +
          'Register the client first: deploy without it in signingKeyClientIds, create it through the registry (signet clients create), then add its clientId and deploy again.',
      );
      await check('Update', missing, client.clientId); // another client: checked as a Create is
      expect(listener.responses.at(-1)!.body.Status).toBe('FAILED');
      // The same client, only CloudFormation's properties changed (an upgrade): nothing is read, so a
      // client removed since does not block the upgrade of the rest of the stack.
      await check('Update', missing);
      expect(listener.responses.at(-1)!.body).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: `signet-signing-key-client-${missing}`, Data: { ClientId: missing, Status: 'unchecked' } });
      await check('Delete', missing); // removing the check never blocks a deploy
      expect(listener.responses.at(-1)!.body).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: `signet-signing-key-client-${missing}` });
      expect(listener.responses).toHaveLength(5);
    } finally {
      await listener.close();
    }
  });
});
