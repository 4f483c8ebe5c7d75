/**
 * The Secrets Manager stand-in, driven by the real @aws-sdk/client-secrets-manager client: the
 * staging-label rules, ClientRequestToken idempotency, errors parsed into the SDK's exception
 * classes, RotateSecret invoking the four rotation steps, and who may call it (loopback Host,
 * SigV4 signatures made with its own key pair, which `npm start` keeps in its home).
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  InvalidParameterException,
  InvalidRequestException,
  ListSecretVersionIdsCommand,
  PutSecretValueCommand,
  ResourceExistsException,
  ResourceNotFoundException,
  RestoreSecretCommand,
  RotateSecretCommand,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { loadOrCreateStandInCredentials, newStandInCredentials, readStandInCredentials } from '../../local/secrets-manager-credentials';
import {
  RotationEvent,
  SecretsManagerStandIn,
  startSecretsManagerStandIn,
} from '../../local/secrets-manager-standin';
import type { SigV4Credentials } from '../../local/sigv4-verifier';
import { RawAnswer, nonLoopbackAddresses, postRaw, probeAll, tcpConnect } from '../support/network';

const LAMBDA_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:signet-rotation';

let standIn: SecretsManagerStandIn;
let sm: SecretsManagerClient;

beforeAll(async () => {
  standIn = await startSecretsManagerStandIn();
  sm = new SecretsManagerClient({ ...standIn.clientConfig, maxAttempts: 1 });
});

afterAll(async () => {
  sm.destroy();
  await standIn.stop();
});

afterEach(() => standIn.setRotationHandler(undefined));

let counter = 0;
const uniqueName = (): string => `test/secret-${process.pid}-${++counter}`;

async function createWithValue(value = 'v1'): Promise<{ name: string; arn: string; versionId: string }> {
  const name = uniqueName();
  const versionId = randomUUID();
  const out = await sm.send(new CreateSecretCommand({ Name: name, SecretString: value, ClientRequestToken: versionId }));
  return { name, arn: out.ARN!, versionId };
}

async function stages(secretId: string): Promise<Record<string, string[]>> {
  const out = await sm.send(new DescribeSecretCommand({ SecretId: secretId }));
  return out.VersionIdsToStages ?? {};
}

async function put(secretId: string, value: string, versionStages?: string[]): Promise<string> {
  const token = randomUUID();
  await sm.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: value, ClientRequestToken: token, VersionStages: versionStages }));
  return token;
}

describe('CreateSecret, GetSecretValue, DescribeSecret', () => {
  it('creates a secret whose first version is AWSCURRENT and reads it by name, ARN and partial ARN', async () => {
    const { name, arn, versionId } = await createWithValue('hello');
    expect(arn).toMatch(new RegExp(`^arn:aws:secretsmanager:us-east-1:000000000000:secret:${name}-[A-Za-z0-9]{6}$`));
    for (const id of [name, arn, arn.slice(0, -7)]) {
      const got = await sm.send(new GetSecretValueCommand({ SecretId: id }));
      expect(got).toMatchObject({ Name: name, ARN: arn, SecretString: 'hello', VersionId: versionId, VersionStages: ['AWSCURRENT'] });
      expect(got.CreatedDate).toBeInstanceOf(Date);
    }
    const described = await sm.send(new DescribeSecretCommand({ SecretId: name }));
    expect(described).toMatchObject({ Name: name, RotationEnabled: false, VersionIdsToStages: { [versionId]: ['AWSCURRENT'] } });
  });

  it('stores binary secrets as bytes', async () => {
    const name = uniqueName();
    const bytes = Uint8Array.from([0, 1, 2, 250, 255]);
    await sm.send(new CreateSecretCommand({ Name: name, SecretBinary: bytes }));
    const got = await sm.send(new GetSecretValueCommand({ SecretId: name }));
    expect(Buffer.from(got.SecretBinary!)).toEqual(Buffer.from(bytes));
    expect(got.SecretString).toBeUndefined();
  });

  it('maps a duplicate name to ResourceExistsException and an unknown secret to ResourceNotFoundException', async () => {
    const { name } = await createWithValue();
    await expect(sm.send(new CreateSecretCommand({ Name: name, SecretString: 'x' }))).rejects.toBeInstanceOf(ResourceExistsException);
    const error = await sm.send(new GetSecretValueCommand({ SecretId: 'no/such/secret' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResourceNotFoundException);
    expect((error as ResourceNotFoundException).message).toMatch(/can't find the specified secret/);
    expect((error as ResourceNotFoundException).$metadata.httpStatusCode).toBe(400);
  });

  it('refuses a secret without a value for reads, and a bad name', async () => {
    const name = uniqueName();
    await sm.send(new CreateSecretCommand({ Name: name }));
    await expect(sm.send(new GetSecretValueCommand({ SecretId: name }))).rejects.toBeInstanceOf(ResourceNotFoundException);
    await expect(sm.send(new CreateSecretCommand({ Name: 'bad name!' }))).rejects.toBeInstanceOf(InvalidParameterException);
  });
});

describe('PutSecretValue', () => {
  it('moves AWSCURRENT to the new version and AWSPREVIOUS to the one it left; older versions become deprecated', async () => {
    const { name, versionId: v1 } = await createWithValue('one');
    const v2 = await put(name, 'two');
    expect(await stages(name)).toEqual({ [v1]: ['AWSPREVIOUS'], [v2]: ['AWSCURRENT'] });
    const v3 = await put(name, 'three');
    expect(await stages(name)).toEqual({ [v2]: ['AWSPREVIOUS'], [v3]: ['AWSCURRENT'] });

    expect((await sm.send(new GetSecretValueCommand({ SecretId: name }))).SecretString).toBe('three');
    expect((await sm.send(new GetSecretValueCommand({ SecretId: name, VersionStage: 'AWSPREVIOUS' }))).SecretString).toBe('two');
    // v1 has no label left: deprecated, but still readable by its VersionId.
    expect((await sm.send(new GetSecretValueCommand({ SecretId: name, VersionId: v1 }))).SecretString).toBe('one');
    const listed = await sm.send(new ListSecretVersionIdsCommand({ SecretId: name }));
    expect(listed.Versions!.map((v) => v.VersionId).sort()).toEqual([v2, v3].sort());
    const all = await sm.send(new ListSecretVersionIdsCommand({ SecretId: name, IncludeDeprecated: true }));
    expect(all.Versions!.map((v) => v.VersionId).sort()).toEqual([v1, v2, v3].sort());
  });

  it('is idempotent on ClientRequestToken: same value is ignored, a different value is ResourceExistsException', async () => {
    const { name, versionId: v1 } = await createWithValue('one');
    const token = randomUUID();
    const first = await sm.send(new PutSecretValueCommand({ SecretId: name, SecretString: 'two', ClientRequestToken: token }));
    const again = await sm.send(new PutSecretValueCommand({ SecretId: name, SecretString: 'two', ClientRequestToken: token }));
    expect(again.VersionId).toBe(first.VersionId);
    expect(again.VersionStages).toEqual(['AWSCURRENT']);
    expect(await stages(name)).toEqual({ [v1]: ['AWSPREVIOUS'], [token]: ['AWSCURRENT'] });
    const all = await sm.send(new ListSecretVersionIdsCommand({ SecretId: name, IncludeDeprecated: true }));
    expect(all.Versions).toHaveLength(2);

    await expect(sm.send(new PutSecretValueCommand({ SecretId: name, SecretString: 'other', ClientRequestToken: token }))).rejects.toBeInstanceOf(
      ResourceExistsException,
    );
    expect((await sm.send(new GetSecretValueCommand({ SecretId: name }))).SecretString).toBe('two');
  });

  it('attaches only the labels asked for: an AWSPENDING put leaves AWSCURRENT alone', async () => {
    const { name, versionId: v1 } = await createWithValue('one');
    const pending = await put(name, 'next', ['AWSPENDING']);
    expect(await stages(name)).toEqual({ [v1]: ['AWSCURRENT'], [pending]: ['AWSPENDING'] });
    const got = await sm.send(new GetSecretValueCommand({ SecretId: name, VersionId: pending, VersionStage: 'AWSPENDING' }));
    expect(got.SecretString).toBe('next');
    // VersionId and VersionStage must name the same version.
    await expect(sm.send(new GetSecretValueCommand({ SecretId: name, VersionId: v1, VersionStage: 'AWSPENDING' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    );
    // A second AWSPENDING put takes the label away from the first.
    const pending2 = await put(name, 'next2', ['AWSPENDING']);
    expect(await stages(name)).toEqual({ [v1]: ['AWSCURRENT'], [pending2]: ['AWSPENDING'] });
  });

  it('gives the first version of an empty secret AWSCURRENT whatever labels were asked for', async () => {
    const name = uniqueName();
    await sm.send(new CreateSecretCommand({ Name: name }));
    const v = await put(name, 'first', ['AWSPENDING']);
    expect((await stages(name))[v]!.sort()).toEqual(['AWSCURRENT', 'AWSPENDING']);
  });

  it('refuses a put without a value, and a too-short token', async () => {
    const { name } = await createWithValue();
    await expect(sm.send(new PutSecretValueCommand({ SecretId: name }))).rejects.toBeInstanceOf(InvalidParameterException);
    await expect(sm.send(new PutSecretValueCommand({ SecretId: name, SecretString: 'x', ClientRequestToken: 'short' }))).rejects.toBeInstanceOf(
      InvalidParameterException,
    );
  });
});

describe('UpdateSecretVersionStage', () => {
  async function withPending(): Promise<{ name: string; current: string; pending: string }> {
    const { name, versionId: current } = await createWithValue('one');
    const pending = await put(name, 'two', ['AWSPENDING']);
    return { name, current, pending };
  }

  it('moves AWSCURRENT only when RemoveFromVersionId names its holder, and puts AWSPREVIOUS on that holder', async () => {
    const { name, current, pending } = await withPending();
    const move = (removeFrom?: string) =>
      sm.send(new UpdateSecretVersionStageCommand({ SecretId: name, VersionStage: 'AWSCURRENT', MoveToVersionId: pending, RemoveFromVersionId: removeFrom }));

    const missing = await move().catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(InvalidParameterException);
    expect((missing as Error).message).toContain(current);
    await expect(move(pending)).rejects.toBeInstanceOf(InvalidParameterException);
    expect(await stages(name)).toEqual({ [current]: ['AWSCURRENT'], [pending]: ['AWSPENDING'] });

    await move(current);
    expect(await stages(name)).toEqual({ [current]: ['AWSPREVIOUS'], [pending]: ['AWSPENDING', 'AWSCURRENT'] });
    expect((await sm.send(new GetSecretValueCommand({ SecretId: name }))).SecretString).toBe('two');
  });

  it('removes a label with RemoveFromVersionId alone, but never AWSCURRENT', async () => {
    const { name, current, pending } = await withPending();
    await expect(
      sm.send(new UpdateSecretVersionStageCommand({ SecretId: name, VersionStage: 'AWSPENDING', RemoveFromVersionId: current })),
    ).rejects.toBeInstanceOf(InvalidParameterException);
    await sm.send(new UpdateSecretVersionStageCommand({ SecretId: name, VersionStage: 'AWSPENDING', RemoveFromVersionId: pending }));
    expect(await stages(name)).toEqual({ [current]: ['AWSCURRENT'] });

    await expect(
      sm.send(new UpdateSecretVersionStageCommand({ SecretId: name, VersionStage: 'AWSCURRENT', RemoveFromVersionId: current })),
    ).rejects.toBeInstanceOf(InvalidParameterException);
    expect(await stages(name)).toEqual({ [current]: ['AWSCURRENT'] });
  });

  it('attaches a free label, accepts re-attaching to its holder, and refuses an unknown version', async () => {
    const { name, current, pending } = await withPending();
    await sm.send(new UpdateSecretVersionStageCommand({ SecretId: name, VersionStage: 'MYLABEL', MoveToVersionId: pending }));
    await sm.send(new UpdateSecretVersionStageCommand({ SecretId: name, VersionStage: 'MYLABEL', MoveToVersionId: pending }));
    expect(await stages(name)).toEqual({ [current]: ['AWSCURRENT'], [pending]: ['AWSPENDING', 'MYLABEL'] });
    await expect(
      sm.send(new UpdateSecretVersionStageCommand({ SecretId: name, VersionStage: 'MYLABEL', MoveToVersionId: randomUUID(), RemoveFromVersionId: pending })),
    ).rejects.toBeInstanceOf(ResourceNotFoundException);
    await expect(sm.send(new UpdateSecretVersionStageCommand({ SecretId: name, VersionStage: 'MYLABEL' }))).rejects.toBeInstanceOf(
      InvalidParameterException,
    );
  });

  it('keeps each label on one version when AWSPREVIOUS is pushed off an older version', async () => {
    const { name, current, pending } = await withPending();
    const third = await put(name, 'three', ['AWSPENDING']); // AWSPENDING moves from `pending` to `third`
    await sm.send(new UpdateSecretVersionStageCommand({ SecretId: name, VersionStage: 'AWSCURRENT', MoveToVersionId: third, RemoveFromVersionId: current }));
    const after = await stages(name);
    expect(after).toEqual({ [current]: ['AWSPREVIOUS'], [third]: ['AWSPENDING', 'AWSCURRENT'] });
    expect(after[pending]).toBeUndefined();
  });
});

describe('ListSecretVersionIds', () => {
  it('pages with MaxResults and NextToken', async () => {
    const { name } = await createWithValue('a');
    await put(name, 'b', ['L1']);
    await put(name, 'c', ['L2']);
    const seen: string[] = [];
    let nextToken: string | undefined;
    let pages = 0;
    do {
      const page = await sm.send(new ListSecretVersionIdsCommand({ SecretId: name, MaxResults: 2, NextToken: nextToken }));
      seen.push(...page.Versions!.map((v) => v.VersionId!));
      nextToken = page.NextToken;
      pages++;
    } while (nextToken);
    expect(pages).toBe(2);
    expect(new Set(seen).size).toBe(3);
  });
});

describe('RotateSecret', () => {
  /** A minimal rotation function in the shape of the AWS template, using the real SDK client. */
  function templateRotation(options: { failAt?: string; skipFinish?: boolean } = {}) {
    const calls: RotationEvent[] = [];
    const handler = async (event: RotationEvent) => {
      calls.push(event);
      const { SecretId: arn, ClientRequestToken: token, Step } = event;
      const meta = await sm.send(new DescribeSecretCommand({ SecretId: arn }));
      if (!meta.RotationEnabled) throw new Error('rotation not enabled');
      const versions = meta.VersionIdsToStages ?? {};
      if (!versions[token]) throw new Error('version has no stage for rotation');
      if (versions[token]!.includes('AWSCURRENT')) return;
      if (!versions[token]!.includes('AWSPENDING')) throw new Error('version not AWSPENDING');
      if (Step === options.failAt) throw new Error(`injected failure in ${Step}`);
      if (Step === 'createSecret') {
        const current = await sm.send(new GetSecretValueCommand({ SecretId: arn, VersionStage: 'AWSCURRENT' }));
        try {
          await sm.send(new GetSecretValueCommand({ SecretId: arn, VersionId: token, VersionStage: 'AWSPENDING' }));
        } catch (e) {
          if (!(e instanceof ResourceNotFoundException)) throw e;
          await sm.send(
            new PutSecretValueCommand({ SecretId: arn, ClientRequestToken: token, SecretString: `${current.SecretString}+1`, VersionStages: ['AWSPENDING'] }),
          );
        }
      }
      if (Step === 'finishSecret' && !options.skipFinish) {
        const currentVersion = Object.entries(versions).find(([, s]) => s.includes('AWSCURRENT'))![0];
        await sm.send(
          new UpdateSecretVersionStageCommand({ SecretId: arn, VersionStage: 'AWSCURRENT', MoveToVersionId: token, RemoveFromVersionId: currentVersion }),
        );
        await sm.send(new UpdateSecretVersionStageCommand({ SecretId: arn, VersionStage: 'AWSPENDING', RemoveFromVersionId: token }));
      }
    };
    return { calls, handler };
  }

  it('records the rotation configuration and runs createSecret, setSecret, testSecret, finishSecret with one token', async () => {
    const { name, arn, versionId: old } = await createWithValue('k');
    const rotation = templateRotation();
    standIn.setRotationHandler(rotation.handler);
    const out = await sm.send(new RotateSecretCommand({ SecretId: name, RotationLambdaARN: LAMBDA_ARN, RotationRules: { AutomaticallyAfterDays: 90 } }));

    expect(rotation.calls.map((c) => c.Step)).toEqual(['createSecret', 'setSecret', 'testSecret', 'finishSecret']);
    expect(new Set(rotation.calls.map((c) => c.ClientRequestToken))).toEqual(new Set([out.VersionId]));
    expect(rotation.calls.every((c) => c.SecretId === arn && typeof c.RotationToken === 'string')).toBe(true);

    const described = await sm.send(new DescribeSecretCommand({ SecretId: name }));
    expect(described).toMatchObject({
      RotationEnabled: true,
      RotationLambdaARN: LAMBDA_ARN,
      RotationRules: { AutomaticallyAfterDays: 90 },
      VersionIdsToStages: { [old]: ['AWSPREVIOUS'], [out.VersionId!]: ['AWSCURRENT'] },
    });
    expect(described.LastRotatedDate).toBeInstanceOf(Date);
    expect(described.NextRotationDate!.getTime() - described.LastRotatedDate!.getTime()).toBe(90 * 86_400_000);
    expect((await sm.send(new GetSecretValueCommand({ SecretId: name }))).SecretString).toBe('k+1');
    expect(standIn.rotations().at(-1)).toMatchObject({ secretArn: arn, versionId: out.VersionId, ok: true });
  });

  it('starts each rotation with an empty AWSPENDING version named by the ClientRequestToken', async () => {
    const { name } = await createWithValue('k');
    const token = randomUUID();
    const seen: Array<Record<string, string[]>> = [];
    let pendingRead: unknown;
    standIn.setRotationHandler(async (event) => {
      if (event.Step !== 'createSecret') return;
      seen.push(await stages(name));
      pendingRead = await sm
        .send(new GetSecretValueCommand({ SecretId: name, VersionId: event.ClientRequestToken, VersionStage: 'AWSPENDING' }))
        .catch((e: unknown) => e);
      throw new Error('stop here');
    });
    await expect(sm.send(new RotateSecretCommand({ SecretId: name, RotationLambdaARN: LAMBDA_ARN, ClientRequestToken: token }))).rejects.toBeInstanceOf(
      InvalidRequestException,
    );
    expect(seen[0]![token]).toEqual(['AWSPENDING']);
    expect(pendingRead).toBeInstanceOf(ResourceNotFoundException);
  });

  it('reports a failed step, leaves AWSCURRENT in place, and reattempts the unfinished rotation with the same token', async () => {
    const { name, versionId: old } = await createWithValue('k');
    const failing = templateRotation({ failAt: 'testSecret' });
    standIn.setRotationHandler(failing.handler);
    const error = await sm
      .send(new RotateSecretCommand({ SecretId: name, RotationLambdaARN: LAMBDA_ARN }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestException);
    expect((error as Error).message).toMatch(/failed at step testSecret: Error: injected failure in testSecret/);
    expect(failing.calls.map((c) => c.Step)).toEqual(['createSecret', 'setSecret', 'testSecret']);
    const token = failing.calls[0]!.ClientRequestToken;
    expect(await stages(name)).toEqual({ [old]: ['AWSCURRENT'], [token]: ['AWSPENDING'] });
    expect((await sm.send(new GetSecretValueCommand({ SecretId: name }))).SecretString).toBe('k');
    expect(standIn.rotations().at(-1)).toMatchObject({ ok: false, failedStep: 'testSecret', completedSteps: ['createSecret', 'setSecret'] });

    const fixed = templateRotation();
    standIn.setRotationHandler(fixed.handler);
    await expect(sm.send(new RotateSecretCommand({ SecretId: name }))).rejects.toThrow(/previous rotation isn't complete/);
    expect(fixed.calls.map((c) => c.ClientRequestToken)).toEqual([token, token, token, token]);
    expect(await stages(name)).toEqual({ [old]: ['AWSPREVIOUS'], [token]: ['AWSCURRENT'] });
    expect((await sm.send(new GetSecretValueCommand({ SecretId: name }))).SecretString).toBe('k+1');
  });

  it('reports a finishSecret that did not make the pending version AWSCURRENT', async () => {
    const { name, versionId: old } = await createWithValue('k');
    standIn.setRotationHandler(templateRotation({ skipFinish: true }).handler);
    await expect(sm.send(new RotateSecretCommand({ SecretId: name, RotationLambdaARN: LAMBDA_ARN }))).rejects.toThrow(
      /failed at step finishSecret: .*is not AWSCURRENT/,
    );
    expect((await stages(name))[old]).toEqual(['AWSCURRENT']);
  });

  it('needs a Lambda ARN, and without a handler only records the configuration when RotateImmediately is false', async () => {
    const { name } = await createWithValue('k');
    await expect(sm.send(new RotateSecretCommand({ SecretId: name }))).rejects.toBeInstanceOf(InvalidRequestException);
    await sm.send(new RotateSecretCommand({ SecretId: name, RotationLambdaARN: LAMBDA_ARN, RotateImmediately: false, RotationRules: { ScheduleExpression: 'rate(90 days)' } }));
    expect(await sm.send(new DescribeSecretCommand({ SecretId: name }))).toMatchObject({
      RotationEnabled: true,
      RotationRules: { ScheduleExpression: 'rate(90 days)', AutomaticallyAfterDays: 90 },
    });
    await expect(sm.send(new RotateSecretCommand({ SecretId: name }))).rejects.toThrow(/no rotation handler/);
  });

  it('answers a repeated RotateSecret with a finished token without rotating again', async () => {
    const { name } = await createWithValue('k');
    const rotation = templateRotation();
    standIn.setRotationHandler(rotation.handler);
    const token = randomUUID();
    await sm.send(new RotateSecretCommand({ SecretId: name, RotationLambdaARN: LAMBDA_ARN, ClientRequestToken: token }));
    const again = await sm.send(new RotateSecretCommand({ SecretId: name, ClientRequestToken: token }));
    expect(again.VersionId).toBe(token);
    expect(rotation.calls).toHaveLength(4);
  });
});

