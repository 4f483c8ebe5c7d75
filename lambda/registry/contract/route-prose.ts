/**
 * The registry API's prose, read only by the OpenAPI generation (./openapi-document.ts): per route
 * its summary, description and examples; the document's head and its shared error answers. What a
 * route is (method, path, parameters, bodies, statuses, who may call it) is the route table
 * (../route-table.ts): this file only words it. Not shipped in the package.
 */
import type { DocumentProse, RouteProse } from './prose-types';
import type { RouteName } from '../route-table';

/** Descriptions of path and query parameters shared by every route that takes them. */
export const PARAMETER_PROSE: Readonly<Record<string, string>> = { clientId: "The id the service generated; signers put it in the signature's `keyid`." };

export const ROUTE_PROSE: Readonly<Record<RouteName, RouteProse>> = {
  createClient: {
    tag: "clients",
    summary: "Register a client with its public key (any of the five algorithms), or find that the key is already registered.",
    description: "Answers 201 with the new client. If the public key is already registered on a client of the account " +
      "asked for, nothing is created: 200 with that client's record and `\"registration\": \"skipped\"`. The " +
      "client goes to `accountId` when given (operators: any existing account; account admins: only their " +
      "own), else to the caller's account (`acct_default` for operators). An account admin may give only " +
      "roles in its account's ceiling (400 `role_not_allowed`). When the key is held by a client of another " +
      "account, nothing is created and the answer is 409 `key_already_registered`: operators are told the " +
      "holder and its account; account admins are not (keys are registered without proof of possession, so " +
      "the holder may have registered someone else's published key: the owner of the key pair asks the " +
      "operators to release it). Instead of `publicKey`, a client may name where its keys are published: " +
      "`jwksUri` (a JWKS URL) or `signatureAgent` (a Web Bot Auth agent's origin, whose key directory is " +
      "`/.well-known/http-message-signatures-directory`). The source is fetched once now; one that fails, or " +
      "whose keys are all refused or held by other clients, is refused with 400 `key_source_refused` naming " +
      "the fetch's reason, and nothing is created. Signet then refreshes the keys off the request path. A " +
      "source serves one client: one that already serves another is 409 `key_source_in_use`.",
    requestExamples: {
      webBotAuthAgent: {
        summary: "A Web Bot Auth agent, by the origin of its key directory",
        value: { name: "Example agent", networkWhitelist: ["0.0.0.0"], signatureAgent: "https://agent.example", roles: ["demo"] },
      },
      jwksPartner: {
        summary: "A partner who publishes its keys at a JWKS URL",
        value: { name: "Acme payments", networkWhitelist: ["203.0.113.7"], jwksUri: "https://keys.acme.example/jwks.json", roles: ["demo"] },
      },
      partner: {
        value: {
          name: "Acme payments",
          networkWhitelist: ["203.0.113.7","198.51.100.0/24"],
          publicKey: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAhhdHwwRbyU45ySuN4/JJ\n" +
            "P+TxW+KLT2qLBhMe/bXy/8StLkBR2WUFDvBUoXiyfTHVHelAx8quhu1sNjY0/4Oo\n" +
            "hOnWhNbi9JY8KQQmTxiUKfg/JUvT6nS37LYgt9sdjx9GmBzobULGtUu7dPNMDu2y\n" +
            "cVrjpN830oSYu1zdN0UjPuYiLy39/xbbz29nVLQSa+C4obxNs/zlqlHFP5m0+CZr\n" +
            "CZn9NaRjL23TYv5tUvAjz8l/ffQczL7riXjJjaWN9sMIVDiNga9I4F+JV6FtvyOL\n" +
            "uxObG+jTsVg8kmVIuhiMf9HAijxgdOQ29jGv/erTYBpQYUbmCLv8jeK6lKZrFTG/\nCwIDAQAB\n-----END PUBLIC KEY-----\n",
          roles: ["registry:admin"],
        },
      },
      everyone: {
        summary: "0.0.0.0 (or 0.0.0.0/0, ::/0) allows every address",
        value: {
          name: "Mobile app",
          networkWhitelist: ["0.0.0.0"],
          publicKey: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAhhdHwwRbyU45ySuN4/JJ\n" +
            "P+TxW+KLT2qLBhMe/bXy/8StLkBR2WUFDvBUoXiyfTHVHelAx8quhu1sNjY0/4Oo\n" +
            "hOnWhNbi9JY8KQQmTxiUKfg/JUvT6nS37LYgt9sdjx9GmBzobULGtUu7dPNMDu2y\n" +
            "cVrjpN830oSYu1zdN0UjPuYiLy39/xbbz29nVLQSa+C4obxNs/zlqlHFP5m0+CZr\n" +
            "CZn9NaRjL23TYv5tUvAjz8l/ffQczL7riXjJjaWN9sMIVDiNga9I4F+JV6FtvyOL\n" +
            "uxObG+jTsVg8kmVIuhiMf9HAijxgdOQ29jGv/erTYBpQYUbmCLv8jeK6lKZrFTG/\nCwIDAQAB\n-----END PUBLIC KEY-----\n",
          roles: ["registry:admin"],
        },
      },
    },
    responses: {
      "200": {
        description: "The key is already registered: registration skipped; the body is the client holding it.",
        headers: { ETag: "The client's version, quoted (`\"3\"`); send it back as If-Match to edit." },
        examples: {
          skipped: {
            value: {
              clientId: "c_W1tVZ6hq0fJ3n5y7bXk2Ag",
              accountId: "acct_default",
              name: "Acme payments",
              status: "active",
              networkWhitelist: ["203.0.113.7","198.51.100.0/24"],
              roles: ["registry:admin"],
              keys: [
                {
                  fingerprint: "8eX42bFnyGjnP5XDewS5Ofldp9e--Hjg5QLWyPCPStg",
                  publicKey: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAhhdHwwRbyU45ySuN4/JJ\n" +
                    "P+TxW+KLT2qLBhMe/bXy/8StLkBR2WUFDvBUoXiyfTHVHelAx8quhu1sNjY0/4Oo\n" +
                    "hOnWhNbi9JY8KQQmTxiUKfg/JUvT6nS37LYgt9sdjx9GmBzobULGtUu7dPNMDu2y\n" +
                    "cVrjpN830oSYu1zdN0UjPuYiLy39/xbbz29nVLQSa+C4obxNs/zlqlHFP5m0+CZr\n" +
                    "CZn9NaRjL23TYv5tUvAjz8l/ffQczL7riXjJjaWN9sMIVDiNga9I4F+JV6FtvyOL\n" +
                    "uxObG+jTsVg8kmVIuhiMf9HAijxgdOQ29jGv/erTYBpQYUbmCLv8jeK6lKZrFTG/\nCwIDAQAB\n-----END PUBLIC KEY-----\n",
                  algorithm: "rsa-v1_5-sha256",
                  addedAt: "2026-01-05T09:30:00.000Z",
                  active: true,
                },
              ],
              version: 1,
              createdAt: "2026-01-05T09:30:00.000Z",
              updatedAt: "2026-01-05T09:30:00.000Z",
              registration: "skipped",
            },
          },
        },
      },
      "201": {
        description: "Created.",
        headers: {
          ETag: "The client's version, quoted (`\"3\"`); send it back as If-Match to edit.",
          Location: "Path of the new client.",
        },
        examples: {
          created: {
            value: {
              clientId: "c_W1tVZ6hq0fJ3n5y7bXk2Ag",
              accountId: "acct_default",
              name: "Acme payments",
              status: "active",
              networkWhitelist: ["203.0.113.7","198.51.100.0/24"],
              roles: ["registry:admin"],
              keys: [
                {
                  fingerprint: "8eX42bFnyGjnP5XDewS5Ofldp9e--Hjg5QLWyPCPStg",
                  publicKey: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAhhdHwwRbyU45ySuN4/JJ\n" +
                    "P+TxW+KLT2qLBhMe/bXy/8StLkBR2WUFDvBUoXiyfTHVHelAx8quhu1sNjY0/4Oo\n" +
                    "hOnWhNbi9JY8KQQmTxiUKfg/JUvT6nS37LYgt9sdjx9GmBzobULGtUu7dPNMDu2y\n" +
                    "cVrjpN830oSYu1zdN0UjPuYiLy39/xbbz29nVLQSa+C4obxNs/zlqlHFP5m0+CZr\n" +
                    "CZn9NaRjL23TYv5tUvAjz8l/ffQczL7riXjJjaWN9sMIVDiNga9I4F+JV6FtvyOL\n" +
                    "uxObG+jTsVg8kmVIuhiMf9HAijxgdOQ29jGv/erTYBpQYUbmCLv8jeK6lKZrFTG/\nCwIDAQAB\n-----END PUBLIC KEY-----\n",
                  algorithm: "rsa-v1_5-sha256",
                  addedAt: "2026-01-05T09:30:00.000Z",
                  active: true,
                },
              ],
              version: 1,
              createdAt: "2026-01-05T09:30:00.000Z",
              updatedAt: "2026-01-05T09:30:00.000Z",
              registration: "created",
            },
          },
        },
      },
    },
  },
  listClients: {
    tag: "clients",
    summary: "List, search or filter an account's clients (paginated), or find the client holding a key.",
    description: "Lists one account's clients: `account` (operators: any account, default `acct_default`; account " +
      "admins: their own only, another answers 404). Every client carries `lastUsedAt` (when it last got a " +
      "request through: the latest of its keys', recorded by the authorizer at most once per key per " +
      "`SIGNET_LAST_USED_RECORD_INTERVAL_MS`, default 15 min, per instance), and each key its own; both are " +
      "absent when no use is recorded.\n\nWithout search parameters: clients in creation order, `limit` per " +
      "page (one Query on the list index per page, and one BatchGetItem for the page's keys' last use); " +
      "pass `nextCursor` back as `cursor` for the next page (absent on the last page).\n\nWith any of `q`, " +
      "`status`, `role`, `sort`, `order` (a search): the registry matches and orders the account's clients " +
      "itself and pages them with a keyset cursor, so pages neither repeat nor skip clients; `total` says " +
      "how many match. A search reads the whole account, at most 5,000 clients (more: 400 " +
      "`too_many_clients`), on every page, and counts what it read against the caller's search budget: " +
      "50,000 client records and key last uses a minute per caller (a 5,000-client account: ten pages, five " +
      "sorted by `lastUsedAt`); past it, 429 `search_budget_exceeded` with `Retry-After`. A `cursor` only " +
      "continues the query it came from: with any other `q`, `status`, `role`, `sort`, `order` or `account` " +
      "it is refused (400 `invalid_request`); `limit` may change between pages. An empty parameter (`q=`) " +
      "counts as not given.\n\nWith `publicKey` or `fingerprint`: the client holding that key, as a list of " +
      "zero or one client (not combinable with a search). Prefer `fingerprint`; a `publicKey` must be " +
      "percent-encoded (an unescaped `+` is read back as `+`). A key held outside the caller's account (or " +
      "outside `account` when given) is not found (`clients: []`).",
    parameters: {
      cursor: "`nextCursor` of the previous page, unchanged.",
      publicKey: "A public key (SPKI PEM, PKCS#1 PEM or Base64 DER), percent-encoded.",
      account: "The account whose clients to list or search.",
      q: "Search text: matches a client whose name contains it (any case), or whose clientId or one of whose " +
        "key fingerprints starts with it (as written; at least 4 characters).",
      status: "Only clients with this status.",
      role: "Only clients holding this role (exact name).",
      sort: "Order of a search, then by clientId: `name` (any case), `createdAt`, `lastUsedAt` (a client never " +
        "used counts as the oldest use). Without it, a search is in creation order, oldest first, like the " +
        "plain listing.",
      order: "Direction of `sort`. Default: `asc` for `name`, `desc` (newest first) for `createdAt` and " +
        "`lastUsedAt`; `asc` without `sort`.",
    },
    responses: {
      "200": {
        description: "A page of clients.",
        examples: {
          page: {
            value: {
              clients: [
                {
                  clientId: "c_W1tVZ6hq0fJ3n5y7bXk2Ag",
                  accountId: "acct_default",
                  name: "Acme payments",
                  status: "active",
                  networkWhitelist: ["203.0.113.7","198.51.100.0/24"],
                  roles: ["registry:admin"],
                  keys: [
                    {
                      fingerprint: "8eX42bFnyGjnP5XDewS5Ofldp9e--Hjg5QLWyPCPStg",
                      publicKey: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAhhdHwwRbyU45ySuN4/JJ\n" +
                        "P+TxW+KLT2qLBhMe/bXy/8StLkBR2WUFDvBUoXiyfTHVHelAx8quhu1sNjY0/4Oo\n" +
                        "hOnWhNbi9JY8KQQmTxiUKfg/JUvT6nS37LYgt9sdjx9GmBzobULGtUu7dPNMDu2y\n" +
                        "cVrjpN830oSYu1zdN0UjPuYiLy39/xbbz29nVLQSa+C4obxNs/zlqlHFP5m0+CZr\n" +
                        "CZn9NaRjL23TYv5tUvAjz8l/ffQczL7riXjJjaWN9sMIVDiNga9I4F+JV6FtvyOL\n" +
                        "uxObG+jTsVg8kmVIuhiMf9HAijxgdOQ29jGv/erTYBpQYUbmCLv8jeK6lKZrFTG/\nCwIDAQAB\n-----END PUBLIC KEY-----\n",
                      algorithm: "rsa-v1_5-sha256",
                      addedAt: "2026-01-05T09:30:00.000Z",
                      active: true,
                    },
                  ],
                  version: 1,
                  createdAt: "2026-01-05T09:30:00.000Z",
                  updatedAt: "2026-01-05T09:30:00.000Z",
                },
              ],
              nextCursor: "eyJwayI6IkNMSUVOVCNjX1cxdFZaNmhxMGZKM241eTdiWGsyQWcifQ",
            },
          },
          search: {
            summary: "q=acme&status=active&sort=lastUsedAt",
            value: {
              clients: [
                {
                  clientId: "c_W1tVZ6hq0fJ3n5y7bXk2Ag",
                  accountId: "acct_default",
                  name: "Acme payments",
                  status: "active",
                  networkWhitelist: ["203.0.113.7"],
                  roles: ["orders:read"],
                  keys: [
                    {
                      fingerprint: "8eX42bFnyGjnP5XDewS5Ofldp9e--Hjg5QLWyPCPStg",
                      publicKey: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAhhdHwwRbyU45ySuN4/JJ\n" +
                        "P+TxW+KLT2qLBhMe/bXy/8StLkBR2WUFDvBUoXiyfTHVHelAx8quhu1sNjY0/4Oo\n" +
                        "hOnWhNbi9JY8KQQmTxiUKfg/JUvT6nS37LYgt9sdjx9GmBzobULGtUu7dPNMDu2y\n" +
                        "cVrjpN830oSYu1zdN0UjPuYiLy39/xbbz29nVLQSa+C4obxNs/zlqlHFP5m0+CZr\n" +
                        "CZn9NaRjL23TYv5tUvAjz8l/ffQczL7riXjJjaWN9sMIVDiNga9I4F+JV6FtvyOL\n" +
                        "uxObG+jTsVg8kmVIuhiMf9HAijxgdOQ29jGv/erTYBpQYUbmCLv8jeK6lKZrFTG/\nCwIDAQAB\n-----END PUBLIC KEY-----\n",
                      algorithm: "rsa-v1_5-sha256",
                      addedAt: "2026-01-05T09:30:00.000Z",
                      active: true,
                      lastUsedAt: "2026-03-02T08:15:00.000Z",
                    },
                  ],
                  version: 3,
                  createdAt: "2026-01-05T09:30:00.000Z",
                  updatedAt: "2026-02-11T16:00:00.000Z",
                  lastUsedAt: "2026-03-02T08:15:00.000Z",
                },
              ],
              nextCursor: "eyJzZWFyY2giOiJOdjNfV2V2R1RqUnJGeFFLIiwiYWZ0ZXIiOlsiMjAyNi0wMy0wMlQwODoxNTowMC4wMDBaIiwiY19XMXRWWjZo" +
                "cTBmSjNuNXk3YlhrMkFnIl19",
              total: 7,
            },
          },
          found: {
            value: {
              clients: [
                {
                  clientId: "c_W1tVZ6hq0fJ3n5y7bXk2Ag",
                  accountId: "acct_default",
                  name: "Acme payments",
                  status: "active",
                  networkWhitelist: ["203.0.113.7","198.51.100.0/24"],
                  roles: ["registry:admin"],
                  keys: [
                    {
                      fingerprint: "8eX42bFnyGjnP5XDewS5Ofldp9e--Hjg5QLWyPCPStg",
                      publicKey: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAhhdHwwRbyU45ySuN4/JJ\n" +
                        "P+TxW+KLT2qLBhMe/bXy/8StLkBR2WUFDvBUoXiyfTHVHelAx8quhu1sNjY0/4Oo\n" +
                        "hOnWhNbi9JY8KQQmTxiUKfg/JUvT6nS37LYgt9sdjx9GmBzobULGtUu7dPNMDu2y\n" +
                        "cVrjpN830oSYu1zdN0UjPuYiLy39/xbbz29nVLQSa+C4obxNs/zlqlHFP5m0+CZr\n" +
                        "CZn9NaRjL23TYv5tUvAjz8l/ffQczL7riXjJjaWN9sMIVDiNga9I4F+JV6FtvyOL\n" +
                        "uxObG+jTsVg8kmVIuhiMf9HAijxgdOQ29jGv/erTYBpQYUbmCLv8jeK6lKZrFTG/\nCwIDAQAB\n-----END PUBLIC KEY-----\n",
                      algorithm: "rsa-v1_5-sha256",
                      addedAt: "2026-01-05T09:30:00.000Z",
                      active: true,
                    },
                  ],
                  version: 1,
                  createdAt: "2026-01-05T09:30:00.000Z",
                  updatedAt: "2026-01-05T09:30:00.000Z",
                },
              ],
            },
          },
          notFound: { summary: "no client holds this key", value: { clients: [] } },
        },
      },
    },
  },
  getClient: {
    tag: "clients",
    summary: "Read a client.",
    responses: {
      "200": {
        description: "The client.",
        headers: { ETag: "The client's version, quoted (`\"3\"`); send it back as If-Match to edit." },
        examples: {
          client: {
            value: {
              clientId: "c_W1tVZ6hq0fJ3n5y7bXk2Ag",
              accountId: "acct_default",
              name: "Acme payments",
              status: "active",
              networkWhitelist: ["203.0.113.7","198.51.100.0/24"],
              roles: ["registry:admin"],
              keys: [
                {
                  fingerprint: "8eX42bFnyGjnP5XDewS5Ofldp9e--Hjg5QLWyPCPStg",
                  publicKey: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAhhdHwwRbyU45ySuN4/JJ\n" +
                    "P+TxW+KLT2qLBhMe/bXy/8StLkBR2WUFDvBUoXiyfTHVHelAx8quhu1sNjY0/4Oo\n" +
                    "hOnWhNbi9JY8KQQmTxiUKfg/JUvT6nS37LYgt9sdjx9GmBzobULGtUu7dPNMDu2y\n" +
                    "cVrjpN830oSYu1zdN0UjPuYiLy39/xbbz29nVLQSa+C4obxNs/zlqlHFP5m0+CZr\n" +
                    "CZn9NaRjL23TYv5tUvAjz8l/ffQczL7riXjJjaWN9sMIVDiNga9I4F+JV6FtvyOL\n" +
                    "uxObG+jTsVg8kmVIuhiMf9HAijxgdOQ29jGv/erTYBpQYUbmCLv8jeK6lKZrFTG/\nCwIDAQAB\n-----END PUBLIC KEY-----\n",
                  algorithm: "rsa-v1_5-sha256",
                  addedAt: "2026-01-05T09:30:00.000Z",
                  active: true,
                },
              ],
              version: 1,
              createdAt: "2026-01-05T09:30:00.000Z",
              updatedAt: "2026-01-05T09:30:00.000Z",
            },
          },
        },
      },
    },
  },
  updateClient: {
    tag: "clients",
    summary: "Edit a client: name, whitelist, roles, coverage profile, or replace its keys with one public key.",
    description: "Give the `version` you read (or If-Match). Fields absent stay as they are. `publicKey` replaces " +
      "every key of the client with this one (for a rollover without downtime use the keys routes instead). " +
      "`jwksUri` or `signatureAgent` switches the client to a key source: it is fetched now (400 " +
      "`key_source_refused` if that yields no usable key, nothing changed) and its keys replace the client's; " +
      "`publicKey` on a client with a key source switches it back to that one registered key. The same " +
      "ceiling rule applies to a key source as to `publicKey`, and a source that already serves another client " +
      "is 409 `key_source_in_use`. " +
      "A stale version answers 409 `version_conflict`. An account admin may not set `publicKey` on a client " +
      "that holds a role outside its account's ceiling (only an operator gives such roles; whoever sets the " +
      "key would sign with them), its own client excepted: 403 `client_above_ceiling`. An operator changes " +
      "them, or the account admin first takes those roles away. (An edit that sets `publicKey` and brings " +
      "`roles` within the ceiling is allowed.) Nor may it change such a client's `networkWhitelist` or " +
      "`profile` (403 `client_above_ceiling`): who may sign with those roles, from where and how, is the " +
      "operators' to decide.",
    ifMatch: "The version you read (the ETag). Alternative to `version` in the body; if both are given they must agree.",
    requestExamples: {
      whitelist: { value: { version: 1, networkWhitelist: ["203.0.113.7","2001:db8::/32"] } },
      replaceKey: {
        value: {
          version: 2,
          publicKey: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAhhdHwwRbyU45ySuN4/JJ\n" +
            "P+TxW+KLT2qLBhMe/bXy/8StLkBR2WUFDvBUoXiyfTHVHelAx8quhu1sNjY0/4Oo\n" +
            "hOnWhNbi9JY8KQQmTxiUKfg/JUvT6nS37LYgt9sdjx9GmBzobULGtUu7dPNMDu2y\n" +
            "cVrjpN830oSYu1zdN0UjPuYiLy39/xbbz29nVLQSa+C4obxNs/zlqlHFP5m0+CZr\n" +
            "CZn9NaRjL23TYv5tUvAjz8l/ffQczL7riXjJjaWN9sMIVDiNga9I4F+JV6FtvyOL\n" +
            "uxObG+jTsVg8kmVIuhiMf9HAijxgdOQ29jGv/erTYBpQYUbmCLv8jeK6lKZrFTG/\nCwIDAQAB\n-----END PUBLIC KEY-----\n",
        },
      },
    },
    responses: {
      "200": {
        description: "The client after the edit.",
        headers: { ETag: "The client's version, quoted (`\"3\"`); send it back as If-Match to edit." },
        examples: {
          client: {
            value: {
              clientId: "c_W1tVZ6hq0fJ3n5y7bXk2Ag",
              accountId: "acct_default",
              name: "Acme payments",
              status: "active",
              networkWhitelist: ["203.0.113.7","2001:db8::/32"],
              roles: ["registry:admin"],
              keys: [
                {
                  fingerprint: "8eX42bFnyGjnP5XDewS5Ofldp9e--Hjg5QLWyPCPStg",
                  publicKey: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAhhdHwwRbyU45ySuN4/JJ\n" +
                    "P+TxW+KLT2qLBhMe/bXy/8StLkBR2WUFDvBUoXiyfTHVHelAx8quhu1sNjY0/4Oo\n" +
                    "hOnWhNbi9JY8KQQmTxiUKfg/JUvT6nS37LYgt9sdjx9GmBzobULGtUu7dPNMDu2y\n" +
                    "cVrjpN830oSYu1zdN0UjPuYiLy39/xbbz29nVLQSa+C4obxNs/zlqlHFP5m0+CZr\n" +
                    "CZn9NaRjL23TYv5tUvAjz8l/ffQczL7riXjJjaWN9sMIVDiNga9I4F+JV6FtvyOL\n" +
                    "uxObG+jTsVg8kmVIuhiMf9HAijxgdOQ29jGv/erTYBpQYUbmCLv8jeK6lKZrFTG/\nCwIDAQAB\n-----END PUBLIC KEY-----\n",
                  algorithm: "rsa-v1_5-sha256",
                  addedAt: "2026-01-05T09:30:00.000Z",
                  active: true,
                },
              ],
              version: 2,
              createdAt: "2026-01-05T09:30:00.000Z",
              updatedAt: "2026-01-05T09:30:00.000Z",
            },
          },
        },
      },
    },
  },
  addKey: {
    tag: "keys",
    summary: "Add a public key of any of the five algorithms (rollover: both keys verify until the old one is removed or passes its not-after).",
    description: "Keys already past their not-after are dropped in the same change. `version` (or If-Match) is " +
      "optional here: without it the key is added to the current record. An account admin may not add a key " +
      "to a client that holds a role outside its account's ceiling (only an operator gives such roles; " +
      "whoever sets the key would sign with them), its own client excepted: 403 `client_above_ceiling`. An " +
      "operator changes them, or the account admin first takes those roles away.",
    ifMatch: "The version you read (the ETag). Alternative to `version` in the body; if both are given they must agree.",
    requestExamples: {
      add: {
        value: {
          publicKey: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAhhdHwwRbyU45ySuN4/JJ\n" +
            "P+TxW+KLT2qLBhMe/bXy/8StLkBR2WUFDvBUoXiyfTHVHelAx8quhu1sNjY0/4Oo\n" +
            "hOnWhNbi9JY8KQQmTxiUKfg/JUvT6nS37LYgt9sdjx9GmBzobULGtUu7dPNMDu2y\n" +
            "cVrjpN830oSYu1zdN0UjPuYiLy39/xbbz29nVLQSa+C4obxNs/zlqlHFP5m0+CZr\n" +
            "CZn9NaRjL23TYv5tUvAjz8l/ffQczL7riXjJjaWN9sMIVDiNga9I4F+JV6FtvyOL\n" +
            "uxObG+jTsVg8kmVIuhiMf9HAijxgdOQ29jGv/erTYBpQYUbmCLv8jeK6lKZrFTG/\nCwIDAQAB\n-----END PUBLIC KEY-----\n",
        },
      },
      withExpiry: {
        value: {
          publicKey: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAhhdHwwRbyU45ySuN4/JJ\n" +
            "P+TxW+KLT2qLBhMe/bXy/8StLkBR2WUFDvBUoXiyfTHVHelAx8quhu1sNjY0/4Oo\n" +
            "hOnWhNbi9JY8KQQmTxiUKfg/JUvT6nS37LYgt9sdjx9GmBzobULGtUu7dPNMDu2y\n" +
            "cVrjpN830oSYu1zdN0UjPuYiLy39/xbbz29nVLQSa+C4obxNs/zlqlHFP5m0+CZr\n" +
            "CZn9NaRjL23TYv5tUvAjz8l/ffQczL7riXjJjaWN9sMIVDiNga9I4F+JV6FtvyOL\n" +
            "uxObG+jTsVg8kmVIuhiMf9HAijxgdOQ29jGv/erTYBpQYUbmCLv8jeK6lKZrFTG/\nCwIDAQAB\n-----END PUBLIC KEY-----\n",
          notAfter: "2027-01-01T00:00:00Z",
          version: 2,
        },
      },
    },
    responses: {
      "201": {
        description: "The client holding the new key.",
        headers: { ETag: "The client's version, quoted (`\"3\"`); send it back as If-Match to edit." },
        examples: {
          client: {
            value: {
              clientId: "c_W1tVZ6hq0fJ3n5y7bXk2Ag",
              accountId: "acct_default",
              name: "Acme payments",
              status: "active",
              networkWhitelist: ["203.0.113.7","198.51.100.0/24"],
              roles: ["registry:admin"],
              keys: [
                {
                  fingerprint: "8eX42bFnyGjnP5XDewS5Ofldp9e--Hjg5QLWyPCPStg",
                  publicKey: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAhhdHwwRbyU45ySuN4/JJ\n" +
                    "P+TxW+KLT2qLBhMe/bXy/8StLkBR2WUFDvBUoXiyfTHVHelAx8quhu1sNjY0/4Oo\n" +
                    "hOnWhNbi9JY8KQQmTxiUKfg/JUvT6nS37LYgt9sdjx9GmBzobULGtUu7dPNMDu2y\n" +
                    "cVrjpN830oSYu1zdN0UjPuYiLy39/xbbz29nVLQSa+C4obxNs/zlqlHFP5m0+CZr\n" +
                    "CZn9NaRjL23TYv5tUvAjz8l/ffQczL7riXjJjaWN9sMIVDiNga9I4F+JV6FtvyOL\n" +
                    "uxObG+jTsVg8kmVIuhiMf9HAijxgdOQ29jGv/erTYBpQYUbmCLv8jeK6lKZrFTG/\nCwIDAQAB\n-----END PUBLIC KEY-----\n",
                  algorithm: "rsa-v1_5-sha256",
                  addedAt: "2026-01-05T09:30:00.000Z",
                  notAfter: "2026-04-06T09:30:00.000Z",
                  active: true,
                },
                {
                  fingerprint: "q1OQ8X3m7f1hC2Qm0rjqgK3i0mS7pWc6oK4y9Z1nT0A",
                  publicKey: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAhhdHwwRbyU45ySuN4/JJ\n" +
                    "P+TxW+KLT2qLBhMe/bXy/8StLkBR2WUFDvBUoXiyfTHVHelAx8quhu1sNjY0/4Oo\n" +
                    "hOnWhNbi9JY8KQQmTxiUKfg/JUvT6nS37LYgt9sdjx9GmBzobULGtUu7dPNMDu2y\n" +
                    "cVrjpN830oSYu1zdN0UjPuYiLy39/xbbz29nVLQSa+C4obxNs/zlqlHFP5m0+CZr\n" +
                    "CZn9NaRjL23TYv5tUvAjz8l/ffQczL7riXjJjaWN9sMIVDiNga9I4F+JV6FtvyOL\n" +
                    "uxObG+jTsVg8kmVIuhiMf9HAijxgdOQ29jGv/erTYBpQYUbmCLv8jeK6lKZrFTG/\nCwIDAQAB\n-----END PUBLIC KEY-----\n",
                  algorithm: "rsa-v1_5-sha256",
                  addedAt: "2026-04-05T09:30:00.000Z",
                  active: true,
                },
              ],
              version: 3,
              createdAt: "2026-01-05T09:30:00.000Z",
              updatedAt: "2026-04-05T09:30:00.000Z",
            },
          },
        },
      },
    },
  },
  refreshKeys: {
    tag: "keys",
    summary: "Fetch the client's key source now, and replace its keys with the ones published there.",
    description: "For a client with a key source (`jwksUri` or `signatureAgent`): the source is fetched at once, as the " +
      "scheduled refresher does. Keys gone from the source stop verifying now; new ones are added, unless " +
      "another client holds them (`key_in_use` in `keySourceStatus.refusedKeys`). A failed fetch is not an " +
      "error of this call: the answer is 200 with `refresh.ok: false`, the keys are kept and the error is " +
      "recorded in `keySourceStatus`; only a key a well-formed JWKS no longer lists stops verifying now, though " +
      "nothing it lists can be used. A client with registered keys (no key source): 400 `invalid_request`. The same " +
      "callers as key edits: an account admin only within its account, and not for a client holding a role " +
      "outside its account's ceiling (403 `client_above_ceiling`).",
    responses: {
      "200": {
        description: "The client after the fetch, and what the fetch changed.",
        examples: {
          rotated: {
            value: {
              client: {
                clientId: "c_W1tVZ6hq0fJ3n5y7bXk2Ag",
                accountId: "acct_default",
                name: "Example agent",
                status: "active",
                networkWhitelist: ["0.0.0.0"],
                roles: ["demo"],
                profile: "rfc9421",
                keys: [
                  {
                    fingerprint: "q1OQ8X3m7f1hC2Qm0rjqgK3i0mS7pWc6oK4y9Z1nT0A",
                    publicKey: "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=\n-----END PUBLIC KEY-----\n",
                    algorithm: "ed25519",
                    addedAt: "2026-04-05T09:30:00.000Z",
                    active: true,
                    thumbprint: "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U",
                    published: true,
                    kid: "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U",
                  },
                ],
                keySource: { signatureAgent: "https://agent.example" },
                keysFetchedAt: "2026-04-05T09:30:00.000Z",
                keySourceStatus: {
                  url: "https://agent.example/.well-known/http-message-signatures-directory",
                  lastFetchAt: "2026-04-05T09:30:00.000Z",
                  nextFetchAt: "2026-04-05T09:45:00.000Z",
                  lastSuccessAt: "2026-04-05T09:30:00.000Z",
                  consecutiveFailures: 0,
                  keptUntil: "2026-04-12T09:30:00.000Z",
                },
                version: 4,
                createdAt: "2026-01-05T09:30:00.000Z",
                updatedAt: "2026-04-05T09:30:00.000Z",
              },
              refresh: { ok: true, added: ["q1OQ8X3m7f1hC2Qm0rjqgK3i0mS7pWc6oK4y9Z1nT0A"], removed: ["8eX42bFnyGjnP5XDewS5Ofldp9e--Hjg5QLWyPCPStg"], unchanged: false },
            },
          },
        },
      },
    },
  },
  removeKey: {
    tag: "keys",
    summary: "Remove a key (after a rollover). The client's last active key cannot be removed (409 `last_key`).",
    description: "An account admin may not remove a key of a client that holds a role outside its account's ceiling " +
      "(only an operator gives such roles; whoever sets the key would sign with them), its own client " +
      "excepted: 403 `client_above_ceiling`. An operator changes them, or the account admin first takes " +
      "those roles away.",
    ifMatch: "The version you read (the ETag). Alternative to `version` in the body; if both are given they must agree.",
    requestExamples: { version: { value: { version: 3 } } },
    responses: {
      "200": {
        description: "The client without the key.",
        headers: { ETag: "The client's version, quoted (`\"3\"`); send it back as If-Match to edit." },
        examples: {
          client: {
            value: {
              clientId: "c_W1tVZ6hq0fJ3n5y7bXk2Ag",
              accountId: "acct_default",
              name: "Acme payments",
              status: "active",
              networkWhitelist: ["203.0.113.7","198.51.100.0/24"],
              roles: ["registry:admin"],
              keys: [
                {
                  fingerprint: "q1OQ8X3m7f1hC2Qm0rjqgK3i0mS7pWc6oK4y9Z1nT0A",
                  publicKey: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAhhdHwwRbyU45ySuN4/JJ\n" +
                    "P+TxW+KLT2qLBhMe/bXy/8StLkBR2WUFDvBUoXiyfTHVHelAx8quhu1sNjY0/4Oo\n" +
                    "hOnWhNbi9JY8KQQmTxiUKfg/JUvT6nS37LYgt9sdjx9GmBzobULGtUu7dPNMDu2y\n" +
                    "cVrjpN830oSYu1zdN0UjPuYiLy39/xbbz29nVLQSa+C4obxNs/zlqlHFP5m0+CZr\n" +
                    "CZn9NaRjL23TYv5tUvAjz8l/ffQczL7riXjJjaWN9sMIVDiNga9I4F+JV6FtvyOL\n" +
                    "uxObG+jTsVg8kmVIuhiMf9HAijxgdOQ29jGv/erTYBpQYUbmCLv8jeK6lKZrFTG/\nCwIDAQAB\n-----END PUBLIC KEY-----\n",
                  algorithm: "rsa-v1_5-sha256",
                  addedAt: "2026-04-05T09:30:00.000Z",
                  active: true,
                },
              ],
              version: 4,
              createdAt: "2026-01-05T09:30:00.000Z",
              updatedAt: "2026-01-05T09:30:00.000Z",
            },
          },
        },
      },
    },
  },
  disableClient: {
    tag: "clients",
    summary: "Disable a client: its requests are refused (`client_disabled`). No change if already disabled.",
    ifMatch: "The version you read (the ETag). Alternative to `version` in the body; if both are given they must agree.",
    requestExamples: { empty: { value: {} } },
    responses: {
      "200": {
        description: "The client.",
        headers: { ETag: "The client's version, quoted (`\"3\"`); send it back as If-Match to edit." },
        examples: {
          client: {
            value: {
              clientId: "c_W1tVZ6hq0fJ3n5y7bXk2Ag",
              accountId: "acct_default",
              name: "Acme payments",
              status: "disabled",
              networkWhitelist: ["203.0.113.7","198.51.100.0/24"],
              roles: ["registry:admin"],
              keys: [
                {
                  fingerprint: "8eX42bFnyGjnP5XDewS5Ofldp9e--Hjg5QLWyPCPStg",
                  publicKey: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAhhdHwwRbyU45ySuN4/JJ\n" +
                    "P+TxW+KLT2qLBhMe/bXy/8StLkBR2WUFDvBUoXiyfTHVHelAx8quhu1sNjY0/4Oo\n" +
                    "hOnWhNbi9JY8KQQmTxiUKfg/JUvT6nS37LYgt9sdjx9GmBzobULGtUu7dPNMDu2y\n" +
                    "cVrjpN830oSYu1zdN0UjPuYiLy39/xbbz29nVLQSa+C4obxNs/zlqlHFP5m0+CZr\n" +
                    "CZn9NaRjL23TYv5tUvAjz8l/ffQczL7riXjJjaWN9sMIVDiNga9I4F+JV6FtvyOL\n" +
                    "uxObG+jTsVg8kmVIuhiMf9HAijxgdOQ29jGv/erTYBpQYUbmCLv8jeK6lKZrFTG/\nCwIDAQAB\n-----END PUBLIC KEY-----\n",
                  algorithm: "rsa-v1_5-sha256",
                  addedAt: "2026-01-05T09:30:00.000Z",
                  active: true,
                },
              ],
              version: 2,
              createdAt: "2026-01-05T09:30:00.000Z",
              updatedAt: "2026-01-05T09:30:00.000Z",
            },
          },
        },
      },
    },
  },
  enableClient: {
    tag: "clients",
    summary: "Enable a disabled client. No change if already active.",
    description: "An account admin may not enable a client that holds a role outside its account's ceiling, its own " +
      "client excepted: 403 `client_above_ceiling` (an operator who disabled it, after a leak say, is not " +
      "overruled). An operator enables it, or the account admin first takes those roles away.",
    ifMatch: "The version you read (the ETag). Alternative to `version` in the body; if both are given they must agree.",
    requestExamples: { version: { value: { version: 2 } } },
    responses: {
      "200": {
        description: "The client.",
        headers: { ETag: "The client's version, quoted (`\"3\"`); send it back as If-Match to edit." },
        examples: {
          client: {
            value: {
              clientId: "c_W1tVZ6hq0fJ3n5y7bXk2Ag",
              accountId: "acct_default",
              name: "Acme payments",
              status: "active",
              networkWhitelist: ["203.0.113.7","198.51.100.0/24"],
              roles: ["registry:admin"],
              keys: [
                {
                  fingerprint: "8eX42bFnyGjnP5XDewS5Ofldp9e--Hjg5QLWyPCPStg",
                  publicKey: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAhhdHwwRbyU45ySuN4/JJ\n" +
                    "P+TxW+KLT2qLBhMe/bXy/8StLkBR2WUFDvBUoXiyfTHVHelAx8quhu1sNjY0/4Oo\n" +
                    "hOnWhNbi9JY8KQQmTxiUKfg/JUvT6nS37LYgt9sdjx9GmBzobULGtUu7dPNMDu2y\n" +
                    "cVrjpN830oSYu1zdN0UjPuYiLy39/xbbz29nVLQSa+C4obxNs/zlqlHFP5m0+CZr\n" +
                    "CZn9NaRjL23TYv5tUvAjz8l/ffQczL7riXjJjaWN9sMIVDiNga9I4F+JV6FtvyOL\n" +
                    "uxObG+jTsVg8kmVIuhiMf9HAijxgdOQ29jGv/erTYBpQYUbmCLv8jeK6lKZrFTG/\nCwIDAQAB\n-----END PUBLIC KEY-----\n",
                  algorithm: "rsa-v1_5-sha256",
                  addedAt: "2026-01-05T09:30:00.000Z",
                  active: true,
                },
              ],
              version: 3,
              createdAt: "2026-01-05T09:30:00.000Z",
              updatedAt: "2026-01-05T09:30:00.000Z",
            },
          },
        },
      },
    },
  },
  listAuthFailures: {
    tag: "troubleshooting",
    summary: "The client's recent refused requests, so a partner can troubleshoot: those its own keys signed as " +
      "entries (up to 20, newest first), and those anyone could have sent naming it as counts per reason " +
      "and hour (kept 7 days).",
    description: "A refusal is an entry in `failures` only when one of the client's own keys signed the request " +
      "(`ip_not_allowed`, `role_forbidden`, `key_expired`, `client_disabled`, `replayed_request`): only the " +
      "client can cause those, so they say what it asked for. Every other refusal naming the client (a bad " +
      "signature, an expired `created`, malformed headers, ...) may come from anyone who knows the " +
      "clientId: it only adds to `unauthenticated`, a count per reason code and window, with nothing the " +
      "request chose, so such requests cannot push the client's own entries out. Counts are written at most " +
      "once per client and reason per `SIGNET_AUTH_FAILURE_RECORD_INTERVAL_MS` per authorizer instance (the " +
      "ones in between are added with the next write), so the latest ones may show up later.",
    responses: {
      "200": {
        description: "Recent failures.",
        examples: {
          failures: {
            value: {
              clientId: "c_W1tVZ6hq0fJ3n5y7bXk2Ag",
              failures: [
                {
                  at: "2026-01-05T10:00:00.000Z",
                  reason: "ip_not_allowed",
                  message: "Requests from 198.51.100.4 are not in this client's network whitelist. Ask the API owner to add your " +
                    "egress address or range.",
                  sourceIp: "198.51.100.4",
                  method: "POST",
                  path: "/api/orders",
                },
                {
                  at: "2026-01-05T09:59:00.000Z",
                  reason: "role_forbidden",
                  sourceIp: "203.0.113.7",
                  method: "DELETE",
                  path: "/api/orders/42",
                },
              ],
              unauthenticated: {
                windowSeconds: 3600,
                windows: [
                  { start: "2026-01-05T10:00:00.000Z", counts: { signature_mismatch: 50, clock_skew: 2 } },
                  { start: "2026-01-05T09:00:00.000Z", counts: { expired: 1 } },
                ],
              },
            },
          },
        },
      },
    },
  },
  listAudit: {
    tag: "troubleshooting",
    summary: "The client's audit trail (who changed what, when), newest first.",
    parameters: { cursor: "`nextCursor` of the previous page, unchanged." },
    responses: {
      "200": {
        description: "A page of audit entries.",
        examples: {
          trail: {
            value: {
              clientId: "c_W1tVZ6hq0fJ3n5y7bXk2Ag",
              entries: [
                {
                  clientId: "c_W1tVZ6hq0fJ3n5y7bXk2Ag",
                  accountId: "acct_default",
                  at: "2026-01-06T08:00:00.000Z",
                  actor: "c_AdminAdminAdminAdmin0A",
                  action: "client.updated",
                  version: 2,
                  changes: { networkWhitelist: { from: ["203.0.113.7"], to: ["203.0.113.7","2001:db8::/32"] } },
                },
                {
                  clientId: "c_W1tVZ6hq0fJ3n5y7bXk2Ag",
                  accountId: "acct_default",
                  at: "2026-01-05T09:30:00.000Z",
                  actor: "c_AdminAdminAdminAdmin0A",
                  action: "client.created",
                  version: 1,
                  changes: {
                    name: { to: "Acme payments" },
                    status: { to: "active" },
                    networkWhitelist: { to: ["203.0.113.7"] },
                    roles: { to: ["registry:admin"] },
                  },
                  keysAdded: ["8eX42bFnyGjnP5XDewS5Ofldp9e--Hjg5QLWyPCPStg"],
                },
              ],
            },
          },
        },
      },
    },
  },
  listExpiringKeys: {
    tag: "keys",
    summary: "Keys added more than `olderThanDays` days ago (default 90), oldest first: partner-held keys due for " +
      "rotation.",
    description: "Operators only (it spans every account): account admins get 403 `role_forbidden`.",
    parameters: { cursor: "`nextCursor` of the previous page, unchanged." },
    responses: {
      "200": {
        description: "A page of keys.",
        examples: {
          due: {
            value: {
              olderThanDays: 90,
              keys: [
                {
                  clientId: "c_W1tVZ6hq0fJ3n5y7bXk2Ag",
                  fingerprint: "8eX42bFnyGjnP5XDewS5Ofldp9e--Hjg5QLWyPCPStg",
                  addedAt: "2026-01-05T09:30:00.000Z",
                  ageDays: 120,
                },
              ],
            },
          },
        },
      },
    },
  },
  listRoles: {
    tag: "clients",
    summary: "The role names of the role catalogue, sorted: what `roles` may contain when a client is created or " +
      "edited (the client portal offers these).",
    description: "Operators get every role of the catalogue; account admins get the roles they may give (their " +
      "account's ceiling).",
    responses: {
      "200": {
        description: "The role names.",
        examples: { roles: { value: { roles: ["demo","registry:admin"] } } },
      },
    },
  },
  createAccount: {
    tag: "accounts",
    summary: "Create an account for a partner organisation (operators only).",
    description: "Answers 201 with the account and its generated `accountId`. `roleCeiling` lists the roles its " +
      "account admins may give; it never includes `registry:admin` (400 `role_not_allowed`).",
    requestExamples: { partner: { value: { name: "Acme payments", roleCeiling: ["demo","account:admin"] } } },
    responses: {
      "201": {
        description: "The account.",
        headers: {
          ETag: "The account version, e.g. `\"1\"`: send it back as If-Match.",
          Location: "`/registry/accounts/{accountId}`",
        },
        examples: {
          account: {
            value: {
              accountId: "acct_Q2hKx8mV1tP4wR7zN0bYfA",
              name: "Acme payments",
              roleCeiling: ["demo","account:admin"],
              version: 1,
              createdAt: "2026-01-05T09:30:00.000Z",
              updatedAt: "2026-01-05T09:30:00.000Z",
            },
          },
        },
      },
    },
  },
  listAccounts: {
    tag: "accounts",
    summary: "List accounts (operators only), the default account first.",
    parameters: { cursor: "`nextCursor` of the previous page, unchanged." },
    responses: {
      "200": {
        description: "A page of accounts.",
        examples: {
          page: {
            value: {
              accounts: [
                {
                  accountId: "acct_default",
                  name: "Default account",
                  roleCeiling: [],
                  version: 0,
                  createdAt: "1970-01-01T00:00:00.000Z",
                  updatedAt: "1970-01-01T00:00:00.000Z",
                },
                {
                  accountId: "acct_Q2hKx8mV1tP4wR7zN0bYfA",
                  name: "Acme payments",
                  roleCeiling: ["demo","account:admin"],
                  version: 1,
                  createdAt: "2026-01-05T09:30:00.000Z",
                  updatedAt: "2026-01-05T09:30:00.000Z",
                },
              ],
            },
          },
        },
      },
    },
  },
  getAccount: {
    tag: "accounts",
    summary: "An account: operators any, account admins their own (another answers 404).",
    responses: {
      "200": {
        description: "The account.",
        headers: { ETag: "The account version, e.g. `\"1\"`: send it back as If-Match." },
        examples: {
          account: {
            value: {
              accountId: "acct_Q2hKx8mV1tP4wR7zN0bYfA",
              name: "Acme payments",
              roleCeiling: ["demo","account:admin"],
              version: 1,
              createdAt: "2026-01-05T09:30:00.000Z",
              updatedAt: "2026-01-05T09:30:00.000Z",
            },
          },
          default: {
            value: {
              accountId: "acct_default",
              name: "Default account",
              roleCeiling: [],
              version: 0,
              createdAt: "1970-01-01T00:00:00.000Z",
              updatedAt: "1970-01-01T00:00:00.000Z",
            },
          },
        },
      },
    },
  },
  updateAccount: {
    tag: "accounts",
    summary: "Rename an account or set its role ceiling (operators only).",
    description: "Needs the version you read (body `version` or If-Match); a stale version is 409 `version_conflict`. " +
      "Lowering the ceiling does not take roles from clients that hold them; account admins simply cannot " +
      "give them any more. A client holding a role outside the ceiling is one whose keys only operators may " +
      "change (account admins get 403 `client_above_ceiling`).",
    ifMatch: "The ETag you read (`\"1\"`); instead of, or agreeing with, `version` in the body.",
    requestExamples: { ceiling: { value: { version: 1, roleCeiling: ["demo","orders:read"] } } },
    responses: {
      "200": {
        description: "The account as changed.",
        headers: { ETag: "The account version, e.g. `\"1\"`: send it back as If-Match." },
        examples: {
          account: {
            value: {
              accountId: "acct_Q2hKx8mV1tP4wR7zN0bYfA",
              name: "Acme payments",
              roleCeiling: ["demo","orders:read"],
              version: 2,
              createdAt: "2026-01-05T09:30:00.000Z",
              updatedAt: "2026-01-06T10:00:00.000Z",
            },
          },
        },
      },
    },
  },
  listAccountAudit: {
    tag: "accounts",
    summary: "The account's audit trail: every change to the account and to its clients (who, what, when), newest first.",
    parameters: { cursor: "`nextCursor` of the previous page, unchanged." },
    responses: {
      "200": {
        description: "A page of entries.",
        examples: {
          entries: {
            value: {
              accountId: "acct_Q2hKx8mV1tP4wR7zN0bYfA",
              entries: [
                {
                  at: "2026-01-05T09:41:00.000Z",
                  actor: "c_W1tVZ6hq0fJ3n5y7bXk2Ag",
                  actorAccountId: "acct_default",
                  action: "client.created",
                  version: 1,
                  clientId: "c_8Lq2Vw5nR0tY3uK6mP9sXa",
                  accountId: "acct_Q2hKx8mV1tP4wR7zN0bYfA",
                  changes: {
                    name: { to: "Acme orders" },
                    status: { to: "active" },
                    networkWhitelist: { to: ["203.0.113.0/24"] },
                    roles: { to: ["demo"] },
                  },
                  keysAdded: ["lLLBAficwm02Qarn8AAKRR8YJA0E5NXbGEI-EwxM5Tw"],
                },
                {
                  at: "2026-01-05T09:30:00.000Z",
                  actor: "c_W1tVZ6hq0fJ3n5y7bXk2Ag",
                  actorAccountId: "acct_default",
                  action: "account.created",
                  version: 1,
                  accountId: "acct_Q2hKx8mV1tP4wR7zN0bYfA",
                  changes: { name: { to: "Acme payments" }, roleCeiling: { to: ["demo","account:admin"] } },
                },
              ],
            },
          },
        },
      },
    },
  },
};

