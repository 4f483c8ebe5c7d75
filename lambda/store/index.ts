/** The client registry's storage: what handlers, the authorizer, rotation and `npm start` may use. */
export { DynamoClientStore, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MAX_KEYS_PER_CLIENT, UNKNOWN_ACTOR } from './client-store';
export type { DynamoClientStoreOptions } from './client-store';
export type { AuthFailureRecorder, ClientReader, ClientRecord, ClientStatus, StoredPublicKey } from './client-record';
export { isKeyActive } from './client-record';
export type {
  AuditAction,
  AuditEntry,
  AuditFieldChange,
  AuditedField,
  AuthFailure,
  AuthFailureDetail,
  ClientChanges,
  CreateClientResult,
  KeyOwner,
  NewClient,
  NewKey,
  Page,
} from './store-types';
export { isClientId, newClientId } from './client-id';
export { createDocumentClient, toDocumentClient } from './dynamodb-client';
export { ensureClientTable } from './table-setup';
export { DynamoReplayGuard, REPLAY_PREFIX } from './replay-store';
export * from './table-schema';
