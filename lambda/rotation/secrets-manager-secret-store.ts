/**
 * {@link RotationSecretStore} over the AWS SDK's Secrets Manager client. SDK failures are
 * translated here: callers see `SignetError`s whose messages name the operation and the
 * exception, never a secret value.
 */
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import { SignetError } from '../core/errors';
import { AWSPENDING, RotationSecretStore, SecretDescription, SecretVersion } from './rotation-types';

/**
 * Builds the Secrets Manager client. With `endpoint` it talks to that endpoint (the local
 * stand-in, which verifies SigV4 signatures): sign with `credentials` when given, else with the
 * SDK's default credentials (in Lambda, its role's, from the environment).
 */
export function createSecretsManagerClient(
  options: {
    readonly endpoint?: string;
    readonly region?: string;
    readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  } = {},
): SecretsManagerClient {
  const region = options.region ?? (options.endpoint ? 'us-east-1' : undefined);
  return new SecretsManagerClient({
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(region ? { region } : {}),
    ...(options.credentials ? { credentials: { ...options.credentials } } : {}),
  });
}

/** The rotation's view of one Secrets Manager client. */
export class SecretsManagerSecretStore implements RotationSecretStore {
  constructor(private readonly client: SecretsManagerClient) {}

  async describe(secretId: string): Promise<SecretDescription> {
    const out = await this.call('describe the secret', () => this.client.send(new DescribeSecretCommand({ SecretId: secretId })));
    return {
      arn: out.ARN ?? secretId,
      rotationEnabled: out.RotationEnabled === true,
      versionIdsToStages: out.VersionIdsToStages ?? {},
    };
  }

  async getVersion(secretId: string, selector: { readonly versionId?: string; readonly stage?: string }): Promise<SecretVersion | undefined> {
    let out;
    try {
      out = await this.client.send(new GetSecretValueCommand({ SecretId: secretId, VersionId: selector.versionId, VersionStage: selector.stage }));
    } catch (error) {
      // No such version/label, or the empty AWSPENDING version RotateSecret starts with.
      if (errorName(error) === 'ResourceNotFoundException') return undefined;
      throw translate(error, 'read the secret');
    }
    if (typeof out.SecretString !== 'string' || out.VersionId === undefined) {
      throw new SignetError('invalid_request', `Secret ${secretId} holds a binary value; a signing key is stored as JSON text (SecretString).`);
    }
    return { versionId: out.VersionId, secretString: out.SecretString };
  }

  async putPendingVersion(secretId: string, versionId: string, secretString: string): Promise<void> {
    try {
      await this.client.send(
        new PutSecretValueCommand({ SecretId: secretId, ClientRequestToken: versionId, SecretString: secretString, VersionStages: [AWSPENDING] }),
      );
    } catch (error) {
      if (errorName(error) === 'ResourceExistsException') {
        throw new SignetError('version_conflict', `Version ${versionId} of secret ${secretId} already holds a different value; versions cannot change.`, { cause: error });
      }
      throw translate(error, 'store the pending key');
    }
  }

  async moveStage(secretId: string, stage: string, move: { readonly toVersionId?: string; readonly fromVersionId?: string }): Promise<void> {
    await this.call(`move the ${stage} label`, () =>
      this.client.send(
        new UpdateSecretVersionStageCommand({ SecretId: secretId, VersionStage: stage, MoveToVersionId: move.toVersionId, RemoveFromVersionId: move.fromVersionId }),
      ),
    );
  }

  private async call<T>(action: string, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw translate(error, action);
    }
  }
}

function errorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

/** Service faults become `dependency_unavailable`; refusals keep the service's exception name. */
function translate(error: unknown, action: string): SignetError {
  const name = errorName(error) ?? 'an unknown error';
  if (name === 'ResourceNotFoundException') {
    return new SignetError('not_found', `Could not ${action}: Secrets Manager has no such secret or version (${name}). Check the secret id.`, { cause: error });
  }
  const refusals = ['InvalidParameterException', 'InvalidRequestException', 'AccessDeniedException', 'AccessDeniedError'];
  const signing = ['UnrecognizedClientException', 'InvalidSignatureException', 'IncompleteSignatureException', 'MissingAuthenticationTokenException'];
  const hint = name.startsWith('AccessDenied')
    ? 'Check that the rotation function may call this action on the secret.'
    : signing.includes(name)
      ? 'Check the credentials the request is signed with (for the local stand-in: $SIGNET_HOME/secrets-manager-credentials.json of the running `npm start`).'
      : refusals.includes(name)
        ? 'The secret\'s labels changed under the rotation; the next attempt re-reads them.'
        : 'Retry shortly.';
  return new SignetError('dependency_unavailable', `Could not ${action}: Secrets Manager answered ${name}. ${hint}`, { cause: error });
}
