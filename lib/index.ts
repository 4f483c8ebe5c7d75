/** Signet's CDK constructs: what other stacks may use. */
export { AdminBootstrap, DEFAULT_ADMIN_CLIENT_NAME } from './admin-bootstrap';
export type { AdminBootstrapProps } from './admin-bootstrap';
export { ClientPortal, PORTAL_SERVICE_NAME } from './client-portal';
export type { ClientPortalProps } from './client-portal';
export {
  AUTH_FAILURE_COUNTER_ATTRIBUTES,
  AUTH_FAILURE_ITEM_ATTRIBUTES,
  ClientRegistry,
  REPLAY_ITEMS_PATTERN,
  REPLAY_ITEM_ATTRIBUTES,
} from './client-registry';
export type { ClientRegistryProps, IClientRegistry } from './client-registry';
export { KEY_SOURCE_REFRESHER_SERVICE_NAME, KEY_SOURCE_REFRESH_METRICS, KeySourceRefresher } from './key-source-refresher';
export type { KeySourceRefresherProps } from './key-source-refresher';
export { RegistryApi, REGISTRY_SERVICE_NAME } from './registry-api';
export type { RegistryApiProps } from './registry-api';
export { RotatingSigningKey, ROTATION_SERVICE_NAME } from './rotating-signing-key';
export type { RotatingSigningKeyProps } from './rotating-signing-key';
export {
  AUTHORIZER_METRICS,
  AUTHORIZER_SERVICE_NAME,
  AUTHORIZER_TIMEOUT_S,
  SIGNATURE_HEADER,
  SignatureAuthorizer,
  acknowledgeSignetAuthorization,
} from './signature-authorizer';
export type { SignatureAuthorizerProps, SignetApiType } from './signature-authorizer';
export { DEFAULT_LOG_RETENTION, METRICS_NAMESPACE, SIGNET_ARCHITECTURE, SIGNET_RUNTIME, SignetFunction } from './signet-function';
export type { SignetFunctionProps } from './signet-function';
export { DEFAULT_DENIED_ALARM_THRESHOLD, SignetMonitoring } from './signet-monitoring';
export type { SignetMonitoringProps } from './signet-monitoring';
export {
  DEFAULT_REST_STAGE_NAME,
  DEFAULT_STACK_ROLE_CATALOGUE,
  DEFAULT_THROTTLE_BURST_LIMIT,
  DEFAULT_THROTTLE_RATE_LIMIT,
  SignetStack,
  signingKeyOutputId,
} from './signet-stack';
export type { SignetStackProps } from './signet-stack';
