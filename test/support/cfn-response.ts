/**
 * A local listener that plays CloudFormation's pre-signed response URL for custom-resource
 * handlers, and builds their events (Create, Update with the previous properties, Delete).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';

/** What a handler PUT to the response URL. */
export interface CfnResponse<D = Record<string, string>> {
  Status: 'SUCCESS' | 'FAILED';
  Reason: string;
  PhysicalResourceId: string;
  RequestId: string;
  LogicalResourceId: string;
  StackId: string;
  Data?: D;
}

export interface CfnResponseListener {
  readonly url: string;
  /** Every response received, in order, with its content type. */
  readonly responses: Array<{ contentType: string | undefined; body: CfnResponse<any> }>;
  close(): Promise<void>;
}

export async function startCfnResponseListener(): Promise<CfnResponseListener> {
  const responses: CfnResponseListener['responses'] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      responses.push({ contentType: req.headers['content-type'], body: JSON.parse(text) as CfnResponse });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/cfn-response?X-Amz-Signature=x`,
    responses,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A custom-resource event of `resourceType` answering at `listener`. */
export function cfnEvent(
  listener: CfnResponseListener,
  resourceType: string,
  requestType: 'Create' | 'Update' | 'Delete',
  properties: Record<string, string>,
  options: { physicalId?: string; oldProperties?: Record<string, string> } = {},
): CloudFormationCustomResourceEvent {
  const base = {
    ServiceToken: 'arn:aws:lambda:eu-west-1:123456789012:function:signet',
    ResponseURL: listener.url,
    StackId: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/Signet/1',
    RequestId: `req-${listener.responses.length + 1}`,
    LogicalResourceId: 'AdminBootstrapC18CE766',
    ResourceType: resourceType,
    ResourceProperties: { ServiceToken: 'x', ...properties },
  };
  if (requestType === 'Create') return { ...base, RequestType: 'Create' };
  if (requestType === 'Update') return { ...base, RequestType: 'Update', PhysicalResourceId: options.physicalId!, OldResourceProperties: { ServiceToken: 'x', ...options.oldProperties } };
  return { ...base, RequestType: 'Delete', PhysicalResourceId: options.physicalId! };
}
