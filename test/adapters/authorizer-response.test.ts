import fc from 'fast-check';
import { ERROR_CODES, SignetError, SignetErrorCode } from '../../lambda/core/errors';
import { CONTEXT_KEYS, MAX_CONTEXT_MESSAGE_CHARS, allowContext, denyContext } from '../../lambda/adapters/authorizer-context';
import {
  ANONYMOUS_PRINCIPAL,
  AuthorizerFailure,
  MAX_POLICY_RESOURCE_CHARS,
  REST_GATEWAY_RESPONSES,
  httpApiAllowResponse,
  httpApiDenyResponse,
  httpApiRefusal,
  parseMethodArn,
  restAllowPolicy,
  restDenyPolicy,
  restRefusal,
} from '../../lambda/adapters/authorizer-response';
import { loadFixture } from './fixtures';

const METHOD_ARN = loadFixture('rest-api-request-authorizer-v1.capture.json').methodArn as string;
const FACTS = {
  clientId: 'c_9f2KxQ1v',
  roles: ['demo', 'registry:admin'],
  accountId: 'acct_default',
  keyFingerprint: 'sha256:q1w2e3',
  contentDigest: 'sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:',
  profile: 'signet',
  requestBound: true,
};

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

/** What API Gateway does with a gateway-response template: plain substitution, no escaping. */
function renderTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\$context\.[A-Za-z.]+/g, (name) => values[name] ?? '');
}