describe('DeleteSecret and RestoreSecret', () => {
  it('schedules deletion (reads refused), restores, and force-deletes', async () => {
    const { name } = await createWithValue('k');
    const deleted = await sm.send(new DeleteSecretCommand({ SecretId: name, RecoveryWindowInDays: 7 }));
    expect(deleted.DeletionDate).toBeInstanceOf(Date);
    await expect(sm.send(new GetSecretValueCommand({ SecretId: name }))).rejects.toBeInstanceOf(InvalidRequestException);
    expect((await sm.send(new DescribeSecretCommand({ SecretId: name }))).DeletedDate).toBeInstanceOf(Date);
    await expect(sm.send(new CreateSecretCommand({ Name: name, SecretString: 'x' }))).rejects.toBeInstanceOf(InvalidRequestException);

    await sm.send(new RestoreSecretCommand({ SecretId: name }));
    expect((await sm.send(new GetSecretValueCommand({ SecretId: name }))).SecretString).toBe('k');

    await sm.send(new DeleteSecretCommand({ SecretId: name, ForceDeleteWithoutRecovery: true }));
    await expect(sm.send(new DescribeSecretCommand({ SecretId: name }))).rejects.toBeInstanceOf(ResourceNotFoundException);
  });
});

/** Sends `headers` and `body` to the stand-in as they are. */
function sendRaw(headers: Record<string, string>, body: string): Promise<RawAnswer> {
  return postRaw(standIn.port, headers, body);
}

