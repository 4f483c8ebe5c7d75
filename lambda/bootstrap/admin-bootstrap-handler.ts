/**
 * CloudFormation custom resource that registers the first `registry:admin` client, through the
 * same store the registry uses (so the record, the key-ownership item and the audit entry are
 * written exactly as a registration writes them, in one transaction).
 *
 * Create and Update register the key unless it is already registered; when it is, nothing is
 * written and the holder's clientId is returned ("registration skipped"). Delete leaves the
 * client in place: the table is retained and other admins may depend on it.
 *
 * The function is the resource's service token (no provider framework), so it answers
 * CloudFormation itself, on every path, at the pre-signed ResponseURL.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import { loadConfig } from '../config';
import { REGISTRY_ADMIN_ROLE } from '../core/defaults';
import { isSignetError } from '../core/errors';
import { normaliseNetworkEntry } from '../core/network-entries';
import { importPublicKey } from '../core/keys';
import { DynamoClientStore } from '../store/client-store';
import { createDocumentClient } from '../store/dynamodb-client';

/** The actor name the audit trail records for the bootstrap. */
export const BOOTSTRAP_ACTOR = 'bootstrap';

/** Properties of the custom resource (all strings: CloudFormation passes strings). */
export interface AdminBootstrapProperties {
  /** SPKI PEM of the first admin's public key. */
  readonly PublicKeyPem: string;
  /** The admin client's name. */
  readonly ClientName: string;
  /** JSON list of allow-list entries. */
  readonly NetworkWhitelist: string;
}

/** What the resource returns (`GetAtt`). */
export interface AdminBootstrapData {
  readonly ClientId: string;
  readonly Fingerprint: string;
  /** `created` or `skipped` (the key was registered already; ClientId is its holder). */
  readonly Registration: 'created' | 'skipped';
}

let store: DynamoClientStore | undefined;

export async function handler(event: CloudFormationCustomResourceEvent, context: Context): Promise<void> {
  let status: 'SUCCESS' | 'FAILED' = 'SUCCESS';
  let reason = '';
  let physicalId = event.RequestType === 'Create' ? `signet-admin-bootstrap-${event.RequestId}` : event.PhysicalResourceId;
  let data: AdminBootstrapData | undefined;
  try {
    if (event.RequestType !== 'Delete') {
      data = await register(event.ResourceProperties as unknown as AdminBootstrapProperties);
      physicalId = `signet-admin-${data.ClientId}`;
    }
  } catch (error) {
    status = 'FAILED';
    // SignetError messages are written for humans and never echo key material; others may not be.
    reason = isSignetError(error) ? `${error.code}: ${error.message}` : `The admin bootstrap failed (see log stream ${context.logStreamName}).`;
    // No key material reaches this line: SignetError messages never echo input, and the key is
    // only ever passed to importPublicKey.
    console.error(
      JSON.stringify({
        level: 'ERROR',
        message: 'admin bootstrap failed',
        code: isSignetError(error) ? error.code : 'internal_error',
        error: error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error',
      }),
    );
  }
  await respond(event, { status, reason, physicalId, data });
}

async function register(props: AdminBootstrapProperties): Promise<AdminBootstrapData> {
  const key = importPublicKey(props.PublicKeyPem);
  const networkWhitelist = (JSON.parse(props.NetworkWhitelist) as unknown[]).map(normaliseNetworkEntry);
  if (store === undefined) {
    const config = loadConfig();
    store = new DynamoClientStore({ tableName: config.tableName, client: createDocumentClient({ endpoint: config.dynamoDbEndpoint }) });
  }
  const { record, created } = await store.createClient(
    { name: props.ClientName, networkWhitelist, roles: [REGISTRY_ADMIN_ROLE], key: { fingerprint: key.fingerprint, spkiPem: key.spkiPem } },
    BOOTSTRAP_ACTOR,
  );
  return { ClientId: record.clientId, Fingerprint: key.fingerprint, Registration: created ? 'created' : 'skipped' };
}

interface Outcome {
  readonly status: 'SUCCESS' | 'FAILED';
  readonly reason: string;
  readonly physicalId: string;
  readonly data?: AdminBootstrapData;
}

/** PUTs the outcome to CloudFormation's pre-signed URL, as cfn-response does (empty content type). */
async function respond(event: CloudFormationCustomResourceEvent, outcome: Outcome): Promise<void> {
  const body = JSON.stringify({
    Status: outcome.status,
    Reason: outcome.reason || outcome.status,
    PhysicalResourceId: outcome.physicalId,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
    NoEcho: false,
    Data: outcome.data,
  });
  const url = new URL(event.ResponseURL);
  await new Promise<void>((resolve, reject) => {
    // CloudFormation always gives https; plain http is for tests against a local listener.
    const request = (url.protocol === 'http:' ? http : https).request(
      url,
      { method: 'PUT', headers: { 'content-type': '', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        response.resume();
        response.on('end', () =>
          (response.statusCode ?? 0) < 300 ? resolve() : reject(new Error(`CloudFormation refused the response: HTTP ${response.statusCode}.`)),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
