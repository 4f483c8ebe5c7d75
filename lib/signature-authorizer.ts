/**
 * The Lambda authorizer that verifies RFC 9421 signatures in front of an HTTP API or a REST API.
 */
import type { CoverageProfile } from '../lambda/core/profiles';
import { Duration, Token, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { REST_GATEWAY_RESPONSES, RestGatewayResponse } from '../lambda/adapters/authorizer-response';
import { DEFAULT_ROLE_CATALOGUE, SETTINGS } from '../lambda/settings';
import type { RoleCatalogue } from '../lambda/core/role-policy';
import { IClientRegistry } from './client-registry';
import { settingPropsProblems, settingsEnvironment } from './setting-props';
import { METRICS_NAMESPACE, SignetFunction, type SignetFunctionProps } from './signet-function';
import { AUTHORIZER_METRIC_NAMES, FUNCTION_DIMENSION, SERVICE_NAMES } from '../lambda/observability';

/** Which API Gateway flavour sits in front: HTTP API (payload 2.0) or REST API (v1). */
export type SignetApiType = 'http' | 'rest';

/**
 * Names of the metrics the authorizer emits (Powertools Metrics, namespace {@link METRICS_NAMESPACE},
 * dimensions `service` and `function`, the function's name): `Allowed` and `Denied` count decisions (401 and 403 refusals alike),
 * `StaleRecordServed` counts answers made from a cached record while DynamoDB failed.
 */
export const AUTHORIZER_METRICS = AUTHORIZER_METRIC_NAMES;

/** `POWERTOOLS_SERVICE_NAME` of the authorizer, and the `service` dimension of its metrics. */
export const AUTHORIZER_SERVICE_NAME = SERVICE_NAMES.authorizer;

/** The request header that carries the signature, used as the identity source (caching is off). */
export const SIGNATURE_HEADER = 'Signature';

/**
 * Timeout of the authorizer function, in seconds: well under the 10 s API Gateway waits for an
 * authorizer, so a stuck invocation ends (and is billed) before API Gateway gives up on it. A
 * decision needs at most two DynamoDB attempts of DYNAMODB_REQUEST_TIMEOUT_MS each (about 2 s);
 * past that the authorizer has already failed closed.
 */
export const AUTHORIZER_TIMEOUT_S = 5;

export interface SignatureAuthorizerProps extends Pick<SignetFunctionProps, 'logRetention'> {
  /** Where clients are looked up. */
  readonly registry: IClientRegistry;
  /**
   * The API flavour this authorizer serves; it picks the handler (`httpApiHandler` or
   * `restApiHandler` in lambda/handlers/authorizer.ts). Use one SignatureAuthorizer per flavour.
   * @default 'http'
   */
  readonly apiType?: SignetApiType;
  /**
   * The public base URL clients call, e.g. `https://api.example.com/v1` behind a custom domain
   * with a base-path mapping. The authorizer rebuilds `@target-uri` from it.
   * @default - scheme `https`, the request's Host header, and the stage as API Gateway reports it
   */
  readonly publicBaseUrl?: string;
  /**
   * How old `created` (and `Date`) may be.
   * @default - Duration.seconds(DEFAULT_MAX_AGE_S) (300 s), from lambda/core/defaults.ts
   */
  readonly maxAge?: Duration;
  /**
   * Accepted clock skew for `created` and `Date`.
   * @default - Duration.seconds(DEFAULT_MAX_SKEW_S) (30 s), from lambda/core/defaults.ts
   */
  readonly maxSkew?: Duration;
  /**
   * The most components one signature may cover, from MIN_COVERED_COMPONENTS_LIMIT (4) to
   * MAX_COVERED_COMPONENTS_LIMIT (64). Each covered component costs work before the key is known,
   * so this bounds what an unauthenticated request can cost; more are refused with
   * `invalid_signature_input`.
   * @default DEFAULT_MAX_COVERED_COMPONENTS (16), from lambda/core/defaults.ts
   */
  readonly maxCoveredComponents?: number;
  /**
   * Accept the legacy signer form (no `date` component). Weaker: only `created` dates the request.
   * @default false (DEFAULT_ALLOW_LEGACY)
   */
  readonly allowLegacy?: boolean;
  /**
   * What signatures must cover, for clients without a `profile` of their own in the registry:
   * `signet` (label `sig`, `alg`, `@method` `@target-uri` `date`) or `rfc9421` (any label,
   * `@method` and the target, `alg` and `date` optional: curl's `--httpsig` and other RFC 9421
   * signers). Both require `created` in the window and `content-digest` with a body.
   * @default 'signet' (DEFAULT_PROFILE)
   */
  readonly profile?: CoverageProfile;
  /**
   * Under the `web-bot-auth` profile, the longest a signature may be valid (`expires` − `created`),
   * in seconds, from 60 to 86400; longer ones are refused (`invalid_signature_input`).
   * @default 86400 (DEFAULT_WEB_BOT_AUTH_MAX_VALIDITY_S)
   */
  readonly webBotAuthMaxValidityS?: number;
  /**
   * Refuse an exact replay of a signed request within its validity window. Costs one conditional
   * DynamoDB write per request and gives the authorizer PutItem on `REPLAY#…` items.
   * @default false
   */
  readonly replayProtection?: boolean;
  /**
   * Keep each client's recent authentication failures (readable through the registry API).
   * Gives the authorizer PutItem / UpdateItem on `CLIENT#…` items.
   * @default true
   */
  readonly recordAuthFailures?: boolean;
  /**
   * How often each authorizer instance records a client key's last use (the registry's
   * `lastUsedAt`): at most one UpdateItem per (client, key) per this interval, never a read, not
   * waited for by the request. Gives the authorizer UpdateItem of the last-use attributes of
   * `KEY#…` items. `Duration.millis(0)` turns it off (and drops that grant); otherwise at least 1 s.
   * @default - Duration.millis(LAST_USED_RECORD_INTERVAL_MS) (15 min)
   */
  readonly lastUsedRecordInterval?: Duration;
  /**
   * The share of allowed requests logged with a line of their own (0 to 1), evenly spaced; every
   * refusal is logged and every decision counted in the metrics whatever it says.
   * @default - ALLOWED_LOG_SAMPLE (0.01: one in a hundred)
   */
  readonly allowedLogSample?: number;
  /**
   * Role → allowed routes (`METHOD /path-glob`). The registry checks roles against it too.
   * @default - DEFAULT_ROLE_CATALOGUE from lambda/settings.ts (`registry:admin`, and `account:admin` on the client routes)
   */
  readonly roleCatalogue?: RoleCatalogue;
  /**
   * How long a client record stays in the authorizer's memory.
   * @default - Duration.millis(DEFAULT_CLIENT_CACHE_TTL_MS) (60 s)
   */
  readonly clientCacheTtl?: Duration;
  /**
   * How long a cached record may still be used when DynamoDB fails; after that it fails closed.
   * @default - Duration.millis(DEFAULT_STALE_IF_ERROR_MS) (15 min)
   */
  readonly staleIfError?: Duration;
  /**
   * How many days a client's published keys keep verifying after the last successful fetch of its
   * key source (1 to 90); the registry and the key source refresher report the same bound.
   * @default - SETTINGS.keySourceKeepDays.default (7)
   */
  readonly keySourceKeepDays?: number;
  /**
   * Memory of the authorizer function; more memory is more CPU for RSA verification.
   * @default 512
   */
  readonly memorySizeMb?: number;
  /**
   * Concurrent executions reserved for the authorizer, which also caps it: with caching off every
   * signed request invokes it, so this bounds what a flood can cost and keeps it from starving the
   * account's other functions. Requests over the cap are throttled and answered 500 by API
   * Gateway (nothing is let through; the `AuthorizerErrors` alarm counts throttles). Lambda keeps
   * 100 of the account's concurrency unreserved, so the deploy fails if the account has too little.
   * @default - none: the authorizer draws on the account's unreserved concurrency
   */
  readonly reservedConcurrency?: number;
}

/**
 * The signature authorizer: a Lambda function (Node.js 22, arm64) and the API Gateway authorizer
 * that calls it with caching off (a cached answer would apply to other requests with other URLs).
 *
 * Least privilege: it reads client records; it writes only when `recordAuthFailures` (failure
 * ring items) or `replayProtection` (replay markers) is on, and the last-use attributes of key
 * items unless `lastUsedRecordInterval` is 0.
 *
 * @example
 * const authorizer = new SignatureAuthorizer(this, 'Authorizer', { registry });
 * httpApi.addRoutes({ path: '/orders', methods: [HttpMethod.POST], integration,
 *   authorizer: authorizer.httpAuthorizer() });
 *
 * const restAuthorizer = new SignatureAuthorizer(this, 'RestAuthorizer', { registry, apiType: 'rest' });
 * api.root.addResource('orders').addMethod('POST', integration,
 *   { authorizer: restAuthorizer.attachToRestApi(api) });
 */
export class SignatureAuthorizer extends Construct {
  /** The authorizer function. */
  readonly handler: lambda.IFunction;
  /** Its log group. */
  readonly logGroup: logs.ILogGroup;
  /** The API flavour it serves. */
  readonly apiType: SignetApiType;
  /** The role catalogue in force (the registry validates roles against the same one). */
  readonly roleCatalogue: RoleCatalogue;
  /** How long it keeps a client record (the registry tells writers how long a change may take). */
  readonly clientCacheTtl: Duration;
  /** The public base URL the authorizer was given, if any (the registry finds the API path with the same one). */
  readonly publicBaseUrl?: string;
  /** Days published keys keep verifying after their source's last successful fetch (the registry reports the same bound). */
  readonly keySourceKeepDays: number;

  private readonly httpAuthorizers = new Map<string, HttpLambdaAuthorizer>();
  private readonly restAuthorizers = new Map<string, apigw.RequestAuthorizer>();

  constructor(scope: Construct, id: string, props: SignatureAuthorizerProps) {
    super(scope, id);
    this.apiType = props.apiType ?? 'http';
    this.roleCatalogue = props.roleCatalogue ?? DEFAULT_ROLE_CATALOGUE;
    this.clientCacheTtl = props.clientCacheTtl ?? Duration.millis(SETTINGS.clientCacheTtlMs.default);
    this.publicBaseUrl = props.publicBaseUrl;
    this.keySourceKeepDays = props.keySourceKeepDays ?? SETTINGS.keySourceKeepDays.default;
    validateAuthorizerProps(this.node.path, props, this.roleCatalogue);

    const replayProtection = props.replayProtection ?? SETTINGS.replayProtection.default;
    const recordAuthFailures = props.recordAuthFailures ?? SETTINGS.recordAuthFailures.default;
    const lastUsedIntervalMs = (props.lastUsedRecordInterval ?? Duration.millis(SETTINGS.lastUsedRecordIntervalMs.default)).toMilliseconds();
    const environment = settingsEnvironment('authorizer', {
      ...props,
      tableName: props.registry.table.tableName,
      roleCatalogue: this.roleCatalogue,
      clientCacheTtl: this.clientCacheTtl,
      keySourceKeepDays: this.keySourceKeepDays,
    });

    const fn = new SignetFunction(this, 'Function', {
      entry: this.apiType === 'rest' ? 'restApiAuthorizer' : 'httpApiAuthorizer',
      serviceName: AUTHORIZER_SERVICE_NAME,
      description: `Signet: verifies RFC 9421 request signatures (${this.apiType === 'rest' ? 'REST API' : 'HTTP API'})`,
      memorySizeMb: props.memorySizeMb ?? 512,
      timeout: Duration.seconds(AUTHORIZER_TIMEOUT_S),
      reservedConcurrency: props.reservedConcurrency,
      logRetention: props.logRetention,
      environment,
    });
    this.handler = fn.function;
    this.logGroup = fn.logGroup;

    props.registry.grantLookupClients(fn.role);
    if (recordAuthFailures) props.registry.grantRecordFailures(fn.role);
    if (lastUsedIntervalMs > 0) props.registry.grantRecordKeyUse(fn.role);
    if (replayProtection) props.registry.grantRecordReplays(fn.role);
  }

  /**
   * An HTTP API Lambda authorizer for this function: payload 2.0 with simple responses, results
   * caching off, identity source the `Signature` header (a request without one gets 401 from API
   * Gateway without invoking the function). One instance per HTTP API: pass another `id` for a
   * second API.
   */
  httpAuthorizer(id = 'SignatureAuthorizer'): HttpLambdaAuthorizer {
    this.requireApiType('http', 'httpAuthorizer()');
    let authorizer = this.httpAuthorizers.get(id);
    if (authorizer === undefined) {
      authorizer = new HttpLambdaAuthorizer(id, this.handler, {
        authorizerName: id,
        responseTypes: [HttpLambdaResponseType.SIMPLE],
        resultsCacheTtl: Duration.seconds(0),
        identitySource: [`$request.header.${SIGNATURE_HEADER}`],
      });
      this.httpAuthorizers.set(id, authorizer);
    }
    return authorizer;
  }

  /**
   * A REST API REQUEST authorizer for this function (results cache TTL 0, identity source the
   * `Signature` header), plus gateway responses on `api` so refusals carry a JSON body
   * `{error, message, requestId}`: 401 UNAUTHORIZED, 403 ACCESS_DENIED, 500 AUTHORIZER_FAILURE.
   * Call once per REST API (another `id` for a second API); use the result as each method's authorizer.
   */
  attachToRestApi(api: apigw.IRestApi, id = 'RestAuthorizer'): apigw.RequestAuthorizer {
    this.requireApiType('rest', 'attachToRestApi()');
    const existing = this.restAuthorizers.get(id);
    if (existing !== undefined) return existing;
    const authorizer = new apigw.RequestAuthorizer(this, id, {
      handler: this.handler,
      identitySources: [apigw.IdentitySource.header(SIGNATURE_HEADER)],
      resultsCacheTtl: Duration.seconds(0),
    });
    addSignetGatewayResponses(this, `${id}Responses`, api);
    this.restAuthorizers.set(id, authorizer);
    return authorizer;
  }

  /** The REST authorizer made by the first {@link attachToRestApi} call. */
  get restAuthorizer(): apigw.RequestAuthorizer {
    const first = this.restAuthorizers.values().next();
    if (first.done) throw new Error(`${this.node.path}: call attachToRestApi(api) before reading restAuthorizer.`);
    return first.value;
  }

  /** Requests let through (sum per period). */
  metricAllowed(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric(AUTHORIZER_METRICS.allowed, props);
  }

  /** Requests refused, for any reason (sum per period). */
  metricDenied(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric(AUTHORIZER_METRICS.denied, props);
  }

  /** Decisions made from a cached client record because DynamoDB failed (sum per period). */
  metricStaleRecordServed(props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric(AUTHORIZER_METRICS.staleServed, props);
  }

  private metric(metricName: string, props?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensionsMap: { service: AUTHORIZER_SERVICE_NAME, [FUNCTION_DIMENSION]: this.handler.functionName },
      statistic: cloudwatch.Stats.SUM,
      period: Duration.minutes(5),
      ...props,
    });
  }

  private requireApiType(wanted: SignetApiType, method: string): void {
    if (this.apiType !== wanted) {
      throw new Error(
        `${this.node.path}: ${method} needs apiType '${wanted}', but this authorizer was built with apiType '${this.apiType}' ` +
          `(its function runs the ${this.apiType === 'rest' ? 'REST' : 'HTTP API'} handler). Create a SignatureAuthorizer with apiType: '${wanted}'.`,
      );
    }
  }
}

