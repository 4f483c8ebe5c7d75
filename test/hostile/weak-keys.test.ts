/**
 * An RSA key with a useless public exponent (e = 1: a signature is then the
 * padded digest itself, which anyone can compute) or an even modulus must never verify anything.
 * It is refused with `weak_key` at each place a key enters or is used:
 *
 * The same holds for a modulus anyone can factor or sign for: a prime (d is
 * 65537⁻¹ mod (n − 1)), a square, one with a small factor, or two primes close together.
 *
 * 1. registration (the registry API: create, add a key, replace the keys);
 * 2. rotation (a pending secret version holding such a key is never added to the client);
 * 3. loading stored records for verification (a record written before the rule): the authorizer
 *    does not verify with the key, logs why, answers a refusal, and does not crash.
 *
 * The keys are written as DER by hand (test/support/weak-rsa-keys.ts); Node imports them all.
 * Real components: DynamoDB Local, the Secrets Manager stand-in, the registry and authorizer handlers.
 */
import { createHash, createPublicKey, randomUUID, verify } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import { isSignetError } from '../../lambda/core/errors';
import { type PrivateKeyInfo, checkRsaKeyStrength, importPrivateKey, importPublicKey } from '../../lambda/core/keys';
import { compileRoleCatalogue } from '../../lambda/core/role-policy';
import { createRegistryHandler, type RegistryHandler } from '../../lambda/registry/registry-handler';
import { SecretsManagerSecretStore } from '../../lambda/rotation/secrets-manager-secret-store';
import type { DynamoClientStore } from '../../lambda/store/client-store';
import {
  HTTP_API_HOST,
  authorizerEnv,
  captureOutput,
  httpApiAuthorizerEvent,
  loadAuthorizer,
  sign,
} from '../authorizer/support';
import { type RotationWorld, newRotatingClient, rotationFor, startRotationWorld, storeFor, systemClock } from '../rotation/harness';
import { callRegistry } from '../support/registry-harness';
import {
  type WeakKey,
  closePrimesModulus,
  forgeForPrimeModulus,
  primeModulus,
  rsaPrivateKeyWithExponentOne,
  rsaPublicKeyWithEvenModulus,
  rsaPublicKeyWithExponent,
  rsaPublicKeyWithModulus,
  smallFactorModulus,
  squareModulus,
} from '../support/weak-rsa-keys';
import { nextTestKey } from '../support/test-keys';

let world: RotationWorld;
let store: DynamoClientStore;
let registry: RegistryHandler;

const exponentOne = rsaPrivateKeyWithExponentOne();
const exponentThree = rsaPublicKeyWithExponent(3n);
const evenModulus = rsaPublicKeyWithEvenModulus();
const primeModulusKey = rsaPublicKeyWithModulus(primeModulus());
const WEAK: ReadonlyArray<readonly [string, WeakKey]> = [
  ['public exponent 1', exponentOne],
  ['public exponent 3', exponentThree],
  ['an even modulus', evenModulus],
  ['a prime modulus', primeModulusKey],
  ['a square modulus (p = q)', rsaPublicKeyWithModulus(squareModulus())],
  ['a modulus with a small factor', rsaPublicKeyWithModulus(smallFactorModulus())],
  ['a modulus of two primes 2^200 apart', rsaPublicKeyWithModulus(closePrimesModulus(200))],
];

beforeAll(async () => {
  world = await startRotationWorld();
  store = storeFor(world, systemClock());
  registry = createRegistryHandler({
    store,
    roles: compileRoleCatalogue({ 'registry:admin': ['* /registry/**'], demo: ['* /api/*'] }),
    logger: new Logger({ logLevel: 'SILENT' }),
  });
});

afterAll(async () => {
  await world?.stop();
});

/** The reason code a call threw with ('none' when it did not throw). */
function codeOf(call: () => unknown): string {
  try {
    call();
    return 'none';
  } catch (error) {
    return isSignetError(error) ? error.code : `not a SignetError: ${String(error)}`;
  }
}

