/**
 * The local gateway's payload 2.0 events: built as HTTP API builds them, and read back by the
 * real adapter (lambda/adapters/http-api-event.ts) into the URL the client signed.
 */
import { adaptHttpApiEvent } from '../../lambda/adapters/http-api-event';
import { receivedBody } from '../../lambda/backend/signed-body';
import { NodeRequestLike, authorizerEventOf, httpApiProxyEvent, sourceIpOf, withAuthorizerContext } from '../../local/http-api-event';

function request(url: string, rawHeaders: string[], remoteAddress = '127.0.0.1', method = 'GET'): NodeRequestLike {
  return { method, url, rawHeaders, socket: { remoteAddress } };
}

const OPTIONS = { requestId: 'req-1', nowMs: Date.UTC(2026, 0, 31, 12, 0, 5) };

describe('httpApiProxyEvent', () => {
  test('rawPath is decoded, rawQueryString is kept as sent, stage $default, domain from Host', () => {
    const event = httpApiProxyEvent(request('/api/caf%C3%A9?q=a%20b&q=c&x', ['Host', '127.0.0.1:3000']), Buffer.alloc(0), OPTIONS);
    expect(event.rawPath).toBe('/api/café');
    expect(event.rawQueryString).toBe('q=a%20b&q=c&x');
    expect(event.queryStringParameters).toEqual({ q: 'a b,c', x: '' });
    expect(event.requestContext).toMatchObject({
      stage: '$default',
      domainName: '127.0.0.1',
      requestId: 'req-1',
      timeEpoch: OPTIONS.nowMs,
      time: '31/Jan/2026:12:00:05 +0000',
      http: { method: 'GET', path: '/api/café', sourceIp: '127.0.0.1' },
    });
    expect(event.body).toBeUndefined();
    expect(event.isBase64Encoded).toBe(false);
  });

  test('header names are lower-cased, repeated headers joined with ",", cookies moved to cookies[]', () => {
    const event = httpApiProxyEvent(
      request('/api/echo', ['Host', 'h', 'X-Tag', 'a', 'x-tag', 'b', 'Cookie', 'k=1; j=2', 'Content-Type', 'text/plain']),
      Buffer.alloc(0),
      OPTIONS,
    );
    expect(event.headers).toEqual({ host: 'h', 'x-tag': 'a,b', 'content-type': 'text/plain' });
    expect(event.cookies).toEqual(['k=1', 'j=2']);
  });

  test('the source IP is the socket peer, IPv4-mapped addresses unwrapped; X-Forwarded-For is ignored', () => {
    const event = httpApiProxyEvent(request('/', ['Host', 'h', 'X-Forwarded-For', '198.51.100.1'], '::ffff:127.0.0.1'), Buffer.alloc(0), OPTIONS);
    expect(event.requestContext.http.sourceIp).toBe('127.0.0.1');
    expect(sourceIpOf('::1')).toBe('::1');
    expect(sourceIpOf('2001:db8::7')).toBe('2001:db8::7');
  });

  test.each([
    ['application/json', Buffer.from('{"a":"é"}'), false],
    ['text/plain; charset=utf-8', Buffer.from('hello'), false],
    ['application/vnd.api+json', Buffer.from('{}'), false],
    ['application/octet-stream', Buffer.from([0, 1, 2, 255]), true],
    [undefined, Buffer.from('no type'), true],
    ['application/json', Buffer.from([0xff, 0xfe, 0x7b]), true], // not UTF-8: text would lose bytes
  ])('a %s body of %j is passed as text unless it must be Base64', (type, bytes, base64) => {
    const headers = ['Host', 'h', ...(type !== undefined ? ['Content-Type', type] : [])];
    const event = httpApiProxyEvent(request('/api/echo', headers, '127.0.0.1', 'POST'), bytes, OPTIONS);
    expect(event.isBase64Encoded).toBe(base64);
    expect(receivedBody(event).equals(bytes)).toBe(true);
  });
});

describe('the authorizer and backend events', () => {
  test('the authorizer event carries the request without its body', () => {
    const proxy = httpApiProxyEvent(request('/api/echo?x=1', ['Host', '127.0.0.1:3000', 'Signature', 'sig=:AA==:', 'Content-Type', 'application/json'], '127.0.0.1', 'post'), Buffer.from('{}'), OPTIONS);
    const event = authorizerEventOf(proxy);
    expect('body' in event).toBe(false);
    expect('isBase64Encoded' in event).toBe(false);
    expect(event).toMatchObject({ type: 'REQUEST', rawPath: '/api/echo', rawQueryString: 'x=1', identitySource: ['sig=:AA==:'] });
    expect(event.routeArn).toBe('arn:aws:execute-api:us-east-1:000000000000:local/$default/POST/api/echo');
  });

  test("the real adapter rebuilds exactly the URL the client called, given the gateway's public base URL", () => {
    const proxy = httpApiProxyEvent(request('/api/caf%C3%A9?b=2&a=1', ['Host', '127.0.0.1:3000']), Buffer.alloc(0), OPTIONS);
    const adapted = adaptHttpApiEvent(authorizerEventOf(proxy), { publicBaseUrl: 'http://127.0.0.1:3000' });
    expect(adapted.request.targetUri).toBe('http://127.0.0.1:3000/api/caf%C3%A9?b=2&a=1');
    expect(adapted.request.sourceIp).toBe('127.0.0.1');
    expect(adapted.apiPath).toBe('/api/café');
  });

  test('the backend sees the context at requestContext.authorizer.lambda', () => {
    const proxy = httpApiProxyEvent(request('/api/echo', ['Host', 'h']), Buffer.alloc(0), OPTIONS);
    const event = withAuthorizerContext(proxy, { clientId: 'c_x' });
    expect(event.requestContext.authorizer.lambda).toEqual({ clientId: 'c_x' });
    expect((proxy.requestContext as { authorizer?: unknown }).authorizer).toBeUndefined();
  });
});