describe('authorizer context', () => {
  test('Allow context: the seven agreed keys, all strings, roles comma-joined', () => {
    expect(allowContext(FACTS)).toEqual({
      clientId: 'c_9f2KxQ1v',
      roles: 'demo,registry:admin',
      accountId: 'acct_default',
      keyFingerprint: 'sha256:q1w2e3',
      contentDigest: 'sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:',
      signetProfile: 'signet',
      signetRequestBound: 'true',
    });
    expect(allowContext({ ...FACTS, contentDigest: undefined }).contentDigest).toBe('');
    expect(allowContext({ ...FACTS, accountId: undefined }).accountId).toBe('');
    // A web-bot-auth signature of the authority alone: who the agent is, not what it asked for.
    expect(allowContext({ ...FACTS, profile: 'web-bot-auth', requestBound: false })).toMatchObject({ signetProfile: 'web-bot-auth', signetRequestBound: 'false' });
    expect(Object.keys(allowContext(FACTS)).sort()).toEqual(
      [CONTEXT_KEYS.clientId, CONTEXT_KEYS.roles, CONTEXT_KEYS.accountId, CONTEXT_KEYS.keyFingerprint, CONTEXT_KEYS.contentDigest, CONTEXT_KEYS.profile, CONTEXT_KEYS.requestBound].sort(),
    );
  });

  test('Deny context is safe inside a JSON string and bounded', () => {
    const context = denyContext({ code: 'role_forbidden', message: 'Say "no"\\ to\nthis\u2028' + 'x'.repeat(1000) });
    expect(context.signetError).toBe('role_forbidden');
    expect(context.signetMessage).not.toMatch(/["\\\n\u2028]/);
    expect(context.signetMessage.length).toBe(MAX_CONTEXT_MESSAGE_CHARS);
  });
});

describe('HTTP API simple responses', () => {
  test('Allow has the documented shape with Signet\'s context', () => {
    const allow = httpApiAllowResponse(FACTS);
    const docs = loadFixture('http-api-authorizer-simple-response.docs.json');
    expect(Object.keys(allow).sort()).toEqual(Object.keys(docs).sort());
    expect(allow).toEqual({ isAuthorized: true, context: allowContext(FACTS) });
  });

  test('Deny is isAuthorized: false (the client gets a fixed 403) with the reason for access logs', () => {
    const deny = httpApiDenyResponse(new SignetError('ip_not_allowed', 'Requests from 192.0.2.1 are not in the whitelist.'));
    expect(deny).toEqual({
      isAuthorized: false,
      context: { signetError: 'ip_not_allowed', signetMessage: 'Requests from 192.0.2.1 are not in the whitelist.' },
    });
    const docs = loadFixture('http-api-authorizer-simple-response-deny.docs.json');
    expect(Object.keys(deny).sort()).toEqual(Object.keys(docs).sort());
  });

  test('httpApiRefusal: every 4xx code is a deny, 5xx codes fail closed with a 500', () => {
    for (const [code, status] of Object.entries(ERROR_CODES) as [SignetErrorCode, number][]) {
      const error = new SignetError(code, 'reason');
      if (status >= 500) {
        const failure = thrown(() => httpApiRefusal(error));
        expect(failure).toBeInstanceOf(AuthorizerFailure);
        expect((failure as AuthorizerFailure).code).toBe(code);
      } else {
        expect(httpApiRefusal(error).isAuthorized).toBe(false);
      }
    }
  });
});

describe('REST policy responses', () => {
  test('Allow: principalId = clientId, one statement for the request\'s stage and method, context of primitives', () => {
    const allow = restAllowPolicy(METHOD_ARN, FACTS);
    const docs = loadFixture('rest-api-authorizer-policy-response.docs.json');

    expect(allow.principalId).toBe(FACTS.clientId);
    expect(allow.policyDocument).toEqual({
      Version: docs.policyDocument.Version,
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: 'arn:aws:execute-api:eu-west-1:123456789012:puhdx84jy9/prod/POST/*' }],
    });
    expect(METHOD_ARN).toBe('arn:aws:execute-api:eu-west-1:123456789012:puhdx84jy9/prod/POST/lambda-request');
    expect(Object.values(allow.context).every((v) => ['string', 'number', 'boolean'].includes(typeof v))).toBe(true);
    expect(allow.context).toEqual(allowContext(FACTS));
  });

  test('Deny reproduces the documented deny example, for the stage and method', () => {
    const docs = loadFixture('rest-api-authorizer-deny-response.docs.json');
    const deny = restDenyPolicy(docs.policyDocument.Statement[0].Resource, { code: 'role_forbidden', message: 'No.' }, 'user');
    expect(deny.principalId).toBe(docs.principalId);
    docs.policyDocument.Statement[0].Resource += '*'; // the documented ARN names the root path: …/dev/GET/
    expect(deny.policyDocument).toEqual(docs.policyDocument);
    expect(deny.context).toEqual({ signetError: 'role_forbidden', signetMessage: 'No.' });
  });

  test.each([
    ['missing', undefined],
    ['empty', ''],
    ['with a space', 'has space'],
    ['with a quote', 'quote"'],
    ['over 128 characters', 'x'.repeat(129)],
  ])('a principalId %s becomes anonymous', (_, principal) => {
    expect(restDenyPolicy(METHOD_ARN, { code: 'ip_not_allowed', message: 'm' }, principal).principalId).toBe(ANONYMOUS_PRINCIPAL);
  });

  test('restRefusal: 401 codes throw exactly new Error("Unauthorized"), 403 codes deny, 5xx codes fail closed', () => {
    for (const [code, status] of Object.entries(ERROR_CODES) as [SignetErrorCode, number][]) {
      const error = new SignetError(code, 'reason');
      if (status === 401) {
        const unauthorized = thrown(() => restRefusal(METHOD_ARN, error, 'c_1'));
        expect(unauthorized).toBeInstanceOf(Error);
        expect((unauthorized as Error).constructor).toBe(Error);
        expect((unauthorized as Error).message).toBe('Unauthorized');
      } else if (status >= 500) {
        const failure = thrown(() => restRefusal(METHOD_ARN, error));
        expect(failure).toBeInstanceOf(AuthorizerFailure);
        expect((failure as Error).message).not.toBe('Unauthorized');
      } else {
        const deny = restRefusal(METHOD_ARN, error, 'c_1');
        expect(deny.policyDocument.Statement[0].Effect).toBe('Deny');
        expect(deny.context.signetError).toBe(code);
      }
    }
  });

  test('a long request path keeps the policy within the 512 characters API Gateway accepts (a longer one is a 500)', () => {
    const longPath = Array.from({ length: 40 }, (_, i) => `segment-${i}-${'x'.repeat(20)}`).join('/');
    const methodArn = `arn:aws:execute-api:eu-west-1:123456789012:puhdx84jy9/${'s'.repeat(128)}/PATCH/${longPath}`;
    expect(methodArn.length).toBeGreaterThan(2 * MAX_POLICY_RESOURCE_CHARS);
    const expected = `arn:aws:execute-api:eu-west-1:123456789012:puhdx84jy9/${'s'.repeat(128)}/PATCH/*`;
    for (const policy of [restAllowPolicy(methodArn, FACTS).policyDocument, restDenyPolicy(methodArn, { code: 'role_forbidden', message: 'No.' }).policyDocument]) {
      const resource = (policy.Statement[0] as { Resource: string }).Resource;
      expect(resource).toBe(expected);
      expect(resource.length).toBeLessThanOrEqual(MAX_POLICY_RESOURCE_CHARS);
    }
  });

  test('a policy for a junk methodArn is refused before API Gateway would answer 500', () => {
    expect(() => restAllowPolicy('not-an-arn', FACTS)).toThrow(/methodArn/);
    expect(() => restDenyPolicy('', { code: 'role_forbidden', message: 'm' })).toThrow(/methodArn/);
  });

  test('parseMethodArn splits the fixtures\' ARNs', () => {
    expect(parseMethodArn(METHOD_ARN)).toEqual({
      partition: 'aws',
      region: 'eu-west-1',
      accountId: '123456789012',
      apiId: 'puhdx84jy9',
      stage: 'prod',
      method: 'POST',
      resource: 'lambda-request',
    });
    expect(parseMethodArn(loadFixture('rest-api-authorizer-deny-response.docs.json').policyDocument.Statement[0].Resource)?.resource).toBe('');
    expect(parseMethodArn('arn:aws-cn:execute-api:cn-north-1:123456789012:abc123/v1/GET/users/7')?.resource).toBe('users/7');
    expect(parseMethodArn('arn:aws:execute-api:{regionId}:{accountId}:{apiId}/{stage}/{httpVerb}/')).toBeUndefined();
  });
});

