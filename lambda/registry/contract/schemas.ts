/**
 * The registry API's contract, written once: one schema per request and response body (zod),
 * from which docs/openapi/registry.json's schemas are generated (./openapi-document.ts,
 * `npm run -s openapi`; a test fails when the committed file is stale), the registry takes the
 * fields each request may and must carry, and the handler tests check real answers.
 *
 * zod/mini keeps what the registry function bundles small. Every schema with an `id` becomes
 * `#/components/schemas/<id>`; the metadata (description, examples, format) goes into the
 * document as written here.
 */
import * as z from 'zod/mini';
import { AUTH_FAILURES_KEPT, AUTH_FAILURE_TTL_S, UNAUTHENTICATED_FAILURE_WINDOW_S } from '../../core/defaults';
import { SIGNATURE_ALGORITHMS } from '../../core/algorithms';
import { ERROR_CODES, type SignetErrorCode } from '../../core/errors';
import { COVERAGE_PROFILES } from '../../core/profiles';
import { ACCOUNT_ID_OR_DEFAULT } from '../../store/account-id';
import { CLIENT_ID } from '../../store/client-id';
import { MAX_NAME_CHARS, MAX_PUBLIC_KEY_CHARS, MAX_ROLES, MAX_WHITELIST_ENTRIES } from '../client-fields';

/** `schema` with a description of its own where it is used (a `$ref` with a description beside it). */
function described<T extends z.ZodMiniType>(schema: T, description: string): T {
  const copy = z.clone(schema);
  z.globalRegistry.add(copy, { description });
  return copy;
}

export const ClientId = z.string().check(z.regex(CLIENT_ID)).register(z.globalRegistry, {"id": "ClientId", "description": "Service-generated, unguessable, URL-safe.", "examples": ["c_W1tVZ6hq0fJ3n5y7bXk2Ag"]});

export const Fingerprint = z.string().check(z.regex(/^[A-Za-z0-9_-]{43}$/)).register(z.globalRegistry, {"id": "Fingerprint", "description": "SHA-256 of the key's SPKI DER, base64url without padding (what `signet keygen` prints).", "examples": ["8eX42bFnyGjnP5XDewS5Ofldp9e--Hjg5QLWyPCPStg"]});

export const Instant = z.string().register(z.globalRegistry, {"id": "Instant", "description": "ISO-8601 instant, UTC.", "format": "date-time"});

export const Version = z.int().check(z.minimum(1)).register(z.globalRegistry, {"id": "Version", "description": "Optimistic-concurrency version: 1 on creation, +1 per change."});

export const Cursor = z.string().check(z.regex(/^[A-Za-z0-9_-]+$/), z.maxLength(2048)).register(z.globalRegistry, {"id": "Cursor", "description": "Opaque base64url position in a listing."});

export const ClientName = z.string().check(z.minLength(1), z.maxLength(MAX_NAME_CHARS)).register(z.globalRegistry, {"id": "ClientName"});

export const NetworkWhitelist = z.array(z.string().check(z.minLength(1))).check(z.minLength(1), z.maxLength(MAX_WHITELIST_ENTRIES)).register(z.globalRegistry, {"id": "NetworkWhitelist", "description": "IPv4/IPv6 addresses and CIDR ranges; `0.0.0.0`, `0.0.0.0/0` and `::/0` allow everyone, " +
    "`::ffff:0:0/96` every IPv4 caller. A range is written by its network address: one with bits set " +
    "after its prefix (`10.0.0.5/8`) is refused with `invalid_network` naming the canonical range. " +
    "Answers carry the canonical form."});

export const Roles = z.array(z.string().check(z.minLength(1))).check(z.minLength(1), z.maxLength(MAX_ROLES)).register(z.globalRegistry, {"id": "Roles", "description": "Names from the role catalogue the stack is configured with (e.g. `registry:admin`)."});

export const RoleList = z.strictObject({
  roles: z.array(z.string().check(z.minLength(1))).register(z.globalRegistry, {"description": "Operators: every role name the role catalogue defines, sorted. Account admins: the roles they may give (their account's ceiling), sorted."}),
}).register(z.globalRegistry, {"id": "RoleList", "examples": [{"roles": ["demo", "registry:admin"]}]});

