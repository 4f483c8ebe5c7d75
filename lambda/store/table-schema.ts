/**
 * The client table's layout: one DynamoDB table, designed for the authorizer's hot path first.
 *
 * The CDK `ClientRegistry` construct, `npm start` and the tests all build the table from
 * {@link createTableInput} / these constants, so the three cannot drift apart.
 *
 * ## Items (single-table design, string keys `pk` / `sk`)
 *
 * | item            | pk                    | sk                         | gsi1pk                 | gsi1sk                      |
 * |-----------------|-----------------------|----------------------------|------------------------|-----------------------------|
 * | client record   | `CLIENT#<clientId>`   | `CLIENT`                   | the account's list (1) | `<createdAt>#<clientId>`    |
 * | key ownership   | `KEY#<fingerprint>`   | `KEY`                      | `KEYS`                 | `<addedAt>#<fingerprint>`   |
 * | audit entry     | `CLIENT#<clientId>`   | `AUDIT#<version, 12 digits>` | `AUDIT#<accountId>` (3) | `<at>#<clientId>#<version>` |
 * | failure counter | `FAIL#<clientId>`     | `SEQ`                      | -                      | -                           |
 * | auth failure    | `FAIL#<clientId>`     | `SLOT#<slot>`              | -                      | -                           |
 * | failure counts  | `FAIL#<clientId>`     | `UNAUTH#<window start>`    | -                      | -                           |
 * | key last use    | `USE#<fingerprint>`   | `USE`                      | -                      | -                           |
 * | replay marker   | `REPLAY#<sha256>`     | `REPLAY`                   | -                      | -                           |
 * | account         | `ACCOUNT#<accountId>` | `ACCOUNT`                  | `ACCOUNTS`             | `<createdAt>#<accountId>` (2) |
 * | account audit   | `ACCOUNT#<accountId>` | `AUDIT#<version, 12 digits>` | `AUDIT#<accountId>` (3) | `<at>#<accountId>#<version>` |
 * | admin roster    | `ROSTER#registry:admin` | `ROSTER`                 | -                      | -                           |
 * | key thumbprint  | `THUMB#<thumbprint>`  | `THUMB`                    | -                      | -                           |
 * | key source      | `SOURCE#<clientId>`   | `SOURCE`                   | `KEY_SOURCES`          | `<nextFetchAt>#<clientId>` (4) |
 * | failing sources | `SOURCE#failing`      | `FAILING`                  | -                      | -                           |
 * | source owner    | `SOURCE_OWNER#<sha256 of the source URL>` | `OWNER`  | -                      | -                           |
 *
 * (1) `CLIENTS` for the default account (`acct_default`), `CLIENTS#<accountId>` for any other:
 *     {@link ITEM.accountClientsPartition}. The default account keeps the partition every client
 *     was listed under before accounts existed, so old records (which have no `accountId`
 *     attribute) are listed in, and read as members of, the default account with no migration.
 * (2) `0#acct_default` for the default account, so it always lists first.
 * (3) {@link ITEM.accountAuditPartition}: the account's whole trail (its own changes and every
 *     change to its clients) in one list-index partition, newest first by time.
 * (4) The refresher's due list (lambda/key-sources/key-source-refresher.ts): one Query for
 *     `gsi1sk < <now>` finds the sources due, oldest first, never a Scan.
 *
 * - **Client record**: everything the authorizer needs (status, whitelist, roles, every key with
 *   its SPKI PEM and not-after, `version`) in ONE item, so a request costs one GetItem.
 * - **Key ownership**: one item per registered public key. Writing it with
 *   `attribute_not_exists(pk)` in the same transaction as the client record is what makes a key
 *   belong to at most one client; finding the client that holds a key is one GetItem.
 * - **Thumbprint index**: one item per key that has a JWK thumbprint (RFC 7638), holding the
 *   `clientId` and the key's `fingerprint`, written with `attribute_not_exists(pk)` in the same
 *   transaction as the key's ownership item and deleted with it. A keyid that is a thumbprint
 *   (Web Bot Auth agents, JWKS publishers) finds its key with one GetItem, then the client record
 *   with another; never a scan. Keys registered before the index existed have no item: they are
 *   found by clientId only.
 * - **The authorizer writes only partitions of its own** ({@link AUTHORIZER_WRITE_PREFIXES}:
 *   failure log, key last use, replay markers), never one under `CLIENT#`, `KEY#`, `ACCOUNT#` or
 *   `ROSTER#`. IAM can limit a write to partition-key prefixes (`dynamodb:LeadingKeys`) but not to
 *   sort keys, so a grant on `CLIENT#*` would let the internet-facing function replace a client
 *   record or an audit entry, or give a client record an `expiresAt` for TTL to delete it. Its
 *   grant names these prefixes only; on everything else it reads.
 * - **Key last use** ({@link KEY_LAST_USED_AT}, {@link KEY_LAST_USED_BY}; ./key-use.ts): one item
 *   per key, which the authorizer writes at most once per key and interval per instance, with no
 *   read, in a transaction whose condition check needs the key's ownership item to exist and to
 *   belong to that client. Not on the client record, so it never bumps `version` nor races a
 *   registry edit. Removing the key deletes it in the same transaction, so a key registered
 *   again starts unused.
 * - **Audit entries** are written in the same transaction as the change they describe (who, what,
 *   when). Their sort key is the version the change produced: unique per client (the version
 *   condition lets only one change per version commit) and the true order of changes even when
 *   Lambda hosts' clocks disagree; a Query lists them newest first. The same item carries the
 *   list-index keys of its account's trail (3): `signet accounts audit` reads every change to an
 *   account and its clients with one Query on the index and one BatchGetItem per page (the index
 *   projects only the list attributes), never a Scan. It is the audit item itself that is indexed,
 *   so no grant reaches beyond the client's own partition (a key rotation writes only there).
 *   Entries written before the index keys existed are read per client (`signet clients audit`).
 * - **Auth failures** are a ring of {@link AUTH_FAILURES_KEPT} slots per client (the slot is a
 *   counter item modulo the ring size; the counter expires with the last slot it numbered), each
 *   with a {@link TTL_ATTRIBUTE}, so the
 *   store holds at most that many per client whatever an attacker sends, with no read to trim.
 *   Only refusals of requests signed by one of the client's keys go there (ip_not_allowed,
 *   role_forbidden, key_expired, ...): a stranger who knows a clientId cannot write them.
 * - **Failure counts** hold the refusals no client key signed (bad signatures, expired `created`,
 *   malformed headers, ...), which anyone can cause for any clientId: one item per client and
 *   window (`UNAUTHENTICATED_FAILURE_WINDOW_S` in lambda/core/defaults.ts), a count attribute per reason code
 *   ({@link unauthenticatedCountAttribute}, from the fixed list of codes) and nothing the request
 *   chose. They expire with {@link TTL_ATTRIBUTE} like the failures, so a client has at most
 *   TTL / window of them (168 with the defaults), whatever is sent.
 * - **Replay markers** (./replay-store.ts, optional): one per accepted signature, written with a
 *   condition so the same signature cannot pass twice, expiring via {@link TTL_ATTRIBUTE}.
 * - **Search budgets** (./search-budget-store.ts): one counter per caller and window of the
 *   reads its registry searches made, added to with no read, expiring via {@link TTL_ATTRIBUTE}.
 *
 * - **Accounts** group the clients of one partner organisation. The client record carries its
 *   `accountId` (fixed at creation), so the authorizer's one GetItem is unchanged and a registry
 *   call scoped to an account checks membership on the record it reads anyway. The account item
 *   holds the name and the role ceiling; the default account's item exists only once an operator
 *   has edited it (until then the store answers a built-in default).
 *
 * - **Key thumbprint**: one item per key that has a thumbprint (RFC 7638; every key written since
 *   thumbprints were recorded, registered or published), holding `clientId` and `fingerprint`.
 *   Written with `attribute_not_exists(pk)` in the same transaction as the key's ownership item
 *   and deleted with it, so a thumbprint keyid names one client's key at most, found with one
 *   GetItem. Keys registered before have none: a thumbprint keyid does not find them.
 * - **Key source status** (./key-source-store.ts): for a client whose keys are published
 *   elsewhere, what the last fetches found (`url`, `lastFetchAt`, `nextFetchAt`, `lastSuccessAt`,
 *   `failingSince`, `consecutiveFailures`, `lastError`, `refusedKeys`, `maxAgeS`). Bookkeeping:
 *   written without a version bump or an audit entry, always conditioned on the client record's
 *   version the fetch was planned from; deleted when the client goes back to registered keys.
 * - **Failing sources** (./key-source-store.ts): ONE item whose map `failing` holds clientId →
 *   `failingSince` for every source whose last fetch failed, so each run counts the sources failing
 *   for over an hour (`KeySourcesFailingOverAnHour`, the alarm's metric) with one GetItem, also
 *   those not due in that run (a long Retry-After or backoff), with no Scan and without reading
 *   every status. The refresher sets an entry after writing a failure status and removes it after
 *   a success or when it finds the client without a source. It is an index of the status items,
 *   which stay the truth: before counting an entry over an hour old, the run reads that source's
 *   status and drops the entry if the status is gone or no longer failing (a client switched back
 *   to registered keys, or a removal lost to a crash). Bounded: at most
 *   `MAX_LISTED_FAILING_SOURCES` (5,000, ~250 KB) entries; past that a new failure is not listed
 *   (the alarm is already firing). Not a `<clientId>`: clientIds start `c_`.
 *
 * - **Admin roster**: one item whose string set `admins` holds the clientId of every active client
 *   with `registry:admin`. A change that takes an operator away (disable, role removed) deletes
 *   its entry in the same transaction, on the condition that another entry remains; a change that
 *   makes one adds it. So "at least one active operator" is enforced by DynamoDB, also when two
 *   operators disable each other at once. The first removal on a table builds it from the client
 *   lists (each operator confirmed by a consistent read) and marks it `built`.
 * ## Why a GSI with one partition per list
 * Listing clients must not Scan (a Scan reads every audit and failure item too). The sparse GSI
 * `gsi1` holds only client records (one partition per account), key items (partition `KEYS`),
 * account items (partition `ACCOUNTS`) and audit entries (one partition per account), sorted by
 * creation time: listing an account's clients is
 * one Query per page whatever the other accounts hold, and "keys older than N days" is a range
 * Query (`gsi1sk < <cutoff>`). One partition per list is fine at registry scale (thousands of
 * clients, writes only on admin changes): a GSI partition sustains 1,000 writes/s. Only the
 * attributes the lists show are projected, so the frequent auth-failure counter updates on the
 * client record cause no index writes. The projection is unchanged by accounts: a client list
 * knows its account from its partition, and an account item keeps its role ceiling in the
 * projected `roles` attribute.
 */
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { AUTH_FAILURES_KEPT } from '../core/defaults';
import { ERROR_CODES, type SignetErrorCode } from '../core/errors';
import { DEFAULT_ACCOUNT_ID } from './account-id';

