/**
 * What the client portal's page takes from Signet's core: the same code the registry and the
 * authorizer run, not a copy. The page's modules import it from here, and esbuild bundles it with
 * them into the page's script (lib/portal-bundle.ts). Only modules without node: imports belong
 * here (esbuild refuses them for the browser), and test/portal/portal-bundle.test.ts runs this
 * part of the bundle without anything of Node.
 */
export { SignetError, fail } from '../lambda/core/errors';
export { listReach, normaliseNetworkEntry } from '../lambda/core/network-entries';
export { type KeySource, keySourceRequest } from '../lambda/core/key-source-url';
export { PRIVATE_KEY_SUBMITTED_MESSAGE, looksLikePrivateKey } from '../lambda/core/private-key-scan';
export { gatedPublicKeyOfText } from '../lambda/core/public-key-text';
export { RSA_ENCRYPTION_OID, isPkcs1PrivateKey, pkcs8AlgorithmOid, pkcs8OfPkcs1, spkiOfPkcs1, spkiSubjectPublicKey } from '../lambda/core/der';
export { refusePublicKeyGiven } from '../lambda/core/public-key-file';
export type { SignatureAlgorithm } from '../lambda/core/algorithm-names';
export { decodeBareBase64, encodeBase64 } from '../lambda/core/base64';
export { isKeyDue, keyAgeDays } from '../lambda/core/key-age';
export { RSASSA_PKCS1_SHA256, WEBCRYPTO_ALGORITHMS, signRequestWebCrypto as signRequest } from '../lambda/core/sign-webcrypto';
export { AUTHORIZER_CACHE_TTL_HEADER, DEFAULT_ROTATION_DAYS, MIN_RSA_BITS, REGISTRY_ADMIN_ROLE, SIGNET_ERROR_HEADER } from '../lambda/core/defaults';
export { removalLeavesNoActiveKey } from '../lambda/domain/last-key';
export { MAX_NAME_CHARS, MAX_PUBLIC_KEY_CHARS, MAX_ROLES, MAX_WHITELIST_ENTRIES, parseClientName, parseClientRoles, parseNetworkWhitelist } from '../lambda/registry/client-fields';
