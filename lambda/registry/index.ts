/** The registration API: what the Lambda handler, the local gateway and the tests may use. */
export { createRegistryHandler, REGISTRY_SERVICE_NAME } from './registry-handler';
export type { RegistryHandler, RegistryHandlerDeps, RegistryLogger, RegistryResult } from './registry-handler';
export { RegistryService } from './registry-service';
export type { RegistryResponse, RegistryServiceDeps, RegistryStore } from './registry-service';
export { readRegistryEvent } from './registry-request';
export type { RegistryEvent, RegistryRequest } from './registry-request';
export { REGISTRY_ROUTES, matchRoute } from './routes';
export type { MatchedRoute, RouteName } from './routes';
export type { AccountView, ClientView, ExpiringKeyView, KeyView } from './views';
export { RoleNotAllowedError, scopeOf } from './caller-scope';
export type { CallerScope, RegistryCaller } from './caller-scope';
