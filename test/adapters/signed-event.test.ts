/**
 * End to end through the adapters: a client signs the URL it calls with the core's signer,
 * API Gateway turns the call into an event (built here from the real captures, changed the way
 * API Gateway changes them), the adapter rebuilds the request and the core verifies it.
 */
import { PrivateKeyInfo } from '../../lambda/core/keys';
import { signRequest } from '../../lambda/core/sign';
import { defaultVerifyPolicy, verifyRequest } from '../../lambda/core/verify';
import { isSignetError } from '../../lambda/core/errors';
import { adaptHttpApiEvent } from '../../lambda/adapters/http-api-event';
import { fromRestApiAuthorizerEvent, RestApiEventLike } from '../../lambda/adapters/rest-api-event';
import { AdaptedRequest, TargetUriOptions } from '../../lambda/adapters/target-uri';
import { loadFixture } from './fixtures';
import { nextTestKey } from '../support/test-keys';

const CREATED = 1_718_639_559;
const policy = defaultVerifyPolicy({ nowS: () => CREATED + 1 });
let client: PrivateKeyInfo;

beforeAll(() => {
  client = nextTestKey();
});

interface Call {
  readonly method: string;
  /** The URL the client calls and signs. */
  readonly url: string;
  readonly body?: string;
}

function signedHeaders(call: Call): Record<string, string> {
  const { headers } = signRequest({ method: call.method, url: call.url, body: call.body, keyId: 'c_demo', privateKey: client.key, created: CREATED });
  const out: Record<string, string> = { ...headers } as Record<string, string>;
  if (call.body) out['content-length'] = String(Buffer.byteLength(call.body));
  return out;
}

/**
 * What HTTP API delivers for the call: decoded rawPath, raw query, lower-case headers. On the
 * execute-api domain the URL's path already holds the stage; through a custom domain the mapping
 * key (first segment) is dropped and `/{stage}` put in its place.
 */
function httpApiEvent(call: Call, stage: string, viaMappingKey: boolean): Parameters<typeof adaptHttpApiEvent>[0] {
  const url = new URL(call.url);
  const event = loadFixture('http-api-authorizer-v2.capture.json');
  const path = viaMappingKey ? url.pathname.replace(/^\/[^/]+/, `/${stage}`) : url.pathname;
  const decoded = path.split('/').map(decodeURIComponent).join('/');
  event.rawPath = decoded;
  event.requestContext.http.path = decoded;
  event.rawQueryString = url.search.slice(1);
  event.requestContext.http.method = call.method;
  event.requestContext.stage = stage;
  event.requestContext.domainName = url.host;
  event.headers = { ...event.headers, host: url.host, ...signedHeaders(call) };
  return event;
}

/** What a REST API delivers: requestContext.path as called, decoded parameter maps in `order`. */
function restEvent(call: Call, order: readonly string[]): RestApiEventLike & Record<string, any> {
  const url = new URL(call.url);
  const event = loadFixture('rest-api-request-authorizer-v1.capture.json');
  const multi: Record<string, string[]> = {};
  for (const key of order) multi[key] = url.searchParams.getAll(key);
  event.multiValueQueryStringParameters = multi;
  event.queryStringParameters = Object.fromEntries(order.map((k) => [k, multi[k][multi[k].length - 1]]));
  event.httpMethod = call.method;
  event.requestContext.path = url.pathname;
  event.path = url.pathname.replace(/^\/prod/, '');
  event.resource = event.path;
  const signed = signedHeaders(call);
  for (const [name, value] of Object.entries(signed)) {
    const clientCase = name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
    event.headers[clientCase] = value;
    event.multiValueHeaders[clientCase] = [value];
  }
  return event;
}

async function verify(adapted: AdaptedRequest): Promise<string> {
  try {
    const verdict = await verifyRequest(adapted.request, policy, () => [{ fingerprint: client.fingerprint, key: client.publicKey }], adapted.targetUriCandidates);
    return verdict.fingerprint === client.fingerprint ? 'valid' : 'wrong key';
  } catch (error) {
    if (isSignetError(error)) return error.code;
    throw error;
  }
}

