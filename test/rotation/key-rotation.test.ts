/**
 * KeyRotation against DynamoDB Local and the Secrets Manager stand-in, with the real SDK clients:
 * the four steps as the service runs them, idempotent reruns, the protocol's refusals, the
 * previous key's grace (injected clock), the first rotation from the bootstrap value, the
 * one-key-one-client rule, the settle wait, and logs free of key material.
 */
import type { KeyTypeName } from '../../lambda/core/keys';
import { randomUUID } from 'node:crypto';
import { GetSecretValueCommand, InvalidRequestException, PutSecretValueCommand, RotateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { SignetError, isSignetError } from '../../lambda/core/errors';
import { importPrivateKey, spkiPemOf } from '../../lambda/core/keys';
import { KeyRotation, MIN_PENDING_KEY_TTL_S } from '../../lambda/rotation/key-rotation';
import { ROTATION_STEPS, RotationEvent, StepResult } from '../../lambda/rotation/rotation-types';
import { parseSigningSecret } from '../../lambda/signer/signing-secret';
import { DynamoClientStore } from '../../lambda/store/client-store';
import {
  GRACE_S,
  RotatingClient,
  RotationWorld,
  TestClock,
  authorizerFor,
  callWith,
  newRotatingClient,
  outcome,
  recordingLogger,
  rotationFor,
  stagesOf,
  startRotationWorld,
  storeFor,
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

interface Setup {
  clock: TestClock;
  store: DynamoClientStore;
  client: RotatingClient;
  rotation: KeyRotation;
}

async function setup(options: { bootstrapOnly?: boolean; rotationEnabled?: boolean; graceS?: number; keyType?: KeyTypeName; settleMs?: number; sleep?: (ms: number) => Promise<void> } = {}): Promise<Setup> {
  const clock = testClock();
  const store = storeFor(world, clock);
  const client = await newRotatingClient(world, store, clock, options);
  const rotation = rotationFor(world, clock, store, { graceS: options.graceS ?? GRACE_S, ...(options.settleMs !== undefined ? { settleMs: options.settleMs, sleep: options.sleep } : {}) });
  return { clock, store, client, rotation };
}

/** RotateSecret on the stand-in, which invokes `rotation` for the four steps; the new version id. */
async function rotateThroughService(s: Setup): Promise<string> {
  world.standIn.setRotationHandler((event) => s.rotation.run(event));
  const out = await world.sm.send(new RotateSecretCommand({ SecretId: s.client.secretName }));
  return out.VersionId!;
}

async function currentSecret(secretId: string) {
  const out = await world.sm.send(new GetSecretValueCommand({ SecretId: secretId }));
  return { versionId: out.VersionId!, ...parseSigningSecret(out.SecretString!) };
}

async function rejection(promise: Promise<unknown>): Promise<SignetError> {
  try {
    await promise;
  } catch (error) {
    if (isSignetError(error)) return error;
    throw new Error(`expected a SignetError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected a rejection');
}

const iso = (ms: number): string => new Date(ms).toISOString();

describe('a full rotation through the four steps', () => {
  test('moves AWSCURRENT to a new key, registers it, and gives the previous key now + grace', async () => {
    const s = await setup();
    const startedMs = s.clock.ms;
    const versionId = await rotateThroughService(s);

    expect(world.standIn.rotations().at(-1)).toMatchObject({ ok: true, completedSteps: [...ROTATION_STEPS] });
    expect(await stagesOf(world, s.client.secretName)).toEqual({ [s.client.initialVersionId]: ['AWSPREVIOUS'], [versionId]: ['AWSCURRENT'] });

    const current = await currentSecret(s.client.secretName);
    expect(current.versionId).toBe(versionId);
    expect(current.secret.clientId).toBe(s.client.clientId);
    expect(current.secret.createdAt).toBe(iso(startedMs));
    expect(current.key.fingerprint).not.toBe(s.client.initialKey.fingerprint);
    expect(current.key.bits).toBe(2048);
    // private.pkcs8.b64's form: headerless Base64 PKCS#8, which imports to the same key.
    expect(current.secret.privateKey).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(importPrivateKey(current.secret.privateKey).fingerprint).toBe(current.key.fingerprint);

    const record = (await s.store.getClient(s.client.clientId, { consistentRead: true }))!;
    expect(record.keys.map((k) => [k.fingerprint, k.notAfter])).toEqual([
      [s.client.initialKey.fingerprint, iso(startedMs + GRACE_S * 1000)],
      [current.key.fingerprint, undefined],
    ]);
    expect(record.keys[1]!.spkiPem).toBe(spkiPemOf(current.key.publicKey));

    const audit = await s.store.listAudit(s.client.clientId);
    expect(audit.items.filter((e) => e.actor === 'rotation').map((e) => e.action).reverse()).toEqual(['key.added', 'key.not_after_set', 'key.not_after_set']);

    const deps = authorizerFor(s.store, s.clock);
    expect(outcome(await callWith(deps, s.client.clientId, s.client.initialKey, s.clock))).toBe('allowed');
    expect(outcome(await callWith(deps, s.client.clientId, current.key, s.clock))).toBe('allowed');
  });

  test('the previous key verifies until now + grace and fails with key_expired after it; the next rotation removes it', async () => {
    const s = await setup({ graceS: 3_600 });
    await rotateThroughService(s);
    const second = await currentSecret(s.client.secretName);
    const deps = authorizerFor(s.store, s.clock);

    s.clock.advanceS(3_600); // exactly at the not-after: still accepted
    expect(outcome(await callWith(deps, s.client.clientId, s.client.initialKey, s.clock))).toBe('allowed');
    s.clock.advanceS(1);
    expect(outcome(await callWith(deps, s.client.clientId, s.client.initialKey, s.clock))).toBe('key_expired');
    expect(outcome(await callWith(deps, s.client.clientId, second.key, s.clock))).toBe('allowed');

    await rotateThroughService(s);
    const third = await currentSecret(s.client.secretName);
    const record = (await s.store.getClient(s.client.clientId, { consistentRead: true }))!;
    expect(record.keys.map((k) => k.fingerprint)).toEqual([second.key.fingerprint, third.key.fingerprint]);
    expect(record.keys[0]!.notAfter).toBe(iso(s.clock.ms + 3_600_000));
    expect(outcome(await callWith(deps, s.client.clientId, s.client.initialKey, s.clock))).toBe('signature_mismatch');
    expect(await s.store.findByFingerprint(s.client.initialKey.fingerprint)).toBeUndefined();
  });

  test('the first rotation from the bootstrap value {"clientId"} writes the first key and leaves other keys alone', async () => {
    const s = await setup({ bootstrapOnly: true });
    const versionId = await rotateThroughService(s);
    const current = await currentSecret(s.client.secretName);
    expect(current.versionId).toBe(versionId);
    expect(current.secret.clientId).toBe(s.client.clientId);
    const record = (await s.store.getClient(s.client.clientId, { consistentRead: true }))!;
    expect(record.keys.map((k) => [k.fingerprint, k.notAfter])).toEqual([
      [s.client.initialKey.fingerprint, undefined],
      [current.key.fingerprint, undefined],
    ]);
  });

  test.each(['ed25519', 'ecdsa-p256'] as const)('a %s key rotates to a new key of the same type, registered with its algorithm, and both verify in the grace', async (keyType) => {
    const s = await setup({ keyType });
    await rotateThroughService(s);
    const current = await currentSecret(s.client.secretName);
    expect(current.key.algorithm).toBe(s.client.initialKey.algorithm);
    expect(current.key.fingerprint).not.toBe(s.client.initialKey.fingerprint);
    const record = (await s.store.getClient(s.client.clientId, { consistentRead: true }))!;
    expect(record.keys.map((k) => k.algorithm)).toEqual([s.client.initialKey.algorithm, s.client.initialKey.algorithm]);
    const deps = authorizerFor(s.store, s.clock);
    expect(outcome(await callWith(deps, s.client.clientId, s.client.initialKey, s.clock))).toBe('allowed');
    expect(outcome(await callWith(deps, s.client.clientId, current.key, s.clock))).toBe('allowed');
  });

  test('generates keys of the configured size', async () => {
    const s = await setup();
    const rotation = rotationFor(world, s.clock, s.store, { keyBits: 3072 });
    world.standIn.setRotationHandler((event) => rotation.run(event));
    await world.sm.send(new RotateSecretCommand({ SecretId: s.client.secretName }));
    expect((await currentSecret(s.client.secretName)).key.bits).toBe(3072);
  });
});

describe('idempotence', () => {
  test('each step invoked twice leaves the same state as once', async () => {
    const s = await setup();
    const results: Array<[StepResult, StepResult]> = [];
    const pendingValues: string[] = [];
    world.standIn.setRotationHandler(async (event) => {
      const first = await s.rotation.run(event);
      if (event.Step === 'createSecret') pendingValues.push(await pendingValue(s, event));
      const second = await s.rotation.run(event);
      if (event.Step === 'createSecret') pendingValues.push(await pendingValue(s, event));
      results.push([first, second]);
    });
    const versionId = (await world.sm.send(new RotateSecretCommand({ SecretId: s.client.secretName }))).VersionId!;

    expect(results.map(([a, b]) => [a.step, a.outcome, b.outcome])).toEqual([
      ['createSecret', 'done', 'unchanged'],
      ['setSecret', 'done', 'unchanged'],
      ['testSecret', 'done', 'done'],
      ['finishSecret', 'done', 'already_current'],
    ]);
    expect(pendingValues[0]).toBe(pendingValues[1]);
    expect(await stagesOf(world, s.client.secretName)).toEqual({ [s.client.initialVersionId]: ['AWSPREVIOUS'], [versionId]: ['AWSCURRENT'] });
    const record = (await s.store.getClient(s.client.clientId, { consistentRead: true }))!;
    expect(record.keys).toHaveLength(2);
    // created + key.added + two not-after changes: the reruns wrote nothing.
    expect(record.version).toBe(4);

    // The whole sequence again, after the finish: every step is a no-op.
    for (const step of ROTATION_STEPS) {
      expect((await s.rotation.run({ Step: step, SecretId: s.client.secretArn, ClientRequestToken: versionId })).outcome).toBe('already_current');
    }
    expect((await s.store.getClient(s.client.clientId, { consistentRead: true }))!.version).toBe(4);
  });

  test('setSecret on a retry after the pending validity ran out renews it, and the rotation completes, waiting for caches from the renewal', async () => {
    const waits: number[] = [];
    // settleMs as the authorizers' cache TTL: one may have cached the record while the key had lapsed.
    const s = await setup({ graceS: 0, settleMs: 60_000, sleep: async (ms) => void waits.push(ms) });
    const token = randomUUID();
    await s.rotation.createPendingVersion(s.client.secretArn, token);
    const event = (Step: RotationEvent['Step']): RotationEvent => ({ Step, SecretId: s.client.secretArn, ClientRequestToken: token });
    await s.rotation.run(event('setSecret'));
    const pending = (await s.store.getClient(s.client.clientId, { consistentRead: true }))!.keys[1]!;
    expect(pending.notAfter).toBe(iso(s.clock.ms + MIN_PENDING_KEY_TTL_S * 1000));

    s.clock.advanceS(MIN_PENDING_KEY_TTL_S + 1);
    expect((await rejection(s.rotation.run(event('testSecret')))).code).toBe('key_expired');
    expect((await s.rotation.run(event('setSecret'))).outcome).toBe('done');
    await s.rotation.run(event('testSecret'));
    s.clock.advanceS(5);
    await s.rotation.run(event('finishSecret'));
    expect(waits).toEqual([55_000]);
    const record = (await s.store.getClient(s.client.clientId, { consistentRead: true }))!;
    // grace 0: the previous key's not-after is now, so the same finish's cleanup removed it.
    expect(record.keys.map((k) => [k.fingerprint, k.notAfter])).toEqual([[pending.fingerprint, undefined]]);
    const audit = (await s.store.listAudit(s.client.clientId)).items;
    expect(audit.slice(0, 2).map((e) => [e.action, e.keysRemoved ?? e.keyNotAfter?.to])).toEqual([
      ['key.removed', [s.client.initialKey.fingerprint]],
      ['key.not_after_set', iso(s.clock.ms)],
    ]);
  });
});

describe('the protocol checks', () => {
  test('a secret without rotation enabled is refused before any change', async () => {
    const s = await setup({ rotationEnabled: false });
    const token = randomUUID();
    await world.sm.send(new PutSecretValueCommand({ SecretId: s.client.secretName, ClientRequestToken: token, SecretString: '{"clientId":"x"}', VersionStages: ['AWSPENDING'] }));
    for (const step of ROTATION_STEPS) {
      const error = await rejection(s.rotation.run({ Step: step, SecretId: s.client.secretName, ClientRequestToken: token }));
      expect(error.code).toBe('invalid_request');
      expect(error.message).toMatch(/is not enabled for rotation/);
    }
    expect((await s.store.getClient(s.client.clientId, { consistentRead: true }))!.version).toBe(1);
    expect((await currentSecret(s.client.secretName)).versionId).toBe(s.client.initialVersionId);
  });

  test('a token that is not AWSPENDING, or names no version, is refused', async () => {
    const s = await setup();
    const custom = randomUUID();
    await world.sm.send(new PutSecretValueCommand({ SecretId: s.client.secretName, ClientRequestToken: custom, SecretString: '{"clientId":"x"}', VersionStages: ['CUSTOM'] }));
    for (const step of ROTATION_STEPS) {
      const notPending = await rejection(s.rotation.run({ Step: step, SecretId: s.client.secretName, ClientRequestToken: custom }));
      expect([notPending.code, notPending.message]).toEqual(['invalid_request', expect.stringMatching(/is not set as AWSPENDING/)]);
      const unknown = await rejection(s.rotation.run({ Step: step, SecretId: s.client.secretName, ClientRequestToken: randomUUID() }));
      expect([unknown.code, unknown.message]).toEqual(['invalid_request', expect.stringMatching(/has no stage for rotation/)]);
    }
    // A rotation the stand-in starts is refused the same way when the handler is handed the wrong token.
    world.standIn.setRotationHandler((event) => s.rotation.run({ ...event, ClientRequestToken: custom }));
    await expect(world.sm.send(new RotateSecretCommand({ SecretId: s.client.secretName }))).rejects.toBeInstanceOf(InvalidRequestException);
    expect((await currentSecret(s.client.secretName)).versionId).toBe(s.client.initialVersionId);
    expect((await s.store.getClient(s.client.clientId, { consistentRead: true }))!.version).toBe(1);
  });

  test('a token already AWSCURRENT: every step returns without a change', async () => {
    const s = await setup();
    for (const step of ROTATION_STEPS) {
      expect(await s.rotation.run({ Step: step, SecretId: s.client.secretName, ClientRequestToken: s.client.initialVersionId })).toEqual({ step, outcome: 'already_current' });
    }
    expect(await stagesOf(world, s.client.secretName)).toEqual({ [s.client.initialVersionId]: ['AWSCURRENT'] });
    expect((await s.store.getClient(s.client.clientId, { consistentRead: true }))!.version).toBe(1);
  });
});

describe('registry rules and safety', () => {
  test('a pending key already registered on another client is refused (one key, one client); AWSCURRENT stays', async () => {
    const s = await setup();
    const token = randomUUID();
    await s.rotation.createPendingVersion(s.client.secretArn, token);
    const pending = parseSigningSecret(await pendingValue(s, { Step: 'createSecret', SecretId: s.client.secretArn, ClientRequestToken: token }));
    await s.store.createClient(
      { name: 'Someone else', networkWhitelist: ['0.0.0.0'], roles: ['demo'], key: { fingerprint: pending.key.fingerprint, spkiPem: spkiPemOf(pending.key.publicKey) } },
      'test',
    );
    const error = await rejection(s.rotation.run({ Step: 'setSecret', SecretId: s.client.secretArn, ClientRequestToken: token }));
    expect(error.code).toBe('key_already_registered');
    expect((await s.store.getClient(s.client.clientId, { consistentRead: true }))!.keys).toHaveLength(1);
    expect((await rejection(s.rotation.run({ Step: 'finishSecret', SecretId: s.client.secretArn, ClientRequestToken: token }))).code).toBe('not_found');
    expect((await currentSecret(s.client.secretName)).versionId).toBe(s.client.initialVersionId);
  });

  test('a client missing from the registry fails setSecret with not_found', async () => {
    const s = await setup();
    const orphan = await newRotatingClient(world, s.store, s.clock);
    await world.sm.send(
      new PutSecretValueCommand({ SecretId: orphan.secretName, ClientRequestToken: randomUUID(), SecretString: JSON.stringify({ clientId: 'c_AAAAAAAAAAAAAAAAAAAAAA' }) }),
    );
    world.standIn.setRotationHandler((event) => s.rotation.run(event));
    const error = await world.sm.send(new RotateSecretCommand({ SecretId: orphan.secretName })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestException);
    expect(world.standIn.rotations().at(-1)).toMatchObject({ ok: false, failedStep: 'setSecret' });
    expect((error as Error).message).toMatch(/No client c_AAAAAAAAAAAAAAAAAAAAAA in the registry/);
  });

  test('finishSecret waits settleMs after the key was added, within the invocation limit', async () => {
    const s = await setup();
    const waits: number[] = [];
    const sleep = async (ms: number): Promise<void> => {
      waits.push(ms);
      s.clock.ms += ms;
    };
    const rotation = rotationFor(world, s.clock, s.store, { settleMs: 60_000, sleep });
    const token = randomUUID();
    await rotation.createPendingVersion(s.client.secretArn, token);
    const event = (Step: RotationEvent['Step']): RotationEvent => ({ Step, SecretId: s.client.secretArn, ClientRequestToken: token });
    await rotation.run(event('setSecret'));
    s.clock.advanceS(5);
    await rotation.run(event('testSecret'));
    await rotation.run(event('finishSecret'), { maxSettleWaitMs: 40_000 });
    expect(waits).toEqual([40_000]);

    const again = await setup();
    const waits2: number[] = [];
    const rotation2 = rotationFor(world, again.clock, again.store, { settleMs: 60_000, sleep: async (ms) => void waits2.push(ms) });
    world.standIn.setRotationHandler(async (e) => {
      const result = await rotation2.run(e);
      again.clock.advanceS(2);
      return result;
    });
    await world.sm.send(new RotateSecretCommand({ SecretId: again.client.secretName }));
    expect(waits2).toEqual([56_000]);
  });

  test('a rotation finished by a run with a shorter grace than the one that added the key waits settleMs at most', async () => {
    const s = await setup();
    const token = randomUUID();
    await s.rotation.createPendingVersion(s.client.secretArn, token);
    for (const Step of ['setSecret', 'testSecret'] as const) await s.rotation.run({ Step, SecretId: s.client.secretArn, ClientRequestToken: token });
    const waits: number[] = [];
    // As `signet rotate --grace-seconds 60` resuming a rotation the function started with a day's grace.
    const resuming = rotationFor(world, s.clock, s.store, { graceS: 60, settleMs: 60_000, sleep: async (ms) => void waits.push(ms) });
    s.clock.advanceS(20);
    await resuming.run({ Step: 'finishSecret', SecretId: s.client.secretArn, ClientRequestToken: token });
    expect(waits).toEqual([40_000]);
  });

  test('no log line holds a private key, a secret value or a signature', async () => {
    const s = await setup();
    const logger = recordingLogger();
    const rotation = rotationFor(world, s.clock, s.store, { logger });
    world.standIn.setRotationHandler((event) => rotation.run(event));
    await world.sm.send(new RotateSecretCommand({ SecretId: s.client.secretName }));
    await rotation.run({ Step: 'finishSecret', SecretId: s.client.secretName, ClientRequestToken: s.client.initialVersionId }).catch(() => undefined);
    const current = await currentSecret(s.client.secretName);
    const text = logger.lines.join('\n');
    expect(logger.lines.length).toBeGreaterThanOrEqual(4);
    expect(text).toContain(current.key.fingerprint);
    for (const secret of [current.secret.privateKey, s.client.initialKey.pkcs8Base64, current.secret.privateKey.slice(100, 160)]) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toMatch(/PRIVATE KEY|privateKey|signature-input|sig1=|sig=:/i);
  });
});

async function pendingValue(s: Setup, event: RotationEvent): Promise<string> {
  const out = await world.sm.send(new GetSecretValueCommand({ SecretId: s.client.secretName, VersionId: event.ClientRequestToken, VersionStage: 'AWSPENDING' }));
  return out.SecretString!;
}
