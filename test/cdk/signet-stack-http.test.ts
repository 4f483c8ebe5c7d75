/**
 * The SignetStack with its default HTTP API front door, synthesized once with real esbuild
 * bundling (as `cdk synth` does, no Docker), then checked resource by resource.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, Duration, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as cxapi from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ENV } from '../../lambda/config-env';
import {
  DEFAULT_CLIENT_CACHE_TTL_MS,
  DEFAULT_MAX_AGE_S,
  DEFAULT_MAX_SKEW_S,
  DEFAULT_ROTATION_GRACE_S,
  DEFAULT_RSA_BITS,
  DEFAULT_STALE_IF_ERROR_MS,
  LAST_USED_RECORD_INTERVAL_MS,
} from '../../lambda/core/defaults';
import { METRICS_NAMESPACE } from '../../lib/signet-function';
import { FUNCTION_DIMENSION } from '../../lambda/observability';
import { KEY_SOURCE_REFRESHER_SERVICE_NAME, KEY_SOURCE_REFRESHER_TIMEOUT_S, KEY_SOURCE_REFRESH_METRICS } from '../../lib/key-source-refresher';
import { AUTHORIZER_METRICS, AUTHORIZER_SERVICE_NAME } from '../../lib/signature-authorizer';
import { AUTHORIZER_TIMEOUT_S } from '../../lib/signature-authorizer';
import { DEFAULT_STACK_ROLE_CATALOGUE, DEFAULT_THROTTLE_BURST_LIMIT, DEFAULT_THROTTLE_RATE_LIMIT, MAX_SIGNING_KEYS_PER_STACK, SignetStack, signingKeyOutputId } from '../../lib/signet-stack';
import { DYNAMODB_REQUEST_TIMEOUT_MS } from '../../lambda/core/defaults';
import { spkiPem, testKey } from '../support/registry-fixtures';
import { Statement, acknowledgements, actionsOf, appWithoutBundling, statementsOfRole, unacknowledgedFindings, withoutBundlingProgress } from './helpers';

const ROTATED_CLIENT = 'c_AAAAAAAAAAAAAAAAAAAAAA';

/** The CDK's built-in CloudFormation template validation, strict: any finding, error or warning, fails the synth. */
const STRICT_VALIDATION = { [cxapi.VALIDATE_AGAINST_DEFAULT_RULES]: true, [cxapi.STRICT_CFN_VALIDATE_ERRORS]: true };

let app: App;
let stack: SignetStack;
let template: Template;
let functions: Record<string, { Properties: Record<string, any>; Metadata?: Record<string, string> }>;

/** The function whose logical ID starts with `prefix`. */
function fn(prefix: string): { logicalId: string; props: Record<string, any>; assetPath: string } {
  const entry = Object.entries(functions).find(([id]) => id.startsWith(prefix));
  if (!entry) throw new Error(`no function ${prefix}* in ${Object.keys(functions).join(', ')}`);
  return { logicalId: entry[0], props: entry[1].Properties, assetPath: entry[1].Metadata?.['aws:asset:path'] ?? '' };
}

beforeAll(() => {
  // As the CLI sets it: records each bundle's path. The built-in validation runs (strict) on this stack's synth.
  app = new App({ context: { 'aws:cdk:enable-asset-metadata': true, ...STRICT_VALIDATION } });
  stack = withoutBundlingProgress(() => new SignetStack(app, 'Signet', { adminPublicKey: spkiPem(testKey(0)), signingKeyClientIds: [ROTATED_CLIENT] }));
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  app.synth(); // runs the validation plugins too
  template = Template.fromStack(stack);
  functions = template.findResources('AWS::Lambda::Function') as typeof functions;
});