describe('a signed call survives the trip through API Gateway', () => {
  const httpCases: [string, Call, string, TargetUriOptions][] = [
    ['$default stage, query with repeated keys', { method: 'POST', url: 'https://lsw1ro4ipb.execute-api.eu-west-1.amazonaws.com/api/echo?b=2&a=1&a=3&q=x%20y', body: '{"a":1}' }, '$default', {}],
    ['named stage on the execute-api domain', { method: 'GET', url: 'https://lsw1ro4ipb.execute-api.eu-west-1.amazonaws.com/prod/api/echo?x=1' }, 'prod', {}],
    ['custom domain with a mapping key, percent-encoded path', { method: 'GET', url: 'https://api.example.com/v1/api/items/caf%C3%A9%20cr%C3%A8me' }, 'prod', { publicBaseUrl: 'https://api.example.com/v1' }],
  ];

  test.each(httpCases)('HTTP API: %s', async (_, call, stage, opts) => {
    const event = httpApiEvent(call, stage, opts.publicBaseUrl !== undefined);
    await expect(verify(adaptHttpApiEvent(event, opts))).resolves.toBe('valid');
  });

  test('HTTP API: a tampered query is a signature_mismatch', async () => {
    const call = { method: 'GET', url: 'https://lsw1ro4ipb.execute-api.eu-west-1.amazonaws.com/api/echo?amount=10' };
    const event = { ...httpApiEvent(call, '$default', false), rawQueryString: 'amount=1000' };
    await expect(verify(adaptHttpApiEvent(event))).resolves.toBe('signature_mismatch');
  });

  test('HTTP API: without publicBaseUrl a mapping-key URL cannot verify (documented)', async () => {
    const call = { method: 'GET', url: 'https://api.example.com/v1/api/echo' };
    const event = httpApiEvent(call, 'prod', true);
    await expect(verify(adaptHttpApiEvent(event))).resolves.toBe('signature_mismatch');
  });

  test('HTTP API: an encoded slash in a segment is lost (documented)', async () => {
    const call = { method: 'GET', url: 'https://lsw1ro4ipb.execute-api.eu-west-1.amazonaws.com/api/a%2Fb' };
    const event = httpApiEvent(call, '$default', false);
    await expect(verify(adaptHttpApiEvent(event))).resolves.toBe('signature_mismatch');
  });

  test('REST: URLSearchParams query, keys delivered in another order', async () => {
    const query = new URLSearchParams([['tag', 'a b'], ['tag', 'c+d'], ['from', '2024-06-17T15:00:00Z']]).toString();
    const call = { method: 'POST', url: `https://puhdx84jy9.execute-api.eu-west-1.amazonaws.com/prod/lambda-request?${query}`, body: 'x=1' };
    await expect(verify(fromRestApiAuthorizerEvent(restEvent(call, ['from', 'tag'])))).resolves.toBe('valid');
  });

  test('REST: strict RFC 3986 query', async () => {
    const call = { method: 'GET', url: 'https://puhdx84jy9.execute-api.eu-west-1.amazonaws.com/prod/lambda-request?q=caf%C3%A9%20%26%20co&n=1' };
    await expect(verify(fromRestApiAuthorizerEvent(restEvent(call, ['n', 'q'])))).resolves.toBe('valid');
  });

  test('REST: four keys in an order the event does not list cannot verify (documented)', async () => {
    const call = { method: 'GET', url: 'https://puhdx84jy9.execute-api.eu-west-1.amazonaws.com/prod/lambda-request?d=4&c=3&b=2&a=1' };
    await expect(verify(fromRestApiAuthorizerEvent(restEvent(call, ['a', 'b', 'c', 'd'])))).resolves.toBe('signature_mismatch');
    await expect(verify(fromRestApiAuthorizerEvent(restEvent(call, ['d', 'c', 'b', 'a'])))).resolves.toBe('valid');
  });

  test('REST: a changed query value is a signature_mismatch', async () => {
    const call = { method: 'GET', url: 'https://puhdx84jy9.execute-api.eu-west-1.amazonaws.com/prod/lambda-request?amount=10' };
    const event = restEvent(call, ['amount']) as { multiValueQueryStringParameters: Record<string, string[]> };
    event.multiValueQueryStringParameters.amount = ['1000'];
    await expect(verify(fromRestApiAuthorizerEvent(event))).resolves.toBe('signature_mismatch');
  });
});