export const DOCUMENT_PROSE: DocumentProse = {
  openapi: "3.1.0",
  jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
  info: {
    title: "Signet client registry",
    version: "1.0.0",
    summary: "Register the clients (API key records) whose signed requests Signet accepts.",
    description: "The registry holds, per client: a name, a network whitelist, one or more public keys (RSA, " +
      "Ed25519, ECDSA P-256 or P-384; each verifies one of the five RFC 9421 algorithms `rsa-v1_5-sha256`, " +
      "`rsa-pss-sha512`, `ecdsa-p256-sha256`, `ecdsa-p384-sha384`, `ed25519`), roles, an optional coverage " +
      "profile, and the service-generated `clientId` that signers put in the RFC 9421 `keyid` parameter.\n\n" +
      "Every route is itself protected by the signature scheme: the caller signs the request (RFC 9421, with " +
      "the algorithm of its key, covering `@method`, `@target-uri`, `date` and, with a body, " +
      "`content-digest`) with a key of a client holding the role `registry:admin` (operators) or " +
      "`account:admin` (a partner's account admins). The registry checks the body against the signed " +
      "Content-Digest. Each route's `x-signet-callers` says who may call it: `operators` only, or " +
      "`operators and account admins`.\n\n" +
      "Edits use optimistic concurrency: send the `version` you read (in the body, or as If-Match with the " +
      "ETag); a stale version answers 409 `version_conflict` and changes nothing. Every change writes an " +
      "audit entry (who, what, when).\n\nErrors are JSON `{error, message, requestId}`: `error` is a stable " +
      "code to branch on, `message` a sentence to act on. A private key pasted where the public key belongs " +
      "is refused with `private_key_submitted`, never stored, logged or echoed: treat that key as exposed.\n\n" +
      "Accounts: every client belongs to one account (a partner organisation). Callers with " +
      "`registry:admin` (the API owner's operators) manage every account and client, create accounts " +
      "(`/registry/accounts`) and set each account's role ceiling. Callers with `account:admin` manage only " +
      "the clients of their own account (list, create, edit, rotate keys, disable, read auth failures and " +
      "audit): anything outside it answers 404 `not_found`, exactly as an id nobody holds, and a role " +
      "outside the account's ceiling answers 400 `role_not_allowed` with `allowedRoles`; the keys, the " +
      "whitelist and the profile of a client holding a role outside the ceiling (which only operators give) " +
      "are the operators' to change, and so is enabling it (403 `client_above_ceiling`). Every audit entry names the client's account, the acting client and " +
      "the acting client's account.\n\nPropagation: every successful response carries " +
      "`x-signet-authorizer-cache-ttl`: after a write (any method but GET), the seconds an authorizer that " +
      "already holds the client's record may go on deciding with the record as it was before the write (its " +
      "client cache TTL; longer only while the table is unreachable, up to its stale-if-error bound); after " +
      "a read, how long a change made now would take to reach the authorizers (a key rotation waits that " +
      "long before it switches keys). `0` means a change applies to the next request (the local gateway, " +
      "where registry and authorizer share one process).",
  },
  servers: [
    { url: "http://127.0.0.1:3000", description: "`npm start` (local gateway)" },
    {
      url: "https://{apiId}.execute-api.{region}.amazonaws.com",
      variables: { apiId: { default: "abc123" }, region: { default: "eu-west-1" } },
    },
  ],
  security: [{"httpMessageSignature":[]}],
  tags: [{"name":"clients"},{"name":"keys"},{"name":"troubleshooting"},{"name":"accounts"}],
  components: {
    securitySchemes: {
      httpMessageSignature: {
        type: "apiKey",
        in: "header",
        name: "Signature",
        description: "RFC 9421 HTTP Message Signatures: `Signature-Input` and `Signature` with label `sig`, " +
          "`alg` = the algorithm of the caller's key (`rsa-v1_5-sha256`, `rsa-pss-sha512`, `ecdsa-p256-sha256`, " +
          "`ecdsa-p384-sha384` or `ed25519`), `keyid` = the caller's clientId, `created`; covering `@method`, " +
          "`@target-uri`, `date`, and `content-digest` when there is a body (RFC 9530 `Content-Digest: " +
          "sha-256=:...:`). The caller needs the role `registry:admin` or `account:admin`. OpenAPI has no scheme type for message " +
          "signatures; `apiKey` on the `Signature` header is the closest description.",
      },
    },
    responses: {
      BadRequest: {
        description: "The request is malformed or a value is refused. `error` says which rule; `message` says what to do.",
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/Error" },
            examples: {
              private_key_submitted: {
                value: {
                  error: "private_key_submitted",
                  message: "This is a private key. Paste only the public half (-----BEGIN PUBLIC KEY-----), and treat this " +
                    "private key as exposed: generate a new key pair.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
              key_too_small: {
                value: {
                  error: "key_too_small",
                  message: "The RSA public key has 1024 bits; at least 2048 are required. Generate a new key pair.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
              unsupported_key_type: {
                value: {
                  error: "unsupported_key_type",
                  message: "The key is ECDSA on secp256k1; Signet accepts P-256 and P-384 (RFC 9421 §3.3.4, §3.3.5).",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
              invalid_public_key: {
                value: {
                  error: "invalid_public_key",
                  message: "The public key is neither PEM nor Base64 DER. Paste the SPKI PEM (-----BEGIN PUBLIC KEY-----).",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
              invalid_network: {
                value: {
                  error: "invalid_network",
                  message: "Network whitelist entry \"10.0.0.300\" is not an IPv4 or IPv6 address or CIDR range. Use e.g. " +
                    "203.0.113.7, 198.51.100.0/24 or 2001:db8::/32; 0.0.0.0 allows everyone.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
              unknown_role: {
                value: {
                  error: "unknown_role",
                  message: "Unknown role(s): \"superuser\". Known roles: registry:admin.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
              invalid_request: {
                value: {
                  error: "invalid_request",
                  message: "Unknown field(s): \"owner\". This route accepts: name, networkWhitelist, publicKey, roles.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
              too_many_clients: {
                value: {
                  error: "too_many_clients",
                  message: "This account has more than 5,000 clients, more than the registry searches, filters or sorts at once. " +
                    "Page through it without q, status, role, sort, order (creation order), find one client with " +
                    "fingerprint=, or search one account at a time with account=.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
              digest_mismatch: {
                value: {
                  error: "digest_mismatch",
                  message: "The body does not match the signed Content-Digest. Compute the digest over the exact bytes you send " +
                    "(same serialisation, no added newline).",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
              role_not_allowed: {
                value: {
                  error: "role_not_allowed",
                  message: "Your account may not give the role(s) \"payments:refund\". It may give: \"demo\", \"orders:read\". Ask the " +
                    "API owner to raise the account's role ceiling.",
                  allowedRoles: ["demo","orders:read"],
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
            },
          },
        },
      },
      Unauthorized: {
        description: "The request's signature was not accepted (answered by the Signet authorizer, not the registry), on " +
          "a REST API, which returns this JSON body through gateway responses. An HTTP API answers a refused " +
          "signature with 403 `{\"message\":\"Forbidden\"}` instead (it cannot customise an authorizer's " +
          "refusal), and 401 `{\"message\":\"Unauthorized\"}` only to a request with no `Signature` header: " +
          "read the reason with `GET /registry/clients/{clientId}/auth-failures` or in the authorizer's logs.",
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/Error" },
            examples: {
              signature_mismatch: {
                value: {
                  error: "signature_mismatch",
                  message: "The signature does not verify with the client's keys.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
            },
          },
        },
      },
      Forbidden: {
        description: "The signature is good but the caller may not do this: its IP is outside its whitelist, or its roles " +
          "do not allow the route (answered by the authorizer; an HTTP API answers every refusal of its authorizer, " +
          "a bad signature included, with 403 `{\"message\":\"Forbidden\"}`); or an account " +
          "admin asked for an operator-only route (accounts, keys due for rotation), to change a client that " +
          "holds `registry:admin`, or to add, replace or remove a key of a client holding a role outside its " +
          "account's ceiling, enable it or change its whitelist or profile (`client_above_ceiling`; answered by " +
          "the registry); or the signature does not cover " +
          "the request's method and path (a `web-bot-auth` signature of the authority alone: `request_not_bound`, " +
          "answered by the registry on every route).",
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/Error" },
            examples: {
              role_forbidden: {
                value: {
                  error: "role_forbidden",
                  message: "The client's roles do not allow POST /registry/clients.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
              operator_only: {
                value: {
                  error: "role_forbidden",
                  message: "Only the API owner's operators (role registry:admin) may create accounts.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
              client_above_ceiling: {
                value: {
                  error: "client_above_ceiling",
                  message: "This client holds \"payments:refund\", outside your account's role ceiling (only the API owner's " +
                    "operators give such roles), so you may not add, replace or remove its keys: the key's holder would " +
                    "sign with those roles. Ask the API owner's operators to change its keys, or first remove those roles " +
                    "from the client (PATCH roles), then change its keys.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
              request_not_bound: {
                value: {
                  error: "request_not_bound",
                  message: "The registry takes only requests whose signature covers their method and path (@method and " +
                    "@target-uri, or @authority, @path and @query): this signature says who sent the request, not what it " +
                    "asked for. Sign registry requests with those components (signet sign does).",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
            },
          },
        },
      },
      NotFound: {
        description: "No client, account, key or route has this id, or it is outside the caller's account (the two answers " +
          "are the same).",
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/Error" },
            examples: {
              not_found: {
                value: {
                  error: "not_found",
                  message: "No client has this clientId. Check the id, or find it with GET /registry/clients?fingerprint=<key " +
                    "fingerprint>.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
              account_not_found: {
                value: {
                  error: "not_found",
                  message: "No account has the id acct_Q2hKx8mV1tP4wR7zN0bYfA. Check the accountId, or list accounts with GET " +
                    "/registry/accounts.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
            },
          },
        },
      },
      Conflict: {
        description: "`version_conflict`: the client changed since the version you sent (read it again and reapply). " +
          "`key_already_registered`: the key belongs to a client already (on another account's client, a " +
          "registration is refused rather than skipped). `last_key`: removing or expiring this key would leave " +
          "the client without an active key. `last_admin`: the change would leave no active client with " +
          "`registry:admin` (give the role to another client, or enable one, first). `self_lockout`: the caller " +
          "would disable its own client, take `registry:admin` / `account:admin` from it, or switch it to a " +
          "coverage profile its signer may not meet (have another administrator do it).",
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/Error" },
            examples: {
              version_conflict: {
                value: {
                  error: "version_conflict",
                  message: "The client was changed by someone else: you edited version 1, it is now at version 2. Read it again, " +
                    "reapply your change, and send the new version.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
              key_already_registered: {
                value: {
                  error: "key_already_registered",
                  message: "This public key (fingerprint 8eX42bFnyGjnP5XDewS5Ofldp9e--Hjg5QLWyPCPStg) is already registered on " +
                    "client c_W1tVZ6hq0fJ3n5y7bXk2Ag. A key belongs to one client only: generate a new key pair for this " +
                    "client.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
              last_key: {
                value: {
                  error: "last_key",
                  message: "This is the client's last active key, so removing it would lock the client out. Add the new key " +
                    "first (POST /registry/clients/{clientId}/keys), then remove this one.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
              key_taken_elsewhere: {
                value: {
                  error: "key_already_registered",
                  message: "This public key is already registered on another client. A key belongs to one client only: generate " +
                    "a new key pair for this client. If that client is in your account, GET " +
                    "/registry/clients?fingerprint=<fingerprint> finds it; if not and the key pair is yours, ask the API " +
                    "owner's operators to release the key (they can see who holds it).",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
              key_taken_in_another_account: {
                value: {
                  error: "key_already_registered",
                  message: "This public key (fingerprint 8eX42bFnyGjnP5XDewS5Ofldp9e--Hjg5QLWyPCPStg) is already registered on " +
                    "client c_W1tVZ6hq0fJ3n5y7bXk2Ag in account acct_Q2hKx8mV1tP4wR7zN0bYfA, not in acct_default where " +
                    "you asked to register it; nothing was created. A key belongs to one client only. If that client " +
                    "holds it by mistake, or without holding its private key, release it: disable that client and replace " +
                    "its key with another (PATCH publicKey), then register again. Otherwise generate a new key pair.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
              last_admin: {
                value: {
                  error: "last_admin",
                  message: "This is the last active client with registry:admin: if you disable it, nobody can administer the " +
                    "registry any more. Give registry:admin to another client (or enable one that has it) first, then " +
                    "retry.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
              self_lockout: {
                value: {
                  error: "self_lockout",
                  message: "You cannot disable the client you are calling with: you would lock yourself out of the registry. " +
                    "Have another administrator disable it, or disable it from another client.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
            },
          },
        },
      },
      PayloadTooLarge: {
        description: "The body is larger than 65,536 bytes.",
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/Error" },
            examples: {
              payload_too_large: {
                value: {
                  error: "payload_too_large",
                  message: "The body has 70000 bytes; the registry accepts at most 65536.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
            },
          },
        },
      },
      TooManyRequests: {
        description: "The caller's searches (`q`, `status`, `role`, `sort`, `order`) read more than its search budget in " +
          "the current window (50,000 client records and key last uses a minute by default, counted per caller " +
          "across every registry instance): each search page reads the whole account. Wait `Retry-After` " +
          "seconds, or page without search parameters (not counted), or find one client with `fingerprint=`.",
        headers: {
          "Retry-After": {
            description: "Seconds until the caller's budget window ends.",
            schema: { type: "integer", minimum: 1 },
          },
        },
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/Error" },
            examples: {
              search_budget_exceeded: {
                value: {
                  error: "search_budget_exceeded",
                  message: "Your searches read 50,412 clients and key last uses in this 60-second window, the most one caller " +
                    "may (50,000): every search page reads the whole account. Retry after 17 s, page through the account " +
                    "without q, status, role, sort and order (one page read per page), or find one client with " +
                    "fingerprint=.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
            },
          },
        },
      },
      InternalError: {
        description: "An unexpected failure; it is logged with the requestId.",
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/Error" },
            examples: {
              internal_error: {
                value: {
                  error: "internal_error",
                  message: "The registry failed unexpectedly. The error has been logged; retry, and report it if it persists.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
            },
          },
        },
      },
      Unavailable: {
        description: "DynamoDB did not answer; nothing was changed unless a later read shows it. Retry shortly.",
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/Error" },
            examples: {
              dependency_unavailable: {
                value: {
                  error: "dependency_unavailable",
                  message: "Could not create the client: DynamoDB did not answer or refused the request. Retry shortly.",
                  requestId: "ZhNHJhhLjoEEPiw=",
                },
              },
            },
          },
        },
      },
    },
  },
};
