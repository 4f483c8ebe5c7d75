/**
 * The body half: the backend recomputes the body's SHA-256 and compares it with the Content-Digest
 * the client signed (passed on by the authorizer as `contentDigest`). Proxy events are the real
 * captures (HTTP API 2.0 with a Lambda authorizer context, REST v1 behind a Lambda authorizer),
 * carrying a body the core signer signed; the Middy middleware runs in real @middy/core (v4, CJS).
 */
import { createHash, randomBytes } from 'node:crypto';
import type middyType from '@middy/core' with { 'resolution-mode': 'import' };
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { allowContext } from '../../lambda/adapters/authorizer-context';
import { checkSignedBody, signedBody, withSignedBody } from '../../lambda/backend/signed-body';
import { type PrivateKeyInfo } from '../../lambda/core/keys';
import { isSignetError } from '../../lambda/core/errors';
import { signRequest } from '../../lambda/core/sign';
import { fixture } from '../authorizer/support';
import { HELLO_WORLD_LF_SHA512_B64, HELLO_WORLD_SHA256_B64, TEST_REQUEST } from '../fixtures/rfc9421';
import { nextTestKey } from '../support/test-keys';

// @middy/core 4 ships CommonJS at its "require" entry; the types are the ESM ones.
 
const middy = require('@middy/core') as typeof middyType;

const CLIENT_ID = 'c_AAAAAAAAAAAAAAAAAAAAAA';
let key: PrivateKeyInfo;

beforeAll(() => {
  key = nextTestKey();
});

/** The Content-Digest the client signed for `body` (what the authorizer passes on as contentDigest). */
function signedDigest(body: string | Uint8Array): string {
  const { headers } = signRequest({ method: 'POST', url: 'https://api.example.com/api/echo', body, keyId: CLIENT_ID, privateKey: key.key, created: 1_750_000_000 });
  return headers['content-digest']!;
}

function authorizerContext(digest: string | undefined) {
  return allowContext({ clientId: CLIENT_ID, roles: ['partner'], keyFingerprint: key.fingerprint, contentDigest: digest, profile: 'signet', requestBound: true });
}

/** The HTTP API 2.0 proxy capture with a Lambda authorizer context, carrying `body`. */
function v2Event(body: string | undefined, digest: string | undefined, isBase64Encoded = false): APIGatewayProxyEventV2 {
  const event = fixture('http-api-proxy-v2-lambda-authorizer-context.json');
  event.rawPath = '/api/echo';
  event.requestContext.http.path = '/api/echo';
  event.requestContext.http.method = 'POST';
  event.requestContext.authorizer = { lambda: authorizerContext(digest) };
  if (body === undefined) delete event.body;
  else event.body = body;
  event.isBase64Encoded = isBase64Encoded;
  return event as APIGatewayProxyEventV2;
}

/** The REST proxy capture behind a Lambda authorizer (context flattened next to principalId). */
function v1Event(body: string | null, digest: string | undefined): APIGatewayProxyEvent {
  const event = fixture('rest-api-proxy-v1-lambda-authorizer.capture.json');
  event.requestContext.authorizer = { principalId: CLIENT_ID, integrationLatency: 12, ...authorizerContext(digest) };
  event.body = body;
  return event as APIGatewayProxyEvent;
}

function codeOf(run: () => void): string {
  try {
    run();
    return 'ok';
  } catch (error) {
    if (isSignetError(error)) return error.code;
    throw error;
  }
}