describe('the rule (lambda/core/keys.ts checkRsaKeyStrength)', () => {
  test.each(WEAK)('a key with %s is refused with weak_key, and one of 65537 with an odd modulus is accepted', (_name, weak) => {
    expect(codeOf(() => importPublicKey(weak.spkiPem))).toBe('weak_key');
    expect(codeOf(() => importPublicKey(weak.spkiDer.toString('base64')))).toBe('weak_key');
    expect(() => checkRsaKeyStrength(nextTestKey().publicKey)).not.toThrow();
  });

  test('a private key with e = 1 is refused as well (signing secrets, rotation)', () => {
    const pem = exponentOne.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    expect(codeOf(() => importPrivateKey(pem))).toBe('weak_key');
    expect(codeOf(() => checkRsaKeyStrength(exponentOne.privateKey))).toBe('weak_key');
  });

  test('the refusal says what is wrong and what to do, and never echoes the key', () => {
    let message = '';
    try {
      importPublicKey(exponentOne.spkiPem);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/public exponent is 1; Signet accepts only 65537.*Generate a new key pair/);
    expect(message).not.toContain(exponentOne.spkiPem.split('\n')[1].slice(0, 20));
  });
});

describe('1. registration: the registry API answers 400 weak_key and stores nothing', () => {
  let existing: string;
  beforeAll(async () => {
    const key = nextTestKey();
    const { record } = await store.createClient({ name: 'Holder', networkWhitelist: ['0.0.0.0'], roles: ['demo'], key: { fingerprint: key.fingerprint, spkiPem: key.publicKey.export({ type: 'spki', format: 'pem' }) as string } }, 'test');
    existing = record.clientId;
  });

  test.each(WEAK)('POST /registry/clients with %s', async (_name, weak) => {
    const res = await callRegistry(registry, { method: 'POST', path: '/registry/clients', body: { name: 'Forger', networkWhitelist: ['0.0.0.0'], roles: ['demo'], publicKey: weak.spkiPem } });
    expect(res.schemaProblems).toEqual([]);
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: 'weak_key' });
    expect(await store.findByFingerprint(weak.fingerprint, { consistentRead: true })).toBeUndefined();
  });

  test.each(WEAK)('POST /registry/clients/{id}/keys and PATCH publicKey with %s', async (_name, weak) => {
    const added = await callRegistry(registry, { method: 'POST', path: `/registry/clients/${existing}/keys`, body: { publicKey: weak.spkiPem } });
    expect({ status: added.status, error: added.body.error }).toEqual({ status: 400, error: 'weak_key' });
    const patched = await callRegistry(registry, { method: 'PATCH', path: `/registry/clients/${existing}`, body: { publicKey: weak.spkiPem } });
    expect({ status: patched.status, error: patched.body.error }).toEqual({ status: 400, error: 'weak_key' });
    const record = await store.getClient(existing);
    expect(record?.keys.map((k) => k.fingerprint)).not.toContain(weak.fingerprint);
  });
});

describe('2. rotation: a pending version holding an e = 1 key is never added to the client', () => {
  test('setSecret (and createSecret on that version) fail with weak_key; the record keeps its key', async () => {
    const clock = systemClock();
    const client = await newRotatingClient(world, store, clock);
    const token = randomUUID();
    const weakSecret = JSON.stringify({
      clientId: client.clientId,
      privateKey: (exponentOne.privateKey.export({ type: 'pkcs8', format: 'der' }) as Buffer).toString('base64'),
      fingerprint: exponentOne.fingerprint,
      createdAt: new Date().toISOString(),
    });
    await new SecretsManagerSecretStore(world.sm).putPendingVersion(client.secretArn, token, weakSecret);
    const rotation = rotationFor(world, clock, store);
    for (const step of ['createSecret', 'setSecret'] as const) {
      const outcome = await rotation.run({ Step: step, SecretId: client.secretArn, ClientRequestToken: token }).then(
        () => 'done',
        (error: unknown) => (isSignetError(error) ? error.code : String(error)),
      );
      expect(`${step}: ${outcome}`).toBe(`${step}: weak_key`);
    }
    const record = await store.getClient(client.clientId);
    expect(record?.keys.map((k) => k.fingerprint)).toEqual([client.initialKey.fingerprint]);
  });
});