describe('Lambda functions', () => {
  test('every function runs Node.js 22 on arm64, logs to its own log group kept one month', () => {
    const all = Object.values(functions);
    expect(all).toHaveLength(6); // authorizer, echo, registry, rotation, admin bootstrap, key source refresher
    const logGroups = template.findResources('AWS::Logs::LogGroup');
    for (const { Properties: p } of all) {
      expect(p.Runtime).toBe('nodejs22.x');
      expect(p.Architectures).toEqual(['arm64']);
      const group = p.LoggingConfig.LogGroup.Ref as string;
      expect(logGroups[group].Properties.RetentionInDays).toBe(30);
      expect(p.Environment.Variables).toMatchObject({
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        POWERTOOLS_SERVICE_NAME: expect.stringMatching(/^signet-/),
      });
    }
  });

  test('each function runs the agreed handler export', () => {
    expect(fn('AuthorizerFunction').props.Handler).toBe('index.httpApiHandler');
    expect(fn('RegistryApiFunction').props.Handler).toBe('index.handler');
    expect(fn('Echo').props.Handler).toBe('index.handler');
    expect(fn(`SigningKey`).props.Handler).toBe('index.handler');
    expect(fn('KeySourceRefresherFunction').props.Handler).toBe('index.handler');
  });

  test('no function is placed in a VPC: the authorizer makes no outbound call, the key source refresher and the registry reach the publishers directly over HTTPS', () => {
    for (const { Properties: p } of Object.values(functions)) expect(p.VpcConfig).toBeUndefined();
    template.resourceCountIs('AWS::EC2::VPC', 0);
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
  });

  test('the key source refresher gets its settings: table, interval, keep bound, signed directories; a run ends before the next is due', () => {
    const refresher = fn('KeySourceRefresherFunction').props;
    expect(refresher.Environment.Variables).toEqual({
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_SERVICE_NAME: KEY_SOURCE_REFRESHER_SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      POWERTOOLS_LOG_LEVEL: 'INFO',
      [ENV.tableName]: { Ref: expect.stringMatching(/^Registry/) },
      [ENV.keySourceRefreshMinutes]: '15',
      [ENV.keySourceKeepDays]: '7',
      [ENV.requireSignedDirectories]: 'false',
    });
    expect(refresher.Timeout).toBe(KEY_SOURCE_REFRESHER_TIMEOUT_S);
    expect(KEY_SOURCE_REFRESHER_TIMEOUT_S).toBeLessThanOrEqual(15 * 60);
    // The registry fetches a source at registration by the same rules, and reports the same keep bound.
    const registry = fn('RegistryApiFunction').props.Environment.Variables;
    expect([registry[ENV.keySourceRefreshMinutes], registry[ENV.keySourceKeepDays], registry[ENV.requireSignedDirectories]]).toEqual(['15', '7', 'false']);
  });

  test('bundles are minified esbuild output with a source map, the AWS SDK left to the runtime', () => {
    for (const prefix of ['AuthorizerFunction', 'RegistryApiFunction', 'Echo', 'SigningKey', 'AdminBootstrapFunction', 'KeySourceRefresherFunction']) {
      const dir = path.join(app.outdir, fn(prefix).assetPath);
      const code = fs.readFileSync(path.join(dir, 'index.js'), 'utf8');
      expect(fs.existsSync(path.join(dir, 'index.js.map'))).toBe(true);
      expect(code).toContain('//# sourceMappingURL=index.js.map');
      expect(code.split('\n').length).toBeLessThan(40); // minified: a handful of very long lines
      expect(code).not.toMatch(/\/\*\*\n \* /); // no TSDoc blocks left
    }
    const authorizer = fs.readFileSync(path.join(app.outdir, fn('AuthorizerFunction').assetPath, 'index.js'), 'utf8');
    expect(authorizer).toMatch(/require\("@aws-sdk\/client-dynamodb"\)|require\("@aws-sdk\/lib-dynamodb"\)/);
  });

  test('the authorizer gets the documented defaults from lambda/core/defaults.ts', () => {
    const env = fn('AuthorizerFunction').props.Environment.Variables;
    expect(env).toMatchObject({
      [ENV.tableName]: { Ref: expect.stringMatching(/^Registry/) },
      [ENV.maxAgeS]: String(DEFAULT_MAX_AGE_S),
      [ENV.maxSkewS]: String(DEFAULT_MAX_SKEW_S),
      [ENV.allowLegacy]: 'false',
      [ENV.profile]: 'signet',
      [ENV.replayProtection]: 'false',
      [ENV.recordAuthFailures]: 'true',
      [ENV.lastUsedRecordIntervalMs]: String(LAST_USED_RECORD_INTERVAL_MS),
      [ENV.clientCacheTtlMs]: String(DEFAULT_CLIENT_CACHE_TTL_MS),
      [ENV.staleIfErrorMs]: String(DEFAULT_STALE_IF_ERROR_MS),
      POWERTOOLS_SERVICE_NAME: AUTHORIZER_SERVICE_NAME,
    });
    expect(JSON.parse(env[ENV.roleCatalogue])).toEqual(DEFAULT_STACK_ROLE_CATALOGUE);
    expect(env[ENV.publicBaseUrl]).toBeUndefined();
    // Published keys: the authorizer knows how long they keep verifying, and nothing about fetching them.
    expect(env[ENV.keySourceKeepDays]).toBe('7');
    expect([env[ENV.keySourceRefreshMinutes], env[ENV.requireSignedDirectories]]).toEqual([undefined, undefined]);
  });

  test('the authorizer ends well before API Gateway stops waiting (10 s), after its DynamoDB attempts; no concurrency reserved by default', () => {
    const authorizer = fn('AuthorizerFunction').props;
    expect(authorizer.Timeout).toBe(AUTHORIZER_TIMEOUT_S);
    expect(AUTHORIZER_TIMEOUT_S * 1000).toBeLessThanOrEqual(10_000 / 2);
    expect(AUTHORIZER_TIMEOUT_S * 1000).toBeGreaterThan(2 * DYNAMODB_REQUEST_TIMEOUT_MS);
    expect(authorizer.ReservedConcurrentExecutions).toBeUndefined();
  });
});