describe('checkSignedBody', () => {
  const body = '{\r\n\t"a": 1\r\n}';

  test('the capture body with its signed digest passes; one changed byte is digest_mismatch', () => {
    expect(codeOf(() => checkSignedBody(v2Event(body, signedDigest(body))))).toBe('ok');
    expect(codeOf(() => checkSignedBody(v2Event(body.replace('1', '2'), signedDigest(body))))).toBe('digest_mismatch');
    expect(codeOf(() => checkSignedBody(v2Event(`${body}\n`, signedDigest(body))))).toBe('digest_mismatch');
  });

  test('a body re-serialised by the client after signing (same JSON, other bytes) is a mismatch', () => {
    expect(codeOf(() => checkSignedBody(v2Event('{"a":1}', signedDigest(body))))).toBe('digest_mismatch');
  });

  test('base64-encoded binary body: decoded before hashing', () => {
    const bytes = Buffer.concat([randomBytes(61), Buffer.from([0xff, 0xfe, 0x00])]);
    const digest = signedDigest(bytes);
    expect(codeOf(() => checkSignedBody(v2Event(bytes.toString('base64'), digest, true)))).toBe('ok');
    // The same text taken literally hashes other bytes.
    expect(codeOf(() => checkSignedBody(v2Event(bytes.toString('base64'), digest, false)))).toBe('digest_mismatch');
  });

  test('a text body that API Gateway base64-encoded is checked on its original bytes', () => {
    const text = '{"unicode":"lambda-λ","emoji":"✓"}';
    expect(codeOf(() => checkSignedBody(v2Event(Buffer.from(text).toString('base64'), signedDigest(text), true)))).toBe('ok');
  });

  test('no body and no digest passes (GET); isBase64Encoded with no body (named-stage capture) passes', () => {
    expect(codeOf(() => checkSignedBody(v2Event(undefined, undefined)))).toBe('ok');
    expect(codeOf(() => checkSignedBody(v2Event(undefined, undefined, true)))).toBe('ok');
    expect(codeOf(() => checkSignedBody(v2Event('', undefined, true)))).toBe('ok');
  });

  test('a body with no signed digest is digest_required; a digest with no body is digest_mismatch', () => {
    expect(codeOf(() => checkSignedBody(v2Event(body, undefined)))).toBe('digest_required');
    expect(codeOf(() => checkSignedBody(v2Event(body, '')))).toBe('digest_required');
    expect(codeOf(() => checkSignedBody(v2Event(undefined, signedDigest(body))))).toBe('digest_mismatch');
  });

  test('no authorizer context at all (the capture with "lambda": null): thrown as no_signet_context, with a body or without', () => {
    const event = fixture('http-api-proxy-v2-lambda-authorizer.capture.json') as APIGatewayProxyEventV2;
    for (const body of ['x=1', undefined]) expect(() => checkSignedBody({ ...event, body })).toThrow(expect.objectContaining({ code: 'no_signet_context' }));
  });

  test('sha-512 (RFC 9530): alone or beside sha-256, every digest listed must match; unknown ones are ignored', () => {
    // RFC 9421 Appendix B.2 test-request: {"hello": "world"} with its sha-512-only Content-Digest (RFC 9530 Appendix D).
    const digest = TEST_REQUEST.headers.find(([name]) => name === 'Content-Digest')![1];
    const rfcBody = TEST_REQUEST.body!;
    expect(codeOf(() => checkSignedBody(v2Event(rfcBody, digest)))).toBe('ok');
    expect(codeOf(() => checkSignedBody(v1Event(rfcBody, digest)))).toBe('ok');
    expect(codeOf(() => checkSignedBody(v2Event(`${rfcBody}\n`, digest)))).toBe('digest_mismatch');
    expect(codeOf(() => checkSignedBody(v2Event(rfcBody, `sha-256=:${HELLO_WORLD_SHA256_B64}:, ${digest}`)))).toBe('ok');
    expect(codeOf(() => checkSignedBody(v2Event(rfcBody, `unixsum=:GQU=:, ${digest}`)))).toBe('ok');
    // A right sha-256 does not excuse a wrong sha-512 (RFC 9530 §2 example for the body with LF).
    expect(codeOf(() => checkSignedBody(v2Event(rfcBody, `sha-256=:${HELLO_WORLD_SHA256_B64}:, sha-512=:${HELLO_WORLD_LF_SHA512_B64}:`)))).toBe('digest_mismatch');
    expect(codeOf(() => checkSignedBody(v2Event(rfcBody, 'unixsum=:GQU=:')))).toBe('malformed_digest');
  });

  test('REST v1 proxy event: the context sits beside principalId', () => {
    expect(codeOf(() => checkSignedBody(v1Event(body, signedDigest(body))))).toBe('ok');
    expect(codeOf(() => checkSignedBody(v1Event('{"a":2}', signedDigest(body))))).toBe('digest_mismatch');
    expect(codeOf(() => checkSignedBody(v1Event(null, undefined)))).toBe('ok');
  });
});