describe('3. verification: a weak key already stored is not used, the refusal is logged with weak_key, nothing crashes', () => {
  /** EMSA-PKCS1-v1_5 of SHA-256(base) for a 2048-bit modulus: with e = 1 this IS the signature, made without any private key. */
  function forgedSignature(base: string): Buffer {
    const digestInfo = Buffer.concat([Buffer.from('3031300d060960864801650304020105000420', 'hex'), createHash('sha256').update(base).digest()]);
    return Buffer.concat([Buffer.from([0x00, 0x01]), Buffer.alloc(256 - 3 - digestInfo.length, 0xff), Buffer.from([0x00]), digestInfo]);
  }

  test('a request forged for a stored e = 1 key is refused, and the log names the key and weak_key', async () => {
    // A record written before keys were checked (straight into the table, as an old registry did).
    const { record } = await store.createClient(
      { name: 'Stored before the rule', networkWhitelist: ['0.0.0.0'], roles: ['partner'], key: { fingerprint: exponentOne.fingerprint, spkiPem: exponentOne.spkiPem } },
      'test',
    );
    const call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/echo?q=1` };
    const signed = sign(call, { clientId: record.clientId, key: { key: exponentOne.privateKey } as PrivateKeyInfo });
    const forged = forgedSignature(signed.base);
    // What the e = 1 "private key" produced is exactly the padded digest: anyone can forge it.
    expect(signed.headers.signature).toBe(`sig=:${forged.toString('base64')}:`);

    const authorizer = loadAuthorizer(authorizerEnv(world.tableName, world.ddb.endpoint), { loud: true });
    const event = httpApiAuthorizerEvent(call, { headers: { ...signed.headers, signature: `sig=:${forged.toString('base64')}:` } });
    const { result, lines } = await captureOutput(() => authorizer.httpApiHandler(event));
    expect(result).toMatchObject({ isAuthorized: false, context: { signetError: 'signature_mismatch' } });
    expect((result.context as { signetMessage: string }).signetMessage).toMatch(/registered keys cannot be used \(weak_key\).*register a new key/);
    const refusedKey = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => entry.message === 'stored public key refused: it is not used to verify this client');
    expect(refusedKey).toMatchObject({ level: 'ERROR', clientId: record.clientId, keyFingerprint: exponentOne.fingerprint, reason: 'weak_key' });
  });

  test('a request forged for a stored key with a prime modulus is refused (the forgery itself is valid RSA: anyone can make it)', async () => {
    const { record } = await store.createClient(
      { name: 'Prime modulus, stored before the rule', networkWhitelist: ['0.0.0.0'], roles: ['partner'], key: { fingerprint: primeModulusKey.fingerprint, spkiPem: primeModulusKey.spkiPem } },
      'test',
    );
    const call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/echo?q=2` };
    // Any key makes the headers; the signature is then replaced by one computed from the public key alone.
    const signed = sign(call, { clientId: record.clientId, key: nextTestKey() });
    const forged = forgeForPrimeModulus((primeModulusKey as { n: bigint }).n, signed.base);
    expect(verify('sha256', Buffer.from(signed.base), createPublicKey(primeModulusKey.spkiPem), forged)).toBe(true);

    const authorizer = loadAuthorizer(authorizerEnv(world.tableName, world.ddb.endpoint), { loud: true });
    const event = httpApiAuthorizerEvent(call, { headers: { ...signed.headers, signature: `sig=:${forged.toString('base64')}:` } });
    const { result, lines } = await captureOutput(() => authorizer.httpApiHandler(event));
    expect(result).toMatchObject({ isAuthorized: false, context: { signetError: 'signature_mismatch' } });
    const refusedKey = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => entry.message === 'stored public key refused: it is not used to verify this client');
    expect(refusedKey).toMatchObject({ clientId: record.clientId, keyFingerprint: primeModulusKey.fingerprint, reason: 'weak_key', detail: expect.stringContaining('is a prime') });
  });

  test('a client holding a weak key and a good one still verifies with the good one', async () => {
    const good = nextTestKey();
    const { record } = await store.createClient(
      { name: 'Mixed', networkWhitelist: ['0.0.0.0'], roles: ['partner'], key: { fingerprint: evenModulus.fingerprint, spkiPem: evenModulus.spkiPem } },
      'test',
    );
    await store.addKey(record.clientId, { fingerprint: good.fingerprint, spkiPem: good.publicKey.export({ type: 'spki', format: 'pem' }) as string }, 'test');
    const authorizer = loadAuthorizer(authorizerEnv(world.tableName, world.ddb.endpoint));
    const call = { method: 'GET', url: `https://${HTTP_API_HOST}/api/echo?q=1` };
    const event = httpApiAuthorizerEvent(call, { headers: sign(call, { clientId: record.clientId, key: good }).headers });
    expect(await authorizer.httpApiHandler(event)).toMatchObject({ isAuthorized: true });
  });
});