export const PublicKeyText = z.string().check(z.minLength(1), z.maxLength(MAX_PUBLIC_KEY_CHARS)).register(z.globalRegistry, {"id": "PublicKeyText", "description": "A public key: RSA (2048 bits or more, exponent 65537), Ed25519, or ECDSA P-256 / P-384, as SPKI PEM " +
    "(`-----BEGIN PUBLIC KEY-----`), PKCS#1 PEM (RSA), bare Base64 DER, or the JSON text of a JWK. Never " +
    "a private key."});

export const PublicJwk = z.looseObject({
  kty: z.enum(["RSA", "EC", "OKP"]),
}).register(z.globalRegistry, {"id": "PublicJwk", "description": "A public JWK (RFC 7517): RSA (`n`, `e`), EC (`crv` P-256 or P-384, `x`, `y`) or OKP (`crv` Ed25519, " +
    "`x`) — the form Web Bot Auth key directories publish. An `alg` (RS256, PS512, ES256, ES384, EdDSA) " +
    "sets the key's algorithm. Never a private JWK (`d`).", "examples": [{"kty": "OKP", "crv": "Ed25519", "x": "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs"}]});

export const PublicKeyInput = z.union([PublicKeyText, PublicJwk]).register(z.globalRegistry, {"id": "PublicKeyInput", "description": "The public key, as text (PEM, Base64 DER, JWK JSON) or as a JWK object."});

export const SignatureAlgorithmName = z.enum(SIGNATURE_ALGORITHMS).register(z.globalRegistry, {"id": "SignatureAlgorithm", "description": "The one RFC 9421 algorithm a key verifies: `rsa-v1_5-sha256` (RSA's default), `rsa-pss-sha512` " +
    "(RSA, declared), `ecdsa-p256-sha256`, `ecdsa-p384-sha384`, `ed25519` (each the only one for its key " +
    "type). A signature's `alg`, when present, must name it. `hmac-sha256` is refused: the registry " +
    "holds no shared secrets."});

export const CoverageProfileName = z.enum(COVERAGE_PROFILES).register(z.globalRegistry, {"id": "CoverageProfile", "description": "What the client's signatures must cover, overriding the deployment's SIGNET_PROFILE: `signet` " +
    "(label `sig`, `alg`, `@method` `@target-uri` `date`) or `rfc9421` (any label; `@method` and " +
    "`@target-uri`, or `@authority` `@path` (+ `@query` with a query); `alg` and `date` optional — what " +
    "curl --httpsig and other RFC 9421 signers send) or `web-bot-auth` (any label; `tag=\"web-bot-auth\"`, " +
    "`created` and `expires` at most a day apart, `@authority` or `@target-uri`; what Web Bot Auth agents send). " +
    "All require `created` in the window and `content-digest` with a body."});

export const Key = z.strictObject({
  fingerprint: Fingerprint,
  publicKey: z.string().register(z.globalRegistry, {"description": "SPKI PEM."}),
  algorithm: SignatureAlgorithmName,
  addedAt: Instant,
  notAfter: z.optional(described(Instant, "After this instant the key no longer verifies (set on the old key by a rollover).")),
  active: z.boolean().register(z.globalRegistry, {"description": "Whether the key verifies now."}),
  lastUsedAt: z.optional(described(Instant, "When the key last verified a request of this client, as an authorizer recorded it: at most once per " +
      "key and `SIGNET_LAST_USED_RECORD_INTERVAL_MS` (default 15 min) per authorizer instance, so it may " +
      "be up to that much behind. Absent when no use is recorded; a removed key takes its last use with it.")),
  thumbprint: z.optional(z.string().check(z.regex(/^[A-Za-z0-9_-]{43}$/)).register(z.globalRegistry, {"description": "RFC 7638 SHA-256 JWK thumbprint, base64url: a `keyid` naming this key. Absent on keys registered before thumbprints were recorded."})),
  published: z.optional(z.literal(true).register(z.globalRegistry, {"description": "The key comes from the client's key source (refreshed by Signet), not registered here."})),
  kid: z.optional(z.string().register(z.globalRegistry, {"description": "A published key's JWK `kid`."})),
  notBefore: z.optional(described(Instant, "A published key's `nbf`: it does not verify before then.")),
  expires: z.optional(described(Instant, "A published key's `exp`: it does not verify from then on.")),
}).register(z.globalRegistry, {"id": "Key"});

