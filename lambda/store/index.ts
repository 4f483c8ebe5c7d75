/** The client registry's storage: what handlers, the authorizer, rotation and `npm start` may use. */
export {
  DynamoClientStore,
  DEFAULT_ACCOUNT_NAME,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  MAX_KEYS_PER_CLIENT,
  UNKNOWN_ACTOR,
  accountNotFound,
  clientNotFound,
  defaultAccount,
} from './client-store';
export type { DynamoClientStoreOptions } from './client-store';
export type { AuthFailureRecorder, ClientReader, ClientRecord, ClientStatus, StoredPublicKey } from './client-record';
export { isKeyActive } from './client-record';
export type {
  AccountAuditAction,
  AccountAuditEntry,
  AccountChanges,
  AccountRecord,
  Actor,
  AuditAction,
  AuditEntry,
  AuditFieldChange,
  AuditedField,
  AuthFailure,
  AuthFailureDetail,
  ChangeOptions,
  ClientChanges,
  ClientGuard,
  CreateClientResult,
  KeyOwner,
  NewAccount,
  NewClient,
  NewKey,
  Page,
} from './store-types';
export { isClientId, newClientId } from './client-id';
export { DEFAULT_ACCOUNT_ID, isAccountId, newAccountId } from './account-id';
export { createDocumentClient, toDocumentClient } from './dynamodb-client';
export { ensureClientTable } from './table-setup';
export { DynamoReplayGuard, REPLAY_PREFIX } from './replay-store';
export * from './table-schema';