describe('HTTP API', () => {
  test('the authorizer uses simple responses with caching off', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'REQUEST',
      AuthorizerPayloadFormatVersion: '2.0',
      EnableSimpleResponses: true,
      AuthorizerResultTtlInSeconds: 0,
      IdentitySource: ['$request.header.Signature'],
      AuthorizerUri: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith([{ 'Fn::GetAtt': [fn('AuthorizerFunction').logicalId, 'Arn'] }])]) }),
    });
  });

  test('every route, registry and demo alike, goes through the signature authorizer', () => {
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map((r) => r.Properties);
    expect(routes.map((r) => r.RouteKey).sort()).toEqual(['ANY /api/echo', 'ANY /registry/clients', 'ANY /registry/{proxy+}']);
    const authorizerId = Object.keys(template.findResources('AWS::ApiGatewayV2::Authorizer'))[0];
    for (const route of routes) {
      expect(route.AuthorizationType).toBe('CUSTOM');
      expect(route.AuthorizerId).toEqual({ Ref: authorizerId });
    }
  });

  test('API Gateway may invoke the authorizer only through this authorizer', () => {
    template.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [fn('AuthorizerFunction').logicalId, 'Arn'] },
      Principal: 'apigateway.amazonaws.com',
      SourceArn: { 'Fn::Join': ['', Match.arrayWith(['/authorizers/'])] },
    });
  });

  test('the $default stage writes JSON access logs that never include a header value', () => {
    const stage = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0].Properties;
    expect(stage.StageName).toBe('$default');
    expect(stage.AutoDeploy).toBe(true);
    const format = JSON.parse(stage.AccessLogSettings.Format) as Record<string, string>;
    expect(format).toMatchObject({ requestId: '$context.requestId', clientId: '$context.authorizer.clientId', signetError: '$context.authorizer.signetError' });
    expect(stage.AccessLogSettings.Format).not.toMatch(/header|signature/i);
  });

  test('the stage throttles every route by default, before the authorizer is invoked', () => {
    const stage = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0].Properties;
    expect(stage.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: DEFAULT_THROTTLE_RATE_LIMIT, ThrottlingBurstLimit: DEFAULT_THROTTLE_BURST_LIMIT });
  });

  test('no REST API is made', () => {
    template.resourceCountIs('AWS::ApiGateway::RestApi', 0);
  });
});

/** Item actions that change an item (ConditionCheckItem only reads). */
const WRITE_ACTIONS = new Set(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:TransactWriteItems']);

/**
 * The partition-key patterns the statements let a role write, each checked to be one of the
 * authorizer's own partitions (failure log, last use, replay markers): a write without a
 * LeadingKeys condition, or one on a client record, key, account or roster partition, fails.
 */
function writtenPartitions(statements: readonly Statement[]): string[] {
  const patterns = new Set<string>();
  for (const s of statements.filter((st) => actionsOf(st).some((a) => WRITE_ACTIONS.has(a)))) {
    const leadingKeys = (s.Condition?.['ForAllValues:StringLike'] as Record<string, string[]> | undefined)?.['dynamodb:LeadingKeys'];
    expect(leadingKeys).toBeDefined();
    for (const pattern of leadingKeys ?? []) {
      expect(pattern).toMatch(/^(FAIL|USE|REPLAY)#/);
      patterns.add(pattern);
    }
  }
  return [...patterns].sort();
}

describe('least privilege', () => {
  const allStatements = (): Statement[] =>
    Object.values(template.findResources('AWS::IAM::Policy')).flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);

  test('no statement in the stack allows a wildcard resource or action', () => {
    for (const s of allStatements()) {
      expect(JSON.stringify(s.Resource)).not.toMatch(/"\*"/);
      for (const action of actionsOf(s)) expect(action).not.toMatch(/\*/);
    }
    template.resourcePropertiesCountIs('AWS::IAM::Role', { ManagedPolicyArns: Match.anyValue() }, 0);
  });

  test("the authorizer reads client records and thumbprint index items, and writes only its own partitions: failure log, failure counts, the keys' last use (no replay marker by default)", () => {
    const statements = statementsOfRole(template, 'AuthorizerFunctionServiceRole');
    // DynamoDB and its own log group: no other service, nothing that reaches out (published keys come through the record).
    expect([...new Set(statements.flatMap(actionsOf).map((a) => a.split(':')[0]))].sort()).toEqual(['dynamodb', 'logs']);
    const dynamo = statements.filter((s) => actionsOf(s)[0].startsWith('dynamodb:'));
    expect(dynamo.map((s) => [actionsOf(s).join(','), s.Condition?.['ForAllValues:StringLike']])).toEqual([
      ['dynamodb:GetItem', { 'dynamodb:LeadingKeys': ['CLIENT#*', 'THUMB#*'] }],
      ['dynamodb:UpdateItem', { 'dynamodb:LeadingKeys': ['FAIL#*'] }],
      ['dynamodb:UpdateItem', { 'dynamodb:LeadingKeys': ['FAIL#*'] }],
      ['dynamodb:PutItem', { 'dynamodb:LeadingKeys': ['FAIL#*'] }],
      ['dynamodb:UpdateItem', { 'dynamodb:LeadingKeys': ['USE#*'] }],
      ['dynamodb:ConditionCheckItem', { 'dynamodb:LeadingKeys': ['KEY#*'] }],
    ]);
    expect(dynamo[4].Condition?.['ForAllValues:StringEquals']).toEqual({ 'dynamodb:Attributes': ['pk', 'sk', 'lastUsedAt', 'lastUsedBy'] });
    // No write, whatever its attributes, reaches a partition of the registry's: a client record,
    // an audit entry, a key ownership item, an account or the admin roster.
    expect(writtenPartitions(dynamo)).toEqual(['FAIL#*', 'USE#*']);
    for (const s of dynamo) expect(s.Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^Registry/), 'Arn'] });
    const logs = statements.filter((s) => actionsOf(s)[0].startsWith('logs:'));
    expect(logs).toHaveLength(1);
    expect(logs[0].Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^AuthorizerFunctionLogGroup/), 'Arn'] });
  });

  test('the registry reads and writes items on the table and reads its list index', () => {
    const statements = statementsOfRole(template, 'RegistryApiFunctionServiceRole').filter((s) => actionsOf(s)[0].startsWith('dynamodb:'));
    const resources = JSON.stringify(statements.map((s) => s.Resource));
    expect(resources).toContain('/index/gsi1');
    expect(statements.flatMap(actionsOf)).toEqual(
      expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem']),
    );
  });

  test('the rotation function touches only its own secret, its client\'s items and key items', () => {
    const statements = statementsOfRole(template, 'SigningKey');
    const secretId = Object.keys(template.findResources('AWS::SecretsManager::Secret'))[0];
    const secret = statements.filter((s) => actionsOf(s)[0].startsWith('secretsmanager:'));
    expect(secret).toHaveLength(1);
    expect(actionsOf(secret[0]).sort()).toEqual([
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
      'secretsmanager:PutSecretValue',
      'secretsmanager:UpdateSecretVersionStage',
    ]);
    expect(secret[0].Resource).toEqual({ Ref: secretId });
    const dynamo = statements.filter((s) => actionsOf(s)[0].startsWith('dynamodb:'));
    expect(dynamo).toHaveLength(2);
    expect(dynamo[0].Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`CLIENT#${ROTATED_CLIENT}`, 'KEY#*', 'THUMB#*'] } });
    // Removing a key deletes its last use: DeleteItem only, on the last-use partitions.
    expect([actionsOf(dynamo[1]), dynamo[1].Condition]).toEqual([['dynamodb:DeleteItem'], { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['USE#*'] } }]);
  });

  test("the key source refresher reads and writes only client, key, thumbprint and key source items (and deletes a removed key's last use), and queries only the due-sources list; no secret, no Scan", () => {
    const statements = statementsOfRole(template, 'KeySourceRefresherFunctionServiceRole');
    expect([...new Set(statements.flatMap(actionsOf).map((a) => a.split(':')[0]))].sort()).toEqual(['dynamodb', 'logs']);
    const dynamo = statements.filter((s) => actionsOf(s)[0].startsWith('dynamodb:'));
    expect(dynamo.map((s) => [actionsOf(s).sort().join(','), s.Condition])).toEqual([
      [
        'dynamodb:BatchGetItem,dynamodb:ConditionCheckItem,dynamodb:DeleteItem,dynamodb:GetItem,dynamodb:PutItem,dynamodb:UpdateItem',
        { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['CLIENT#*', 'KEY#*', 'THUMB#*', 'SOURCE#*'] } },
      ],
      ['dynamodb:DeleteItem', { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['USE#*'] } }],
      ['dynamodb:Query', { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['KEY_SOURCES'] } }],
    ]);
    expect(JSON.stringify(dynamo[2].Resource)).toContain('/index/gsi1');
    const logs = statements.filter((s) => actionsOf(s)[0].startsWith('logs:'));
    expect(logs.map((s) => s.Resource)).toEqual([{ 'Fn::GetAtt': [expect.stringMatching(/^KeySourceRefresherFunctionLogGroup/), 'Arn'] }]);
  });

  test('the echo backend has no data access at all', () => {
    const statements = statementsOfRole(template, 'EchoServiceRole');
    expect(statements.flatMap(actionsOf).sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
  });
});

