/**
 * The deploy-time check of a RotatingSigningKey: its client must be registered before the
 * rotation schedule is created, because Secrets Manager runs the first rotation at once and that
 * rotation adds the first key to the client's record. Without the check, a deploy on a fresh
 * table succeeds and the rotation fails right after it.
 *
 * A CloudFormation custom resource (`Custom::SignetSigningKeyClient`) whose service token is the
 * rotation function itself (it already reads that client's record): Create and Update read the
 * record (consistently) and fail the deploy with a sentence when it is missing; an Update that kept
 * the ClientId (only CloudFormation's own properties changed: an upgrade) reads nothing, since the
 * client's key has been rotating since; Delete does nothing. The rotation function (./create-rotation-function.ts) routes custom-resource events here.
 */
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { SignetError } from '../core/errors';
import { type CustomResourceLogger, answerCustomResource } from '../bootstrap/custom-resource';
import { isClientId } from '../store/client-id';
import type { ClientRecord } from '../domain/client-record';

/** Properties of the custom resource (CloudFormation passes strings). */
export interface SigningKeyClientProperties {
  /** The client whose key the secret holds. */
  readonly ClientId: string;
}

/** What the resource returns (`GetAtt`). */
export interface SigningKeyClientData {
  readonly ClientId: string;
  /** The client's status when the deploy checked it (`active` or `disabled`), or `unchecked` on an Update that kept the ClientId. */
  readonly Status: string;
}

export interface SigningKeyClientCheckDeps {
  /** The registry's reader (DynamoClientStore); the read is consistent, a registration just made counts. */
  readonly registry: { getClient(clientId: string, options: { consistentRead: boolean }): Promise<ClientRecord | undefined> };
  /** The client table's name, for the sentence. */
  readonly tableName: string;
  /** Where a failed check is logged. */
  readonly logger: CustomResourceLogger;
}

/** The custom resource's handler. */
export function createSigningKeyClientCheck(
  deps: SigningKeyClientCheckDeps,
): (event: CloudFormationCustomResourceEvent, context?: { readonly logStreamName?: string }) => Promise<void> {
  return (event, context = {}) =>
    answerCustomResource<SigningKeyClientData>(event, context, {
      name: 'signing-key client check',
      logger: deps.logger,
      failedCreateId: (e) => `signet-signing-key-client-${e.RequestId}`,
      run: async (e) => {
        const { ClientId: clientId } = e.ResourceProperties as unknown as SigningKeyClientProperties;
        if (e.RequestType === 'Update' && (e.OldResourceProperties as Partial<SigningKeyClientProperties>).ClientId === clientId) {
          return { physicalId: e.PhysicalResourceId, data: { ClientId: String(clientId), Status: 'unchecked' } };
        }
        const record = await deps.registry.getClient(String(clientId), { consistentRead: true });
        if (record === undefined) throw missingClient(String(clientId), deps.tableName);
        return { physicalId: `signet-signing-key-client-${record.clientId}`, data: { ClientId: record.clientId, Status: record.status } };
      },
    });
}

function missingClient(clientId: string, tableName: string): SignetError {
  const id = isClientId(clientId) ? clientId : '(malformed id)';
  return new SignetError(
    'not_found',
    `Client ${id} is not registered in the client table ${tableName}, and its key's first rotation runs as soon as this deploy creates the rotation schedule, so it would fail. ` +
      'Register the client first: deploy without it in signingKeyClientIds, create it through the registry (signet clients create), then add its clientId and deploy again.',
  );
}
