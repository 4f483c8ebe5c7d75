/**
 * The SignetStack with `apiType: 'rest'`, synthesized once: the REQUEST authorizer with caching
 * off, JSON gateway responses, and every method guarded. Without bundling: its functions bundle
 * the entries the HTTP stack's do, with the same SignetFunction options, and
 * signet-stack-http.test.ts bundles those for real and checks the bundles (five bundles here
 * cost about 2.6 s of CPU and read nothing).
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { REST_GATEWAY_RESPONSES } from '../../lambda/adapters/authorizer-response';
import { ClientRegistry } from '../../lib/client-registry';
import { RegistryApi } from '../../lib/registry-api';
import { SignatureAuthorizer } from '../../lib/signature-authorizer';
import { DEFAULT_REST_STAGE_NAME, DEFAULT_THROTTLE_BURST_LIMIT, DEFAULT_THROTTLE_RATE_LIMIT, SignetStack } from '../../lib/signet-stack';
import { acknowledgements, appWithoutBundling, unacknowledgedFindings } from './helpers';

let app: App;
let stack: SignetStack;
let template: Template;

beforeAll(() => {
  app = appWithoutBundling();
  stack = new SignetStack(app, 'SignetRest', { apiType: 'rest' });
  template = Template.fromStack(stack);
});

function authorizerFunctionId(): string {
  const functions = template.findResources('AWS::Lambda::Function');
  return Object.keys(functions).find((id) => functions[id].Properties.Handler === 'index.restApiHandler')!;
}

test('the authorizer function runs the REST handler on Node.js 22 / arm64', () => {
  const functions = template.findResources('AWS::Lambda::Function');
  const props = functions[authorizerFunctionId()].Properties;
  expect(props.Runtime).toBe('nodejs22.x');
  expect(props.Architectures).toEqual(['arm64']);
});

test('the REQUEST authorizer has results caching off and the Signature header as identity source', () => {
  template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
  template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
    Type: 'REQUEST',
    AuthorizerResultTtlInSeconds: 0,
    IdentitySource: 'method.request.header.Signature',
  });
  const uri = JSON.stringify(Object.values(template.findResources('AWS::ApiGateway::Authorizer'))[0].Properties.AuthorizerUri);
  expect(uri).toContain(authorizerFunctionId());
});

test('every method is guarded by the signature authorizer', () => {
  const authorizerId = Object.keys(template.findResources('AWS::ApiGateway::Authorizer'))[0];
  const methods = Object.values(template.findResources('AWS::ApiGateway::Method')).map((m) => m.Properties);
  expect(methods.length).toBe(3); // /api/echo, /registry/clients, /registry/{proxy+}
  for (const method of methods) {
    expect(method.AuthorizationType).toBe('CUSTOM');
    expect(method.AuthorizerId).toEqual({ Ref: authorizerId });
    expect(method.Integration.Type).toBe('AWS_PROXY');
  }
  const paths = Object.values(template.findResources('AWS::ApiGateway::Resource')).map((r) => r.Properties.PathPart).sort();
  expect(paths).toEqual(['api', 'clients', 'echo', 'registry', '{proxy+}']);
});

test('refusals get JSON bodies {error, message, requestId}: 401, 403 (with the Deny reason) and 500', () => {
  const responses = Object.values(template.findResources('AWS::ApiGateway::GatewayResponse')).map((r) => r.Properties);
  expect(responses.map((r) => [r.ResponseType, r.StatusCode]).sort()).toEqual([
    ['ACCESS_DENIED', '403'],
    ['AUTHORIZER_FAILURE', '500'],
    ['UNAUTHORIZED', '401'],
  ]);
  for (const response of responses) {
    expect(response.ResponseParameters).toEqual({ 'gatewayresponse.header.Content-Type': "'application/json'" });
    const templateText = response.ResponseTemplates['application/json'] as string;
    expect(templateText).toBe(REST_GATEWAY_RESPONSES.find((r) => r.type === response.ResponseType)!.template);
    // Once API Gateway substitutes the $context variables, the body is JSON with the three fields.
    const body = JSON.parse(templateText.replace(/\$context\.[A-Za-z.]+/g, 'x')) as Record<string, string>;
    expect(Object.keys(body).sort()).toEqual(['error', 'message', 'requestId']);
    expect(templateText).toContain('"requestId":"$context.requestId"');
  }
  const denied = responses.find((r) => r.ResponseType === 'ACCESS_DENIED')!.ResponseTemplates['application/json'];
  expect(denied).toContain('"error":"$context.authorizer.signetError"');
  expect(denied).toContain('"message":"$context.authorizer.signetMessage"');
});

test('the stage logs errors and access, never request data', () => {
  const stage = Object.values(template.findResources('AWS::ApiGateway::Stage'))[0].Properties;
  expect(stage.StageName).toBe(DEFAULT_REST_STAGE_NAME);
  expect(stage.MethodSettings).toEqual([
    expect.objectContaining({ HttpMethod: '*', ResourcePath: '/*', LoggingLevel: 'ERROR', DataTraceEnabled: false, MetricsEnabled: true }),
  ]);
  // Every method of the stage is throttled by default, before the authorizer is invoked.
  expect(stage.MethodSettings[0]).toMatchObject({ ThrottlingRateLimit: DEFAULT_THROTTLE_RATE_LIMIT, ThrottlingBurstLimit: DEFAULT_THROTTLE_BURST_LIMIT });
  // The account-level CloudWatch role that execution logging needs, made by default.
  template.resourceCountIs('AWS::ApiGateway::Account', 1);
  const format = JSON.parse(stage.AccessLogSetting.Format) as Record<string, string>;
  expect(format).toMatchObject({ requestId: '$context.requestId', clientId: '$context.authorizer.principalId', signetError: '$context.authorizer.signetError' });
});

test('every body reaches the backend as the exact bytes signed (all media types binary)', () => {
  template.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: ['*/*'] });
});