/** A request body as text (the SDK serializes JSON into a Uint8Array). */
function textOf(body: string | Uint8Array): string {
  return typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
}

class Sent extends Error {
  constructor(readonly answer: RawAnswer) {
    super('sent outside the SDK');
  }
}

/**
 * Sends a GetSecretValue request signed by the real SDK signer with `credentials`, after
 * `edit` changed it (before signing: the signature covers the edit), and returns the raw answer.
 * `tamper` changes the signed request before it is sent (the signature no longer covers it).
 */
async function sendSigned(
  secretId: string,
  options: {
    credentials?: SigV4Credentials;
    edit?: (request: { headers: Record<string, string>; body: string }) => void;
    tamper?: (request: { headers: Record<string, string>; body: string }) => void;
  } = {},
): Promise<RawAnswer> {
  const client = new SecretsManagerClient({ ...standIn.clientConfig, credentials: options.credentials ?? standIn.clientConfig.credentials, maxAttempts: 1 });
  type Request = { headers: Record<string, string>; body: string | Uint8Array };
  type Next = (args: { request: Request }) => Promise<unknown>;
  client.middlewareStack.addRelativeTo(
    ((next: Next) => async (args: { request: Request }) => {
      const request = args.request as { headers: Record<string, string>; body: string };
      request.body = textOf(request.body);
      options.edit?.(request);
      request.headers['content-length'] = String(Buffer.byteLength(request.body));
      return next(args);
    }) as never,
    { relation: 'before', toMiddleware: 'httpSigningMiddleware', name: 'editBeforeSigning' },
  );
  client.middlewareStack.addRelativeTo(
    (() => async (args: { request: Request }) => {
      const request = { headers: { ...args.request.headers }, body: textOf(args.request.body) };
      options.tamper?.(request);
      throw new Sent(await sendRaw(request.headers, request.body));
    }) as never,
    { relation: 'after', toMiddleware: 'httpSigningMiddleware', name: 'sendOutsideTheSdk' },
  );
  try {
    await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    throw new Error('the request was not sent');
  } catch (error) {
    if (error instanceof Sent) return error.answer;
    throw error;
  } finally {
    client.destroy();
  }
}

