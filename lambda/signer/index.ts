/**
 * Signet's client-side signer: sign requests with a key held in memory or kept (and rotated) in
 * Secrets Manager, and `signedFetch`, which rolls over to a rotated key on its own.
 */
export { KEY_REFRESH_INTERVAL_MS, createSigner } from './signer';
export type { ProviderSignerOptions, SecretSignerOptions, SignableRequest, SignatureDetails, Signer, SignerOptions, StaticKeySignerOptions } from './signer';
export { KEY_REFRESH_ERRORS, UNKNOWN_REASON_ERRORS, signatureFailureReason, signedFetch } from './signed-fetch';
export type { SignedFetchInit } from './signed-fetch';
export { staticKeyProvider } from './key-provider';
export type { SigningKey, SigningKeyProvider } from './key-provider';
export {
  DEFAULT_SIGNING_KEY_MAX_AGE_MS,
  DEFAULT_SIGNING_KEY_STALE_IF_ERROR_MS,
  SecretsManagerKeyProvider,
} from './secrets-manager-key-provider';
export type { SecretsManagerKeyProviderOptions } from './secrets-manager-key-provider';
export { parseSigningSecret, serializeSigningSecret, signingSecretFor } from './signing-secret';
export type { ParsedSigningSecret, SigningSecret } from './signing-secret';
