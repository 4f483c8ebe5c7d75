/**
 * The client portal on the API itself: a small Lambda serves portal/ (index.html, portal.css, and
 * portal.js bundled at synth from the page's TypeScript: lib/portal-bundle.ts) on `GET /portal` and
 * `GET /portal/{proxy+}` of the same HTTP or REST API as the registry.
 * Same origin as `/registry`, so the page calls the registry without CORS, and the URL it signs
 * is the one the authorizer rebuilds. See docs/portal.md for the choice (over S3 + CloudFront).
 */
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { Duration, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { PORTAL_CONTENT_TYPES, PORTAL_PATH } from '../lambda/portal/static-site';
import { portalScriptFile } from './portal-bundle';
import { PACKAGE_ROOT, SignetFunction, type SignetFunctionProps } from './signet-function';
import { SERVICE_NAMES } from '../lambda/observability';

/** `POWERTOOLS_SERVICE_NAME` of the portal function. */
export const PORTAL_SERVICE_NAME = SERVICE_NAMES.portal;

/** The portal's files in Signet's package (the repository, or node_modules/@signet-gateway/signet). */
export const PORTAL_SOURCE_DIR = path.join(PACKAGE_ROOT, 'portal');

/** The files copied next to the bundle: every file the portal serves (by extension). */
export function portalFiles(dir: string = PORTAL_SOURCE_DIR): string[] {
  const files = readdirSync(dir)
    .filter((name) => PORTAL_CONTENT_TYPES[path.extname(name)] !== undefined && /^[a-z0-9][a-z0-9.-]*$/.test(name))
    .sort();
  if (!files.includes('index.html')) throw new Error(`${dir} has no index.html: the client portal's files are missing.`);
  return files;
}

export interface ClientPortalProps extends Pick<SignetFunctionProps, 'logRetention'> {
  /** Serve the portal on this HTTP API (the one the registry is on). Give exactly one of httpApi / restApi. */
  readonly httpApi?: apigwv2.HttpApi;
  /** Serve the portal on this REST API (the one the registry is on). Give exactly one of httpApi / restApi. */
  readonly restApi?: apigw.IRestApi;
  /** @default 128 */
  readonly memorySizeMb?: number;
}

/**
 * The portal function and its two public routes. The routes have no authorizer: the files are
 * the same for everyone and hold no secret. Everything the page does afterwards is a registry
 * call signed in the browser with an admin key and checked by the Signet authorizer like any
 * other. The function may write its own logs and nothing else.
 *
 * @example
 * new ClientPortal(this, 'ClientPortal', { httpApi }); // then open <ApiUrl>portal
 */
export class ClientPortal extends Construct {
  /** The function serving the files. */
  readonly handler: lambda.IFunction;
  /** Its log group. */
  readonly logGroup: logs.ILogGroup;
  /** Where the portal is, relative to the API's base URL (it redirects to `portal/index.html`). */
  readonly path = PORTAL_PATH.slice(1);

  constructor(scope: Construct, id: string, props: ClientPortalProps) {
    super(scope, id);
    const given = [props.httpApi, props.restApi].filter((api) => api !== undefined).length;
    if (given !== 1) throw new Error(`${this.node.path}: invalid ClientPortal props: give exactly one of httpApi or restApi (got ${given}).`);
    const files = portalFiles();
    // The page's script (portal.js), bundled from its TypeScript and the core's.
    const script = portalScriptFile();

    const portalFunction = new SignetFunction(this, 'Function', {
      entry: 'portal',
      serviceName: PORTAL_SERVICE_NAME,
      memorySizeMb: props.memorySizeMb ?? 128,
      timeout: Duration.seconds(5),
      logRetention: props.logRetention,
      description: 'Signet: client portal static files (/portal)',
      // The handler reads the files from ./portal next to index.js (lambda/handlers/portal.ts).
      assets: { dir: 'portal', files, built: [script] },
    });
    const fn = portalFunction.function;
    const logGroup = portalFunction.logGroup;
    this.handler = fn;
    this.logGroup = logGroup;

    const noAuthReason =
      'The client portal is static HTML, CSS and JavaScript, the same for everyone and holding no secret. Every registry call the page then makes is signed in the browser with an admin key and checked by the Signet authorizer.';
    if (props.httpApi !== undefined) {
      const integration = new HttpLambdaIntegration('PortalIntegration', fn);
      for (const routePath of [PORTAL_PATH, `${PORTAL_PATH}/{proxy+}`]) {
        const routes = props.httpApi.addRoutes({
          path: routePath,
          methods: [apigwv2.HttpMethod.GET, apigwv2.HttpMethod.HEAD],
          integration,
          authorizer: new apigwv2.HttpNoneAuthorizer(),
        });
        for (const route of routes) Validations.of(route).acknowledge({ id: 'AwsSolutions-APIG4', reason: noAuthReason });
      }
    } else if (props.restApi !== undefined) {
      const integration = new apigw.LambdaIntegration(fn);
      const portal = props.restApi.root.resourceForPath(PORTAL_PATH);
      for (const resource of [portal, portal.addResource('{proxy+}')]) {
        for (const method of ['GET', 'HEAD']) {
          const added = resource.addMethod(method, integration, { authorizationType: apigw.AuthorizationType.NONE });
          Validations.of(added).acknowledge(
            { id: 'AwsSolutions-APIG4', reason: noAuthReason },
            { id: 'AwsSolutions-COG4', reason: noAuthReason },
          );
        }
      }
    }
  }
}