describe('key rotation', () => {
  test('rotates every 90 days, starting at deploy, with the stack\'s rotation function', () => {
    template.resourceCountIs('AWS::SecretsManager::RotationSchedule', 1);
    template.hasResourceProperties('AWS::SecretsManager::RotationSchedule', {
      SecretId: { Ref: Object.keys(template.findResources('AWS::SecretsManager::Secret'))[0] },
      RotationLambdaARN: { 'Fn::GetAtt': [fn('SigningKey').logicalId, 'Arn'] },
      RotationRules: { ScheduleExpression: 'rate(90 days)' },
      RotateImmediatelyOnUpdate: true,
    });
  });

  test('the first rotation waits for a deploy-time check, run by the rotation function, that the client is registered', () => {
    const checks = template.findResources('Custom::SignetSigningKeyClient');
    expect(Object.values(checks).map((r) => r.Properties)).toEqual([
      // CloudFormation gives up a minute after the function's own timeout (300 s) when nothing answers, not after its default hour.
      { ServiceToken: { 'Fn::GetAtt': [fn('SigningKey').logicalId, 'Arn'] }, ClientId: ROTATED_CLIENT, ServiceTimeout: '360' },
    ]);
    const [schedule] = Object.values(template.findResources('AWS::SecretsManager::RotationSchedule'));
    expect(schedule.DependsOn).toEqual(expect.arrayContaining(Object.keys(checks)));
  });

  test('only Secrets Manager, for this secret, may invoke the rotation function', () => {
    template.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [fn('SigningKey').logicalId, 'Arn'] },
      Principal: 'secretsmanager.amazonaws.com',
      SourceArn: { Ref: Object.keys(template.findResources('AWS::SecretsManager::Secret'))[0] },
    });
  });

  test('the rotation function waits out the authorizers\' cache TTL and has the time to', () => {
    const rotation = fn('SigningKey').props;
    expect(rotation.Environment.Variables).toMatchObject({
      [ENV.clientCacheTtlMs]: String(DEFAULT_CLIENT_CACHE_TTL_MS),
      [ENV.rotationGraceS]: String(DEFAULT_ROTATION_GRACE_S),
      [ENV.rotationKeyBits]: String(DEFAULT_RSA_BITS),
      [ENV.tableName]: { Ref: expect.stringMatching(/^Registry/) },
      // Its last_admin checks count operators by the authorizer's keep bound of published keys.
      [ENV.keySourceKeepDays]: '7',
    });
    expect(rotation.Timeout).toBeGreaterThanOrEqual(DEFAULT_CLIENT_CACHE_TTL_MS / 1000 + 60);
  });

  test('the secret starts with its clientId only (the first rotation creates the key), and outlives the stack', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', { SecretString: JSON.stringify({ clientId: ROTATED_CLIENT }) });
    // Its signers read it: removing the construct or deleting the stack must not schedule the live key for deletion.
    template.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });
});