test('no HTTP API is made, and ApiUrl points at the REST stage', () => {
  template.resourceCountIs('AWS::ApiGatewayV2::Api', 0);
  expect(JSON.stringify(template.findOutputs('ApiUrl').ApiUrl.Value)).toContain('RestApiDeploymentStage');
});

test('cdk-nag finds nothing unacknowledged; REST acknowledgements are the documented ones, with reasons', () => {
  expect(unacknowledgedFindings(app)).toEqual([]);
  const ids = new Set(acknowledgements(stack).map((a) => a.id.replace(/^annotation::/i, '')));
  expect([...ids].sort()).toEqual([
    'AwsSolutions-APIG2',
    'AwsSolutions-APIG3',
    'AwsSolutions-COG4',
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
    'AwsSolutions-L1',
  ]);
  for (const ack of acknowledgements(stack)) expect(String(ack.reason).length).toBeGreaterThan(40);
});

describe('REST variants (no bundling)', () => {
  const WEB_ACL_ARN = 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/signet/0f2e4c6a-1b3d-4e5f-8a9b-0c1d2e3f4a5b';

  test('webAclArn associates the web ACL with the stage, which satisfies cdk-nag APIG3 without an acknowledgement', () => {
    const variantApp = appWithoutBundling();
    const variant = new SignetStack(variantApp, 'RestWaf', { apiType: 'rest', webAclArn: WEB_ACL_ARN, env: { region: 'eu-west-1' } });
    const t = Template.fromStack(variant);
    const association = Object.values(t.findResources('AWS::WAFv2::WebACLAssociation'));
    expect(association).toHaveLength(1);
    expect(association[0].Properties.WebACLArn).toBe(WEB_ACL_ARN);
    const stageId = Object.keys(t.findResources('AWS::ApiGateway::Stage'))[0];
    const restApiId = Object.keys(t.findResources('AWS::ApiGateway::RestApi'))[0];
    const resourceArn = JSON.stringify(association[0].Properties.ResourceArn);
    expect(resourceArn).toContain(`{"Ref":"${restApiId}"}`);
    expect(resourceArn).toContain(`/stages/`);
    expect(resourceArn).toContain(`{"Ref":"${stageId}"}`);
    expect(unacknowledgedFindings(variantApp)).toEqual([]);
    expect(acknowledgements(variant).map((a) => a.id)).not.toContain('AwsSolutions-APIG3');
  });

  test('restCloudWatchRole: false leaves the account\'s API Gateway CloudWatch role alone, cdk-nag clean; disableExecuteApiEndpoint turns the execute-api URL off; a bad webAclArn is refused', () => {
    const variantApp = appWithoutBundling();
    const variant = new SignetStack(variantApp, 'RestNoRole', { apiType: 'rest', restCloudWatchRole: false, throttleRateLimit: 25, throttleBurstLimit: 50, disableExecuteApiEndpoint: true });
    const t = Template.fromStack(variant);
    expect(Object.values(t.findResources('AWS::ApiGateway::RestApi'))[0].Properties.DisableExecuteApiEndpoint).toBe(true);
    t.resourceCountIs('AWS::ApiGateway::Account', 0);
    expect(Object.values(t.findResources('AWS::IAM::Role')).filter((r) => JSON.stringify(r.Properties.ManagedPolicyArns ?? []).includes('AmazonAPIGatewayPushToCloudWatchLogs'))).toEqual([]);
    const stage = Object.values(t.findResources('AWS::ApiGateway::Stage'))[0].Properties;
    expect(stage.MethodSettings[0]).toMatchObject({ LoggingLevel: 'ERROR', ThrottlingRateLimit: 25, ThrottlingBurstLimit: 50 });
    expect(unacknowledgedFindings(variantApp)).toEqual([]);
    expect(acknowledgements(variant).map((a) => a.id).filter((id) => id.includes('IAM4'))).toEqual([]);
    expect(() => new SignetStack(appWithoutBundling(), 'RestBadWaf', { apiType: 'rest', webAclArn: 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/x/0f2e' })).toThrow(
      /webAclArn must be the ARN of a regional AWS WAF web ACL/,
    );
  });
});

describe('wiring mistakes are refused with a message that says what to do', () => {
  function parts() {
    const s = new Stack(appWithoutBundling(), 'Wiring');
    const registry = new ClientRegistry(s, 'Registry');
    const rest = new SignatureAuthorizer(s, 'Rest', { registry, apiType: 'rest' });
    const http = new SignatureAuthorizer(s, 'Http', { registry });
    return { s, registry, rest, http };
  }

  test('an HTTP authorizer from a REST-flavoured SignatureAuthorizer', () => {
    const { rest } = parts();
    expect(() => rest.httpAuthorizer()).toThrow(/httpAuthorizer\(\) needs apiType 'http'.*Create a SignatureAuthorizer with apiType: 'http'/);
  });

  test('restAuthorizer before attachToRestApi', () => {
    const { rest } = parts();
    expect(() => rest.restAuthorizer).toThrow(/call attachToRestApi\(api\) before reading restAuthorizer/);
  });

  test('RegistryApi with no API, or with an authorizer of the other flavour', () => {
    const { s, registry, rest, http } = parts();
    expect(() => new RegistryApi(s, 'None', { registry, authorizer: http })).toThrow(/give exactly one of httpApi or restApi \(got 0\)/);
    const httpApi = new apigwv2.HttpApi(s, 'Api');
    expect(() => new RegistryApi(s, 'Mixed', { registry, authorizer: rest, httpApi })).toThrow(/httpApi needs a SignatureAuthorizer with apiType 'http'/);
  });

  test('RegistryApi whose catalogue does not let registry:admin in', () => {
    const s = new Stack(appWithoutBundling(), 'Catalogue');
    const registry = new ClientRegistry(s, 'Registry');
    const authorizer = new SignatureAuthorizer(s, 'Authorizer', { registry, roleCatalogue: { 'registry:admin': ['GET /registry/**'] } });
    const httpApi = new apigwv2.HttpApi(s, 'Api');
    expect(() => new RegistryApi(s, 'Registry2', { registry, authorizer, httpApi })).toThrow(/it refuses POST \/registry\/clients, PATCH/);
  });
});
