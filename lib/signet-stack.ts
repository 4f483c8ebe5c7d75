/**
 * The Signet stack: client registry, signature authorizer, registry API, the key source
 * refresher, a demo protected API (`/api/echo`), optional rotating signing keys, the admin
 * bootstrap, alarms and a dashboard.
 * It only composes the constructs of this folder; see docs/deploy.md for every property.
 */
import { createHash } from 'node:crypto';
import { CfnOutput, Stack, StackProps, Token, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { parsePublicBaseUrl } from '../lambda/adapters/target-uri';
import { DEFAULT_ROLE_CATALOGUE, SETTINGS } from '../lambda/settings';
import { RoleCatalogue } from '../lambda/core/role-policy';
import { AdminBootstrap } from './admin-bootstrap';
import { ClientPortal } from './client-portal';
import { ClientRegistry, type ClientRegistryProps } from './client-registry';
import { KeySourceRefresher, type KeySourceSettings } from './key-source-refresher';
import { RegistryApi } from './registry-api';
import { RotatingSigningKey, type RotatingSigningKeyProps } from './rotating-signing-key';
import { SignatureAuthorizer, SignatureAuthorizerProps, acknowledgeSignetAuthorization } from './signature-authorizer';
import { DEFAULT_LOG_RETENTION, SignetFunction } from './signet-function';
import { SignetMonitoring, type SignetMonitoringProps } from './signet-monitoring';
import { type SettingPropName, settingPropProblem } from './setting-props';
import { SERVICE_NAMES } from '../lambda/observability';

/** The stack's role catalogue when none is given: the registry admin, and `demo` for the echo API. */
export const DEFAULT_STACK_ROLE_CATALOGUE: RoleCatalogue = Object.freeze({
  ...DEFAULT_ROLE_CATALOGUE,
  demo: ['* /api/*'],
});

/** Stage of the REST API (`apiType: 'rest'`); part of every URL clients sign. @default 'prod' */
export const DEFAULT_REST_STAGE_NAME = SETTINGS.restStageName.default;

/**
 * Steady-state requests per second the API's stage accepts before answering 429 (HTTP API:
 * default route throttling; REST: every method of the stage). With caching off each signed request
 * invokes the authorizer, so this bounds what a flood can cost. @default 500
 */
export const DEFAULT_THROTTLE_RATE_LIMIT = SETTINGS.throttleRateLimit.default;

/** Requests the stage accepts at once above the rate (the token bucket's size). @default 1000 */
export const DEFAULT_THROTTLE_BURST_LIMIT = SETTINGS.throttleBurstLimit.default;

/** `POWERTOOLS_SERVICE_NAME` of the demo backend. */
export const ECHO_SERVICE_NAME = SERVICE_NAMES.echo;

/**
 * The authorizer's settings the stack passes through unchanged: every context setting of
 * lambda/settings.ts that SignatureAuthorizerProps takes, documented once, there.
 */
type AuthorizerSettings = Pick<SignatureAuthorizerProps, Extract<SettingPropName<'stack'>, keyof SignatureAuthorizerProps>>;

/**
 * The other constructs' settings the stack passes through unchanged, each documented once, in its
 * construct's props: the table's replicas and name, the rotation interval, the deny-spike
 * threshold, and the key source refresher's schedule and directory rule.
 */
type ConstructSettings = Pick<ClientRegistryProps, 'replicaRegions' | 'tableName'> &
  Pick<RotatingSigningKeyProps, 'rotationInterval'> &
  Pick<SignetMonitoringProps, 'deniedAlarmThreshold'> &
  KeySourceSettings;

export interface SignetStackProps extends StackProps, AuthorizerSettings, ConstructSettings {
  /**
   * Public key (SPKI PEM) of the first `registry:admin` client, registered at deploy time.
   * Checked at synth; a private key is refused.
   * @default - no admin is registered (create one with the CLI and AWS credentials)
   */
  readonly adminPublicKey?: string;
  /**
   * Where the bootstrapped admin may call from.
   * @default ['0.0.0.0'] - everyone (the signature is still required)
   */
  readonly adminNetworkWhitelist?: readonly string[];
  /** @default DEFAULT_STACK_ROLE_CATALOGUE (`registry:admin` on `/registry/**`, `demo` on `/api/*`) */
  readonly roleCatalogue?: RoleCatalogue;
  /**
   * Clients whose signing key Signet keeps in Secrets Manager and rotates (one secret and one
   * rotation function each). The clients must exist in the registry.
   * @default - none
   */
  readonly signingKeyClientIds?: readonly string[];
  /** SNS topic that receives every alarm. @default - none: alarms only change state */
  readonly alarmTopicArn?: string;
  /** Retention of every log group (functions and access logs). @default - one month */
  readonly logRetention?: logs.RetentionDays;
  /** @default DEFAULT_REST_STAGE_NAME ('prod'); only for apiType 'rest' */
  readonly restStageName?: string;
  /**
   * Serve the client portal (docs/portal.md) at `<ApiUrl>portal`: public static files on the
   * same API as the registry; every registry call it makes is signed with an admin key.
   * @default false - the API has only signed routes
   */
  readonly clientPortal?: boolean;
  /**
   * Steady-state requests per second the stage accepts (every route); more are answered 429
   * before the authorizer runs.
   * @default DEFAULT_THROTTLE_RATE_LIMIT (500)
   */
  readonly throttleRateLimit?: number;
  /**
   * Requests the stage accepts at once above the rate.
   * @default DEFAULT_THROTTLE_BURST_LIMIT (1000)
   */
  readonly throttleBurstLimit?: number;
  /**
   * Concurrent executions reserved for (and capping) the authorizer function; see
   * SignatureAuthorizerProps.reservedConcurrency.
   * @default - none: the account's unreserved concurrency
   */
  readonly authorizerReservedConcurrency?: number;
  /**
   * ARN of an AWS WAF web ACL (scope REGIONAL, same region) to associate with the REST API's
   * stage: rate-based and IP rules answer before the authorizer is invoked. Only for apiType
   * 'rest': WAF cannot be associated with an HTTP API.
   * @default - no web ACL
   */
  readonly webAclArn?: string;
  /**
   * Create API Gateway's account-level CloudWatch role (and set it in the account's API Gateway
   * settings, for the whole region), which the REST stage's execution logging needs. Set false
   * when the account already has one: the existing setting is then left as it is. Only for
   * apiType 'rest'.
   * @default true
   */
  readonly restCloudWatchRole?: boolean;
  /**
   * Turn off API Gateway's own `execute-api` URL, so that the API is reached only through an API
   * Gateway custom domain name. With `publicBaseUrl` the authorizer rebuilds every signed URL from
   * it, so a request signed for the public URL verifies at the `execute-api` URL too, past whatever
   * stands in front of the domain (a WAF, a proxy's IP rules). Leave it off when your own
   * CloudFront distribution or proxy forwards to the `execute-api` URL.
   * @default false
   */
  readonly disableExecuteApiEndpoint?: boolean;
}

/**
 * Signet, deployable as is (`npx cdk deploy`) or as an example of wiring the constructs.
 *
 * Outputs: `ApiUrl` (the base URL clients call and sign: `publicBaseUrl` when set),
 * `TableName`, `DashboardName`, and when set up, `ExecuteApiUrl` (API Gateway's own URL, with
 * `publicBaseUrl`), `PortalUrl`, `AdminClientId`, `SigningKey<id>SecretArn` (see {@link signingKeyOutputId}).
 */
export class SignetStack extends Stack {
  readonly registry: ClientRegistry;
  readonly authorizer: SignatureAuthorizer;
  readonly registryApi: RegistryApi;
  readonly monitoring: SignetMonitoring;
  readonly signingKeys: readonly RotatingSigningKey[];
  /** Fetches the published key sources on a schedule. */
  readonly keySourceRefresher: KeySourceRefresher;
  /** The base URL clients call and sign (ends with `/`): `publicBaseUrl` when set, else {@link executeApiUrl}. */
  readonly apiUrl: string;
  /** API Gateway's own URL of the stage (ends with `/`). */
  readonly executeApiUrl: string;
  /** Set when `apiType` is 'http'. */
  readonly httpApi?: apigwv2.HttpApi;
  /** Set when `apiType` is 'rest'. */
  readonly restApi?: apigw.RestApi;
  /** Set when `adminPublicKey` is given. */
  readonly adminBootstrap?: AdminBootstrap;
  /** Set when `clientPortal` is true. */
  readonly clientPortal?: ClientPortal;

  constructor(scope: Construct, id: string, props: SignetStackProps = {}) {
    super(scope, id, { description: 'Signet: RFC 9421 request-signature gateway (API Gateway Lambda authorizer, DynamoDB registry)', ...props });
    const apiType = props.apiType ?? 'http';
    const logRetention = props.logRetention ?? DEFAULT_LOG_RETENTION;
    validateStackProps(this.node.path, props, apiType);
    const throttle = { rateLimit: props.throttleRateLimit ?? DEFAULT_THROTTLE_RATE_LIMIT, burstLimit: props.throttleBurstLimit ?? DEFAULT_THROTTLE_BURST_LIMIT };

    this.registry = new ClientRegistry(this, 'Registry', { replicaRegions: props.replicaRegions, tableName: props.tableName });
    this.authorizer = new SignatureAuthorizer(this, 'Authorizer', {
      ...props, // its settings (AuthorizerSettings) as the stack was given them; it reads no other prop
      registry: this.registry,
      apiType,
      roleCatalogue: props.roleCatalogue ?? DEFAULT_STACK_ROLE_CATALOGUE,
      reservedConcurrency: props.authorizerReservedConcurrency,
      logRetention,
    });

    // Registration and the scheduled refresher fetch key sources by the same rules and keep bound.
    const keySourceSettings = { keySourceRefreshMinutes: props.keySourceRefreshMinutes, requireSignedDirectories: props.requireSignedDirectories };
    this.keySourceRefresher = new KeySourceRefresher(this, 'KeySourceRefresher', {
      ...keySourceSettings,
      registry: this.registry,
      keySourceKeepDays: this.authorizer.keySourceKeepDays,
      logRetention,
    });

    const echo = new SignetFunction(this, 'Echo', {
      entry: 'echo',
      serviceName: ECHO_SERVICE_NAME,
      description: 'Signet demo backend: echoes the request after checking its body against the signed Content-Digest',
      logRetention,
    });
    const accessLogs = new logs.LogGroup(this, 'AccessLogs', { retention: logRetention });

    if (apiType === 'http') {
      const api = new apigwv2.HttpApi(this, 'HttpApi', {
        apiName: this.stackName,
        description: 'Signet-protected HTTP API',
        createDefaultStage: false,
        disableExecuteApiEndpoint: props.disableExecuteApiEndpoint ?? false,
      });
      const stage = api.addStage('DefaultStage', {
        stageName: '$default',
        autoDeploy: true,
        throttle,
        accessLogSettings: { destination: new apigwv2.LogGroupLogDestination(accessLogs), format: apigw.AccessLogFormat.custom(HTTP_ACCESS_LOG_FORMAT) },
      });
      api.addRoutes({
        path: '/api/echo',
        methods: [apigwv2.HttpMethod.ANY],
        integration: new HttpLambdaIntegration('EchoIntegration', echo.function),
        authorizer: this.authorizer.httpAuthorizer(),
      });
      this.registryApi = new RegistryApi(this, 'RegistryApi', { ...keySourceSettings, registry: this.registry, authorizer: this.authorizer, httpApi: api, logRetention });
      this.httpApi = api;
      this.executeApiUrl = stage.url;
    } else {
      const restCloudWatchRole = props.restCloudWatchRole ?? true;
      const api = new apigw.RestApi(this, 'RestApi', {
        restApiName: this.stackName,
        description: 'Signet-protected REST API',
        endpointConfiguration: { types: [apigw.EndpointType.REGIONAL] },
        // Every body is passed through as bytes (base64 to the Lambda), never re-encoded as text,
        // so the backend hashes exactly what the client signed in Content-Digest.
        binaryMediaTypes: ['*/*'],
        cloudWatchRole: restCloudWatchRole,
        disableExecuteApiEndpoint: props.disableExecuteApiEndpoint ?? false,
        deployOptions: {
          stageName: props.restStageName ?? DEFAULT_REST_STAGE_NAME,
          throttlingRateLimit: throttle.rateLimit,
          throttlingBurstLimit: throttle.burstLimit,
          loggingLevel: apigw.MethodLoggingLevel.ERROR,
          dataTraceEnabled: false, // would log request headers, Signature included
          metricsEnabled: true,
          accessLogDestination: new apigw.LogGroupLogDestination(accessLogs),
          accessLogFormat: apigw.AccessLogFormat.custom(REST_ACCESS_LOG_FORMAT),
        },
      });
      // No console test-invoke path, which skips the authorizer.
      const echoMethod = api.root.resourceForPath('/api/echo').addMethod('ANY', new apigw.LambdaIntegration(echo.function, { allowTestInvoke: false }), {
        authorizer: this.authorizer.attachToRestApi(api),
        authorizationType: apigw.AuthorizationType.CUSTOM,
      });
      acknowledgeSignetAuthorization(echoMethod);
      this.registryApi = new RegistryApi(this, 'RegistryApi', { ...keySourceSettings, registry: this.registry, authorizer: this.authorizer, restApi: api, logRetention });
      this.restApi = api;
      this.executeApiUrl = api.url;
      if (props.webAclArn !== undefined) {
        new wafv2.CfnWebACLAssociation(this, 'WebAclAssociation', { resourceArn: api.deploymentStage.stageArn, webAclArn: props.webAclArn });
      }
      acknowledgeRestApiFindings(api, { webAcl: props.webAclArn !== undefined, cloudWatchRole: restCloudWatchRole });
    }
    this.apiUrl = props.publicBaseUrl === undefined ? this.executeApiUrl : publicApiUrl(props.publicBaseUrl);

    if (props.clientPortal === true) {
      this.clientPortal = new ClientPortal(this, 'ClientPortal', { httpApi: this.httpApi, restApi: this.restApi, logRetention });
    }

    const signingKeyClientIds = props.signingKeyClientIds ?? [];
    this.signingKeys = signingKeyClientIds.map(
      (clientId) =>
        new RotatingSigningKey(this, `SigningKey${clientId}`, {
          registry: this.registry,
          clientId,
          rotationInterval: props.rotationInterval,
          clientCacheTtl: props.clientCacheTtl,
          keySourceKeepDays: this.authorizer.keySourceKeepDays,
          logRetention,
        }),
    );

    if (props.adminPublicKey !== undefined) {
      this.adminBootstrap = new AdminBootstrap(this, 'AdminBootstrap', {
        registry: this.registry,
        publicKey: props.adminPublicKey,
        networkWhitelist: props.adminNetworkWhitelist,
        keySourceKeepDays: this.authorizer.keySourceKeepDays,
        logRetention,
      });
    }

    const alarmActions: cloudwatch.IAlarmAction[] = props.alarmTopicArn
      ? [new cloudwatchActions.SnsAction(sns.Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn))]
      : [];
    this.monitoring = new SignetMonitoring(this, 'Monitoring', {
      authorizer: this.authorizer,
      registryFunction: this.registryApi.handler,
      table: this.registry.table,
      signingKeys: this.signingKeys,
      keySourceRefresher: this.keySourceRefresher,
      deniedAlarmThreshold: props.deniedAlarmThreshold,
      alarmActions,
    });

    new CfnOutput(this, 'ApiUrl', {
      value: this.apiUrl,
      description:
        props.publicBaseUrl === undefined
          ? 'Base URL clients call and sign (e.g. <ApiUrl>api/echo)'
          : 'Base URL clients call and sign (e.g. <ApiUrl>api/echo): the publicBaseUrl the authorizer rebuilds every signed URL from',
    });
    if (props.publicBaseUrl !== undefined) {
      new CfnOutput(this, 'ExecuteApiUrl', {
        value: this.executeApiUrl,
        description: props.disableExecuteApiEndpoint
          ? "API Gateway's own URL, turned off (disableExecuteApiEndpoint): the API answers only at its custom domain. Clients call and sign ApiUrl"
          : "API Gateway's own URL behind publicBaseUrl: point the custom domain or proxy at it. Requests signed for ApiUrl verify here too (set disableExecuteApiEndpoint when only the custom domain should answer); clients call and sign ApiUrl",
      });
    }
    new CfnOutput(this, 'TableName', { value: this.registry.table.tableName, description: 'The client registry table' });
    new CfnOutput(this, 'DashboardName', { value: this.monitoring.dashboard.dashboardName, description: 'CloudWatch dashboard' });
    if (this.clientPortal) {
      new CfnOutput(this, 'PortalUrl', { value: `${this.apiUrl}${this.clientPortal.path}`, description: 'The client portal (load the admin key there)' });
    }
    if (this.adminBootstrap) {
      new CfnOutput(this, 'AdminClientId', { value: this.adminBootstrap.clientId, description: 'clientId of the bootstrapped registry:admin (its keyid)' });
    }
    this.signingKeys.forEach((key, i) => {
      const clientId = signingKeyClientIds[i];
      new CfnOutput(this, signingKeyOutputId(clientId), { value: key.secret.secretArn, description: `Secret holding the rotating signing key of client ${clientId} (signers pass it as secretId)` });
    });
  }
}

