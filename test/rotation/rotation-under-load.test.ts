/**
 * Signed requests keep passing while the key rotates: a loop signs with the signer library's
 * SecretsManagerKeyProvider (re-reading AWSCURRENT on every request) and asks the authorizer's
 * decision (ClientDirectory over the real store, no cache) while the stand-in runs a rotation
 * whose steps interleave with the requests. Real clock: the loop and the rotation share it.
 */
import { RotateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { Decision, authorize } from '../../lambda/authorizer/authorize';
import { createSigner } from '../../lambda/signer/signer';
import { API_URL, RotationWorld, authorizerFor, newRotatingClient, rotationFor, startRotationWorld, storeFor, systemClock } from './harness';

let world: RotationWorld;
beforeAll(async () => {
  world = await startRotationWorld();
});
afterAll(async () => {
  await world?.stop();
});

test('a loop of signed requests during two rotations: 0 refused, and every key in turn signs', async () => {
  const realClock = systemClock();
  const store = storeFor(world, realClock);
  const client = await newRotatingClient(world, store, realClock);
  const deps = authorizerFor(store, realClock);
  const signer = createSigner({ secretId: client.secretName, secretsManager: world.sm, maxAgeMs: 0 });
  const rotation = rotationFor(world, realClock, store);

  const refused: string[] = [];
  const fingerprints: string[] = [];
  let sent = 0;
  let running = true;
  const waiters: Array<{ until: number; resolve: () => void }> = [];

  const loop = (async () => {
    while (running) {
      const details = await signer.signDetailed({ method: 'GET', url: API_URL });
      const decision: Decision = await authorize(
        { request: { method: 'GET', targetUri: API_URL, headers: details.headers, sourceIp: '198.51.100.7' }, operationPath: '/api/echo' },
        deps,
      );
      sent += 1;
      if (!decision.allowed) refused.push(`${decision.error.code} (key ${details.fingerprint})`);
      if (fingerprints.at(-1) !== details.fingerprint) fingerprints.push(details.fingerprint);
      for (const waiter of waiters.filter((w) => sent >= w.until)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  })();
  /** Resolves once the loop has made `n` more requests. */
  const requests = (n: number): Promise<void> => new Promise((resolve) => waiters.push({ until: sent + n, resolve }));

  // Each step lets a few requests through before and after it runs.
  world.standIn.setRotationHandler(async (event) => {
    await requests(3);
    const result = await rotation.run(event);
    await requests(3);
    return result;
  });
  try {
    await requests(5);
    await world.sm.send(new RotateSecretCommand({ SecretId: client.secretName }));
    await world.sm.send(new RotateSecretCommand({ SecretId: client.secretName }));
    await requests(5);
  } finally {
    running = false;
    world.standIn.setRotationHandler(undefined);
    await loop;
  }

  expect(refused).toEqual([]);
  expect(sent).toBeGreaterThanOrEqual(5 + 2 * 4 * 6 + 5);
  // Initial key, then the first rotation's, then the second's: each took over without a gap.
  expect(fingerprints).toHaveLength(3);
  expect(fingerprints[0]).toBe(client.initialKey.fingerprint);
  expect(world.standIn.rotations().slice(-2).map((r) => r.ok)).toEqual([true, true]);
});