/** Partition key attribute (string). */
export const PARTITION_KEY = 'pk';
/** Sort key attribute (string). */
export const SORT_KEY = 'sk';

/** Item prefix of replay records (`pk = REPLAY#<the signature's replay id, lambda/core/replay-id.ts>`). */
export const REPLAY_PREFIX = 'REPLAY#';
/** Partition prefix of a client's failure log (`FAIL#<clientId>`): counter, ring slots, counts. */
export const FAILURE_LOG_PREFIX = 'FAIL#';
/** The attribute of the failure counter item (`FAIL#<clientId>`, `SEQ`) that numbers the ring's writes. */
export const AUTH_FAILURE_COUNTER_ATTRIBUTE = 'authFailureSeq';
/** Partition prefix of a key's last use (`USE#<fingerprint>`). */
export const KEY_USE_PREFIX = 'USE#';

/**
 * The partition-key prefixes of every item the authorizer writes: its IAM grant allows writes
 * under these only (lib/client-registry.ts), none of which a client record, key ownership item,
 * audit entry, account or the admin roster uses.
 */
export const AUTHORIZER_WRITE_PREFIXES: readonly string[] = Object.freeze([FAILURE_LOG_PREFIX, KEY_USE_PREFIX, REPLAY_PREFIX]);

/**
 * Item prefix of search budgets (lambda/store/search-budget-store.ts): `pk = BUDGET#<clientId>`,
 * `sk = SEARCH#<window start, Unix s>`, a `reads` counter, expiring via {@link TTL_ATTRIBUTE}.
 */
