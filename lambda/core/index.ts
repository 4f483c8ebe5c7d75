/**
 * Signet's core: the scheme and its verification, pure TypeScript (no AWS SDK, no environment,
 * no clock, no logging). Everything else in Signet calls these; nothing re-implements them.
 */
export * from './errors';
export * from './defaults';
export type { HeaderMap, SignedRequest } from './types';
export { BoundedCache, BoundedMemo } from './bounded-cache';
export { computeContentDigest, parseContentDigest, checkContentDigest, checkContentDigestField } from './content-digest';
export { formatHttpDate, parseHttpDate } from './http-date';
export { buildSignatureBase } from './signature-base';
export { readSignatureInput, readSignatureValue } from './signature-params';
export type { ComponentId, SignatureInput } from './signature-params';
export { signRequest } from './sign';
export type { SignRequestInput, SignResult, SignatureHeaders } from './sign';
export { Verifier, createVerifier, defaultVerifyPolicy, parseRequestSignature, verifyParsedSignature, verifyRequest, verdictOf } from './verify';
export { SignatureSet } from './signature-set';
export type { KeyResolver, ParsedSignature, ReplayClaim, ReplayGuard, Verdict, VerificationKey, VerifierOptions, VerifyPolicy } from './verify';
export {
  PublicKeyCache,
  fingerprintOf,
  generateRsaKeyPair,
  importPrivateKey,
  importPublicKey,
  isFingerprint,
  spkiPemOf,
} from './keys';
export type { PrivateKeyInfo, PublicKeyInfo } from './keys';
export { holdsPrivateKeyMaterial, looksLikePrivateKey, scanForPrivateKey } from './private-key-scan';
export type { PrivateKeyScan } from './private-key-scan';
export { EVERYONE, admitsEveryone, normaliseNetworkEntry } from './network-entries';
export { compileAllowList, normaliseCallerIp } from './ip-policy';
export type { IpAllowList } from './ip-policy';
export { compileRoleCatalogue, validateRoles } from './role-policy';
export { isKeyDue, keyAgeDays, rotationCutoff } from './key-age';
export type { CompiledRoleCatalogue, RoleCatalogue } from './role-policy';
