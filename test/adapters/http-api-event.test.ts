import fc from 'fast-check';
import { SignetError } from '../../lambda/core/errors';
import {
  adaptHttpApiEvent,
  apiPathOfHttpApiEvent,
  fromHttpApiAuthorizerEvent,
  HttpApiEventV2Like,
} from '../../lambda/adapters/http-api-event';
import { MAX_TARGET_URI_CANDIDATES } from '../../lambda/adapters/target-uri';
import { loadFixture } from './fixtures';

const AUTHORIZER_CAPTURE = 'http-api-authorizer-v2.capture.json';
const HOST = 'lsw1ro4ipb.execute-api.eu-west-1.amazonaws.com';

/** The real authorizer capture, changed into a variant. */
function captureWith(change: (event: Record<string, any>) => void): HttpApiEventV2Like {
  const event = loadFixture(AUTHORIZER_CAPTURE);
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

describe('HTTP API authorizer events (payload 2.0)', () => {
  test('real capture, $default stage: URL from Host + rawPath, headers as delivered, caller IP', () => {
    const event = loadFixture(AUTHORIZER_CAPTURE);
    const { request, targetUriCandidates, apiPath } = adaptHttpApiEvent(event);

    expect(request.method).toBe('POST');
    expect(request.targetUri).toBe(`https://${HOST}/lambda`);
    expect(targetUriCandidates).toEqual([`https://${HOST}/lambda`]);
    expect(apiPath).toBe('/lambda');
    expect({ ...request.headers }).toEqual(event.headers);
    expect(request.sourceIp).toBe('15.248.3.126');
    // Authorizer events carry no body: the core decides from Content-Length / Transfer-Encoding.
    expect('hasBody' in request).toBe(false);
  });

  test('fromHttpApiAuthorizerEvent and apiPathOfHttpApiEvent agree with adaptHttpApiEvent', () => {
    const event = loadFixture('http-api-proxy-v2-named-stage.capture.json');
    const adapted = adaptHttpApiEvent(event);
    expect(fromHttpApiAuthorizerEvent(event)).toEqual(adapted.request);
    expect(apiPathOfHttpApiEvent(event)).toBe(adapted.apiPath);
  });

  test('docs example: header names lower-cased, cookies[] folded back into one cookie header, query kept exactly', () => {
    const event = loadFixture('http-api-authorizer-v2.docs.json');
    const { request } = adaptHttpApiEvent(event);

    expect({ ...request.headers }).toEqual({ header1: 'value1', header2: 'value2', cookie: 'cookie1; cookie2' });
    expect(request.targetUri).toBe('https://id.execute-api.us-east-1.amazonaws.com/my/path?parameter1=value1&parameter1=value2&parameter2=value');
    // The docs put the placeholder "IP" in sourceIp: not an address, so no sourceIp at all.
    expect('sourceIp' in request).toBe(false);
  });

  test('named stage: rawPath carries /{stage}; the URL keeps it, the API path drops it', () => {
    const event = loadFixture('http-api-proxy-v2-named-stage.capture.json');
    const { request, apiPath } = adaptHttpApiEvent(event);

    expect(request.targetUri).toBe('https://r3pmxmplak.execute-api.us-east-2.amazonaws.com/default/nodejs-apig-function-1G3XMPLZXVXYI');
    expect(apiPath).toBe('/nodejs-apig-function-1G3XMPLZXVXYI');
    expect(request.method).toBe('GET');
    expect(request.headers.cookie).toBe('s_fid=7AABXMPL1AFD9BBF-0643XMPL09956DE2; regStatus=pre-register');
  });

  test('named stage with publicBaseUrl: the stage is replaced by the configured base', () => {
    const event = loadFixture('http-api-proxy-v2-named-stage.capture.json');
    const { request, apiPath } = adaptHttpApiEvent(event, { publicBaseUrl: 'https://api.example.com/v1' });
    expect(request.targetUri).toBe('https://api.example.com/v1/nodejs-apig-function-1G3XMPLZXVXYI');
    expect(apiPath).toBe('/nodejs-apig-function-1G3XMPLZXVXYI');
  });

  test('stripStage: false keeps a first segment that only looks like the stage', () => {
    const event = loadFixture('http-api-proxy-v2-named-stage.capture.json');
    const { request, apiPath } = adaptHttpApiEvent(event, { publicBaseUrl: 'https://api.example.com', stripStage: false });
    expect(request.targetUri).toBe('https://api.example.com/default/nodejs-apig-function-1G3XMPLZXVXYI');
    expect(apiPath).toBe('/default/nodejs-apig-function-1G3XMPLZXVXYI');
  });

  /** The capture as a request for https://api.example.com/v1/api/echo?x=1&x=2 through a custom domain, with `rawPath` as given. */
  function throughCustomDomain(rawPath: string, stage: string): HttpApiEventV2Like {
    return captureWith((e) => {
      e.headers.host = 'api.example.com';
      e.requestContext.domainName = 'api.example.com';
      e.requestContext.stage = stage;
      e.rawPath = rawPath;
      e.requestContext.http.path = rawPath;
      e.rawQueryString = 'x=1&x=2';
    });
  }

  test('custom domain with an API mapping key, rawPath with /{stage} and not the key: publicBaseUrl rebuilds the called URL', () => {
    const event = throughCustomDomain('/prod/api/echo', 'prod');
    const configured = adaptHttpApiEvent(event, { publicBaseUrl: 'https://api.example.com/v1/' });
    expect(configured.request.targetUri).toBe('https://api.example.com/v1/api/echo?x=1&x=2');
    expect(configured.apiPath).toBe('/api/echo');

    // Without the setting the event cannot know the mapping key: the URL is the gateway's view.
    expect(adaptHttpApiEvent(event).request.targetUri).toBe('https://api.example.com/prod/api/echo?x=1&x=2');
  });

  test.each([
    ['$default', '/v1/api/echo'],
    ['prod', '/v1/api/echo'],
  ])('custom domain with an API mapping key, rawPath carrying the key (stage %s): the same URL and API path, the key not doubled', (stage, rawPath) => {
    const event = throughCustomDomain(rawPath, stage);
    const adapted = adaptHttpApiEvent(event, { publicBaseUrl: 'https://api.example.com/v1' });
    expect(adapted.targetUriCandidates).toEqual(['https://api.example.com/v1/api/echo?x=1&x=2']);
    expect(adapted.apiPath).toBe('/api/echo');
    expect(apiPathOfHttpApiEvent(event, { publicBaseUrl: 'https://api.example.com/v1' })).toBe('/api/echo');
  });

  test('a rawPath carrying the key: the key only on a segment boundary, a multi-segment or encoded base path, the mapping root', () => {
    const base = { publicBaseUrl: 'https://api.example.com/v1' };
    // `/v10` is not under `/v1`: the stage is stripped as usual, the path kept.
    expect(adaptHttpApiEvent(throughCustomDomain('/prod/v10/api/echo', 'prod'), base).request.targetUri).toBe('https://api.example.com/v1/v10/api/echo?x=1&x=2');
    expect(adaptHttpApiEvent(throughCustomDomain('/v1', '$default'), base)).toMatchObject({ request: { targetUri: 'https://api.example.com/v1?x=1&x=2' }, apiPath: '/' });
    const nested = adaptHttpApiEvent(throughCustomDomain('/partners/v1/api/echo', '$default'), { publicBaseUrl: 'https://api.example.com/partners/v1' });
    expect(nested).toMatchObject({ request: { targetUri: 'https://api.example.com/partners/v1/api/echo?x=1&x=2' }, apiPath: '/api/echo' });
    // rawPath is decoded; the base path is compared decoded and kept in the URL as configured.
    const encoded = adaptHttpApiEvent(throughCustomDomain('/café/api/echo', '$default'), { publicBaseUrl: 'https://api.example.com/caf%C3%A9' });
    expect(encoded).toMatchObject({ request: { targetUri: 'https://api.example.com/caf%C3%A9/api/echo?x=1&x=2' }, apiPath: '/api/echo' });
  });

  test('the stage root called without a trailing slash keeps none', () => {
    const event = captureWith((e) => {
      e.requestContext.stage = 'prod';
      e.rawPath = '/prod';
    });
    expect(adaptHttpApiEvent(event, { publicBaseUrl: 'https://api.example.com/v1' }).request.targetUri).toBe('https://api.example.com/v1');
    expect(adaptHttpApiEvent(event, { publicBaseUrl: 'https://api.example.com' }).request.targetUri).toBe('https://api.example.com/');
    expect(adaptHttpApiEvent(event).apiPath).toBe('/');
  });

  test('encoding capture: decoded rawPath re-encoded, rawQueryString untouched, so the called URL comes back exactly', () => {
    const event = loadFixture('http-api-proxy-v2-encoding.capture.json');
    const { request, apiPath } = adaptHttpApiEvent(event);

    expect(request.targetUri).toBe(
      'https://sjzepsqsu5.execute-api.us-west-2.amazonaws.com/capture/space%20value' +
        '?repeat=one&repeat=two&redirect=https%3A%2F%2Fexample.com%2Fa%2Fb&literalPlus=a+b&encodedPlus=a%2Bb&empty=',
    );
    expect(apiPath).toBe('/capture/space value');
    // HTTP API joined the repeated header with "," and moved the cookies out of the headers.
    expect(request.headers['x-voker-probe']).toBe('first,second');
    expect(request.headers.cookie).toBe('session=abc123; theme=dark');
    // A proxy event says whether it has a body.
    expect(request.hasBody).toBe(true);
  });

  test('path decoding capture: exactly the paths whose client spelling is the minimal one are rebuilt', () => {
    const rows: { sentPath: string; httpAPIPath?: string; httpAPIRejected?: boolean }[] = loadFixture('http-api-path-decoding.capture.json');
    const rebuilt = new Set(['/capture/plain', '/capture/space%20value', '/capture/hash%23value', '/capture/unicode-%CE%BB-%E4%B8%96%E7%95%8C']);
    const lost = new Set([
      '/capture/question%3Fvalue', // the decoded ? cut the path
      '/capture/slash%2Fvalue', // an encoded / is indistinguishable from a separator
      '/capture/literal%252Fvalue', // decoded twice
      '/capture/literal%253Fvalue',
      '/capture/literal%2525value',
    ]);
    for (const row of rows) {
      if (row.httpAPIRejected) continue;
      const event = captureWith((e) => {
        e.rawPath = row.httpAPIPath;
      });
      const candidates = adaptHttpApiEvent(event).targetUriCandidates;
      const called = `https://${HOST}${row.sentPath}`;
      if (rebuilt.has(row.sentPath)) expect(candidates).toContain(called);
      else if (lost.has(row.sentPath)) expect(candidates).not.toContain(called);
      else throw new Error(`row ${row.sentPath} is not classified in this test`);
    }
  });

  test('characters clients encode differently give a few candidates, the WHATWG spelling first', () => {
    const event = captureWith((e) => {
      e.rawPath = "/files/it's (v2)^.txt";
    });
    const candidates = adaptHttpApiEvent(event).targetUriCandidates.map((u) => u.slice(`https://${HOST}`.length));
    expect(candidates).toEqual([
      "/files/it's%20(v2)%5E.txt", // WHATWG URL, current spec
      "/files/it's%20(v2)^.txt", // older URL parsers (Node 20)
      '/files/it%27s%20%28v2%29%5E.txt', // RFC 3986 unreserved only
    ]);
  });

  test('IPv6 callers are kept (canonical lower case); IPv4-mapped IPv6 becomes IPv4', () => {
    const ipv6 = captureWith((e) => {
      e.requestContext.http.sourceIp = '2001:DB8:85A3::8A2E:370:7334';
    });
    expect(adaptHttpApiEvent(ipv6).request.sourceIp).toBe('2001:db8:85a3::8a2e:370:7334');
    const mapped = captureWith((e) => {
      e.requestContext.http.sourceIp = '::ffff:203.0.113.9';
    });
    expect(adaptHttpApiEvent(mapped).request.sourceIp).toBe('203.0.113.9');
  });

  test.each([['IP'], ['test-invoke-source-ip'], ['...'], [''], ['203.0.113.9, 10.0.0.1'], [null]])('junk sourceIp %p gives no sourceIp', (junk) => {
    const event = captureWith((e) => {
      e.requestContext.http.sourceIp = junk;
    });
    expect('sourceIp' in adaptHttpApiEvent(event).request).toBe(false);
  });

  test('X-Forwarded-For is never used as the caller address', () => {
    const event = captureWith((e) => {
      e.headers['x-forwarded-for'] = '198.51.100.1';
      e.requestContext.http.sourceIp = 'not-an-ip';
    });
    expect(adaptHttpApiEvent(event).request.sourceIp).toBeUndefined();
  });

  test('authority: Host lower-cased, default port dropped; domainName when Host is missing or junk', () => {
    const upper = captureWith((e) => {
      e.headers.host = 'API.Example.COM:443';
    });
    expect(adaptHttpApiEvent(upper).request.targetUri).toBe('https://api.example.com/lambda');

    const missing = captureWith((e) => {
      delete e.headers.host;
    });
    expect(adaptHttpApiEvent(missing).request.targetUri).toBe(`https://${HOST}/lambda`);

    const junk = captureWith((e) => {
      e.headers.host = 'evil.example/with/path';
    });
    expect(adaptHttpApiEvent(junk).request.targetUri).toBe(`https://${HOST}/lambda`);

    const neither = captureWith((e) => {
      delete e.headers.host;
      delete e.requestContext.domainName;
    });
    expect(codeOf(() => adaptHttpApiEvent(neither))).toBe('invalid_request');
    // With a public base URL the host is not needed.
    expect(adaptHttpApiEvent(neither, { publicBaseUrl: 'https://api.example.com' }).request.targetUri).toBe('https://api.example.com/lambda');
  });

  test('a local gateway over plain HTTP on a port (X-Forwarded-Proto: http)', () => {
    const event = captureWith((e) => {
      e.headers.host = '127.0.0.1:3000';
      e.headers['x-forwarded-proto'] = 'http';
      e.rawPath = '/api/echo';
      e.rawQueryString = 'x=1';
    });
    expect(adaptHttpApiEvent(event).request.targetUri).toBe('http://127.0.0.1:3000/api/echo?x=1');
  });

  test("X-Forwarded-Proto's last value is the scheme: one a client put before the proxy's own is not", () => {
    const schemeWith = (value: string) =>
      new URL(adaptHttpApiEvent(captureWith((e) => void (e.headers['x-forwarded-proto'] = value))).request.targetUri).protocol;
    expect([schemeWith('http, https'), schemeWith('https,http'), schemeWith(' HTTP '), schemeWith('gopher')]).toEqual(['https:', 'http:', 'http:', 'https:']);
  });

  test('header names differing only in case are joined the way HTTP API joins repeats', () => {
    const event = captureWith((e) => {
      e.headers = { 'X-Probe': 'a', 'x-probe': 'b', host: HOST };
    });
    expect(adaptHttpApiEvent(event).request.headers['x-probe']).toBe('a,b');
  });

  test('a header named like an Object.prototype member is only a header', () => {
    const event = captureWith((e) => {
      e.headers = JSON.parse(`{"host":"${HOST}","__proto__":"x","constructor":"y"}`);
    });
    const { headers } = adaptHttpApiEvent(event).request;
    expect(headers.constructor).toBe('y');
    expect(headers['__proto__']).toBe('x');
    expect(headers['tostring']).toBeUndefined();
  });

  test.each([['/api/../registry/clients'], ['/api/./echo'], ['/prod/..']])('dot segment in %p is refused (role_forbidden)', (rawPath) => {
    const event = captureWith((e) => {
      e.rawPath = rawPath;
      e.requestContext.stage = 'prod';
    });
    expect(codeOf(() => adaptHttpApiEvent(event))).toBe('role_forbidden');
  });

  test('a missing or invalid method is invalid_request', () => {
    expect(codeOf(() => adaptHttpApiEvent(captureWith((e) => { e.requestContext.http.method = ''; })))).toBe('invalid_request');
    expect(codeOf(() => adaptHttpApiEvent(captureWith((e) => { e.requestContext.http.method = 'GET /x'; })))).toBe('invalid_request');
  });

  test('a bad publicBaseUrl is a deployment error, not a request error', () => {
    const event = loadFixture(AUTHORIZER_CAPTURE);
    for (const bad of ['api.example.com', 'ftp://api.example.com', 'https://api.example.com/v1?x=1', 'https://api.example.com/#f', 'https://u:p@api.example.com']) {
      expect(() => adaptHttpApiEvent(event, { publicBaseUrl: bad })).toThrow(/publicBaseUrl/);
      expect(codeOf(() => adaptHttpApiEvent(event, { publicBaseUrl: bad }))).toMatch(/^not a SignetError/);
    }
  });

  describe('properties', () => {
    const segment = fc
      .string({ unit: 'binary', minLength: 1, maxLength: 12 })
      .filter((s) => !/[/\\%]/.test(s) && s !== '.' && s !== '..' && !/^[\s\u0000-\u001f]|[\s\u0000-\u001f]$/.test(s));

    test('a client that set the decoded path on a WHATWG URL signed one of the candidates', () => {
      fc.assert(
        fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), (segments) => {
          const decodedPath = `/${segments.join('/')}`;
          const url = new URL(`https://${HOST}`);
          url.pathname = decodedPath;
          if (decodeURIComponent(url.pathname) !== decodedPath) return; // the parser itself changed the path
          const event = captureWith((e) => {
            e.rawPath = decodedPath;
          });
          expect(adaptHttpApiEvent(event).targetUriCandidates).toContain(url.href);
        }),
        { numRuns: 300 },
      );
    });

    test('a client that encodeURIComponent-ed each segment signed one of the candidates; every candidate decodes to rawPath', () => {
      fc.assert(
        fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), (segments) => {
          const decodedPath = `/${segments.join('/')}`;
          const event = captureWith((e) => {
            e.rawPath = decodedPath;
          });
          const { targetUriCandidates } = adaptHttpApiEvent(event);
          expect(targetUriCandidates).toContain(`https://${HOST}/${segments.map(encodeURIComponent).join('/')}`);
          expect(targetUriCandidates.length).toBeLessThanOrEqual(MAX_TARGET_URI_CANDIDATES);
          for (const candidate of targetUriCandidates) {
            const path = candidate.slice(`https://${HOST}`.length);
            expect(path.split('/').map(decodeURIComponent).join('/')).toBe(decodedPath);
          }
        }),
        { numRuns: 300 },
      );
    });
  });
});
