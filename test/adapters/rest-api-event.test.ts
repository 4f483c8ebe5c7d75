import { SignetError } from '../../lambda/core/errors';
import {
  apiPathOfRestApiEvent,
  fromRestApiAuthorizerEvent,
  inferBasePath,
  RestApiEventLike,
} from '../../lambda/adapters/rest-api-event';
import { MAX_TARGET_URI_CANDIDATES } from '../../lambda/adapters/target-uri';
import { RFC3986_STRICT } from '../../lambda/adapters/percent-encoding';
import { loadFixture } from './fixtures';

const REQUEST_CAPTURE = 'rest-api-request-authorizer-v1.capture.json';
const HOST = 'puhdx84jy9.execute-api.eu-west-1.amazonaws.com';

function captureWith(change: (event: Record<string, any>) => void): RestApiEventLike {
  const event = loadFixture(REQUEST_CAPTURE);
  change(event);
  return event;
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof SignetError ? error.code : `not a SignetError: ${String(error)}`;
  }
  return undefined;
}

/** Sets both query maps the way API Gateway fills them (single map: last value). */
function withQuery(event: Record<string, any>, multi: Record<string, string[]>): void {
  event.multiValueQueryStringParameters = multi;
  event.queryStringParameters = Object.fromEntries(Object.entries(multi).map(([k, v]) => [k, v[v.length - 1]]));
}

/** How API Gateway reads a query: split on & and the first =, `+` as space, percent-decode. */
function decodedPairs(url: string): [string, string][] {
  const query = new URL(url).search.slice(1);
  return [...new URLSearchParams(query)];
}