describe('key source refresher schedule', () => {
  test('an EventBridge rule runs the refresher every 15 minutes, and only that rule may invoke it', () => {
    const rules = Object.values(template.findResources('AWS::Events::Rule')).map((r) => r.Properties);
    expect(rules).toEqual([
      expect.objectContaining({
        ScheduleExpression: 'rate(15 minutes)',
        State: 'ENABLED',
        Targets: [expect.objectContaining({ Arn: { 'Fn::GetAtt': [fn('KeySourceRefresherFunction').logicalId, 'Arn'] } })],
      }),
    ]);
    const ruleId = Object.keys(template.findResources('AWS::Events::Rule'))[0];
    template.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [fn('KeySourceRefresherFunction').logicalId, 'Arn'] },
      Principal: 'events.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': [ruleId, 'Arn'] },
    });
  });

  test('a failed run is not retried by Lambda (the next run is the retry), and a run queued past the interval is dropped', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: fn('KeySourceRefresherFunction').logicalId },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 900,
    });
  });
});

describe('admin bootstrap', () => {
  test('registers the given public key (canonical SPKI PEM) with a custom resource', () => {
    template.hasResourceProperties('Custom::SignetAdminBootstrap', {
      ServiceToken: { 'Fn::GetAtt': [fn('AdminBootstrapFunction').logicalId, 'Arn'] },
      PublicKeyPem: spkiPem(testKey(0)),
      NetworkWhitelist: '["0.0.0.0"]',
      ServiceTimeout: '180',
    });
    expect(stack.adminBootstrap?.fingerprint).toBe(testKey(0).fingerprint);
    // The function registers that key only: its fingerprint is in its environment.
    const env = Object.values(template.findResources('AWS::Lambda::Function')).find((f) => f.Properties.Description?.includes('first registry:admin'))!.Properties.Environment.Variables;
    expect(env[ENV.adminKeyFingerprint]).toBe(testKey(0).fingerprint);
  });

  test('an admin allowed from everywhere (no adminNetworkWhitelist) is a synth warning, and so are alarms without a topic; an admin with networks, and alarms with alarmTopicArn, are not', () => {
    const warned = Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('may call from any address'));
    expect(warned.map((w) => w.id)).toEqual(['/Signet/AdminBootstrap']);
    const narrowed = withoutBundlingProgress(() => new SignetStack(appWithoutBundling(), 'Narrowed', { adminPublicKey: spkiPem(testKey(0)), adminNetworkWhitelist: ['203.0.113.0/24'], alarmTopicArn: TOPIC_ARN }));
    expect(Annotations.fromStack(narrowed).findWarning('*', Match.stringLikeRegexp('may call from any address'))).toEqual([]);

    // Alarms without a topic tell nobody: a warning; with alarmTopicArn every alarm notifies the topic.
    expect(Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('alarms only change state')).map((w) => w.id)).toEqual(['/Signet/Monitoring']);
    expect(Annotations.fromStack(narrowed).findWarning('*', Match.stringLikeRegexp('alarms only change state'))).toEqual([]);
    const alarms = Object.values(Template.fromStack(narrowed).findResources('AWS::CloudWatch::Alarm'));
    expect(alarms.length).toBeGreaterThan(4);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([TOPIC_ARN]);
  });
});

/** An SNS topic the operators read (made up). */
const TOPIC_ARN = 'arn:aws:sns:eu-west-1:111122223333:signet-alarms';

