/**
 * API Gateway adapters: events → the core's `SignedRequest` (with the URL the client signed), and
 * verdicts → authorizer responses. See docs/target-uri.md for what each API type can guarantee.
 */
export { MAX_TARGET_URI_CANDIDATES, parsePublicBaseUrl } from './target-uri';
export type { AdaptedRequest, PublicBase, TargetUriOptions } from './target-uri';
export { adaptHttpApiEvent, apiPathOfHttpApiEvent, fromHttpApiAuthorizerEvent } from './http-api-event';
export type { HttpApiEventV2Like } from './http-api-event';
export { apiPathOfRestApiEvent, fromRestApiAuthorizerEvent } from './rest-api-event';
export { apiPathOfEvent, isHttpApiEventLike } from './api-path';
export type { ApiGatewayEventLike } from './api-path';
export type { AdaptedRestRequest, RestApiEventLike } from './rest-api-event';
export { CONTEXT_KEYS, MAX_CONTEXT_MESSAGE_CHARS, allowContext, denyContext } from './authorizer-context';
export type { AllowFacts, Refusal, SignetAllowContext, SignetDenyContext } from './authorizer-context';
export {
  ANONYMOUS_PRINCIPAL,
  AuthorizerFailure,
  REST_GATEWAY_RESPONSES,
  REST_UNAUTHORIZED_ERROR,
  REST_UNAUTHORIZED_MESSAGE,
  httpApiAllowResponse,
  httpApiDenyResponse,
  httpApiRefusal,
  parseMethodArn,
  policyFor,
  restAllowPolicy,
  restDenyPolicy,
  restRefusal,
  restUnauthorizedError,
} from './authorizer-response';
export type { MethodArn, RestGatewayResponse, StatusRefusal } from './authorizer-response';