describe('REST API REQUEST authorizer events (v1)', () => {
  test('real capture on the execute-api domain: requestContext.path (with the stage) is the called path', () => {
    const event = loadFixture(REQUEST_CAPTURE);
    const { request, targetUriCandidates, apiPath, methodArn } = fromRestApiAuthorizerEvent(event);

    expect(request.method).toBe('POST');
    expect(targetUriCandidates).toEqual([`https://${HOST}/prod/lambda-request`]);
    expect(request.targetUri).toBe(targetUriCandidates[0]);
    expect(apiPath).toBe('/lambda-request');
    expect(methodArn).toBe('arn:aws:execute-api:eu-west-1:123456789012:puhdx84jy9/prod/POST/lambda-request');
    expect(request.sourceIp).toBe('15.248.3.126');
    expect(request.headers['content-length']).toBe('0');
    expect(request.headers['x-forwarded-for']).toBe('15.248.3.126, 130.176.209.37');
    expect(Object.keys(request.headers).every((name) => name === name.toLowerCase())).toBe(true);
    expect(Object.keys(request.headers)).toHaveLength(Object.keys(event.headers).length);
    expect('hasBody' in request).toBe(false);
  });

  test('apiPathOfRestApiEvent agrees with the adapter', () => {
    const event = loadFixture(REQUEST_CAPTURE);
    expect(apiPathOfRestApiEvent(event)).toBe(fromRestApiAuthorizerEvent(event).apiPath);
  });

  test('encoding capture: the path keeps its encoding; multiValueHeaders win over the last-value headers', () => {
    const event = loadFixture('rest-api-proxy-v1-encoding.capture.json');
    const { request, targetUriCandidates, apiPath } = fromRestApiAuthorizerEvent(event);

    const base = 'https://5h7pqvr9u4.execute-api.us-west-2.amazonaws.com/live/capture/space%20value';
    expect(targetUriCandidates.every((u) => u.startsWith(`${base}?`))).toBe(true);
    expect(apiPath).toBe('/capture/space value');
    expect(request.headers['x-voker-probe']).toBe('first, second');
    expect(request.headers.cookie).toBe('session=abc123; theme=dark');
    expect(request.hasBody).toBe(true);
  });

  test('encoding capture: every candidate decodes to exactly the parameters API Gateway reported', () => {
    const event = loadFixture('rest-api-proxy-v1-encoding.capture.json');
    const { targetUriCandidates } = fromRestApiAuthorizerEvent(event);
    const expected = [
      ['empty', ''],
      ['encodedPlus', 'a+b'],
      ['literalPlus', 'a b'],
      ['redirect', 'https://example.com/a/b'],
      ['repeat', 'one'],
      ['repeat', 'two'],
    ];
    expect(targetUriCandidates.length).toBeGreaterThan(1);
    expect(targetUriCandidates.length).toBeLessThanOrEqual(MAX_TARGET_URI_CANDIDATES);
    for (const candidate of targetUriCandidates) {
      expect(decodedPairs(candidate).sort()).toEqual(expected.sort());
    }
    // Form encoding in the order the event lists the keys:
    expect(targetUriCandidates[0]).toBe(
      'https://5h7pqvr9u4.execute-api.us-west-2.amazonaws.com/live/capture/space%20value' +
        '?empty=&encodedPlus=a%2Bb&literalPlus=a+b&redirect=https%3A%2F%2Fexample.com%2Fa%2Fb&repeat=one&repeat=two',
    );
    // The client's own order (repeat, redirect, literalPlus, ...) is lost with five keys: documented, not rebuilt.
    const sent = 'repeat=one&repeat=two&redirect=https%3A%2F%2Fexample.com%2Fa%2Fb&literalPlus=a+b&encodedPlus=a%2Bb&empty=';
    expect(targetUriCandidates.some((u) => u.endsWith(`?${sent}`))).toBe(false);
  });

  test('repeated keys and percent-encoding: common client spellings are among the candidates, in both key orders', () => {
    const event = captureWith((e) => withQuery(e, { tag: ['x y', 'z/1'], q: ['café & co'] }));
    const { targetUriCandidates } = fromRestApiAuthorizerEvent(event);
    const url = (query: string): string => `https://${HOST}/prod/lambda-request?${query}`;

    // URLSearchParams / Java / Python requests, as listed:
    const form = new URLSearchParams([['tag', 'x y'], ['tag', 'z/1'], ['q', 'café & co']]).toString();
    expect(targetUriCandidates).toContain(url(form));
    // The same in the other key order (clients do not sort; API Gateway does not keep the order):
    const formReordered = new URLSearchParams([['q', 'café & co'], ['tag', 'x y'], ['tag', 'z/1']]).toString();
    expect(targetUriCandidates).toContain(url(formReordered));
    // curl --data-urlencode / RFC 3986 strict:
    expect(targetUriCandidates).toContain(url('tag=x%20y&tag=z%2F1&q=caf%C3%A9%20%26%20co'));
    // A URL typed by hand and normalised by new URL():
    expect(targetUriCandidates).toContain(url('tag=x%20y&tag=z/1&q=caf%C3%A9%20%26%20co'));
    expect(targetUriCandidates.length).toBeLessThanOrEqual(MAX_TARGET_URI_CANDIDATES);
  });

  test('only queryStringParameters (docs example): single values, no multiValue map', () => {
    const event = loadFixture('rest-api-request-authorizer-v1.docs.json');
    const { request, targetUriCandidates } = fromRestApiAuthorizerEvent(event, { publicBaseUrl: 'https://api.example.com' });
    expect(targetUriCandidates).toEqual(['https://api.example.com/request?QueryString1=queryValue1']);
    expect(request.headers['x-amz-date']).toBe('20170718T062915Z');
    expect(request.headers.headerauth1).toBe('headerValue1');
    // "..." is the docs' placeholder, not an address.
    expect('sourceIp' in request).toBe(false);
  });

  test('the docs example has neither Host nor domainName: without publicBaseUrl the URL cannot be rebuilt', () => {
    const event = loadFixture('rest-api-request-authorizer-v1.docs.json');
    expect(codeOf(() => fromRestApiAuthorizerEvent(event))).toBe('invalid_request');
  });

  test('custom domain with a base-path mapping: the called path is kept, the API path is inferred from the route', () => {
    const event = captureWith((e) => {
      e.headers.Host = 'api.example.com';
      e.multiValueHeaders.Host = ['api.example.com'];
      e.requestContext.domainName = 'api.example.com';
      e.path = '/v1/lambda-request';
      e.requestContext.path = '/v1/lambda-request';
    });
    const plain = fromRestApiAuthorizerEvent(event);
    expect(plain.targetUriCandidates).toEqual(['https://api.example.com/v1/lambda-request']);
    expect(plain.apiPath).toBe('/lambda-request');

    const configured = fromRestApiAuthorizerEvent(event, { publicBaseUrl: 'https://api.example.com/v1' });
    expect(configured.targetUriCandidates).toEqual(['https://api.example.com/v1/lambda-request']);
    expect(configured.apiPath).toBe('/lambda-request');
  });

  test('custom domain, greedy {proxy+} route and a nested base path', () => {
    const event = captureWith((e) => {
      e.headers.Host = 'api.example.com';
      e.multiValueHeaders.Host = ['api.example.com'];
      e.resource = '/api/{proxy+}';
      e.pathParameters = { proxy: 'echo/x%20y' };
      e.path = '/v1/nested/api/echo/x%20y';
      e.requestContext.path = '/v1/nested/api/echo/x%20y';
    });
    const { targetUriCandidates, apiPath } = fromRestApiAuthorizerEvent(event);
    expect(targetUriCandidates).toEqual(['https://api.example.com/v1/nested/api/echo/x%20y']);
    expect(apiPath).toBe('/api/echo/x y');
  });

  test('custom domain, no route information: the base path comes from publicBaseUrl', () => {
    const event = captureWith((e) => {
      e.headers.Host = 'api.example.com';
      e.multiValueHeaders.Host = ['api.example.com'];
      delete e.resource;
      e.path = '/v1/api/echo';
      e.requestContext.path = '/v1/api/echo';
    });
    expect(fromRestApiAuthorizerEvent(event).apiPath).toBe('/v1/api/echo');
    const configured = fromRestApiAuthorizerEvent(event, { publicBaseUrl: 'https://api.example.com/v1' });
    expect(configured.apiPath).toBe('/api/echo');
    expect(configured.request.targetUri).toBe('https://api.example.com/v1/api/echo');
  });

  test('publicBaseUrl replaces the execute-api URL when the call came through the stage', () => {
    const event = loadFixture(REQUEST_CAPTURE);
    const { request, apiPath } = fromRestApiAuthorizerEvent(event, { publicBaseUrl: 'https://api.example.com/v1' });
    expect(request.targetUri).toBe('https://api.example.com/v1/lambda-request');
    expect(apiPath).toBe('/lambda-request');
  });

  test('trailing slash and stage root survive', () => {
    const trailing = captureWith((e) => {
      e.resource = '/payment';
      e.path = '/payment/';
      e.requestContext.path = '/prod/payment/';
    });
    expect(fromRestApiAuthorizerEvent(trailing).request.targetUri).toBe(`https://${HOST}/prod/payment/`);
    expect(fromRestApiAuthorizerEvent(trailing).apiPath).toBe('/payment/');

    const root = captureWith((e) => {
      e.resource = '/';
      e.path = '/';
      e.requestContext.path = '/prod';
    });
    expect(fromRestApiAuthorizerEvent(root).request.targetUri).toBe(`https://${HOST}/prod`);
    expect(fromRestApiAuthorizerEvent(root).apiPath).toBe('/');
  });

  test('console test invocation: null maps, junk source IP, no body', () => {
    const event = loadFixture('rest-api-proxy-v1-console-test.capture.json');
    const { request, targetUriCandidates } = fromRestApiAuthorizerEvent(event);
    expect({ ...request.headers }).toEqual({});
    expect(targetUriCandidates).toEqual(['https://testprefix.testdomainname/no-auth']);
    expect('sourceIp' in request).toBe(false);
    expect(request.hasBody).toBe(false);
  });

  test('REST multiValue headers: names folded case-insensitively, values joined with ", ", cookies with "; "', () => {
    const event = captureWith((e) => {
      e.multiValueHeaders = {
        Host: [HOST],
        Accept: ['text/plain'],
        accept: ['application/json'],
        'X-Trace': ['a', 'b'],
        Cookie: ['a=1', 'b=2'],
      };
      e.headers = { Host: HOST, accept: 'application/json', 'X-Trace': 'b', Cookie: 'b=2', 'X-Only-Single': 'kept' };
    });
    const { headers } = fromRestApiAuthorizerEvent(event).request;
    expect({ ...headers }).toEqual({
      host: HOST,
      accept: 'text/plain, application/json',
      'x-trace': 'a, b',
      cookie: 'a=1; b=2',
      'x-only-single': 'kept',
    });
  });

  test('IPv6 caller', () => {
    const event = captureWith((e) => {
      e.requestContext.identity.sourceIp = '2001:db8::7';
    });
    expect(fromRestApiAuthorizerEvent(event).request.sourceIp).toBe('2001:db8::7');
  });

  test('an encoded dot segment is refused (role_forbidden)', () => {
    const event = captureWith((e) => {
      e.resource = '/{proxy+}';
      e.pathParameters = { proxy: 'api/%2E%2E/registry' };
      e.path = '/api/%2E%2E/registry';
      e.requestContext.path = '/prod/api/%2E%2E/registry';
    });
    expect(codeOf(() => fromRestApiAuthorizerEvent(event))).toBe('role_forbidden');
  });

  test("an encoded '/' inside a segment is refused (role_forbidden), in either case; an encoded '%' that hides one is left to the role check", () => {
    for (const segment of ['api%2Fecho', 'api%2fecho']) {
      const event = captureWith((e) => {
        e.resource = '/{id}';
        e.pathParameters = { id: segment };
        e.path = `/${segment}`;
        e.requestContext.path = `/prod/${segment}`;
      });
      expect(codeOf(() => fromRestApiAuthorizerEvent(event))).toBe('role_forbidden');
    }
    const hidden = captureWith((e) => {
      e.resource = '/{id}';
      e.pathParameters = { id: 'api%252Fecho' };
      e.path = '/api%252Fecho';
      e.requestContext.path = '/prod/api%252Fecho';
    });
    // Decoded once it is `/api%2Fecho`, one segment, which no role pattern matches.
    expect(fromRestApiAuthorizerEvent(hidden).apiPath).toBe('/api%2Fecho');
  });

  test('HTTP API payload 1.0 events have the same shape', () => {
    const event = loadFixture('http-api-authorizer-v1-format.docs.json');
    const { request, methodArn, apiPath } = fromRestApiAuthorizerEvent(event, { publicBaseUrl: 'https://api.example.com' });
    expect(request.targetUri).toBe('https://api.example.com/request?QueryString1=queryValue1');
    expect(methodArn).toBe('arn:aws:execute-api:us-east-1:123456789012:abcdef123/test/GET/request');
    expect(apiPath).toBe('/request');
  });

  test('TOKEN authorizer events carry no request to verify', () => {
    const event = loadFixture('rest-api-token-authorizer-v1.capture.json');
    expect(codeOf(() => fromRestApiAuthorizerEvent(event))).toBe('invalid_request');
  });
});