/**
 * The logical ID of the output holding the secret of `clientId`'s rotating key:
 * `SigningKey<8 hex digits of the clientId's SHA-256>SecretArn`. Stable per client, and distinct for
 * clientIds that differ only in `-` and `_` (CloudFormation IDs may hold neither); the output's
 * description names the clientId.
 * @example signingKeyOutputId('c_AAAAAAAAAAAAAAAAAAAAAA') // 'SigningKeye06eb99aSecretArn'
 */
export function signingKeyOutputId(clientId: string): string {
  return `SigningKey${createHash('sha256').update(clientId).digest('hex').slice(0, 8)}SecretArn`;
}

/** `publicBaseUrl` as the base clients call: scheme, host and base path, ending with `/`. */
function publicApiUrl(publicBaseUrl: string): string {
  if (Token.isUnresolved(publicBaseUrl)) return publicBaseUrl;
  const { origin, basePath } = parsePublicBaseUrl(publicBaseUrl);
  return `${origin}${basePath}/`;
}

/** Checks the stack's own props (the constructs check theirs); every problem in one error naming the prop. */
function validateStackProps(path: string, props: SignetStackProps, apiType: string): void {
  // The throttles by their rows' rules in lambda/settings.ts.
  const problems = [settingPropProblem('throttleRateLimit', props.throttleRateLimit), settingPropProblem('throttleBurstLimit', props.throttleBurstLimit)].filter((problem) => problem !== undefined);
  if (props.webAclArn !== undefined) {
    if (apiType !== 'rest') {
      problems.push("webAclArn needs apiType 'rest': AWS WAF cannot be associated with an HTTP API (put a CloudFront distribution with the web ACL in front of it instead)");
    } else if (!Token.isUnresolved(props.webAclArn) && !WEB_ACL_ARN.test(props.webAclArn)) {
      problems.push(`webAclArn must be the ARN of a regional AWS WAF web ACL (arn:aws:wafv2:<region>:<account>:regional/webacl/<name>/<id>); got ${JSON.stringify(props.webAclArn.slice(0, 200))}`);
    }
  }
  const signingKeys = props.signingKeyClientIds?.length ?? 0;
  if (signingKeys > MAX_SIGNING_KEYS_PER_STACK) {
    problems.push(
      `signingKeyClientIds lists ${signingKeys} clients; one stack holds at most ${MAX_SIGNING_KEYS_PER_STACK} (each adds ${RESOURCES_PER_SIGNING_KEY} resources, and CloudFormation allows 500 in a stack): keep the rest with RotatingSigningKey in another stack`,
    );
  }
  const seen = new Map<string, string>();
  for (const clientId of props.signingKeyClientIds ?? []) {
    if (Token.isUnresolved(clientId)) continue;
    const outputId = signingKeyOutputId(clientId);
    const earlier = seen.get(outputId);
    if (earlier === clientId) problems.push(`signingKeyClientIds lists ${clientId} more than once; give each client once`);
    else if (earlier !== undefined) problems.push(`signingKeyClientIds: ${earlier} and ${clientId} would share the output ${outputId}; deploy one of them from another stack`);
    else seen.set(outputId, clientId);
  }
  if (problems.length > 0) throw new Error(`${path}: invalid SignetStack props: ${problems.join('; ')}.`);
}