const MAX_KEY_SOURCE_URL_CHARS = 2048;

export const KeySourceInput = z.string().check(z.minLength(1), z.maxLength(MAX_KEY_SOURCE_URL_CHARS));

export const KeySource = z.union([
  z.strictObject({ jwksUri: z.string().register(z.globalRegistry, {"description": "The JWKS URL the keys are fetched from."}) }),
  z.strictObject({ signatureAgent: z.string().register(z.globalRegistry, {"description": "The Web Bot Auth agent's origin; its keys are fetched from `<origin>/.well-known/http-message-signatures-directory`."}) }),
]).register(z.globalRegistry, {"id": "KeySource", "description": "Where the client's keys are published; Signet fetches them off the request path."});

export const KeySourceError = z.strictObject({
  code: z.string().register(z.globalRegistry, {"description": "The fetch's stable refusal code (e.g. `http_error`, `timeout`, `invalid_json`, `no_usable_key`)."}),
  message: z.string(),
  at: Instant,
  status: z.optional(z.int().register(z.globalRegistry, {"description": "The HTTP status the source answered, when it answered."})),
}).register(z.globalRegistry, {"id": "KeySourceError"});

export const RefusedSourceKey = z.strictObject({
  kid: z.optional(z.string()),
  thumbprint: z.optional(z.string()),
  reason: z.string().register(z.globalRegistry, {"description": "Why the key is not used: the key-set reader's code (e.g. `symmetric_key`, `expired`), `key_in_use` (another client holds it), `unsigned_directory_key` or `directory_signature_invalid`."}),
}).register(z.globalRegistry, {"id": "RefusedSourceKey"});

export const KeySourceStatus = z.strictObject({
  url: z.string().register(z.globalRegistry, {"description": "What is fetched."}),
  lastFetchAt: Instant,
  nextFetchAt: described(Instant, "When the refresher fetches again: after the source's Cache-Control max-age (1 min to 24 h) or the refresh interval; after a failure, a backoff from 1 min doubling up to the interval, and no sooner than Retry-After."),
  lastSuccessAt: z.optional(Instant),
  failingSince: z.optional(described(Instant, "The first failure of the current run of failures; absent while fetches succeed.")),
  consecutiveFailures: z.int().check(z.minimum(0)),
  lastError: z.optional(KeySourceError),
  refusedKeys: z.optional(z.array(RefusedSourceKey).register(z.globalRegistry, {"description": "Keys of the last successful fetch that are not used."})),
  keptUntil: z.optional(described(Instant, "The published keys stop verifying at this instant unless a fetch succeeds before (the last success plus SIGNET_KEY_SOURCE_KEEP_DAYS).")),
}).register(z.globalRegistry, {"id": "KeySourceStatus"});

export const AccountId = z.string().check(z.regex(ACCOUNT_ID_OR_DEFAULT)).register(z.globalRegistry, {"id": "AccountId", "description": "`acct_default` (the default account: clients created by operators without an account, and every " +
    "client registered before accounts existed), or a service-generated id.", "examples": ["acct_Q2hKx8mV1tP4wR7zN0bYfA", "acct_default"]});

export const Client = z.strictObject({
  clientId: ClientId,
  accountId: described(AccountId, "The account (partner organisation) the client belongs to; fixed at creation."),
  name: ClientName,
  status: z.enum(["active", "disabled"]).register(z.globalRegistry, {"description": "`disabled` clients are refused by the authorizer (`client_disabled`)."}),
  networkWhitelist: NetworkWhitelist,
  roles: Roles,
  profile: z.optional(described(CoverageProfileName, "The client's own coverage profile, when it has one; absent: the deployment's. Listings leave it out (read the client).")),
  keys: z.array(Key).check(z.minLength(1)).register(z.globalRegistry, {"description": "One or more keys; several during a rollover. For a client with a key source, the keys its last successful fetch found."}),
  keySource: z.optional(KeySource),
  keysFetchedAt: z.optional(described(Instant, "The last successful fetch of the key source.")),
  keySourceStatus: z.optional(described(KeySourceStatus, "What the last fetches of the key source found (read the client; listings leave it out).")),
  version: Version,
  createdAt: Instant,
  updatedAt: Instant,
  lastUsedAt: z.optional(described(Instant, "The latest `lastUsedAt` of the client's keys: when it last got a request through. Absent when none is recorded.")),
}).register(z.globalRegistry, {"id": "Client"});