describe('withSignedBody (plain wrapper)', () => {
  const body = '{"amount":10}';

  test('runs the handler only when the body matches; otherwise 400 {error, message, requestId}', async () => {
    const calls: string[] = [];
    const handler = withSignedBody(async (event: APIGatewayProxyEventV2) => {
      calls.push(event.body ?? '');
      return { statusCode: 200, body: 'ok' };
    });
    await expect(handler(v2Event(body, signedDigest(body)), {})).resolves.toEqual({ statusCode: 200, body: 'ok' });
    const refused = await handler(v2Event('{"amount":1000}', signedDigest(body)), {});
    expect(refused).toMatchObject({ statusCode: 400, headers: { 'content-type': 'application/json' } });
    expect(JSON.parse((refused as { body: string }).body)).toEqual({ error: 'digest_mismatch', message: expect.stringMatching(/exact bytes/), requestId: 'id' });
    expect(calls).toEqual([body]);
  });

  test('every argument the runtime passes reaches the handler (a stream and the context come second and third)', async () => {
    const seen: unknown[][] = [];
    const handler = withSignedBody(async (...args: unknown[]) => {
      seen.push(args.slice(1));
      return { statusCode: 200 };
    });
    const stream = { write: () => true };
    const context = { awsRequestId: 'r-1' };
    await handler(v2Event(body, signedDigest(body)) as never, stream, context);
    expect(seen).toEqual([[stream, context]]);
  });

  test('a sha-512-only signed digest admits its body and refuses another with 400 digest_mismatch', async () => {
    const handler = withSignedBody(async () => ({ statusCode: 200, body: 'ok' }));
    const digest = `sha-512=:${createHash('sha512').update(body).digest('base64')}:`;
    await expect(handler(v2Event(body, digest), {})).resolves.toEqual({ statusCode: 200, body: 'ok' });
    const refused = (await handler(v2Event('{"amount":1000}', digest), {})) as { statusCode: number; body: string };
    expect(refused.statusCode).toBe(400);
    expect(JSON.parse(refused.body).error).toBe('digest_mismatch');
  });

  test('the 400 body never echoes the digest or the body', async () => {
    const handler = withSignedBody(async () => ({ statusCode: 200, body: 'ok' }));
    const digest = signedDigest(body);
    const refused = (await handler(v2Event('{"tampered":true}', digest), {})) as { body: string };
    expect(refused.body).not.toContain(digest.slice(9, 40));
    expect(refused.body).not.toContain('tampered');
  });
});