describe('REST gateway responses', () => {
  test('one template each for 401, 403 and 500, all rendering to {error, message, requestId} JSON', () => {
    expect(REST_GATEWAY_RESPONSES.map((r) => [r.type, r.statusCode])).toEqual([
      ['UNAUTHORIZED', '401'],
      ['ACCESS_DENIED', '403'],
      ['AUTHORIZER_FAILURE', '500'],
    ]);
    for (const response of REST_GATEWAY_RESPONSES) {
      const body = JSON.parse(renderTemplate(response.template, { '$context.requestId': 'r-1', '$context.authorizer.signetError': 'e', '$context.authorizer.signetMessage': 'm' }));
      expect(Object.keys(body).sort()).toEqual(['error', 'message', 'requestId']);
      expect(body.requestId).toBe('r-1');
    }
  });

  test('the 401 template does not read the authorizer context (there is none when the authorizer throws)', () => {
    const unauthorized = REST_GATEWAY_RESPONSES.find((r) => r.type === 'UNAUTHORIZED');
    expect(unauthorized?.template).not.toContain('$context.authorizer');
  });

  test('property: any refusal sentence rendered into the ACCESS_DENIED template is valid JSON carrying it', () => {
    const accessDenied = REST_GATEWAY_RESPONSES.find((r) => r.type === 'ACCESS_DENIED')!;
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 120 }), (message) => {
        const deny = restDenyPolicy(METHOD_ARN, { code: 'ip_not_allowed', message }, 'c_1');
        const rendered = renderTemplate(accessDenied.template, {
          '$context.requestId': 'r-2',
          '$context.authorizer.signetError': deny.context.signetError,
          '$context.authorizer.signetMessage': deny.context.signetMessage,
        });
        const body = JSON.parse(rendered);
        expect(body.error).toBe('ip_not_allowed');
        expect(body.message).toBe(deny.context.signetMessage);
      }),
      { numRuns: 200 },
    );
  });
});