describe('alarms, dashboard, outputs', () => {
  test('alarms on authorizer errors, deny spikes, decisions from stale records, registry errors, table throttles, rotation failures and failing key sources', () => {
    const alarms = template.findResources('AWS::CloudWatch::Alarm');
    expect(Object.keys(alarms).map((id) => id.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual([
      'MonitoringAuthorizerErrors',
      'MonitoringDeniedSpike',
      'MonitoringKeySourcesFailing',
      'MonitoringRegistryErrors',
      'MonitoringRotationFailures',
      'MonitoringStaleRecordsServed',
      'MonitoringTableThrottles',
    ]);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: METRICS_NAMESPACE,
      MetricName: AUTHORIZER_METRICS.staleServed,
      Dimensions: [{ Name: FUNCTION_DIMENSION, Value: { Ref: fn('Authorizer').logicalId } }, { Name: 'service', Value: AUTHORIZER_SERVICE_NAME }],
      Statistic: 'Sum',
      Threshold: 1,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: METRICS_NAMESPACE,
      MetricName: AUTHORIZER_METRICS.denied,
      Dimensions: [{ Name: FUNCTION_DIMENSION, Value: { Ref: fn('Authorizer').logicalId } }, { Name: 'service', Value: AUTHORIZER_SERVICE_NAME }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 100,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: Match.arrayWith([Match.objectLike({ Expression: 'errors + throttles' })]),
      Threshold: 1,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Errors',
      Namespace: 'AWS/Lambda',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: fn('SigningKey').logicalId } }],
      Threshold: 1,
    });
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });

  test("the throttle alarm sums the client table's ThrottledRequests over every operation the store sends", () => {
    // The operations, read off the store's own DynamoDB commands: a new kind of command needs its operation alarmed too.
    const sources = fs.readdirSync(path.join(__dirname, '../../lambda/store')).map((f) => fs.readFileSync(path.join(__dirname, '../../lambda/store', f), 'utf8'));
    const commands = new Set(sources.flatMap((text) => [...text.matchAll(/new (\w+)Command\(/g)].map((m) => m[1])));
    const operationOf: Record<string, string> = { Get: 'GetItem', BatchGet: 'BatchGetItem', Query: 'Query', Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', TransactWrite: 'TransactWriteItems', Scan: 'Scan' };
    const expected = [...commands].filter((c) => !/Table$|TimeToLive$/.test(c)).map((c) => operationOf[c] ?? c);
    const [alarm] = Object.values(template.findResources('AWS::CloudWatch::Alarm')).filter((a) => JSON.stringify(a).includes('ThrottledRequests'));
    const metrics = (alarm.Properties.Metrics as { MetricStat?: { Metric: { MetricName: string; Dimensions: { Name: string; Value: unknown }[] } } }[]).flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric] : []));
    expect(metrics.every((m) => m.MetricName === 'ThrottledRequests')).toBe(true);
    expect(metrics.map((m) => m.Dimensions.find((d) => d.Name === 'Operation')?.Value).sort()).toEqual([...new Set(expected)].sort());
    expect(JSON.stringify(metrics.map((m) => m.Dimensions.find((d) => d.Name === 'TableName')?.Value))).toContain('Registry');
    expect(alarm.Properties).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', TreatMissingData: 'notBreaching' });
  });

  test('the key source alarm fires when a run reports a source failing for over an hour, and when no run completes in two intervals (missing data breaches)', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: METRICS_NAMESPACE,
      MetricName: KEY_SOURCE_REFRESH_METRICS.failingOverAnHour,
      Dimensions: [{ Name: FUNCTION_DIMENSION, Value: { Ref: fn('KeySourceRefresher').logicalId } }, { Name: 'service', Value: KEY_SOURCE_REFRESHER_SERVICE_NAME }],
      Statistic: 'Maximum',
      Period: 2 * 15 * 60,
      EvaluationPeriods: 1,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'breaching',
    });
  });

  test('outputs the API URL, the table name, the admin clientId and the secret', () => {
    const outputs = template.findOutputs('*');
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['ApiUrl', 'TableName', 'AdminClientId', 'DashboardName']));
    expect(outputs.TableName.Value).toEqual({ Ref: expect.stringMatching(/^Registry/) });
    expect(outputs.AdminClientId.Value).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^AdminBootstrap/), 'ClientId'] });
    expect(JSON.stringify(outputs.ApiUrl.Value)).toContain('execute-api');
    expect(outputs.ExecuteApiUrl).toBeUndefined(); // the same URL: only with publicBaseUrl
    const secret = outputs[signingKeyOutputId(ROTATED_CLIENT)];
    expect(secret.Value).toEqual({ Ref: Object.keys(template.findResources('AWS::SecretsManager::Secret'))[0] });
    expect(secret.Description).toContain(ROTATED_CLIENT);
    expect(signingKeyOutputId(ROTATED_CLIENT)).toBe('SigningKeye06eb99aSecretArn'); // stable: scripts read it by name
  });
});

describe('cdk-nag', () => {
  test('AwsSolutions finds nothing that is not acknowledged', () => {
    expect(unacknowledgedFindings(app)).toEqual([]);
  });

  test('every acknowledgement carries a reason', () => {
    const acks = acknowledgements(app);
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) {
      expect(typeof ack.reason).toBe('string');
      expect((ack.reason as string).length).toBeGreaterThan(40);
    }
    // Only these rules are acknowledged in the HTTP stack.
    expect([...new Set(acks.map((a) => a.id.replace(/^annotation::/i, '')))]).toEqual(['AwsSolutions-L1']);
  });
});

describe('CloudFormation validation', () => {
  // The other tests' apps leave the CDK's built-in template validation out (helpers.ts testApp);
  // the stack above and the REST stack here run it strict, so a synth with any finding throws its report.
  const findings = (validated: App): unknown[] =>
    (JSON.parse(fs.readFileSync(path.join(validated.synth().directory, cxapi.VALIDATION_REPORT_FILE), 'utf8')) as { pluginReports: unknown[] }).pluginReports;

  test("the HTTP stack with an admin key and a rotated signing key passes the CDK's CloudFormation template validation with no finding", () => {
    expect(findings(app)).toEqual([]);
  });

  test("the REST stack with the client portal and replay protection passes it too", () => {
    const rest = new App({ context: { 'aws:cdk:bundling-stacks': [], ...STRICT_VALIDATION } });
    new SignetStack(rest, 'Validated', { apiType: 'rest', clientPortal: true, replayProtection: true });
    expect(findings(rest)).toEqual([]);
  });
});