export const CreateClientResponse = z.extend(Client, {
  registration: z.enum(["created", "skipped"]).register(z.globalRegistry, {"description": "`skipped`: the key was already registered on this client; nothing was created."}),
}).register(z.globalRegistry, {"id": "CreateClientResponse"});

export const CreateClientRequest = z.strictObject({
  name: ClientName,
  networkWhitelist: NetworkWhitelist,
  publicKey: z.optional(described(PublicKeyInput, "The client's key. Exactly one of `publicKey`, `jwksUri` and `signatureAgent`.")),
  jwksUri: z.optional(described(KeySourceInput, "A JWKS URL (https) the client publishes its keys at: fetched now (a source that yields no usable key is refused with `key_source_refused`) and refreshed by Signet.")),
  signatureAgent: z.optional(described(KeySourceInput, "A Web Bot Auth agent's origin (https): its keys are fetched from `/.well-known/http-message-signatures-directory` now and refreshed by Signet. The client's profile defaults to `web-bot-auth`.")),
  algorithm: z.optional(described(SignatureAlgorithmName, "The key's algorithm; needed only for `rsa-pss-sha512` (an RSA key is `rsa-v1_5-sha256` otherwise).")),
  roles: Roles,
  profile: z.optional(CoverageProfileName),
  accountId: z.optional(described(AccountId, "The account to create the client in. Operators: any existing account (default `acct_default`); account admins: only their own (the default), another answers 404.")),
}).register(z.globalRegistry, {"id": "CreateClientRequest"});

export const UpdateClientRequest = z.strictObject({
  version: z.optional(Version),
  name: z.optional(ClientName),
  networkWhitelist: z.optional(NetworkWhitelist),
  roles: z.optional(Roles),
  publicKey: z.optional(described(PublicKeyInput, "Replaces every key of the client with this one (a client with a key source leaves it).")),
  algorithm: z.optional(described(SignatureAlgorithmName, "The algorithm of `publicKey` (only with it).")),
  profile: z.optional(CoverageProfileName),
  jwksUri: z.optional(described(KeySourceInput, "Switches the client to this JWKS URL: fetched now, its keys replace the client's.")),
  signatureAgent: z.optional(described(KeySourceInput, "Switches the client to this Web Bot Auth agent's key directory: fetched now, its keys replace the client's.")),
}).register(z.globalRegistry, {"id": "UpdateClientRequest", "minProperties": 1});

export const KeyRefresh = z.strictObject({
  ok: z.boolean().register(z.globalRegistry, {"description": "Whether the fetch succeeded. A failed fetch keeps the keys; its error is recorded in `keySourceStatus`."}),
  added: z.array(Fingerprint).register(z.globalRegistry, {"description": "Keys the source published that the client did not have."}),
  removed: z.array(Fingerprint).register(z.globalRegistry, {"description": "Keys gone from the source: they stopped verifying now."}),
  unchanged: z.boolean().register(z.globalRegistry, {"description": "The fetch found the keys the client already had."}),
  error: z.optional(z.strictObject({ code: z.string(), message: z.string(), status: z.optional(z.int()) })),
}).register(z.globalRegistry, {"id": "KeyRefresh"});

export const KeyRefreshResponse = z.strictObject({
  client: Client,
  refresh: KeyRefresh,
}).register(z.globalRegistry, {"id": "KeyRefreshResponse"});