describe('inferBasePath', () => {
  test.each([
    ['/v1/payment', '/payment', {}, '/v1'],
    ['/payment', '/payment', {}, ''],
    ['/payment/', '/payment', {}, ''],
    ['/v1', '/', {}, '/v1'],
    ['/v1/', '/', {}, '/v1'],
    ['/', '/', {}, ''],
    ['/v1/nested/payment/123-abc/', '/payment/{invoice+}', { invoice: '123-abc/' }, '/v1/nested'],
    ['/v1/users/7/orders', '/users/{id}/orders', { id: '7' }, '/v1'],
    ['/v1/a%20b', '/{name}', { name: 'a b' }, '/v1'],
  ])('%s for route %s with %j → %p', (path, resource, params, expected) => {
    expect(inferBasePath(path, resource, params)).toBe(expected);
  });

  test.each([
    ['/v1/other', '/payment', {}],
    ['/v1/users/7', '/users/{id}', {}],
    ['/payment', '/v1/payment', {}],
    ['/payment', null, {}],
  ])('%s for route %s with %j does not line up', (path, resource, params) => {
    expect(inferBasePath(path, resource, params)).toBeUndefined();
  });
});

describe('candidate URLs are built only as they are read', () => {
  test('adapting writes the most likely query only; the others are written when alternativeTargetUris is read, and are the same list', () => {
    const event = captureWith((e) => withQuery(e, { b: ['two words'], a: ['x'] }));
    const strict = jest.spyOn(RFC3986_STRICT, 'encode');
    try {
      const adapted = fromRestApiAuthorizerEvent(event);
      expect(strict).not.toHaveBeenCalled();
      const alternatives = [...adapted.alternativeTargetUris];
      expect(strict).toHaveBeenCalled();
      expect([adapted.request.targetUri, ...alternatives]).toEqual(adapted.targetUriCandidates);
      expect(adapted.targetUriCandidates.length).toBeGreaterThan(1);
      expect(adapted.targetUriCandidates.length).toBeLessThanOrEqual(MAX_TARGET_URI_CANDIDATES);
    } finally {
      strict.mockRestore();
    }
  });
});