/** The resources one signing key adds (secret, rotation function with its role, policy, log group and permission, client check, schedule, alarm). */
const RESOURCES_PER_SIGNING_KEY = 9;

/** The most signing keys one SignetStack holds: the rest of the stack (up to about 100 resources) and these stay under CloudFormation's 500. */
export const MAX_SIGNING_KEYS_PER_STACK = 40;

/** A regional WAFv2 web ACL: the only scope API Gateway stages accept. */
const WEB_ACL_ARN = /^arn:aws[a-z-]*:wafv2:[a-z0-9-]+:\d{12}:regional\/webacl\/[A-Za-z0-9_-]{1,128}\/[a-f0-9-]{1,128}$/;

/** HTTP API access log line: who, what, outcome, Signet's verdict. Never a header value. */
const HTTP_ACCESS_LOG_FORMAT = JSON.stringify({
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  sourceIp: '$context.identity.sourceIp',
  method: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  status: '$context.status',
  responseLatencyMs: '$context.responseLatency',
  clientId: '$context.authorizer.clientId',
  signetError: '$context.authorizer.signetError',
  authorizerError: '$context.authorizer.error',
  integrationError: '$context.integrationErrorMessage',
});

/** REST API access log line (same fields, REST variable names). */
const REST_ACCESS_LOG_FORMAT = JSON.stringify({
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  sourceIp: '$context.identity.sourceIp',
  method: '$context.httpMethod',
  path: '$context.path',
  resourcePath: '$context.resourcePath',
  status: '$context.status',
  responseLatencyMs: '$context.responseLatency',
  clientId: '$context.authorizer.principalId',
  signetError: '$context.authorizer.signetError',
  errorType: '$context.error.responseType',
});

/**
 * cdk-nag findings on the REST API that are decisions, each with its reason. APIG3 (no web ACL)
 * is acknowledged only when no `webAclArn` is given; with one, the association satisfies it.
 */
function acknowledgeRestApiFindings(api: apigw.RestApi, has: { readonly webAcl: boolean; readonly cloudWatchRole: boolean }): void {
  Validations.of(api).acknowledge({
    id: 'AwsSolutions-APIG2',
    reason:
      'Every request is checked by the Signet authorizer (signature, IP, role) and bodies by the handlers, which answer with Signet\'s stable error codes; an API Gateway request validator would answer in its own format first.',
  });
  if (!has.webAcl) {
    Validations.of(api).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason: 'Every request must carry a valid RFC 9421 signature and the stage is throttled; a WAF web ACL (rate limits, geo rules) is optional: pass its ARN as webAclArn to associate it with the stage.',
    });
  }
  if (has.cloudWatchRole) {
    Validations.of(api.node.findChild('CloudWatchRole')).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason: 'API Gateway execution logging needs this account-level role; AWS maintains the managed policy, which only allows writing API Gateway logs.',
    });
  }
}