export const AddKeyRequest = z.strictObject({
  publicKey: PublicKeyInput,
  algorithm: z.optional(described(SignatureAlgorithmName, "The key's algorithm; needed only for `rsa-pss-sha512`. Each key has its own: a client may hold an RSA key and an Ed25519 key during a move from one to the other.")),
  notAfter: z.optional(Instant),
  version: z.optional(Version),
}).register(z.globalRegistry, {"id": "AddKeyRequest"});

export const VersionRequest = z.strictObject({
  version: z.optional(Version),
}).register(z.globalRegistry, {"id": "VersionRequest"});

export const ClientList = z.strictObject({
  clients: z.array(Client),
  nextCursor: z.optional(Cursor),
  total: z.optional(z.int().check(z.minimum(0)).register(z.globalRegistry, {"description": "Only when the list is searched, filtered or sorted (`q`, `status`, `role`, `sort`, `order`): how many clients of the account match, counted when the page was read (on every page)."})),
}).register(z.globalRegistry, {"id": "ClientList"});

export const AuthFailure = z.strictObject({
  at: Instant,
  reason: z.string().register(z.globalRegistry, {"description": "The stable error code the request was refused with."}),
  message: z.optional(z.string()),
  sourceIp: z.optional(z.string()),
  method: z.optional(z.string()),
  path: z.optional(z.string()),
  fingerprint: z.optional(z.string()),
}).register(z.globalRegistry, {"id": "AuthFailure"});

export const UnauthenticatedFailureCounts = z.strictObject({
  windowSeconds: z.int().check(z.minimum(1)).register(z.globalRegistry, {"description": `Length of each window (UNAUTHENTICATED_FAILURE_WINDOW_S, ${UNAUTHENTICATED_FAILURE_WINDOW_S}).`}),
  windows: z.array(z.strictObject({
  start: Instant,
  counts: z.record(z.string(), z.int().check(z.minimum(1))).register(z.globalRegistry, {"description": "Refusals per reason code (lambda/core/errors.ts) in the window."}),
})).check(z.maxLength(AUTH_FAILURE_TTL_S / UNAUTHENTICATED_FAILURE_WINDOW_S)).register(z.globalRegistry, {"description": "One entry per window that has any refusal, newest first; windows are kept 7 days."}),
}).register(z.globalRegistry, {"id": "UnauthenticatedFailureCounts", "description": "Refusals of requests that named the client but were not signed by any of its keys: counts only, nothing the requests chose."});

export const AuthFailureList = z.strictObject({
  clientId: ClientId,
  failures: z.array(AuthFailure).check(z.maxLength(AUTH_FAILURES_KEPT)).register(z.globalRegistry, {"description": "Refusals of requests one of the client's own keys signed, newest first."}),
  unauthenticated: UnauthenticatedFailureCounts,
}).register(z.globalRegistry, {"id": "AuthFailureList"});

export const FieldChange = z.strictObject({
  from: z.optional(z.union([z.string(), z.array(z.string())])),
  to: z.optional(z.union([z.string(), z.array(z.string())])),
}).register(z.globalRegistry, {"id": "FieldChange"});

export const AuditEntry = z.strictObject({
  clientId: ClientId,
  accountId: described(AccountId, "The changed client's account."),
  at: Instant,
  actor: z.string().register(z.globalRegistry, {"description": "The acting clientId, or `bootstrap` / `rotation` for changes made outside the API."}),
  actorAccountId: z.optional(described(AccountId, "The acting client's account (absent for changes made outside the API, and on entries written before accounts existed).")),
  action: z.enum(["client.created", "client.updated", "client.disabled", "client.enabled", "key.added", "key.removed", "key.not_after_set", "key_source.refreshed"]),
  version: Version,
  changes: z.optional(z.strictObject({
  name: z.optional(FieldChange),
  status: z.optional(FieldChange),
  networkWhitelist: z.optional(FieldChange),
  roles: z.optional(FieldChange),
  profile: z.optional(FieldChange),
  keySource: z.optional(FieldChange),
})),
  keysAdded: z.optional(z.array(Fingerprint)),
  keysRemoved: z.optional(z.array(Fingerprint)),
  keysExpired: z.optional(z.array(Fingerprint)),
  keyNotAfter: z.optional(z.strictObject({
  fingerprint: Fingerprint,
  from: z.optional(Instant),
  to: z.optional(Instant),
})),
}).register(z.globalRegistry, {"id": "AuditEntry"});