describe('signedBody() Middy middleware (real @middy/core)', () => {
  const body = '{"amount":10}';

  function wrapped() {
    const seen: string[] = [];
    const handler = middy(async (event: APIGatewayProxyEventV2) => {
      seen.push(event.body ?? '');
      return { statusCode: 200, body: JSON.stringify({ echoed: event.body }) };
    }).use(signedBody());
    return { handler, seen };
  }

  test('a matching body reaches the handler', async () => {
    const { handler, seen } = wrapped();
    const response = await handler(v2Event(body, signedDigest(body)), {} as never);
    expect(response).toEqual({ statusCode: 200, body: JSON.stringify({ echoed: body }) });
    expect(seen).toEqual([body]);
  });

  test('a tampered body ends the request in `before` with 400 digest_mismatch; the handler never runs', async () => {
    const { handler, seen } = wrapped();
    const response = await handler(v2Event('{"amount":1000}', signedDigest(body)), {} as never);
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body).error).toBe('digest_mismatch');
    expect(seen).toEqual([]);
  });

  test('base64-encoded bodies and REST events work through Middy too', async () => {
    const bytes = randomBytes(100);
    const { handler, seen } = wrapped();
    expect((await handler(v2Event(bytes.toString('base64'), signedDigest(bytes), true), {} as never)).statusCode).toBe(200);
    expect(seen).toHaveLength(1);

    const restHandler = middy(async () => ({ statusCode: 204, body: '' })).use(signedBody());
    expect((await restHandler(v1Event(body, signedDigest(body)), {} as never)).statusCode).toBe(204);
    expect((await restHandler(v1Event('{}', signedDigest(body)), {} as never)).statusCode).toBe(400);
  });

  test('behind a body parser that ran first, the handler never runs: the parsed body is not what was signed', async () => {
    // A parser placed before the check replaces the string with what it read: here, the signed bytes as an array.
    const parsedFirst = { before: (request: { event: APIGatewayProxyEventV2 }) => void Object.assign(request.event, { body: [...Buffer.from(body)] }) };
    const seen: unknown[] = [];
    const handler = middy(async (event: APIGatewayProxyEventV2) => {
      seen.push(event.body);
      return { statusCode: 200, body: '' };
    })
      .use(parsedFirst)
      .use(signedBody());
    await expect(handler(v2Event(body, signedDigest(body)), {} as never)).rejects.toThrow('event.body is an array, not the string API Gateway delivers: run the signed-body check before any body parser.');
    expect(seen).toEqual([]);
    const parsed = (() => {
      try {
        checkSignedBody({ ...v2Event(body, signedDigest(body)), body: { amount: 10 } as never });
      } catch (error) {
        return error as { code?: string; message: string };
      }
      return undefined;
    })();
    expect(parsed).toMatchObject({ code: 'body_already_parsed', message: expect.stringMatching(/^event\.body is an object/) });
  });
});

describe('an event no Signet authorizer vouched for (a route without it, a Function URL, a test invoke)', () => {
  const noContext = (event: APIGatewayProxyEventV2): APIGatewayProxyEventV2 => ({ ...event, requestContext: { ...event.requestContext, authorizer: undefined } }) as APIGatewayProxyEventV2;
  const withoutClient = (event: APIGatewayProxyEventV2): APIGatewayProxyEventV2 => {
    const { clientId: _dropped, ...rest } = (event.requestContext as unknown as { authorizer: { lambda: Record<string, unknown> } }).authorizer.lambda;
    return { ...event, requestContext: { ...event.requestContext, authorizer: { lambda: rest } } } as APIGatewayProxyEventV2;
  };

  test('never reaches the handler, even without a body: the wrapper and the middleware throw no_signet_context (a 500), never answer it as a refusal', async () => {
    const seen: unknown[] = [];
    const wrapped = withSignedBody(async (event: APIGatewayProxyEventV2) => {
      seen.push(event);
      return { statusCode: 200, body: 'ran' };
    });
    const viaMiddy = middy(async (event: APIGatewayProxyEventV2) => {
      seen.push(event);
      return { statusCode: 200, body: 'ran' };
    }).use(signedBody());
    // Another authorizer's context naming a client, but no key that verified: not Signet's either.
    const otherAuthorizer = { ...v2Event(undefined, undefined), requestContext: { ...v2Event(undefined, undefined).requestContext, authorizer: { lambda: { clientId: 'someone' } } } } as unknown as APIGatewayProxyEventV2;
    for (const event of [noContext(v2Event(undefined, undefined)), withoutClient(v2Event(undefined, undefined)), otherAuthorizer, noContext(v2Event('{"a":1}', undefined))]) {
      await expect(wrapped(event)).rejects.toMatchObject({ code: 'no_signet_context', message: expect.stringContaining('Attach the Signet authorizer to the route') });
      await expect(viaMiddy(event, {} as never)).rejects.toMatchObject({ code: 'no_signet_context' });
    }
    expect(seen).toEqual([]);
    // With the context, the same bodiless request goes through.
    expect((await wrapped(v2Event(undefined, undefined))).statusCode).toBe(200);
  });
});
