/**
 * The Secrets Manager key provider against the stand-in, through the real SDK client: reads
 * AWSCURRENT, caches for max age (clock injected), refresh() always reads, one read at a time,
 * stale-if-error bounded, errors with stable codes and no key material.
 */
import { DeleteSecretCommand, PutSecretValueCommand, ResourceNotFoundException, RestoreSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SignetError } from '../../lambda/core/errors';
import { SecretsManagerKeyProvider } from '../../lambda/signer/secrets-manager-key-provider';
import { StandInFixture, createKeySecret, putKeySecret, startStandInFixture } from './helpers';
import { nextTestKey } from '../support/test-keys';

const k1 = nextTestKey();
const k2 = nextTestKey();
const MAX_AGE_MS = 60_000;

let fx: StandInFixture;
beforeAll(async () => {
  fx = await startStandInFixture();
});
afterAll(() => fx.stop());

/** A provider on a hand-moved clock. */
function provider(secretId: string, staleIfErrorMs = 120_000) {
  const clock = { now: 1_000_000 };
  const p = new SecretsManagerKeyProvider({ secretId, secretsManager: fx.sm, maxAgeMs: MAX_AGE_MS, staleIfErrorMs, nowMs: () => clock.now });
  return { p, clock };
}

async function errorOf(promise: Promise<unknown>): Promise<SignetError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SignetError);
  return error as SignetError;
}