describe('wire protocol', () => {
  it('answers unknown operations and bad JSON with typed JSON 1.1 errors', async () => {
    const call = (target: string, body: string) =>
      sendSigned('unused', {
        edit: (request) => {
          request.headers['x-amz-target'] = target;
          request.body = body;
        },
      });
    const unknown = await call('secretsmanager.ListSecrets', '{}');
    expect(unknown.status).toBe(400);
    expect(unknown.contentType).toBe('application/x-amz-json-1.1');
    expect(unknown.json).toMatchObject({ __type: 'UnknownOperationException' });
    const bad = await call('secretsmanager.GetSecretValue', '{not json');
    expect(bad.json).toMatchObject({ __type: 'SerializationException' });
  });
});

describe('who may call: its own credentials, on a loopback Host', () => {
  const SECRET_VALUE = 'the-demo-private-key-stands-here';
  let secretName: string;
  beforeAll(async () => {
    secretName = uniqueName();
    await sm.send(new CreateSecretCommand({ Name: secretName, SecretString: SECRET_VALUE }));
  });

  it('serves a request signed with its credentials and addressed to 127.0.0.1, localhost or [::1] with its port', async () => {
    for (const host of [`127.0.0.1:${standIn.port}`, `localhost:${standIn.port}`, `[::1]:${standIn.port}`, `LOCALHOST:${standIn.port}`]) {
      const answer = await sendSigned(secretName, { edit: (request) => void (request.headers.host = host) });
      expect([host, answer.status, answer.json.SecretString]).toEqual([host, 200, SECRET_VALUE]);
    }
  });

  it('refuses a request whose Host is not a loopback name (DNS rebinding), even when it is signed: 403 AccessDeniedException', async () => {
    for (const host of ['evil.example', `evil.example:${standIn.port}`, `127.0.0.1:${standIn.port + 1}`, '127.0.0.1', `127.0.0.2:${standIn.port}`]) {
      const answer = await sendSigned(secretName, { edit: (request) => void (request.headers.host = host) });
      expect([host, answer.status, answer.json.__type]).toEqual([host, 403, 'AccessDeniedException']);
      expect(answer.json.message).toContain(`only requests addressed to 127.0.0.1:${standIn.port}, localhost:${standIn.port}, [::1]:${standIn.port}`);
      expect(answer.body).not.toContain(SECRET_VALUE);
    }
    // What a browser on a rebinding page sends: no signature, a foreign Host.
    const browser = await sendRaw(
      { host: `evil.example:${standIn.port}`, 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'secretsmanager.GetSecretValue' },
      JSON.stringify({ SecretId: secretName }),
    );
    expect([browser.status, browser.json.__type]).toEqual([403, 'AccessDeniedException']);
  });

  it('refuses an unsigned request: 400 MissingAuthenticationTokenException, in the service\'s error shape', async () => {
    const answer = await sendRaw(
      { host: `127.0.0.1:${standIn.port}`, 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'secretsmanager.GetSecretValue' },
      JSON.stringify({ SecretId: secretName }),
    );
    expect(answer.status).toBe(400);
    expect(answer.contentType).toBe('application/x-amz-json-1.1');
    expect(answer.json).toMatchObject({ __type: 'MissingAuthenticationTokenException', message: expect.stringContaining('Request is missing Authentication Token') });
    expect(answer.body).not.toContain(SECRET_VALUE);
  });

  it('refuses a request signed with other credentials: UnrecognizedClientException, or InvalidSignatureException for a wrong secret key', async () => {
    const stranger = new SecretsManagerClient({ ...standIn.clientConfig, credentials: newStandInCredentials(), maxAttempts: 1 });
    const wrongSecret = new SecretsManagerClient({
      ...standIn.clientConfig,
      credentials: { accessKeyId: standIn.clientConfig.credentials.accessKeyId, secretAccessKey: newStandInCredentials().secretAccessKey },
      maxAttempts: 1,
    });
    try {
      const refused = async (client: SecretsManagerClient) => {
        const error = (await client.send(new GetSecretValueCommand({ SecretId: secretName })).catch((e: unknown) => e)) as Error & { $metadata?: { httpStatusCode?: number } };
        return [error.name, error.$metadata?.httpStatusCode, error.message.includes(SECRET_VALUE)];
      };
      expect(await refused(stranger)).toEqual(['UnrecognizedClientException', 400, false]);
      expect(await refused(wrongSecret)).toEqual(['InvalidSignatureException', 400, false]);
    } finally {
      stranger.destroy();
      wrongSecret.destroy();
    }
    const raw = await sendSigned(secretName, { credentials: newStandInCredentials() });
    expect(raw.json).toMatchObject({ __type: 'UnrecognizedClientException', message: expect.stringContaining('The security token included in the request is invalid.') });
  });

  it('refuses a signed request changed after signing, signed for another region, or signed too long ago: InvalidSignatureException', async () => {
    // Same length, so Content-Length still fits: only the signature can tell.
    const tampered = await sendSigned(secretName, { tamper: (request) => void (request.body = request.body.replace(secretName, `${secretName.slice(0, -1)}~`)) });
    expect([tampered.status, tampered.json.__type]).toEqual([400, 'InvalidSignatureException']);
    const retargeted = await sendSigned(secretName, { tamper: (request) => void (request.headers['x-amz-target'] = 'secretsmanager.DeleteSecret') });
    expect([retargeted.status, retargeted.json.__type]).toEqual([400, 'InvalidSignatureException']);

    const otherRegion = new SecretsManagerClient({ ...standIn.clientConfig, region: 'eu-west-1', maxAttempts: 1 });
    const stale = new SecretsManagerClient({ ...standIn.clientConfig, systemClockOffset: -20 * 60_000, maxAttempts: 1 });
    try {
      await expect(otherRegion.send(new GetSecretValueCommand({ SecretId: secretName }))).rejects.toMatchObject({
        name: 'InvalidSignatureException',
        message: expect.stringContaining('Credential should be scoped to a valid region'),
      });
      await expect(stale.send(new GetSecretValueCommand({ SecretId: secretName }))).rejects.toMatchObject({
        name: 'InvalidSignatureException',
        message: expect.stringContaining('Signature expired'),
      });
    } finally {
      otherRegion.destroy();
      stale.destroy();
    }
  });

  it('refuses a request whose X-Amz-Target (the operation) is not signed: a captured read cannot be replayed as a delete', async () => {
    // Signed without X-Amz-Target, which is set after signing: whoever holds the request picks the operation.
    const retargeted = await sendSigned(secretName, {
      edit: (request) => void delete request.headers['x-amz-target'],
      tamper: (request) => void (request.headers['x-amz-target'] = 'secretsmanager.DeleteSecret'),
    });
    expect([retargeted.status, retargeted.json.__type]).toEqual([400, 'IncompleteSignatureException']);
    expect(retargeted.json.message).toContain('x-amz-target is not signed');
    const unsignedAmzHeader = await sendSigned(secretName, { tamper: (request) => void (request.headers['x-amz-meta'] = 'added later') });
    expect([unsignedAmzHeader.status, unsignedAmzHeader.json.__type]).toEqual([400, 'IncompleteSignatureException']);
    // The secret is untouched.
    expect((await sm.send(new GetSecretValueCommand({ SecretId: secretName }))).SecretString).toBe(SECRET_VALUE);
  });

  it('listens on 127.0.0.1 only: a TCP connect to any other address of this machine is refused', async () => {
    const others = nonLoopbackAddresses();
    expect(standIn.endpoint).toBe(`http://127.0.0.1:${standIn.port}`);
    expect(await tcpConnect('127.0.0.1', standIn.port)).toBe('connected');
    expect(await probeAll(others, standIn.port)).toEqual(others.map((address) => `${address} refused`));
  });

  it('makes a fresh random key pair when started without one', async () => {
    const other = await startSecretsManagerStandIn();
    try {
      expect(other.clientConfig.credentials.accessKeyId).toMatch(/^SIGNETLOCAL[A-Z2-7]{9}$/);
      expect(other.clientConfig.credentials).not.toEqual(standIn.clientConfig.credentials);
    } finally {
      await other.stop();
    }
  });
});

