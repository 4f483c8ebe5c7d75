/**
 * The door Signet's deploy-time custom resources share (the admin bootstrap, the signing-key
 * client check): the function is the resource's service token (no provider framework), so it
 * answers CloudFormation itself, on every path, at the pre-signed ResponseURL. A failure answers
 * FAILED with a reason a human can act on (a SignetError's code and sentence; anything else only
 * points at the log stream), and the deploy stops there.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { isSignetError } from '../core/errors';

/** What a resource's work returns for Create and Update. */
export interface CustomResourceResult<D> {
  readonly physicalId: string;
  readonly data?: D;
}

/** The logger call the door makes (a Powertools `Logger` fits). */
export interface CustomResourceLogger {
  error(message: string, ...attributes: Record<string, unknown>[]): void;
}

export interface CustomResourceDoor<D> {
  /** What the resource does, for the log line of a failure ("admin bootstrap"). */
  readonly name: string;
  /** Where a failure is logged, with its code and the error's name and message. */
  readonly logger: CustomResourceLogger;
  /** The physical id of a Create that failed (CloudFormation needs one even then). */
  readonly failedCreateId: (event: CloudFormationCustomResourceEvent) => string;
  /** The work of Create and Update. Delete does nothing: what the resource made stays. */
  readonly run: (event: Exclude<CloudFormationCustomResourceEvent, { RequestType: 'Delete' }>) => Promise<CustomResourceResult<D>>;
}

/** True for a CloudFormation custom-resource request (and not, e.g., a Secrets Manager rotation step). */
export function isCustomResourceEvent(event: unknown): event is CloudFormationCustomResourceEvent {
  const raw = typeof event === 'object' && event !== null ? (event as Record<string, unknown>) : {};
  return typeof raw.RequestType === 'string' && typeof raw.ResponseURL === 'string' && typeof raw.StackId === 'string';
}

/** Runs the resource's work for `event` and answers CloudFormation; never throws for a failed work. */
export async function answerCustomResource<D>(
  event: CloudFormationCustomResourceEvent,
  context: { readonly logStreamName?: string },
  door: CustomResourceDoor<D>,
): Promise<void> {
  let status: 'SUCCESS' | 'FAILED' = 'SUCCESS';
  let reason = '';
  let physicalId = event.RequestType === 'Create' ? door.failedCreateId(event) : event.PhysicalResourceId;
  let data: D | undefined;
  try {
    if (event.RequestType !== 'Delete') ({ physicalId, data } = await door.run(event));
  } catch (error) {
    status = 'FAILED';
    // SignetError messages are written for humans and never echo key material; others may not be.
    reason = isSignetError(error) ? `${error.code}: ${error.message}` : `The ${door.name} failed (see log stream ${context.logStreamName ?? 'of the function'}).`;
    door.logger.error(`${door.name} failed`, {
      code: isSignetError(error) ? error.code : 'internal_error',
      error: error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error',
    });
  }
  await respond(event, { status, reason, physicalId, data });
}

interface Outcome<D> {
  readonly status: 'SUCCESS' | 'FAILED';
  readonly reason: string;
  readonly physicalId: string;
  readonly data?: D;
}

/** PUTs the outcome to CloudFormation's pre-signed URL, as cfn-response does (empty content type). */
async function respond<D>(event: CloudFormationCustomResourceEvent, outcome: Outcome<D>): Promise<void> {
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
