/**
 * Drives the registry handler the way API Gateway does: realistic HTTP API 2.0 and REST v1
 * proxy events (shapes from test/fixtures/apigateway captures) with the authorizer's
 * context, a signed Content-Digest for bodies, and every answer checked against the OpenAPI
 * document: its status must be documented for the operation and its body must match the schema.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { computeContentDigest } from '../../lambda/core/content-digest';
import type { RegistryHandler } from '../../lambda/registry/registry-handler';
import {
  type OpenApiDocument,
  findOperation,
  loadRegistryOpenApi,
  requestSchema,
  responseSchema,
  validate,
} from './registry-openapi';

export const ADMIN_ID = 'c_AdminAdminAdminAdmin0A';

export interface CallOptions {
  readonly method: string;
  /** The route path, e.g. `/registry/clients`; `stage` is put in front of it. */
  readonly path: string;
  /** Raw query string without `?` (as HTTP API's rawQueryString). */
  readonly query?: string;
  /** A JSON value (serialised) or a raw string body. */
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** The acting client in the authorizer context; null for none. @default ADMIN_ID */
  readonly actor?: string | null;
  /** @default 'v2' */
  readonly format?: 'v2' | 'v1';
  /** Path prefix such as `/prod`. @default '' */
  readonly stage?: string;
  /** Content-Digest passed by the authorizer; @default - the digest of the body */
  readonly contentDigest?: string;
  readonly base64?: boolean;
}

export interface CallResult {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Record<string, string>;
  /** Problems of the answer against the OpenAPI document (empty when it conforms). */
  readonly schemaProblems: readonly string[];
}

let requestCounter = 0;

/** Calls the handler with an event built from `options`, and checks the answer against the document. */
export async function callRegistry(handler: RegistryHandler, options: CallOptions, doc: OpenApiDocument = loadRegistryOpenApi()): Promise<CallResult> {
  const event = (options.format ?? 'v2') === 'v2' ? httpApiEvent(options) : restApiEvent(options);
  const result = await handler(event, { awsRequestId: `lambda-${requestCounter}` });
  const body = JSON.parse(result.body) as Record<string, unknown>;
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
  return { status: result.statusCode, body, headers, schemaProblems: checkAgainstDocument(doc, options, result.statusCode, body) };
}

/** Problems of a request/answer pair against the document. */
export function checkAgainstDocument(doc: OpenApiDocument, options: CallOptions, status: number, body: unknown): string[] {
  const operation = findOperation(doc, options.method, options.path.split('?')[0]);
  if (operation === undefined) {
    // Only a 404 may answer a path/method the document does not list.
    return status === 404 ? validate(doc, { $ref: '#/components/schemas/Error' }, body) : [`${options.method} ${options.path} is not in the document`];
  }
  const schema = responseSchema(doc, operation.operation, status);
  if (schema === undefined) return [`${options.method} ${operation.template} does not document status ${status}`];
  const problems = validate(doc, schema, body).map((p) => `response ${status}: ${p}`);
  // A request the handler accepted must also match the documented request body.
  const request = requestSchema(operation.operation);
  if (status < 300 && request !== undefined && options.body !== undefined && typeof options.body !== 'string') {
    problems.push(...validate(doc, request, options.body).map((p) => `request: ${p}`));
  }
  return problems;
}

function bodyText(options: CallOptions): string | undefined {
  if (options.body === undefined) return undefined;
  return typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
}

function digestFor(options: CallOptions, text: string | undefined): string | undefined {
  if (options.contentDigest !== undefined) return options.contentDigest;
  return text === undefined || text === '' ? undefined : computeContentDigest(text);
}

/** An HTTP API payload 2.0 proxy event behind the Signet authorizer. */
export function httpApiEvent(options: CallOptions): APIGatewayProxyEventV2 {
  const text = bodyText(options);
  const digest = digestFor(options, text);
  const rawPath = `${options.stage ?? ''}${options.path}`;
  const actor = options.actor === undefined ? ADMIN_ID : options.actor;
  const id = `req-${++requestCounter}`;
  const event = {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString: options.query ?? '',
    headers: {
      accept: 'application/json',
      host: 'abc123.execute-api.eu-west-1.amazonaws.com',
      'user-agent': 'signet-test',
      'x-forwarded-for': '203.0.113.7',
      'x-forwarded-proto': 'https',
      ...(text !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) } : {}),
      ...(digest !== undefined ? { 'content-digest': digest } : {}),
      ...lower(options.headers),
    },
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      authorizer: { lambda: actor === null ? null : { clientId: actor, roles: 'registry:admin', keyFingerprint: 'x', contentDigest: digest ?? '', signetProfile: 'signet', signetRequestBound: 'true' } },
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: { method: options.method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'signet-test' },
      requestId: id,
      routeKey: '$default',
      stage: options.stage ? options.stage.slice(1) : '$default',
      time: '05/Jan/2026:09:30:00 +0000',
      timeEpoch: 1767605400000,
    },
    ...(text !== undefined ? { body: options.base64 ? Buffer.from(text).toString('base64') : text } : {}),
    isBase64Encoded: options.base64 ?? false,
  };
  return event as unknown as APIGatewayProxyEventV2;
}

/** A REST API (v1) proxy event behind the Signet authorizer. */
export function restApiEvent(options: CallOptions): APIGatewayProxyEvent {
  const text = bodyText(options);
  const digest = digestFor(options, text);
  const actor = options.actor === undefined ? ADMIN_ID : options.actor;
  const query = new URLSearchParams(options.query ?? '');
  const multi: Record<string, string[]> = {};
  for (const [k, v] of query) (multi[k] ??= []).push(v);
  const headers: Record<string, string> = {
    Accept: 'application/json',
    Host: 'abc123.execute-api.eu-west-1.amazonaws.com',
    'X-Forwarded-For': '203.0.113.7, 130.176.209.10',
    ...(text !== undefined ? { 'Content-Type': 'application/json' } : {}),
    ...(digest !== undefined ? { 'Content-Digest': digest } : {}),
    ...(options.headers ?? {}),
  };
  const event = {
    resource: '/{proxy+}',
    path: options.path,
    httpMethod: options.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: query.size === 0 ? null : Object.fromEntries([...Object.entries(multi)].map(([k, v]) => [k, v[v.length - 1]])),
    multiValueQueryStringParameters: query.size === 0 ? null : multi,
    pathParameters: { proxy: options.path.slice(1) },
    stageVariables: null,
    requestContext: {
      resourceId: 'nmnny7',
      authorizer: actor === null ? { principalId: 'user', integrationLatency: 5 } : { principalId: actor, clientId: actor, roles: 'registry:admin', keyFingerprint: 'x', contentDigest: digest ?? '', signetProfile: 'signet', signetRequestBound: 'true', integrationLatency: 5 },
      resourcePath: '/{proxy+}',
      httpMethod: options.method,
      path: `${options.stage ?? '/prod'}${options.path}`,
      accountId: '123456789012',
      protocol: 'HTTP/1.1',
      stage: (options.stage ?? '/prod').slice(1),
      requestId: `rest-${++requestCounter}`,
      identity: { sourceIp: '203.0.113.7', userAgent: 'signet-test' },
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      apiId: 'abc123',
    },
    body: text === undefined ? null : options.base64 ? Buffer.from(text).toString('base64') : text,
    isBase64Encoded: options.base64 ?? false,
  };
  return event as unknown as APIGatewayProxyEvent;
}

function lower(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}