describe('per-home credentials (what `npm start` uses)', () => {
  it('are created once, mode 0600, reused afterwards; the SDK signing with them is served, another home\'s are refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-home-'));
    const otherDir = mkdtempSync(join(tmpdir(), 'sm-home-'));
    try {
      const file = join(dir, 'secrets-manager-credentials.json');
      const created = loadOrCreateStandInCredentials(file);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(loadOrCreateStandInCredentials(file)).toEqual(created);
      expect(readFileSync(file, 'utf8')).toContain(created.secretAccessKey);

      const homeStandIn = await startSecretsManagerStandIn({ credentials: readStandInCredentials(file) });
      const mine = new SecretsManagerClient({ endpoint: homeStandIn.endpoint, region: homeStandIn.region, credentials: readStandInCredentials(file), maxAttempts: 1 });
      const theirs = new SecretsManagerClient({
        endpoint: homeStandIn.endpoint,
        region: homeStandIn.region,
        credentials: loadOrCreateStandInCredentials(join(otherDir, 'secrets-manager-credentials.json')),
        maxAttempts: 1,
      });
      try {
        await mine.send(new CreateSecretCommand({ Name: 'signet/local/demo', SecretString: 'key' }));
        expect((await mine.send(new GetSecretValueCommand({ SecretId: 'signet/local/demo' }))).SecretString).toBe('key');
        await expect(theirs.send(new GetSecretValueCommand({ SecretId: 'signet/local/demo' }))).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
      } finally {
        mine.destroy();
        theirs.destroy();
        await homeStandIn.stop();
      }

      chmodSync(file, 0o644);
      expect(() => readStandInCredentials(file)).toThrow(/is readable by other users \(mode 0644\).*Delete it so `npm start` creates new credentials/);
      expect(() => readStandInCredentials(join(dir, 'missing.json'))).toThrow(/does not exist: start the local gateway \(`npm start`\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});

describe('statePath', () => {
  it('keeps secrets across a restart in a new 0600 file, written neither into an existing file nor through a link', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-standin-'));
    const statePath = join(dir, 'nested', 'secrets.json');
    try {
      // A state file someone else left readable, and a link where a predictable temporary name would be: neither is written through.
      mkdirSync(join(dir, 'nested'), { mode: 0o700 });
      writeFileSync(statePath, JSON.stringify({ format: 'signet-secrets-manager-stand-in/1', secrets: [] }), { mode: 0o644 });
      const decoy = join(dir, 'decoy');
      symlinkSync(decoy, `${statePath}.${process.pid}.tmp`);
      const first = await startSecretsManagerStandIn({ statePath });
      const c1 = new SecretsManagerClient({ ...first.clientConfig, maxAttempts: 1 });
      await c1.send(new CreateSecretCommand({ Name: 'persisted', SecretString: 'kept' }));
      await c1.send(new PutSecretValueCommand({ SecretId: 'persisted', SecretString: 'kept2' }));
      c1.destroy();
      await first.stop();
      expect(statSync(statePath).mode & 0o777).toBe(0o600);
      expect(existsSync(decoy)).toBe(false);

      const second = await startSecretsManagerStandIn({ statePath });
      const c2 = new SecretsManagerClient({ ...second.clientConfig, maxAttempts: 1 });
      expect((await c2.send(new GetSecretValueCommand({ SecretId: 'persisted' }))).SecretString).toBe('kept2');
      expect((await c2.send(new GetSecretValueCommand({ SecretId: 'persisted', VersionStage: 'AWSPREVIOUS' }))).SecretString).toBe('kept');
      c2.destroy();
      await second.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a state file that is not JSON', () => {
  it('is refused with a sentence that quotes none of its text (it holds private keys)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-standin-'));
    const statePath = join(dir, 'secrets.json');
    try {
      writeFileSync(statePath, '{"format":"signet-secrets-manager-stand-in/1","secrets":[{"SecretString":"MIIEvQIBADANBgkqhkiG9w0BAQEF" x}]}', { mode: 0o600 });
      const failure = await startSecretsManagerStandIn({ statePath }).then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      expect(failure?.message).toBe(`${statePath} is not valid JSON; move it away or delete it (it holds the local signing secrets).`);
      expect(failure?.cause).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