export const SEARCH_BUDGET_PREFIX = 'BUDGET#';

/** Partition prefix of a key's thumbprint index item (`THUMB#<thumbprint>`): written by the registry, bootstrap and rotation with the key. */
export const THUMBPRINT_PREFIX = 'THUMB#';
/** Partition prefix of a client's key source status (`SOURCE#<clientId>`): written by the registry and the refresher. */
export const KEY_SOURCE_PREFIX = 'SOURCE#';

/** The GSI that lists client records and key items by creation time. */
export const LIST_INDEX_NAME = 'gsi1';
export const LIST_INDEX_PARTITION_KEY = 'gsi1pk';
export const LIST_INDEX_SORT_KEY = 'gsi1sk';

/** Attribute holding an item's expiry (unix seconds) for DynamoDB TTL; the CDK table enables TTL on it. */
export const TTL_ATTRIBUTE = 'expiresAt';

/** Key prefixes and fixed values of the single-table layout. */
export const ITEM = {
  clientPk: (clientId: string): string => `CLIENT#${clientId}`,
  clientSk: 'CLIENT',
  keyPk: (fingerprint: string): string => `KEY#${fingerprint}`,
  keySk: 'KEY',
  auditSkPrefix: 'AUDIT#',
  /** A client's failure log (the authorizer's partition, not the client's). */
  failurePk: (clientId: string): string => `${FAILURE_LOG_PREFIX}${clientId}`,
  failureCounterSk: 'SEQ',
  failureSlotSkPrefix: 'SLOT#',
  unauthenticatedFailureSkPrefix: 'UNAUTH#',
  /** A key's last use (the authorizer's partition, not the key ownership item). */
  keyUsePk: (fingerprint: string): string => `${KEY_USE_PREFIX}${fingerprint}`,
  keyUseSk: 'USE',
  /**
   * Where releases before the authorizer had partitions of its own kept the failure log: under
   * the client's partition (`CLIENT#<clientId>`, sort keys `FAIL#<slot>` and `UNAUTH#<window>`),
   * and the last use on the key ownership item. Read, never written, for one release; those
   * failure items expire by TTL within AUTH_FAILURE_TTL_S.
   */
  legacyFailureSkPrefix: 'FAIL#',
  /** The default account's client list (the one partition of every client before accounts existed). */
  clientsPartition: 'CLIENTS',
  keysPartition: 'KEYS',
  accountPk: (accountId: string): string => `ACCOUNT#${accountId}`,
  accountSk: 'ACCOUNT',
  accountsPartition: 'ACCOUNTS',
  /** The list-index partition of an account's audit trail: its own changes and its clients'. */
  accountAuditPartition: (accountId: string): string => `AUDIT#${accountId}`,
  /** The admin roster item (see the table above). */
  adminRosterPk: 'ROSTER#registry:admin',
  adminRosterSk: 'ROSTER',
  /** The list-index partition of an account's clients: `CLIENTS` for the default account, `CLIENTS#<accountId>` otherwise. */
  accountClientsPartition: (accountId: string): string =>
    accountId === DEFAULT_ACCOUNT_ID ? 'CLIENTS' : `CLIENTS#${accountId}`,
  /** A key's thumbprint index item (see the table above): `clientId` and `fingerprint`. */
  thumbprintPk: (thumbprint: string): string => `${THUMBPRINT_PREFIX}${thumbprint}`,
  thumbprintSk: 'THUMB',
  /** A client's key source status item, listed in the refresher's due list. */
  keySourcePk: (clientId: string): string => `${KEY_SOURCE_PREFIX}${clientId}`,
  keySourceSk: 'SOURCE',
  keySourcesPartition: 'KEY_SOURCES',
  /** The failing-sources list (see the table above): one item, map `failing` of clientId → failingSince. */
  failingSourcesPk: `${KEY_SOURCE_PREFIX}failing`,
  failingSourcesSk: 'FAILING',
  /**
   * The client a key source serves (`SOURCE_OWNER#<SHA-256 of the source's URL, base64url>`):
   * `clientId` and `source`. Written and deleted with the change that sets or ends a client's
   * source, so that a source serves one client, as a key ownership item makes a key one client's.
   */
  sourceOwnerPk: (identityHash: string): string => `SOURCE_OWNER#${identityHash}`,
  sourceOwnerSk: 'OWNER',
} as const;