export const AuditList = z.strictObject({
  clientId: ClientId,
  entries: z.array(AuditEntry),
  nextCursor: z.optional(Cursor),
}).register(z.globalRegistry, {"id": "AuditList"});

export const ExpiringKey = z.strictObject({
  clientId: ClientId,
  fingerprint: Fingerprint,
  addedAt: Instant,
  notAfter: z.optional(Instant),
  ageDays: z.int().check(z.minimum(0)),
}).register(z.globalRegistry, {"id": "ExpiringKey"});

export const ExpiringKeyList = z.strictObject({
  olderThanDays: z.int().check(z.minimum(0)),
  keys: z.array(ExpiringKey),
  nextCursor: z.optional(Cursor),
}).register(z.globalRegistry, {"id": "ExpiringKeyList"});

export const Error = z.strictObject({
  error: z.enum(Object.keys(ERROR_CODES) as [SignetErrorCode, ...SignetErrorCode[]]).register(z.globalRegistry, {"description": "Stable code (lambda/core/errors.ts); branch on it."}),
  message: z.string().check(z.minLength(1)).register(z.globalRegistry, {"description": "A sentence saying what to do. Never contains key material."}),
  allowedRoles: z.optional(z.array(z.string().check(z.minLength(1))).register(z.globalRegistry, {"description": "With `role_not_allowed`: the roles the caller may give (its account's ceiling)."})),
  requestId: z.string().register(z.globalRegistry, {"description": "Quote it when reporting a problem."}),
}).register(z.globalRegistry, {"id": "Error"});

export const RoleCeiling = z.array(z.string().check(z.minLength(1))).check(z.maxLength(MAX_ROLES)).register(z.globalRegistry, {"id": "RoleCeiling", "description": "The roles the account's admins (`account:admin`) may give its clients: names from the role " +
    "catalogue, never `registry:admin`. May be empty. Put `account:admin` in it to let the partner " +
    "appoint further account admins."});

export const Account = z.strictObject({
  accountId: AccountId,
  name: ClientName,
  roleCeiling: RoleCeiling,
  version: z.int().check(z.minimum(0)).register(z.globalRegistry, {"description": "Optimistic-concurrency version; 0 only for the default account before its first edit."}),
  createdAt: Instant,
  updatedAt: Instant,
}).register(z.globalRegistry, {"id": "Account"});

export const AccountList = z.strictObject({
  accounts: z.array(Account),
  nextCursor: z.optional(Cursor),
}).register(z.globalRegistry, {"id": "AccountList"});

export const CreateAccountRequest = z.strictObject({
  name: ClientName,
  roleCeiling: RoleCeiling,
}).register(z.globalRegistry, {"id": "CreateAccountRequest"});

export const UpdateAccountRequest = z.strictObject({
  version: z.optional(z.int().check(z.minimum(0)).register(z.globalRegistry, {"description": "The version you read (or send If-Match)."})),
  name: z.optional(ClientName),
  roleCeiling: z.optional(RoleCeiling),
}).register(z.globalRegistry, {"id": "UpdateAccountRequest", "minProperties": 1});

export const AccountAuditEntry = z.strictObject({
  accountId: AccountId,
  at: Instant,
  actor: z.string(),
  actorAccountId: z.optional(AccountId),
  action: z.enum(["account.created", "account.updated"]),
  version: Version,
  changes: z.optional(z.strictObject({
  name: z.optional(FieldChange),
  roleCeiling: z.optional(FieldChange),
})),
}).register(z.globalRegistry, {"id": "AccountAuditEntry"});

export const AccountAuditList = z.strictObject({
  accountId: AccountId,
  entries: z.array(z.union([AccountAuditEntry, AuditEntry])).register(z.globalRegistry, {"description": "Every change to the account (`account.*`) and to its clients (`client.*`, `key.*`, with `clientId`), newest first."}),
  nextCursor: z.optional(Cursor),
}).register(z.globalRegistry, {"id": "AccountAuditList"});