/**
 * Records, for cdk-nag, that a REST method is guarded by the Signet authorizer rather than by a
 * Cognito user pool (finding AwsSolutions-COG4). Call it on each method you protect with
 * {@link SignatureAuthorizer.attachToRestApi}.
 */
export function acknowledgeSignetAuthorization(method: apigw.Method): void {
  Validations.of(method).acknowledge({
    id: 'AwsSolutions-COG4',
    reason: 'Callers are machines that sign each request (RFC 9421, keys in the Signet registry); the Signet Lambda authorizer authenticates them, not a Cognito user pool.',
  });
}

/**
 * Gateway responses that give REST API refusals Signet's JSON body `{error, message, requestId}`.
 * The templates come from lambda/adapters/authorizer-response.ts, next to the code that decides
 * what the authorizer answers: a 403 reads the Deny context; a 401 cannot (API Gateway passes no
 * context when the authorizer throws `Unauthorized`), so its body says where to find the reason.
 */
function addSignetGatewayResponses(scope: Construct, id: string, api: apigw.IRestApi): void {
  const group = new Construct(scope, id);
  for (const response of REST_GATEWAY_RESPONSES) {
    new apigw.GatewayResponse(group, GATEWAY_RESPONSE_IDS[response.type], {
      restApi: api,
      type: apigw.ResponseType.of(response.type),
      statusCode: response.statusCode,
      responseHeaders: { 'Content-Type': "'application/json'" },
      templates: { 'application/json': response.template },
    });
  }
}

