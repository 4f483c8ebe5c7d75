/**
 * ClientPortal: the portal Lambda and its public GET/HEAD routes on an HTTP or a REST API, and
 * the SignetStack's `clientPortal` switch. One synth bundles for real (esbuild, as `cdk synth`)
 * and the bundled handler is then run on API Gateway events: the deployed artifact serves the
 * portal files. cdk-nag: the stack with the portal has no unacknowledged finding.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { Template } from 'aws-cdk-lib/assertions';
import { ClientPortal, PORTAL_SERVICE_NAME, portalFiles } from '../../lib/client-portal';
import { SignetStack } from '../../lib/signet-stack';
import { PORTAL_CSP, PORTAL_SCRIPT_FILE } from '../../lambda/portal/static-site';
import { buildPortalScript } from '../../lib/portal-bundle';
import { acknowledgements, appWithoutBundling, statementsOfRole, testApp, unacknowledgedFindings, withoutBundlingProgress } from './helpers';

function httpStack(app: App = appWithoutBundling()): { stack: Stack; portal: ClientPortal } {
  const stack = new Stack(app, 'PortalHttp');
  const httpApi = new apigwv2.HttpApi(stack, 'Api');
  return { stack, portal: new ClientPortal(stack, 'ClientPortal', { httpApi }) };
}

describe('on an HTTP API', () => {
  let template: Template;
  let stack: Stack;
  beforeAll(() => {
    ({ stack } = httpStack());
    template = Template.fromStack(stack);
  });

  test('GET and HEAD on /portal and /portal/{proxy+}, without an authorizer', () => {
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map((r) => r.Properties);
    expect(routes.map((r) => r.RouteKey).sort()).toEqual(['GET /portal', 'GET /portal/{proxy+}', 'HEAD /portal', 'HEAD /portal/{proxy+}']);
    for (const route of routes) {
      expect(route.AuthorizationType).toBe('NONE');
      expect(route.AuthorizerId).toBeUndefined();
    }
  });

  test('one Node.js 22 arm64 function, its own log group, a role that may only write that log group', () => {
    template.resourceCountIs('AWS::Lambda::Function', 1);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: 128,
      Environment: { Variables: { POWERTOOLS_SERVICE_NAME: PORTAL_SERVICE_NAME } },
    });
    const statements = statementsOfRole(template, 'ClientPortalFunctionServiceRole');
    expect(statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action])).sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
    template.resourceCountIs('AWS::IAM::Policy', 1);
  });

  test('the missing authorizer is a recorded decision, with its reason', () => {
    const acks = acknowledgements(stack).filter((a) => a.id.endsWith('AwsSolutions-APIG4'));
    expect(acks).toHaveLength(4);
    for (const ack of acks) expect(ack.reason).toMatch(/static .* holding no secret/);
  });
});

test('on a REST API: GET and HEAD methods with authorization NONE, acknowledged for cdk-nag', () => {
  const stack = new Stack(appWithoutBundling(), 'PortalRest');
  const restApi = new apigw.RestApi(stack, 'Api');
  new ClientPortal(stack, 'ClientPortal', { restApi });
  const template = Template.fromStack(stack);
  const methods = Object.values(template.findResources('AWS::ApiGateway::Method')).map((m) => m.Properties);
  expect(methods.map((m) => m.HttpMethod).sort()).toEqual(['GET', 'GET', 'HEAD', 'HEAD']);
  for (const method of methods) {
    expect(method.AuthorizationType).toBe('NONE');
    expect(method.Integration.Type).toBe('AWS_PROXY');
  }
  const paths = Object.values(template.findResources('AWS::ApiGateway::Resource')).map((r) => r.Properties.PathPart).sort();
  expect(paths).toEqual(['portal', '{proxy+}']);
  expect(acknowledgements(stack).filter((a) => a.id.endsWith('AwsSolutions-COG4'))).toHaveLength(4);
});

test('refuses to guess the API: exactly one of httpApi / restApi', () => {
  const stack = new Stack(appWithoutBundling(), 'Bad');
  expect(() => new ClientPortal(stack, 'None', {})).toThrow(/give exactly one of httpApi or restApi \(got 0\)/);
  const both = { httpApi: new apigwv2.HttpApi(stack, 'H'), restApi: new apigw.RestApi(stack, 'R') };
  expect(() => new ClientPortal(stack, 'Both', both)).toThrow(/got 2/);
});

test('the files copied are the page and its stylesheet; its TypeScript is bundled into portal.js instead', () => {
  expect(portalFiles()).toEqual(['index.html', 'portal.css']);
});

describe('SignetStack clientPortal', () => {
  test('off by default: no portal routes', () => {
    const template = Template.fromStack(new SignetStack(appWithoutBundling(), 'NoPortal'));
    const keys = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map((r) => r.Properties.RouteKey);
    expect(keys.filter((k: string) => k.includes('/portal'))).toEqual([]);
  });

  test.each(['http', 'rest'] as const)('clientPortal: true on the %s API adds the portal next to the registry, under publicBaseUrl, cdk-nag clean', (apiType) => {
    const stack = new SignetStack(appWithoutBundling(), `WithPortal${apiType}`, { apiType, clientPortal: true, publicBaseUrl: 'https://api.example.com/v1' });
    expect(stack.clientPortal).toBeInstanceOf(ClientPortal);
    const template = Template.fromStack(stack);
    if (apiType === 'http') {
      const keys = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map((r) => r.Properties.RouteKey as string);
      expect(keys.filter((k) => k.includes('/portal')).sort()).toEqual(['GET /portal', 'GET /portal/{proxy+}', 'HEAD /portal', 'HEAD /portal/{proxy+}']);
    } else {
      const parts = Object.values(template.findResources('AWS::ApiGateway::Resource')).map((r) => r.Properties.PathPart as string);
      expect(parts).toContain('portal');
    }
    // The portal is where clients reach it: under the public base URL, not the execute-api URL.
    template.hasOutput('PortalUrl', { Value: `https://api.example.com/v1/${stack.clientPortal!.path}` });
    expect(unacknowledgedFindings(stack)).toEqual([]);
  });
});

test('bundled for real, the deployed handler serves the portal files and the core bundled for the browser, with the CSP', async () => {
  const app = testApp({ context: { 'aws:cdk:enable-asset-metadata': true } });
  const { stack } = withoutBundlingProgress(() => httpStack(app));
  app.synth();
  const fn = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function'))[0] as { Metadata: Record<string, string> };
  const dir = path.join(app.outdir, fn.Metadata['aws:asset:path']);
  expect(fs.readdirSync(path.join(dir, 'portal')).sort()).toEqual([...portalFiles(), PORTAL_SCRIPT_FILE].sort());
  // The same bundle the local gateway builds: one build of the page's script.
  expect(fs.readFileSync(path.join(dir, 'portal', PORTAL_SCRIPT_FILE), 'utf8')).toBe(buildPortalScript());

   
  const { handler } = require(path.join(dir, 'index.js')) as { handler: (event: unknown) => Promise<{ statusCode: number; headers: Record<string, string>; body: string }> };
  const event = (rawPath: string, method = 'GET') => ({
    version: '2.0',
    routeKey: `${method} /portal/{proxy+}`,
    rawPath,
    rawQueryString: '',
    headers: { host: 'abc.execute-api.eu-west-1.amazonaws.com' },
    requestContext: { http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'test' }, requestId: 'r', stage: '$default' },
    isBase64Encoded: false,
  });
  const index = await handler(event('/portal/'));
  expect(index.statusCode).toBe(200);
  expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(index.headers['content-security-policy']).toBe(PORTAL_CSP);
  expect(index.body).toBe(fs.readFileSync(path.join(__dirname, '..', '..', 'portal', 'index.html'), 'utf8'));
  const script = await handler(event(`/portal/${PORTAL_SCRIPT_FILE}`));
  expect(script.statusCode).toBe(200);
  expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
  expect(script.body).toContain('RSASSA-PKCS1-v1_5');
  expect((await handler(event('/portal'))).headers.location).toBe('portal/index.html');
  expect((await handler(event('/portal/package.json'))).statusCode).toBe(404);
});
