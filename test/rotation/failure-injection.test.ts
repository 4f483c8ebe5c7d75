/**
 * A failure injected at each step (a storage or Secrets Manager fault, thrown once) while the
 * stand-in runs the rotation: the current key keeps verifying, AWSCURRENT does not move, no key
 * stays active beyond the grace, and the service's next attempt (same token) completes it.
 */
import { randomUUID } from 'node:crypto';
import { GetSecretValueCommand, InvalidRequestException, RotateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { isKeyActive } from '../../lambda/domain/client-record';
import { RotationLogger, RotationStep } from '../../lambda/rotation/rotation-types';
import { SecretsManagerSecretStore } from '../../lambda/rotation/secrets-manager-secret-store';
import { parseSigningSecret } from '../../lambda/signer/signing-secret';
import {
  FlakyRegistry,
  FlakySecrets,
  GRACE_S,
  RotationWorld,
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

/** A rotating client of its own, and a rotation of it whose registry and secret store can be made to fail once. */
async function flakyRotation(graceS?: number, logger?: RotationLogger) {
  const clock = testClock();
  const store = storeFor(world, clock);
  const client = await newRotatingClient(world, store, clock);
  const registry = new FlakyRegistry(store);
  const secrets = new FlakySecrets(new SecretsManagerSecretStore(world.sm));
  const rotation = rotationFor(world, clock, registry, { secrets, ...(graceS !== undefined ? { graceS } : {}), ...(logger !== undefined ? { logger } : {}) });
  return { clock, store, client, registry, secrets, rotation };
}

interface Injection {
  readonly name: string;
  readonly step: RotationStep;
  /** Arms the fault just before `step` runs; `newKey` is set once createSecret has run. */
  arm(faults: { registry: FlakyRegistry; secrets: FlakySecrets }, keys: { initial: string }): void;
}

const INJECTIONS: Injection[] = [
  { name: 'createSecret: PutSecretValue fails', step: 'createSecret', arm: ({ secrets }) => secrets.failOnce('putPendingVersion') },
  { name: 'createSecret: DescribeSecret fails', step: 'createSecret', arm: ({ secrets }) => secrets.failOnce('describe') },
  { name: 'setSecret: the registry write fails', step: 'setSecret', arm: ({ registry }) => registry.failOnce('addKey') },
  { name: 'testSecret: the registry read fails', step: 'testSecret', arm: ({ registry }) => registry.failOnce('getClient') },
  { name: 'finishSecret: reading the pending key fails', step: 'finishSecret', arm: ({ secrets }) => secrets.failOnce('getVersion') },
  {
    name: "finishSecret: clearing the new key's not-after fails",
    step: 'finishSecret',
    arm: ({ registry }) => registry.failOnce('setKeyNotAfter', (args) => args[2] === undefined),
  },
  {
    name: "finishSecret: setting the previous key's not-after fails (after the new key's was cleared)",
    step: 'finishSecret',
    arm: ({ registry }, keys) => registry.failOnce('setKeyNotAfter', (args) => args[1] === keys.initial),
  },
  {
    name: 'finishSecret: moving AWSCURRENT fails (after both not-afters changed)',
    step: 'finishSecret',
    arm: ({ secrets }) => secrets.failOnce('moveStage', (args) => args[1] === 'AWSCURRENT'),
  },
];

describe.each(INJECTIONS)('$name', (injection) => {
  test('leaves the old key verifying, AWSCURRENT in place, no stray key beyond the grace; the next attempt completes', async () => {
    const { clock, store, client, registry, secrets, rotation } = await flakyRotation();
    const deps = authorizerFor(store, clock);
    let armed = false;
    world.standIn.setRotationHandler((event) => {
      if (event.Step === injection.step && !armed) {
        armed = true;
        injection.arm({ registry, secrets }, { initial: client.initialKey.fingerprint });
      }
      return rotation.run(event);
    });

    const failed = await world.sm.send(new RotateSecretCommand({ SecretId: client.secretName })).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(InvalidRequestException);
    expect(registry.failures + secrets.failures).toBe(1);
    expect(world.standIn.rotations().at(-1)).toMatchObject({ ok: false, failedStep: injection.step });

    // AWSCURRENT did not move, and the current key still verifies.
    const stages = await stagesOf(world, client.secretName);
    expect(stages[client.initialVersionId]).toEqual(['AWSCURRENT']);
    const token = Object.keys(stages).find((v) => v !== client.initialVersionId)!;
    expect(stages[token]).toEqual(['AWSPENDING']);
    expect(outcome(await callWith(deps, client.clientId, client.initialKey, clock))).toBe('allowed');
    const record = (await store.getClient(client.clientId, { consistentRead: true }))!;
    const initial = record.keys.find((k) => k.fingerprint === client.initialKey.fingerprint)!;
    expect(initial.notAfter).toBeUndefined();
    // Any pending key on the record expires within the grace.
    for (const key of record.keys.filter((k) => k !== initial)) {
      expect(Date.parse(key.notAfter!)).toBeLessThanOrEqual(clock.ms + GRACE_S * 1000);
    }

    // After the grace, only the current key is active, and it still verifies.
    clock.advanceS(GRACE_S + 1);
    const later = (await store.getClient(client.clientId, { consistentRead: true }))!;
    expect(later.keys.filter((k) => isKeyActive(k, clock.ms)).map((k) => k.fingerprint)).toEqual([client.initialKey.fingerprint]);
    expect(outcome(await callWith(deps, client.clientId, client.initialKey, clock))).toBe('allowed');
    const pendingValue = await world.sm
      .send(new GetSecretValueCommand({ SecretId: client.secretName, VersionId: token, VersionStage: 'AWSPENDING' }))
      .catch(() => undefined);
    if (pendingValue?.SecretString !== undefined) {
      const pending = parseSigningSecret(pendingValue.SecretString);
      expect(['key_expired', 'signature_mismatch']).toContain(outcome(await callWith(deps, client.clientId, pending.key, clock)));
    }

    // The service's next RotateSecret reattempts the unfinished rotation with the same token.
    await expect(world.sm.send(new RotateSecretCommand({ SecretId: client.secretName }))).rejects.toThrow(/previous rotation isn't complete/);
    expect(world.standIn.rotations().at(-1)).toMatchObject({ ok: true, versionId: token });
    expect(await stagesOf(world, client.secretName)).toEqual({ [client.initialVersionId]: ['AWSPREVIOUS'], [token]: ['AWSCURRENT'] });
    const current = parseSigningSecret((await world.sm.send(new GetSecretValueCommand({ SecretId: client.secretName }))).SecretString!);
    const done = (await store.getClient(client.clientId, { consistentRead: true }))!;
    expect(done.keys.map((k) => [k.fingerprint, k.notAfter])).toEqual([
      [client.initialKey.fingerprint, new Date(clock.ms + GRACE_S * 1000).toISOString()],
      [current.key.fingerprint, undefined],
    ]);
    expect(outcome(await callWith(deps, client.clientId, current.key, clock))).toBe('allowed');
    expect(outcome(await callWith(deps, client.clientId, client.initialKey, clock))).toBe('allowed');
  });
});

describe('failures after AWSCURRENT moved', () => {
  test.each([
    ['removing AWSPENDING fails', (f: { registry: FlakyRegistry; secrets: FlakySecrets }) => f.secrets.failOnce('moveStage', (args) => args[1] === 'AWSPENDING')],
    ['removing an expired key fails', (f: { registry: FlakyRegistry; secrets: FlakySecrets }) => f.registry.failOnce('removeKey')],
  ])('%s: the rotation still succeeds (the leftover is harmless)', async (_name, arm) => {
    const { clock, store, client, registry, secrets, rotation } = await flakyRotation(60);
    world.standIn.setRotationHandler((event) => rotation.run(event));
    await world.sm.send(new RotateSecretCommand({ SecretId: client.secretName }));

    world.standIn.setRotationHandler((event) => {
      if (event.Step === 'finishSecret') {
        clock.advanceS(61); // the first key's grace ends: this finish's cleanup removes it
        arm({ registry, secrets });
      }
      return rotation.run(event);
    });
    const out = await world.sm.send(new RotateSecretCommand({ SecretId: client.secretName }));
    expect(world.standIn.rotations().at(-1)).toMatchObject({ ok: true, versionId: out.VersionId });
    expect(registry.failures + secrets.failures).toBe(1);
    const stages = await stagesOf(world, client.secretName);
    expect(stages[out.VersionId!]).toContain('AWSCURRENT');
    const current = parseSigningSecret((await world.sm.send(new GetSecretValueCommand({ SecretId: client.secretName }))).SecretString!);
    expect(outcome(await callWith(authorizerFor(store, clock), client.clientId, current.key, clock))).toBe('allowed');
    // An expired key left on the record verifies nothing.
    expect(outcome(await callWith(authorizerFor(store, clock), client.clientId, client.initialKey, clock))).not.toBe('allowed');
  });
});

describe("an operator's change made after rotation read or wrote the record stands over rotation's later writes", () => {
  const iso = (ms: number): string => new Date(ms).toISOString();

  test("the old key cut short between the finish's not-afters and a failed move of AWSCURRENT: the undo keeps the cut, and so does the next attempt", async () => {
    const logger = recordingLogger();
    const { clock, store, client, secrets, rotation } = await flakyRotation(undefined, logger);
    const initial = client.initialKey.fingerprint;
    const cutTo = iso(clock.ms + 60_000);
    const movesCurrent = (args: unknown[]): boolean => args[1] === 'AWSCURRENT';
    // The finish has given the old key now + grace; the operator, holding it leaked, cuts it to a minute; then the move fails.
    secrets.interleaveOnce('moveStage', movesCurrent, async () => {
      await store.setKeyNotAfter(client.clientId, initial, cutTo, 'operator');
    });
    secrets.failOnce('moveStage', movesCurrent);
    world.standIn.setRotationHandler((event) => rotation.run(event));

    const failed = await world.sm.send(new RotateSecretCommand({ SecretId: client.secretName })).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(InvalidRequestException);
    expect(world.standIn.rotations().at(-1)).toMatchObject({ ok: false, failedStep: 'finishSecret' });
    expect((await stagesOf(world, client.secretName))[client.initialVersionId]).toEqual(['AWSCURRENT']);
    const record = (await store.getClient(client.clientId, { consistentRead: true }))!;
    expect(record.keys.find((k) => k.fingerprint === initial)?.notAfter).toBe(cutTo);
    // The undo put back only what the operator did not touch: the pending key's short life, not the cut key's.
    expect(record.keys.find((k) => k.fingerprint !== initial)?.notAfter).toBeDefined();
    const audit = (await store.listAudit(client.clientId)).items;
    expect(audit.filter((e) => e.keyNotAfter?.fingerprint === initial).map((e) => e.actor)[0]).toBe('operator');
    expect(logger.lines.some((line) => line.includes('"level":"warn"') && line.includes('left as they are now') && line.includes(initial))).toBe(true);

    // The service's next attempt completes the rotation without lengthening the cut key.
    await expect(world.sm.send(new RotateSecretCommand({ SecretId: client.secretName }))).rejects.toThrow(/previous rotation isn't complete/);
    expect(world.standIn.rotations().at(-1)).toMatchObject({ ok: true });
    const current = parseSigningSecret((await world.sm.send(new GetSecretValueCommand({ SecretId: client.secretName }))).SecretString!);
    const done = (await store.getClient(client.clientId, { consistentRead: true }))!;
    expect(done.keys.map((k) => [k.fingerprint, k.notAfter])).toEqual([
      [initial, cutTo],
      [current.key.fingerprint, undefined],
    ]);
    clock.advanceS(61);
    expect(outcome(await callWith(authorizerFor(store, clock), client.clientId, client.initialKey, clock))).toBe('key_expired');
  });

  test("the old key cut short while the finish waited (its record already read): the finish reads it again and keeps the cut", async () => {
    const { clock, store, client, registry, rotation } = await flakyRotation();
    const initial = client.initialKey.fingerprint;
    const cutTo = iso(clock.ms + 60_000);
    // The operator's cut lands after the finish read the record, just before its first not-after write.
    registry.interleaveOnce('setKeyNotAfter', () => true, async () => {
      await store.setKeyNotAfter(client.clientId, initial, cutTo, 'operator');
    });
    world.standIn.setRotationHandler((event) => rotation.run(event));
    await world.sm.send(new RotateSecretCommand({ SecretId: client.secretName }));
    expect(world.standIn.rotations().at(-1)).toMatchObject({ ok: true });
    const record = (await store.getClient(client.clientId, { consistentRead: true }))!;
    expect(record.keys.find((k) => k.fingerprint === initial)?.notAfter).toBe(cutTo);
    expect(record.keys.find((k) => k.fingerprint !== initial)?.notAfter).toBeUndefined();
    clock.advanceS(61);
    expect(outcome(await callWith(authorizerFor(store, clock), client.clientId, client.initialKey, clock))).toBe('key_expired');
  });

  test("a rename between the finish's not-afters and a failed move of AWSCURRENT: the undo reads the record again and still puts both not-afters back", async () => {
    const { clock, store, client, secrets, rotation } = await flakyRotation();
    const initial = client.initialKey.fingerprint;
    const movesCurrent = (args: unknown[]): boolean => args[1] === 'AWSCURRENT';
    secrets.interleaveOnce('moveStage', movesCurrent, async () => {
      const read = (await store.getClient(client.clientId, { consistentRead: true }))!;
      await store.updateClient(client.clientId, read.version, { name: 'Renamed while rotating' }, 'operator');
    });
    secrets.failOnce('moveStage', movesCurrent);
    world.standIn.setRotationHandler((event) => rotation.run(event));

    const failed = await world.sm.send(new RotateSecretCommand({ SecretId: client.secretName })).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(InvalidRequestException);
    const record = (await store.getClient(client.clientId, { consistentRead: true }))!;
    expect(record.name).toBe('Renamed while rotating');
    // The old key (still AWSCURRENT) has no end again; the pending key keeps the short life setSecret gave it.
    expect(record.keys.find((k) => k.fingerprint === initial)?.notAfter).toBeUndefined();
    const pending = record.keys.find((k) => k.fingerprint !== initial)!;
    expect(pending.notAfter).toBeDefined();
    clock.advanceS(2 * 86_400);
    expect(outcome(await callWith(authorizerFor(store, clock), client.clientId, client.initialKey, clock))).toBe('allowed');
  });

  test("an expired key the operator gives a new life after the finish's cleanup read the record is not removed", async () => {
    const { clock, store, client, registry, rotation } = await flakyRotation(60);
    const initial = client.initialKey.fingerprint;
    world.standIn.setRotationHandler((event) => rotation.run(event));
    await world.sm.send(new RotateSecretCommand({ SecretId: client.secretName }));

    let renewedTo = '';
    world.standIn.setRotationHandler((event) => {
      if (event.Step === 'finishSecret') {
        clock.advanceS(61); // the first key's grace ends: this finish's cleanup would remove it
        renewedTo = iso(clock.ms + 3_600_000);
        registry.interleaveOnce(
          'removeKey',
          (args) => args[1] === initial,
          async () => {
            await store.setKeyNotAfter(client.clientId, initial, renewedTo, 'operator');
          },
        );
      }
      return rotation.run(event);
    });
    const out = await world.sm.send(new RotateSecretCommand({ SecretId: client.secretName }));
    expect(world.standIn.rotations().at(-1)).toMatchObject({ ok: true, versionId: out.VersionId });
    const record = (await store.getClient(client.clientId, { consistentRead: true }))!;
    expect(record.keys.find((k) => k.fingerprint === initial)?.notAfter).toBe(renewedTo);
    expect((await store.listAudit(client.clientId)).items.filter((e) => e.action === 'key.removed')).toEqual([]);
    expect(outcome(await callWith(authorizerFor(store, clock), client.clientId, client.initialKey, clock))).toBe('allowed');
  });
});

describe('a move of AWSCURRENT whose answer is lost (Secrets Manager applied it, then the call failed)', () => {
  /** A client rotated once, with the first move of AWSCURRENT answering an error after it went through. */
  async function rotateLosingTheMove(alsoUndescribable: boolean) {
    const { clock, store, client, registry, secrets, rotation } = await flakyRotation();
    let moved = false;
    secrets.failOnce('moveStage', (args) => (moved = args[1] === 'AWSCURRENT'), { answerLost: true });
    // The describe that would tell the move happened fails as well.
    if (alsoUndescribable) secrets.failOnce('describe', () => moved);
    world.standIn.setRotationHandler((event) => rotation.run(event));
    await world.sm.send(new RotateSecretCommand({ SecretId: client.secretName })).catch(() => undefined);
    const stages = await stagesOf(world, client.secretName);
    const token = Object.keys(stages).find((v) => v !== client.initialVersionId)!;
    const current = parseSigningSecret((await world.sm.send(new GetSecretValueCommand({ SecretId: client.secretName }))).SecretString!);
    return { clock, store, client, registry, rotation, secrets, token, stages, current };
  }

  /** The record a finished rotation leaves: the previous key ends after the grace, the new one lasts, and only it verifies then. */
  async function expectFinishedRecord(world: Awaited<ReturnType<typeof rotateLosingTheMove>>, graceFromMs: number) {
    const { clock, store, client, current } = world;
    const record = (await store.getClient(client.clientId, { consistentRead: true }))!;
    expect(record.keys.map((k) => [k.fingerprint, k.notAfter])).toEqual([
      [client.initialKey.fingerprint, new Date(graceFromMs + GRACE_S * 1000).toISOString()],
      [current.key.fingerprint, undefined],
    ]);
    clock.advanceS(GRACE_S + 1);
    const deps = authorizerFor(store, clock);
    expect(outcome(await callWith(deps, client.clientId, current.key, clock))).toBe('allowed');
    expect(outcome(await callWith(deps, client.clientId, client.initialKey, clock))).toBe('key_expired');
  }

  test('the finish sees that AWSCURRENT moved and completes instead of undoing', async () => {
    const rotated = await rotateLosingTheMove(false);
    expect(rotated.secrets.failures).toBe(1);
    expect(world.standIn.rotations().at(-1)).toMatchObject({ ok: true, versionId: rotated.token });
    expect(rotated.stages).toEqual({ [rotated.client.initialVersionId]: ['AWSPREVIOUS'], [rotated.token]: ['AWSCURRENT'] });
    expect(rotated.current.key.fingerprint).not.toBe(rotated.client.initialKey.fingerprint);
    await expectFinishedRecord(rotated, rotated.clock.ms);
  });

  test('when the secret cannot be described either, both keys keep verifying (the new key keeps no end, the previous gets its own back), and a rerun mends the record', async () => {
    const rotated = await rotateLosingTheMove(true);
    expect(rotated.secrets.failures).toBe(2);
    expect(world.standIn.rotations().at(-1)).toMatchObject({ ok: false, failedStep: 'finishSecret' });
    expect(rotated.stages[rotated.token]).toContain('AWSCURRENT');
    const left = (await rotated.store.getClient(rotated.client.clientId, { consistentRead: true }))!;
    expect(left.keys.map((k) => [k.fingerprint, k.notAfter])).toEqual([
      [rotated.client.initialKey.fingerprint, undefined],
      [rotated.current.key.fingerprint, undefined],
    ]);
    // Past the pending key's validity, with no rerun yet: AWSCURRENT's key verifies (as the old one does).
    const later = { ...rotated.clock, ms: rotated.clock.ms + (GRACE_S + 60) * 1000 };
    const deps = authorizerFor(rotated.store, later);
    expect(outcome(await callWith(deps, rotated.client.clientId, rotated.current.key, later))).toBe('allowed');
    // The service's retry of the failed invocation: the version is current, and the record is brought to a finished one.
    rotated.clock.advanceS(30);
    const rerun = await rotated.rotation.run({ Step: 'finishSecret', SecretId: rotated.client.secretName, ClientRequestToken: rotated.token });
    expect(rerun).toMatchObject({ outcome: 'already_current' });
    await expectFinishedRecord(rotated, rotated.clock.ms);
  });

  test("a finish that fails before its move is fully undone, though the secret could not be described: AWSCURRENT never moved", async () => {
    const { store, client, registry, secrets, rotation } = await flakyRotation();
    const token = randomUUID();
    await rotation.createPendingVersion(client.secretArn, token);
    for (const Step of ['setSecret', 'testSecret'] as const) await rotation.run({ Step, SecretId: client.secretArn, ClientRequestToken: token });
    const pendingNotAfter = (await store.getClient(client.clientId, { consistentRead: true }))!.keys[1]!.notAfter;
    registry.failOnce('setKeyNotAfter', (args) => args[1] === client.initialKey.fingerprint);
    // Every describe after the step's own first one fails.
    let describes = 0;
    secrets.failOnce('describe', () => ++describes === 2);
    await expect(rotation.run({ Step: 'finishSecret', SecretId: client.secretArn, ClientRequestToken: token })).rejects.toThrow();
    const record = (await store.getClient(client.clientId, { consistentRead: true }))!;
    expect(record.keys.map((k) => [k.fingerprint === client.initialKey.fingerprint, k.notAfter])).toEqual([
      [true, undefined],
      [false, pendingNotAfter],
    ]);
  });

  test('with no rerun, the next rotation ends the key the undecided finish left without an end (AWSPREVIOUS\'s)', async () => {
    const rotated = await rotateLosingTheMove(true);
    // AWSPENDING sits on the current version: the service's next RotateSecret starts a new rotation.
    rotated.clock.advanceS(3_600);
    await world.sm.send(new RotateSecretCommand({ SecretId: rotated.client.secretName }));
    const graceEnd = new Date(rotated.clock.ms + GRACE_S * 1000).toISOString();
    const record = (await rotated.store.getClient(rotated.client.clientId, { consistentRead: true }))!;
    expect(record.keys.find((k) => k.fingerprint === rotated.client.initialKey.fingerprint)?.notAfter).toBe(graceEnd);
    expect(record.keys.find((k) => k.fingerprint === rotated.current.key.fingerprint)?.notAfter).toBe(graceEnd);
    expect(record.keys.filter((k) => k.notAfter === undefined)).toHaveLength(1);
  });

  test('two invocations of one finish, the first undoing after a move that failed while the second moves AWSCURRENT: the second leaves a finished record', async () => {
    const { clock, store, client, registry, rotation } = await flakyRotation();
    const token = randomUUID();
    await rotation.createPendingVersion(client.secretArn, token);
    for (const Step of ['setSecret', 'testSecret'] as const) await rotation.run({ Step, SecretId: client.secretArn, ClientRequestToken: token });
    const first = new FlakySecrets(new SecretsManagerSecretStore(world.sm));
    const second = new FlakySecrets(new SecretsManagerSecretStore(world.sm));
    const firstRun = rotationFor(world, clock, registry, { secrets: first });
    const secondRun = rotationFor(world, clock, registry, { secrets: second });
    const finish = (run: typeof rotation) => run.run({ Step: 'finishSecret', SecretId: client.secretArn, ClientRequestToken: token });
    // The second reaches its move of AWSCURRENT and waits there until the first has failed its own and undone.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const atGate = new Promise<void>((resolve) => (arrived = resolve));
    second.interleaveOnce('moveStage', (args) => args[1] === 'AWSCURRENT', async () => {
      arrived();
      await gate;
    });
    let secondDone!: Promise<unknown>;
    first.interleaveOnce('moveStage', (args) => args[1] === 'AWSCURRENT', async () => {
      secondDone = finish(secondRun);
      await atGate;
    });
    first.failOnce('moveStage', (args) => args[1] === 'AWSCURRENT');
    await expect(finish(firstRun)).rejects.toThrow();
    release();
    await expect(secondDone).resolves.toMatchObject({ outcome: 'done' });
    const current = parseSigningSecret((await world.sm.send(new GetSecretValueCommand({ SecretId: client.secretName }))).SecretString!);
    const record = (await store.getClient(client.clientId, { consistentRead: true }))!;
    expect(record.keys.find((k) => k.fingerprint === current.key.fingerprint)?.notAfter).toBeUndefined();
    expect(record.keys.find((k) => k.fingerprint === client.initialKey.fingerprint)?.notAfter).toBeDefined();
  });

  test("the rerun's mend leaves a not-after the operator set on the current key after the mend read the record", async () => {
    const { clock, store, client, registry, rotation, token, current } = await rotateLosingTheMove(true);
    clock.advanceS(30);
    const until = new Date(clock.ms + 3_600_000).toISOString();
    registry.interleaveOnce(
      'setKeyNotAfter',
      () => true,
      async () => {
        await store.setKeyNotAfter(client.clientId, current.key.fingerprint, until, 'operator');
      },
    );
    const rerun = await rotation.run({ Step: 'finishSecret', SecretId: client.secretName, ClientRequestToken: token });
    expect(rerun).toMatchObject({ outcome: 'already_current' });
    const record = (await store.getClient(client.clientId, { consistentRead: true }))!;
    expect(record.keys.find((k) => k.fingerprint === current.key.fingerprint)?.notAfter).toBe(until);
    expect((await store.listAudit(client.clientId)).items[0]).toMatchObject({ actor: 'operator', action: 'key.not_after_set' });
  });
});