/** Construct IDs of the gateway responses (contract: a rename replaces the resource). */
const GATEWAY_RESPONSE_IDS: Readonly<Record<RestGatewayResponse['type'], string>> = {
  UNAUTHORIZED: 'Unauthorized',
  ACCESS_DENIED: 'AccessDenied',
  AUTHORIZER_FAILURE: 'AuthorizerFailure',
};

/** Largest role catalogue (JSON bytes) that fits in the function's environment beside the other settings. */
const MAX_ROLE_CATALOGUE_BYTES = 3_000;

/**
 * Checks the authorizer props; every problem in one error naming the prop. A prop that carries a
 * setting is checked by its row's rule in lambda/settings.ts (the bound is written there once);
 * the rest are the function's own (memory, concurrency, the catalogue's size).
 */
function validateAuthorizerProps(path: string, props: SignatureAuthorizerProps, catalogue: RoleCatalogue): void {
  const problems = settingPropsProblems('authorizer', { ...props, roleCatalogue: catalogue }, ['apiType']);
  const catalogueBytes = Buffer.byteLength(JSON.stringify(catalogue));
  if (catalogueBytes > MAX_ROLE_CATALOGUE_BYTES) {
    problems.push(
      `roleCatalogue is ${catalogueBytes} bytes as JSON, over ${MAX_ROLE_CATALOGUE_BYTES}: it travels in an environment variable and Lambda allows 4 KB for all of them; use fewer, broader patterns`,
    );
  }
  if (props.memorySizeMb !== undefined && (!Number.isInteger(props.memorySizeMb) || props.memorySizeMb < 128 || props.memorySizeMb > 10240)) {
    problems.push(`memorySizeMb must be a whole number of MB between 128 and 10240; got ${props.memorySizeMb}`);
  }
  if (props.reservedConcurrency !== undefined && !Token.isUnresolved(props.reservedConcurrency) && (!Number.isInteger(props.reservedConcurrency) || props.reservedConcurrency < 1)) {
    problems.push(`reservedConcurrency must be a whole number >= 1 (0 would refuse every request); got ${props.reservedConcurrency}`);
  }
  if (problems.length > 0) throw new Error(`${path}: invalid SignatureAuthorizer props: ${problems.join('; ')}.`);
}