describe('variants (no bundling)', () => {
  function variant(props: ConstructorParameters<typeof SignetStack>[2], env?: { region: string }): Template {
    const variantApp = appWithoutBundling();
    return Template.fromStack(new SignetStack(variantApp, 'Variant', { ...props, env }));
  }

  test('replayProtection adds PutItem of replay markers; recordAuthFailures false and lastUsedRecordInterval 0 drop the other writes', () => {
    const t = variant({ replayProtection: true, recordAuthFailures: false, lastUsedRecordInterval: Duration.millis(0) });
    const dynamo = statementsOfRole(t, 'AuthorizerFunctionServiceRole').filter((s) => actionsOf(s)[0].startsWith('dynamodb:'));
    expect(dynamo.map((s) => [actionsOf(s).join(','), s.Condition?.['ForAllValues:StringLike']])).toEqual([
      ['dynamodb:GetItem', { 'dynamodb:LeadingKeys': ['CLIENT#*', 'THUMB#*'] }],
      ['dynamodb:PutItem', { 'dynamodb:LeadingKeys': ['REPLAY#*'] }],
    ]);
    expect(writtenPartitions(dynamo)).toEqual(['REPLAY#*']);
    const env = Object.values(t.findResources('AWS::Lambda::Function')).find((f) => f.Properties.Handler === 'index.httpApiHandler')!.Properties.Environment.Variables;
    expect(env[ENV.replayProtection]).toBe('true');
    expect(env[ENV.recordAuthFailures]).toBe('false');
    expect(env[ENV.lastUsedRecordIntervalMs]).toBe('0');
  });

  test('replicaRegions makes the registry a global table in those regions', () => {
    const t = variant({ replicaRegions: ['us-east-1'] }, { region: 'eu-west-1' });
    const replicas = Object.values(t.findResources('AWS::DynamoDB::GlobalTable'))[0].Properties.Replicas as Array<{ Region: string }>;
    expect(replicas.map((r) => r.Region).sort()).toEqual(['eu-west-1', 'us-east-1']);
  });

  test('without an admin key or signing keys there is no bootstrap, no secret and no rotation alarm', () => {
    const t = variant({});
    t.resourceCountIs('Custom::SignetAdminBootstrap', 0);
    t.resourceCountIs('AWS::SecretsManager::Secret', 0);
    t.resourceCountIs('AWS::CloudWatch::Alarm', 6); // authorizer errors, deny spike, stale records, registry errors, table throttles, failing key sources
    expect(Object.keys(t.findOutputs('*'))).not.toContain('AdminClientId');
  });

  test('settings reach the authorizer and the stage: public base URL, window, legacy, catalogue, throttling, reserved concurrency; the registry knows its cache TTL; the outputs name the public URL', () => {
    const variantApp = appWithoutBundling();
    const s = new SignetStack(variantApp, 'Variant', {
      throttleRateLimit: 50,
      throttleBurstLimit: 80,
      authorizerReservedConcurrency: 20,
      publicBaseUrl: 'https://api.example.com/v1',
      allowLegacy: true,
      profile: 'rfc9421',
      clientCacheTtl: Duration.seconds(45),
      roleCatalogue: { 'registry:admin': ['* /registry/**'], orders: ['POST /orders/*'] },
    });
    const t = Template.fromStack(s);
    const authorizer = Object.values(t.findResources('AWS::Lambda::Function')).find((f) => f.Properties.Handler === 'index.httpApiHandler')!.Properties;
    const env = authorizer.Environment.Variables;
    expect(authorizer.ReservedConcurrentExecutions).toBe(20);
    const stage = Object.values(t.findResources('AWS::ApiGatewayV2::Stage'))[0].Properties;
    expect(stage.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 80 });
    // Clients call and sign the public base URL; API Gateway's own URL is a separate output.
    const outputs = t.findOutputs('*');
    expect(outputs.ApiUrl.Value).toBe('https://api.example.com/v1/');
    expect(s.apiUrl).toBe('https://api.example.com/v1/');
    expect(JSON.stringify(outputs.ExecuteApiUrl.Value)).toContain('execute-api');
    // Requests signed for the public URL verify there too: the output says so, and how to turn it off.
    expect(outputs.ExecuteApiUrl.Description).toMatch(/verify here too \(set disableExecuteApiEndpoint/);
    expect(Object.values(t.findResources('AWS::ApiGatewayV2::Api'))[0].Properties.DisableExecuteApiEndpoint).toBe(false);
    expect(env[ENV.publicBaseUrl]).toBe('https://api.example.com/v1');
    expect(env[ENV.allowLegacy]).toBe('true');
    expect(env[ENV.profile]).toBe('rfc9421');
    const registryEnv = Object.values(t.findResources('AWS::Lambda::Function')).find((f) => f.Properties.Description?.includes('registry API'))!.Properties.Environment.Variables;
    expect(JSON.parse(registryEnv[ENV.roleCatalogue])).toEqual(JSON.parse(env[ENV.roleCatalogue]));
    expect({ authorizer: env[ENV.clientCacheTtlMs], registry: registryEnv[ENV.clientCacheTtlMs] }).toEqual({ authorizer: '45000', registry: '45000' });
    // The registry finds the path inside the API with the authorizer's base URL, so both judge the same path.
    expect(registryEnv[ENV.publicBaseUrl]).toBe('https://api.example.com/v1');
  });

  test("signing-key clients differing only in '-' and '_' each get their own output, naming the client; a client given twice is one clear error", () => {
    const dash = 'c_AAAAAAAAAA-AAAAAAAAAAA';
    const underscore = 'c_AAAAAAAAAA_AAAAAAAAAAA';
    const t = variant({ signingKeyClientIds: [dash, underscore] });
    const outputs = t.findOutputs('*');
    expect(signingKeyOutputId(dash)).not.toBe(signingKeyOutputId(underscore));
    expect(outputs[signingKeyOutputId(dash)].Description).toContain(dash);
    expect(outputs[signingKeyOutputId(underscore)].Description).toContain(underscore);
    t.resourceCountIs('AWS::SecretsManager::Secret', 2);
    // What each key adds, which bounds how many a stack holds.
    const one = Object.keys(variant({ signingKeyClientIds: [dash] }).toJSON().Resources as object).length;
    expect(Object.keys(t.toJSON().Resources as object).length - one).toBe(9);
    expect(() => variant({ signingKeyClientIds: [dash, ROTATED_CLIENT, dash] })).toThrow(
      /^Variant: invalid SignetStack props: signingKeyClientIds lists c_AAAAAAAAAA-AAAAAAAAAAA more than once; give each client once\.$/,
    );
    // More than a stack can hold fails the synth, not the deploy on CloudFormation's 500 resources.
    const many = Array.from({ length: MAX_SIGNING_KEYS_PER_STACK + 1 }, (_, i) => `c_${String(i).padStart(22, 'A')}`);
    expect(() => variant({ signingKeyClientIds: many })).toThrow(`signingKeyClientIds lists ${MAX_SIGNING_KEYS_PER_STACK + 1} clients; one stack holds at most ${MAX_SIGNING_KEYS_PER_STACK}`);
  });

  test('disableExecuteApiEndpoint turns off the execute-api URL, so that only the custom domain answers', () => {
    const t = variant({ publicBaseUrl: 'https://api.example.com/v1', disableExecuteApiEndpoint: true });
    expect(Object.values(t.findResources('AWS::ApiGatewayV2::Api'))[0].Properties.DisableExecuteApiEndpoint).toBe(true);
    expect(t.findOutputs('*').ExecuteApiUrl.Description).toMatch(/turned off/);
  });

  test('spend bounds out of range, and a web ACL on an HTTP API, are refused at synth naming the prop', () => {
    expect(() => variant({ throttleRateLimit: 0, throttleBurstLimit: 1.5 })).toThrow(/throttleRateLimit must be a number >= 1; got 0; throttleBurstLimit must be a whole number >= 1; got 1.5/);
    expect(() => variant({ authorizerReservedConcurrency: 0 })).toThrow(/reservedConcurrency must be a whole number >= 1 \(0 would refuse every request\); got 0/);
    expect(() => variant({ webAclArn: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/signet/0f2e4c6a-1b3d-4e5f-8a9b-0c1d2e3f4a5b' })).toThrow(
      /webAclArn needs apiType 'rest': AWS WAF cannot be associated with an HTTP API/,
    );
  });

  test('a daily key source refresh: the rule runs once a day, the alarm looks at one day, a run still ends within 5 minutes; the keep bound reaches every function that reads it (the rotation and the bootstrap count operators by it); an interval out of range is refused at synth', () => {
    const t = variant({ keySourceRefreshMinutes: 1440, keySourceKeepDays: 30, requireSignedDirectories: true, signingKeyClientIds: [ROTATED_CLIENT], adminPublicKey: spkiPem(testKey(0)) });
    expect(Object.values(t.findResources('AWS::Events::Rule')).map((r) => r.Properties.ScheduleExpression)).toEqual(['rate(1 day)']);
    const [alarm] = Object.entries(t.findResources('AWS::CloudWatch::Alarm')).filter(([id]) => id.startsWith('MonitoringKeySourcesFailing')).map(([, a]) => a.Properties);
    expect([alarm.Period, alarm.EvaluationPeriods, alarm.TreatMissingData]).toEqual([86400, 1, 'breaching']);
    const all = Object.values(t.findResources('AWS::Lambda::Function')).map((f) => f.Properties);
    const refresher = all.find((p) => p.Environment.Variables.POWERTOOLS_SERVICE_NAME === KEY_SOURCE_REFRESHER_SERVICE_NAME)!;
    expect(refresher.Timeout).toBe(KEY_SOURCE_REFRESHER_TIMEOUT_S);
    expect(refresher.Environment.Variables).toMatchObject({ [ENV.keySourceRefreshMinutes]: '1440', [ENV.keySourceKeepDays]: '30', [ENV.requireSignedDirectories]: 'true' });
    const authorizer = all.find((p) => p.Handler === 'index.httpApiHandler')!;
    expect(authorizer.Environment.Variables[ENV.keySourceKeepDays]).toBe('30');
    const registry = all.find((p) => p.Description?.includes('registry API'))!;
    expect(registry.Environment.Variables).toMatchObject({ [ENV.keySourceRefreshMinutes]: '1440', [ENV.keySourceKeepDays]: '30', [ENV.requireSignedDirectories]: 'true' });
    const rotation = all.find((p) => p.Description?.includes('rotates the signing key'))!;
    const bootstrap = all.find((p) => p.Description?.includes('first registry:admin'))!;
    expect([rotation.Environment.Variables[ENV.keySourceKeepDays], bootstrap.Environment.Variables[ENV.keySourceKeepDays]]).toEqual(['30', '30']);
    expect(() => variant({ keySourceRefreshMinutes: 0, keySourceKeepDays: 91 })).toThrow(/keySourceKeepDays must be a whole number from 1 to 90; got 91/);
    expect(() => variant({ keySourceRefreshMinutes: 1441 })).toThrow(/keySourceRefreshMinutes must be a whole number from 1 to 1440; got 1441/);
  });

  test('a role catalogue without registry:admin on /registry is refused at synth', () => {
    expect(() => variant({ roleCatalogue: { demo: ['* /api/*'] } })).toThrow(/the role catalogue must let 'registry:admin' call the registry/);
  });

  test('the stack alone (no bundling) is also nag-clean', () => {
    const variantApp = appWithoutBundling();
    new SignetStack(variantApp, 'Plain', {});
    expect(unacknowledgedFindings(variantApp)).toEqual([]);
  });
});
