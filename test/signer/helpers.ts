/**
 * Test support for the signer: the Secrets Manager stand-in with a real SDK client, a counter of
 * the GetSecretValue calls the client sends, and storing signing keys as secrets.
 */
import { randomUUID } from 'node:crypto';
import { CreateSecretCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { PrivateKeyInfo } from '../../lambda/core/keys';
import { serializeSigningSecret, signingSecretFor } from '../../lambda/signer/signing-secret';
import { SecretsManagerStandIn, startSecretsManagerStandIn } from '../../local/secrets-manager-standin';

export interface StandInFixture {
  readonly standIn: SecretsManagerStandIn;
  readonly sm: SecretsManagerClient;
  /** GetSecretValue calls sent by `sm` so far. */
  gets(): number;
  stop(): Promise<void>;
}

export async function startStandInFixture(): Promise<StandInFixture> {
  const standIn = await startSecretsManagerStandIn();
  const sm = new SecretsManagerClient({ ...standIn.clientConfig, maxAttempts: 1 });
  let gets = 0;
  sm.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'GetSecretValueCommand') gets++;
      return next(args);
    },
    { step: 'initialize', name: 'countGetSecretValue' },
  );
  return {
    standIn,
    sm,
    gets: () => gets,
    stop: async () => {
      sm.destroy();
      await standIn.stop();
    },
  };
}

let secretCounter = 0;

/** Creates a secret holding `key` for `clientId` as AWSCURRENT; returns its name. */
export async function createKeySecret(sm: SecretsManagerClient, clientId: string, key: PrivateKeyInfo): Promise<string> {
  const name = `signet/test-${process.pid}-${++secretCounter}`;
  await sm.send(new CreateSecretCommand({ Name: name, SecretString: serializeSigningSecret(signingSecretFor(clientId, key, new Date())) }));
  return name;
}

/** Stores `key` as the secret's new AWSCURRENT version (what finishSecret leaves behind); returns the VersionId. */
export async function putKeySecret(sm: SecretsManagerClient, secretId: string, clientId: string, key: PrivateKeyInfo): Promise<string> {
  const token = randomUUID();
  await sm.send(
    new PutSecretValueCommand({ SecretId: secretId, ClientRequestToken: token, SecretString: serializeSigningSecret(signingSecretFor(clientId, key, new Date())) }),
  );
  return token;
}
