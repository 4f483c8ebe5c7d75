/**
 * The registration API: the registry Lambda and its `/registry` routes, behind the signature
 * authorizer. Callers need a role of the role catalogue that reaches them: `registry:admin`
 * (operators, every account) or `account:admin` (a partner's own administrators; the registry
 * scopes them to their account, lambda/registry/caller-scope.ts).
 */
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { REGISTRY_ADMIN_ROLE } from '../lambda/core/defaults';
import { compileRoleCatalogue } from '../lambda/core/role-policy';
import { IClientRegistry } from './client-registry';
import type { KeySourceSettings } from './key-source-refresher';
import { SignatureAuthorizer, acknowledgeSignetAuthorization } from './signature-authorizer';
import { settingPropProblem, settingsEnvironment } from './setting-props';
import { SignetFunction, type SignetFunctionProps } from './signet-function';
import { SERVICE_NAMES } from '../lambda/observability';

/** `POWERTOOLS_SERVICE_NAME` of the registry function. */
export const REGISTRY_SERVICE_NAME = SERVICE_NAMES.registry;

/** Operations the `registry:admin` role must be allowed, checked against the role catalogue at synth. */
const ADMIN_PROBES: ReadonlyArray<readonly [string, string]> = [
  ['POST', '/registry/clients'],
  ['GET', '/registry/clients'],
  ['PATCH', '/registry/clients/c_probe'],
  ['DELETE', '/registry/clients/c_probe/keys/probe'],
  ['GET', '/registry/clients/c_probe/auth-failures'],
];

/** `keySourceRefreshMinutes` and `requireSignedDirectories`: give the KeySourceRefresher's values. */
export interface RegistryApiProps extends KeySourceSettings, Pick<SignetFunctionProps, 'logRetention'> {
  /** The client table the handlers read and write. */
  readonly registry: IClientRegistry;
  /** The authorizer that guards the routes; its role catalogue must give `registry:admin` the `/registry` routes. */
  readonly authorizer: SignatureAuthorizer;
  /** Add the routes to this HTTP API (needs an authorizer with apiType 'http'). Give exactly one of httpApi / restApi. */
  readonly httpApi?: apigwv2.HttpApi;
  /** Add the routes to this REST API (needs an authorizer with apiType 'rest'). Give exactly one of httpApi / restApi. */
  readonly restApi?: apigw.IRestApi;
  /** @default 256 */
  readonly memorySizeMb?: number;
}

/**
 * The registry handler (lambda/handlers/registry.ts) on `ANY /registry/clients` and
 * `ANY /registry/{proxy+}`, every route guarded by the signature authorizer. The handler may read
 * and write client, key, audit and failure items; it has no Scan and no table administration.
 *
 * @example
 * new RegistryApi(this, 'RegistryApi', { registry, authorizer, httpApi });
 */
export class RegistryApi extends Construct {
  /** The registry function. */
  readonly handler: lambda.IFunction;
  /** Its log group. */
  readonly logGroup: logs.ILogGroup;

  constructor(scope: Construct, id: string, props: RegistryApiProps) {
    super(scope, id);
    validateRegistryApiProps(this.node.path, props);

    const fn = new SignetFunction(this, 'Function', {
      entry: 'registry',
      serviceName: REGISTRY_SERVICE_NAME,
      description: 'Signet: client registry API (/registry)',
      memorySizeMb: props.memorySizeMb ?? 256,
      logRetention: props.logRetention,
      // The registry checks roles against the authorizer's catalogue, tells writers how long the
      // authorizer may keep serving the previous record, and routes on the path the authorizer
      // judged, found with the same base URL.
      environment: settingsEnvironment('registry', {
        tableName: props.registry.table.tableName,
        roleCatalogue: props.authorizer.roleCatalogue,
        clientCacheTtl: props.authorizer.clientCacheTtl,
        publicBaseUrl: props.authorizer.publicBaseUrl,
        // Registering a key source fetches it once (outbound HTTPS to the publisher), by the same
        // rules as the refresher, and reports the authorizer's keep bound in the client view.
        keySourceRefreshMinutes: props.keySourceRefreshMinutes,
        requireSignedDirectories: props.requireSignedDirectories,
        keySourceKeepDays: props.authorizer.keySourceKeepDays,
      }),
    });
    this.handler = fn.function;
    this.logGroup = fn.logGroup;
    props.registry.grantWriteClients(fn.role);

    if (props.httpApi !== undefined) {
      const integration = new HttpLambdaIntegration('RegistryIntegration', fn.function);
      const authorizer = props.authorizer.httpAuthorizer();
      for (const path of ['/registry/clients', '/registry/{proxy+}']) {
        props.httpApi.addRoutes({ path, methods: [apigwv2.HttpMethod.ANY], integration, authorizer });
      }
    } else if (props.restApi !== undefined) {
      // No console test-invoke path: it calls the function without the authorizer (the registry
      // refuses a call without the authorizer's context, but nothing should reach it that way).
      const integration = new apigw.LambdaIntegration(fn.function, { allowTestInvoke: false });
      const options: apigw.MethodOptions = {
        authorizer: props.authorizer.attachToRestApi(props.restApi),
        authorizationType: apigw.AuthorizationType.CUSTOM,
      };
      const registryResource = props.restApi.root.resourceForPath('/registry');
      acknowledgeSignetAuthorization(registryResource.resourceForPath('clients').addMethod('ANY', integration, options));
      acknowledgeSignetAuthorization(registryResource.addResource('{proxy+}').addMethod('ANY', integration, options));
    }
  }
}

function validateRegistryApiProps(path: string, props: RegistryApiProps): void {
  const problems: string[] = [];
  const given = [props.httpApi, props.restApi].filter((api) => api !== undefined).length;
  if (given !== 1) problems.push(`give exactly one of httpApi or restApi (got ${given})`);
  if (props.httpApi !== undefined && props.authorizer.apiType !== 'http') {
    problems.push(`httpApi needs a SignatureAuthorizer with apiType 'http' (this one is '${props.authorizer.apiType}')`);
  }
  if (props.restApi !== undefined && props.authorizer.apiType !== 'rest') {
    problems.push(`restApi needs a SignatureAuthorizer with apiType 'rest' (this one is '${props.authorizer.apiType}')`);
  }
  const refreshProblem = settingPropProblem('keySourceRefreshMinutes', props.keySourceRefreshMinutes);
  if (refreshProblem !== undefined) problems.push(refreshProblem);
  const catalogue = compileRoleCatalogue(props.authorizer.roleCatalogue);
  const refused = ADMIN_PROBES.filter(([method, route]) => !catalogue.allows([REGISTRY_ADMIN_ROLE], method, route));
  if (refused.length > 0) {
    problems.push(
      `the role catalogue must let '${REGISTRY_ADMIN_ROLE}' call the registry, e.g. "${REGISTRY_ADMIN_ROLE}": ["* /registry/**"]; ` +
        `it refuses ${refused.map(([m, r]) => `${m} ${r}`).join(', ')}`,
    );
  }
  if (problems.length > 0) throw new Error(`${path}: invalid RegistryApi props: ${problems.join('; ')}.`);
}