describe('SecretsManagerKeyProvider', () => {
  it('reads the AWSCURRENT key with its clientId, fingerprint and VersionId', async () => {
    const secretId = await createKeySecret(fx.sm, 'c_one', k1);
    const { p } = provider(secretId);
    const key = await p.current();
    expect(key).toMatchObject({ clientId: 'c_one', fingerprint: k1.fingerprint });
    expect(key.versionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(key.privateKey.type).toBe('private');
  });

  it('answers from the cache until the max age, then reads the new AWSCURRENT', async () => {
    const secretId = await createKeySecret(fx.sm, 'c_one', k1);
    const { p, clock } = provider(secretId);
    const before = fx.gets();
    expect((await p.current()).fingerprint).toBe(k1.fingerprint);
    await putKeySecret(fx.sm, secretId, 'c_one', k2);

    clock.now += MAX_AGE_MS - 1;
    expect((await p.current()).fingerprint).toBe(k1.fingerprint);
    expect(fx.gets() - before).toBe(1);

    clock.now += 1;
    expect((await p.current()).fingerprint).toBe(k2.fingerprint);
    expect(fx.gets() - before).toBe(2);
  });

  it('keeps the imported key when the version did not change', async () => {
    const secretId = await createKeySecret(fx.sm, 'c_one', k1);
    const { p, clock } = provider(secretId);
    const first = await p.current();
    clock.now += MAX_AGE_MS;
    const again = await p.current();
    expect(again).toBe(first);
  });

  it('refresh() reads the secret whatever the cache holds', async () => {
    const secretId = await createKeySecret(fx.sm, 'c_one', k1);
    const { p } = provider(secretId);
    await p.current();
    await putKeySecret(fx.sm, secretId, 'c_two', k2);
    const before = fx.gets();
    const refreshed = await p.refresh();
    expect(fx.gets() - before).toBe(1);
    expect(refreshed).toMatchObject({ clientId: 'c_two', fingerprint: k2.fingerprint });
    expect(await p.current()).toBe(refreshed);
  });

  it('sends one read for concurrent callers', async () => {
    const secretId = await createKeySecret(fx.sm, 'c_one', k1);
    const { p } = provider(secretId);
    const before = fx.gets();
    const keys = await Promise.all(Array.from({ length: 10 }, () => p.current()));
    expect(fx.gets() - before).toBe(1);
    expect(new Set(keys).size).toBe(1);
  });

  it('serves the cached key for a bounded time when Secrets Manager fails, and says so afterwards', async () => {
    const secretId = await createKeySecret(fx.sm, 'c_one', k1);
    const { p, clock } = provider(secretId, 120_000);
    await p.current();
    await fx.sm.send(new DeleteSecretCommand({ SecretId: secretId, RecoveryWindowInDays: 7 })); // reads now fail
    try {
      clock.now += MAX_AGE_MS;
      const before = fx.gets();
      expect((await p.current()).fingerprint).toBe(k1.fingerprint); // stale, after a failed read
      expect((await p.current()).fingerprint).toBe(k1.fingerprint); // backing off: no second read yet
      expect(fx.gets() - before).toBe(1);

      const refreshError = await errorOf(p.refresh());
      expect(refreshError.code).toBe('dependency_unavailable');

      clock.now += 120_001;
      const error = await errorOf(p.current());
      expect(error.code).toBe('dependency_unavailable');
      expect(error.message).toMatch(/InvalidRequestException/);
    } finally {
      await fx.sm.send(new RestoreSecretCommand({ SecretId: secretId }));
    }
    expect((await p.current()).fingerprint).toBe(k1.fingerprint);
  });

  it('a read that hangs (packets dropped on the way) gives up after the read timeout, and the cached key is served', async () => {
    const secretId = await createKeySecret(fx.sm, 'c_one', k1);
    // The real client over a transport whose requests, once `hang` is set, never get an answer (until aborted).
    const carrier = new SecretsManagerClient({ ...fx.standIn.clientConfig });
    const real = carrier.config.requestHandler as unknown as { handle(request: unknown, options?: { abortSignal?: AbortSignal }): Promise<unknown> };
    let hang = false;
    const blackHole = {
      handle: (request: unknown, options?: { abortSignal?: AbortSignal }) =>
        hang
          ? new Promise<never>((_, reject) => options?.abortSignal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }))))
          : real.handle(request, options),
      updateHttpClientConfig: () => undefined,
      httpHandlerConfigs: () => ({}),
      destroy: () => carrier.destroy(),
    };
    const sm = new SecretsManagerClient({ ...fx.standIn.clientConfig, maxAttempts: 1, requestHandler: blackHole as never });
    const clock = { now: 1_000_000 };
    const p = new SecretsManagerKeyProvider({ secretId, secretsManager: sm, maxAgeMs: MAX_AGE_MS, nowMs: () => clock.now, readTimeoutMs: 50 });
    try {
      expect((await p.current()).fingerprint).toBe(k1.fingerprint);
      hang = true;
      clock.now += MAX_AGE_MS;
      expect((await p.current()).fingerprint).toBe(k1.fingerprint);
      const error = await errorOf(p.refresh());
      expect(error.code).toBe('dependency_unavailable');
      expect(error.message).toBe('Secrets Manager did not answer the read of the signing key within 50 ms. Check the network path to it (a VPC endpoint, a proxy, a firewall).');
    } finally {
      sm.destroy();
    }
  });

  it('names the failure for an unknown secret, keeping the SDK error as the cause', async () => {
    const error = await errorOf(provider('signet/no-such-secret').p.current());
    expect(error.code).toBe('dependency_unavailable');
    expect(error.status).toBe(503);
    expect(error.cause).toBeInstanceOf(ResourceNotFoundException);
  });

  it('refuses a secret that does not hold a signing key, without echoing it', async () => {
    const secretId = await createKeySecret(fx.sm, 'c_one', k1);
    await fx.sm.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: JSON.stringify({ clientId: 'c_one', privateKey: k1.pkcs8Base64, fingerprint: k2.fingerprint, createdAt: new Date().toISOString() }) }));
    const error = await errorOf(provider(secretId).p.current());
    expect(error.code).toBe('invalid_private_key');
    expect(error.message).toContain(secretId);
    expect(error.message).not.toContain(k1.pkcs8Base64.slice(100, 140));

    await fx.sm.send(new PutSecretValueCommand({ SecretId: secretId, SecretBinary: Buffer.from('x') }));
    expect((await errorOf(provider(secretId).p.current())).code).toBe('invalid_request');
  });

  it('checks its options', () => {
    expect(() => new SecretsManagerKeyProvider({ secretId: ' ', secretsManager: fx.sm })).toThrow(SignetError);
    expect(() => new SecretsManagerKeyProvider({ secretId: 'x', secretsManager: fx.sm, maxAgeMs: -1 })).toThrow(/maxAgeMs/);
    expect(() => new SecretsManagerKeyProvider({ secretId: 'x', secretsManager: fx.sm, readTimeoutMs: 0 })).toThrow('readTimeoutMs must be at least 1 ms');
  });
});