/** A key ownership item's last use: the ISO-8601 instant the key last verified a request. */
export const KEY_LAST_USED_AT = 'lastUsedAt';
/** A key ownership item's last use: the clientId the key verified that request for. */
export const KEY_LAST_USED_BY = 'lastUsedBy';

/** Every attribute the authorizer's last-use write touches on a `USE#` item (keys included): the IAM grant lists them. */
export const KEY_LAST_USE_ATTRIBUTES: readonly string[] = Object.freeze([PARTITION_KEY, SORT_KEY, KEY_LAST_USED_AT, KEY_LAST_USED_BY]);

/** Non-key attributes copied into the list index (what the client list and key list show). */
export const LIST_INDEX_PROJECTED_ATTRIBUTES: readonly string[] = Object.freeze([
  'clientId',
  'name',
  'status',
  'networkWhitelist',
  'roles',
  'keys',
  'version',
  'createdAt',
  'updatedAt',
  'fingerprint',
  'addedAt',
  'notAfter',
]);

/** The attribute of a failure-count item that counts refusals with `reason`. */
export function unauthenticatedCountAttribute(reason: SignetErrorCode): string {
  return `n_${reason}`;
}

/** Every attribute a failure-count item may have (keys and TTL included): the IAM grant lists them. */
export const UNAUTHENTICATED_FAILURE_ATTRIBUTES: readonly string[] = Object.freeze([
  PARTITION_KEY,
  SORT_KEY,
  TTL_ATTRIBUTE,
  'windowStart',
  ...(Object.keys(ERROR_CODES) as SignetErrorCode[]).map(unauthenticatedCountAttribute),
]);

/** Number of slots in each client's auth-failure ring. */
export const AUTH_FAILURE_SLOTS = AUTH_FAILURES_KEPT;

/**
 * The CreateTable input for the client table (on-demand). `npm start` and the tests call it;
 * the CDK construct mirrors the same names. TTL is enabled separately
 * (UpdateTimeToLive on {@link TTL_ATTRIBUTE}).
 */
export function createTableInput(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: PARTITION_KEY, AttributeType: 'S' },
      { AttributeName: SORT_KEY, AttributeType: 'S' },
      { AttributeName: LIST_INDEX_PARTITION_KEY, AttributeType: 'S' },
      { AttributeName: LIST_INDEX_SORT_KEY, AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: PARTITION_KEY, KeyType: 'HASH' },
      { AttributeName: SORT_KEY, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: LIST_INDEX_NAME,
        KeySchema: [
          { AttributeName: LIST_INDEX_PARTITION_KEY, KeyType: 'HASH' },
          { AttributeName: LIST_INDEX_SORT_KEY, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...LIST_INDEX_PROJECTED_ATTRIBUTES] },
      },
    ],
  };
}
