/**
 * `signet clients create|list|get|update|disable|enable|find|failures|audit`: the registry's client
 * routes (docs/openapi/registry.json), signed with the admin key. See ./registry-client.ts for
 * `--endpoint` and `--admin`.
 *
 *   signet clients create --name NAME --role ROLE... --network ADDR_OR_CIDR... (--public-key FILE | --out DIR | --jwks-uri URL | --signature-agent ORIGIN) [--account ACCOUNT_ID]
 *   signet clients list [--search TEXT] [--status active|disabled] [--role ROLE] [--sort name|created|last-used] [--order asc|desc] [--account ACCOUNT_ID] [--limit N] [--cursor C] [--json]
 *   signet clients get|show CLIENT_ID
 *   signet clients update CLIENT_ID [--name NAME] [--role ROLE...] [--network ...] [--public-key FILE | --jwks-uri URL | --signature-agent ORIGIN] [--version N]
 *   signet clients disable|enable CLIENT_ID [--version N]
 *   signet clients find (--public-key FILE | --fingerprint FP) [--account ACCOUNT_ID]
 *   signet clients failures CLIENT_ID
 *   signet clients audit CLIENT_ID [--limit N] [--cursor C]
 *
 * `--jwks-uri URL` and `--signature-agent ORIGIN` give the client a published key source instead of a
 * pasted key (docs/published-keys.md): the registry fetches it once before it registers anything,
 * and refreshes it from then on. The URL is checked here by the core's rules first (with the
 * local gateway's `http://127.0.0.1` allowance: a deployed registry refuses plain http itself).
 *
 * `--out DIR` makes a new key pair and writes it with the new clientId as a client directory
 * (usable with `signet request --client DIR`): the key files before anything is sent (DIR must be
 * the user's own, writable by no one else, and hold no key pair), the clientId after the 201.
 * Edits without `--version` read the current version first; a change made in between still fails
 * with 409 `version_conflict`.
 *
 * Answers print as a table (list, find, failures) or a short summary (one client) with no PEM;
 * `--json` prints the registry's JSON answer as it came. `signet help clients <sub>` lists every flag.
 *
 * `--account` names the account (partner organisation) to create in, list or search. Without it,
 * an operator (`registry:admin`) works in the default account `acct_default`, and an account
 * admin (`account:admin`, its key given with `--admin DIR`) in its own, the only one it may name.
 *
 * Every client the answer shows whose network whitelist lets in every address (`0.0.0.0`, any `/0`,
 * ranges covering all of IPv6 together) or every IPv4 address (`::ffff:0:0/96`, ranges covering
 * all of IPv4 together) gets a note on stderr saying which (core `listReach`), so it is never a surprise.
 */
import { join } from 'node:path';
import { type ListReach, listReach } from '../../lambda/core/network-entries';
import { generateRsaKeyPair, spkiPemOf } from '../../lambda/core/keys';
import { type KeySource, keySourceRequest } from '../../lambda/core/key-source-url';
import { isClientId } from '../../lambda/store/client-id';
import { existingKeyFiles, prepareClientDir, writeClientId, writeKeyFiles } from '../../local/client-dir';
import { Options, UsageError, parse, readPublicKeyFile } from './args';
import { printable } from './printable';
import { CommandHelp, FlagHelp, GroupHelp } from './help';
import { REGISTRY_FLAGS, REGISTRY_OPTIONS, RegistryAnswer, RegistryClient, clientPath, runRegistryCommand, versionOf, VERSION_FLAG } from './registry-client';
import { Formatter, auditTable, clientSummary, clientTable, failureTable } from './registry-output';

interface Subcommand {
  readonly help: Omit<CommandHelp, 'options' | 'flags'> & { readonly flags: Readonly<Record<string, FlagHelp>> };
  readonly options: Options;
  /** How many positional arguments (after the subcommand) it takes. */
  readonly positionals: number;
  /** How the answer reads without --json. */
  readonly format: Formatter;
  readonly run: (registry: RegistryClient, values: Record<string, unknown>, args: string[]) => Promise<RegistryAnswer>;
}

const FIELD_OPTIONS = {
  name: { type: 'string' },
  role: { type: 'string', multiple: true },
  network: { type: 'string', multiple: true },
  'public-key': { type: 'string' },
  algorithm: { type: 'string' },
  profile: { type: 'string' },
  'jwks-uri': { type: 'string' },
  'signature-agent': { type: 'string' },
} as const;

const VERSION_OPTION = { version: { type: 'string' } } as const;

const ACCOUNT_OPTION = { account: { type: 'string' } } as const;

const PAGE_OPTIONS = { limit: { type: 'string' }, cursor: { type: 'string' } } as const;

const SEARCH_OPTIONS = { search: { type: 'string' }, status: { type: 'string' }, role: { type: 'string' }, sort: { type: 'string' }, order: { type: 'string' } } as const;

/** `--sort` words → the registry's `sort` values. */
const SORTS: Readonly<Record<string, string>> = { name: 'name', created: 'createdAt', 'last-used': 'lastUsedAt' };

const FLAG_HELP: Readonly<Record<string, FlagHelp>> = {
  name: { meaning: "the client's display name, e.g. the partner's name", value: 'NAME' },
  role: { meaning: 'a role from the role catalogue (docs/local-gateway.md, "The local role catalogue"; the registry lists them at GET /registry/roles)', value: 'ROLE' },
  network: { meaning: 'an address or CIDR the client may call from (0.0.0.0 allows everyone)', value: 'ADDR_OR_CIDR' },
  'public-key': { meaning: "the client's PUBLIC key file (public.pem, any SPKI PEM, or a JWK); a private key is refused before anything is sent", value: 'FILE' },
  algorithm: { meaning: "the key's algorithm: only for an RSA key that signs rsa-pss-sha512 (RSA keys are rsa-v1_5-sha256 otherwise; Ed25519 and ECDSA keys have one each)", value: 'ALG' },
  profile: {
    meaning:
      "what the client's signatures must cover, overriding the deployment's SIGNET_PROFILE: signet (label sig, alg, @target-uri, date), " +
      'rfc9421 (any RFC 9421 signer, e.g. curl --httpsig) or web-bot-auth (Web Bot Auth agents: tag, expires, @authority)',
    value: 'signet|rfc9421|web-bot-auth',
    default: "the deployment's; web-bot-auth with --signature-agent",
  },
  'jwks-uri': { meaning: "take the client's keys from the JWKS the partner publishes at this https URL (fetched now, then refreshed; instead of a pasted key)", value: 'URL' },
  'signature-agent': { meaning: "take the client's keys from this Web Bot Auth agent's key directory (ORIGIN/.well-known/http-message-signatures-directory; fetched now, then refreshed)", value: 'ORIGIN' },
  ...VERSION_FLAG,
  account: { meaning: 'the account (partner organisation) to work in', value: 'ACCOUNT_ID', default: "acct_default for operators, an account admin's own account" },
  limit: { meaning: 'at most this many per page', value: 'N', default: 'the registry\'s page size' },
  cursor: { meaning: 'the next page: the cursor the previous page printed', value: 'CURSOR' },
  out: { meaning: 'make a new key pair and write it, with the new clientId, as a client directory here (usable as --client DIR)', value: 'DIR' },
  fingerprint: { meaning: "a key's fingerprint (base64url SHA-256 of its SPKI DER)", value: 'FP' },
  ...REGISTRY_FLAGS,
};

/** `clients list`: its own meaning of --role, and the search flags. */
const LIST_FLAG_HELP: Readonly<Record<string, FlagHelp>> = {
  ...FLAG_HELP,
  search: { meaning: 'only clients whose name contains TEXT (any case), or whose clientId or a key fingerprint starts with it (4 characters or more)', value: 'TEXT' },
  status: { meaning: 'only active or only disabled clients', value: 'active|disabled' },
  role: { meaning: 'only clients holding this role', value: 'ROLE' },
  sort: { meaning: 'order by name, creation time or last use (then by clientId)', value: 'name|created|last-used', default: 'creation order, oldest first' },
  order: { meaning: 'ascending or descending', value: 'asc|desc', default: 'asc for name, desc for created and last-used' },
};

const SHOW_SUMMARY = "show one client: each key's fingerprint, thumbprint, algorithm and last use, and a published key source's state";

const SHOW_NOTE =
  "A client with a published key source also shows the source, when it was last fetched and will be next, its last success, since when it fails and the last error, and until when its keys are kept if no fetch succeeds; each published key shows its kid and its nbf/exp.";

const CLIENT_ID_ARG = { CLIENT_ID: 'the clientId as the registry gave it (c_...)' };

const SUBCOMMANDS: Record<string, Subcommand> = {
  create: {
    help: {
      summary: 'register a client: its name, roles, networks and public key (or a key pair made here, or the URL where it publishes its keys)',
      usage: 'clients create --name NAME --role ROLE... --network ADDR_OR_CIDR... (--public-key FILE [--algorithm ALG] | --out DIR | --jwks-uri URL | --signature-agent ORIGIN) [--profile signet|rfc9421|web-bot-auth] [--account ACCOUNT_ID]',
      flags: FLAG_HELP,
      notes: [
        'Registering a public key that a client of the account already holds prints that client (registration: skipped) instead of a second one.',
        "A key held by a client of another account is refused (key_already_registered). If the key pair is yours, an operator finds the holder (clients find --fingerprint FP) and releases the key.",
        'With --jwks-uri or --signature-agent the registry fetches the source once before registering: a source that cannot be fetched, ' +
          'or holds no key Signet can use, is refused (key_source_refused, with the reason) and nothing is created. ' +
          'The keys are then refreshed on a schedule; `signet keys refresh CLIENT_ID` refreshes now.',
      ],
      examples: [
        "clients create --name 'Acme' --role demo --network 203.0.113.0/24 --public-key acme/public.pem",
        "clients create --name 'Local test' --role demo --network 127.0.0.1 --out .signet/test",
        "clients create --name 'Partner' --role demo --network 203.0.113.0/24 --jwks-uri https://partner.example/.well-known/jwks.json",
        "clients create --name 'Agent' --role demo --network 0.0.0.0 --signature-agent https://agent.example",
      ],
    },
    options: { ...FIELD_OPTIONS, ...ACCOUNT_OPTION, out: { type: 'string' } },
    positionals: 0,
    format: clientSummary,
    run: create,
  },
  list: {
    help: {
      summary: "list, search and sort an account's clients: id, name, status, roles, key count, last use, account",
      usage: 'clients list [--search TEXT] [--status active|disabled] [--role ROLE] [--sort name|created|last-used] [--order asc|desc] [--account ACCOUNT_ID] [--limit N] [--cursor CURSOR] [--json]',
      flags: LIST_FLAG_HELP,
      notes: [
        'LAST USED is when the client last got a request through (the latest of its keys), as the authorizer ' +
            'records it: a deployed authorizer at most once per key every 15 minutes per instance ' +
            '(SIGNET_LAST_USED_RECORD_INTERVAL_MS), so it may be that much behind; the local gateway (npm start) ' +
            'every second; "never" when no use is recorded.',
        'With --search, --status, --role, --sort or --order the registry searches the whole account (up to 5,000 clients) and says how many match; give the same flags with --cursor for the next page.',
        'Every such page reads the whole account: one caller may search 50,000 clients and key last uses a minute (search_budget_exceeded past it; wait the seconds it says, or list without those flags).',
      ],
      examples: ['clients list', 'clients list --search acme --status active --sort last-used', 'clients list --account acct_... --sort name --json'],
    },
    options: { ...PAGE_OPTIONS, ...ACCOUNT_OPTION, ...SEARCH_OPTIONS },
    positionals: 0,
    format: clientTable,
    run: (registry, values) => registry.call('GET', '/registry/clients', { query: { account: text(values.account), ...searchQuery(values), limit: text(values.limit), cursor: text(values.cursor) } }),
  },
  get: {
    help: { summary: SHOW_SUMMARY, usage: 'clients get CLIENT_ID [--json]', flags: FLAG_HELP, arguments: CLIENT_ID_ARG, notes: [SHOW_NOTE], examples: ['clients get c_...'] },
    options: {},
    positionals: 1,
    format: clientSummary,
    run: (registry, _values, [id]) => registry.call('GET', clientPath(id)),
  },
  show: {
    help: { summary: 'the same as clients get', usage: 'clients show CLIENT_ID [--json]', flags: FLAG_HELP, arguments: CLIENT_ID_ARG, notes: [SHOW_NOTE], examples: ['clients show c_...'] },
    options: {},
    positionals: 1,
    format: clientSummary,
    run: (registry, _values, [id]) => registry.call('GET', clientPath(id)),
  },
  update: {
    help: {
      summary: "change a client's name, roles, networks, key or key source (each repeatable flag replaces the whole list)",
      usage: 'clients update CLIENT_ID [--name NAME] [--role ROLE...] [--network ADDR_OR_CIDR...] [--public-key FILE [--algorithm ALG] | --jwks-uri URL | --signature-agent ORIGIN] [--profile signet|rfc9421|web-bot-auth] [--version N]',
      flags: FLAG_HELP,
      arguments: CLIENT_ID_ARG,
      notes: [
        "An account admin may not replace the key (--public-key) of a client holding a role outside its account's ceiling (client_above_ceiling), unless the same update brings --role within the ceiling; otherwise an operator does it.",
        "Nor may it change such a client's --network or --profile (client_above_ceiling): an operator does, or the account admin takes those roles away first.",
        "--jwks-uri or --signature-agent switches the client to that published source: it is fetched first, and its keys replace the client's " +
          '(a source that yields no usable key is refused, key_source_refused, and nothing changes). ' +
          '--public-key on a client with a source switches it back to that one registered key.',
      ],
      examples: ['clients update c_... --network 203.0.113.0/24 --network 198.51.100.7', 'clients update c_... --jwks-uri https://partner.example/.well-known/jwks.json'],
    },
    options: { ...FIELD_OPTIONS, ...VERSION_OPTION },
    positionals: 1,
    format: clientSummary,
    run: update,
  },
  disable: {
    help: { summary: 'refuse every request of a client (client_disabled) until it is enabled again', usage: 'clients disable CLIENT_ID [--version N]', flags: FLAG_HELP, arguments: CLIENT_ID_ARG, examples: ['clients disable c_...'] },
    options: VERSION_OPTION,
    positionals: 1,
    format: clientSummary,
    run: (registry, values, [id]) => statusChange(registry, values, id, 'disable'),
  },
  enable: {
    help: {
      summary: 'accept a disabled client again',
      usage: 'clients enable CLIENT_ID [--version N]',
      flags: FLAG_HELP,
      arguments: CLIENT_ID_ARG,
      notes: ["An account admin may not enable a client holding a role outside its account's ceiling (client_above_ceiling): an operator does, or the account admin takes those roles away first."],
      examples: ['clients enable c_...'],
    },
    options: VERSION_OPTION,
    positionals: 1,
    format: clientSummary,
    run: (registry, values, [id]) => statusChange(registry, values, id, 'enable'),
  },
  find: {
    help: {
      summary: 'find the client holding a public key or a key fingerprint',
      usage: 'clients find (--public-key FILE | --fingerprint FP) [--account ACCOUNT_ID] [--json]',
      flags: FLAG_HELP,
      examples: ['clients find --public-key acme/public.pem', 'clients find --fingerprint lLLBAficwm02Qarn8AAKRR8YJA0E5NXbGEI-EwxM5Tw'],
    },
    options: { 'public-key': { type: 'string' }, fingerprint: { type: 'string' }, ...ACCOUNT_OPTION },
    positionals: 0,
    format: clientTable,
    run: (registry, values) => {
      const publicKey = text(values['public-key']);
      const fingerprint = text(values.fingerprint);
      if ((publicKey === undefined) === (fingerprint === undefined)) throw new UsageError('give --public-key FILE or --fingerprint FP');
      const account = text(values.account);
      return registry.call('GET', '/registry/clients', { query: { ...(publicKey !== undefined ? { publicKey: readPublicKeyFile(publicKey) } : { fingerprint }), account } });
    },
  },
  failures: {
    help: {
      summary: 'why a client was refused lately: time, code, request, source address, then counts of the refusals no key of it signed (the only way to see the reason behind a deployed HTTP API)',
      usage: 'clients failures CLIENT_ID [--json]',
      flags: FLAG_HELP,
      arguments: CLIENT_ID_ARG,
      examples: ['clients failures c_...'],
    },
    options: {},
    positionals: 1,
    format: failureTable,
    run: (registry, _values, [id]) => registry.call('GET', clientPath(id, '/auth-failures')),
  },
  audit: {
    help: {
      summary: "who changed what in one client, newest first: creation, edits, keys added and removed (an account's whole trail: signet accounts audit)",
      usage: 'clients audit CLIENT_ID [--limit N] [--cursor CURSOR] [--json]',
      flags: FLAG_HELP,
      arguments: CLIENT_ID_ARG,
      examples: ['clients audit c_...', 'clients audit c_... --limit 10'],
    },
    options: PAGE_OPTIONS,
    positionals: 1,
    format: auditTable,
    run: (registry, values, [id]) => registry.call('GET', clientPath(id, '/audit'), { query: { limit: text(values.limit), cursor: text(values.cursor) } }),
  },
};

/** The subcommand names, for usage lines. */
export const CLIENTS_SUBCOMMANDS = Object.keys(SUBCOMMANDS);

/** `signet help clients [subcommand]`. */
export const HELP: GroupHelp = {
  summary: "the registry's clients: create, list, get, show, update, disable, enable, find, and read refusals and audit",
  subcommands: Object.fromEntries(Object.entries(SUBCOMMANDS).map(([name, sub]) => [name, subcommandHelp(sub)])),
};

/** A subcommand's help lists exactly the flags it parses (its own and the registry's). */
function subcommandHelp(sub: Subcommand): CommandHelp {
  const options = { ...sub.options, ...REGISTRY_OPTIONS };
  return { ...sub.help, options, flags: Object.fromEntries(Object.keys(options).map((key) => [key, sub.help.flags[key]])) };
}

export async function run(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const sub = name === undefined ? undefined : SUBCOMMANDS[name];
  if (sub === undefined) throw new UsageError(`choose one of: ${CLIENTS_SUBCOMMANDS.join(', ')}`);
  const { values, positionals } = parse(rest, { ...sub.options, ...REGISTRY_OPTIONS });
  if (positionals.length !== sub.positionals) {
    throw new UsageError(sub.positionals === 1 ? `clients ${name} takes one CLIENT_ID` : `clients ${name} takes no positional argument`);
  }
  const registry = RegistryClient.fromOptions(values);
  return runRegistryCommand(async () => {
    const answer = await sub.run(registry, values, positionals);
    for (const note of openToEveryoneNotes(answer)) console.error(note);
    return answer;
  }, { json: values.json === true, format: sub.format });
}

/** A note for each client of a successful answer (one record, or a `clients` list) whose whitelist lets every address, or every IPv4 address, in. */
export function openToEveryoneNotes(answer: RegistryAnswer): string[] {
  if (answer.status < 200 || answer.status >= 300 || typeof answer.body !== 'object' || answer.body === null) return [];
  const body = answer.body as { clients?: unknown };
  const records: unknown[] = Array.isArray(body.clients) ? body.clients : [body];
  return records.flatMap((record) => {
    const { clientId, networkWhitelist } = (record ?? {}) as { clientId?: unknown; networkWhitelist?: unknown };
    if (typeof clientId !== 'string' || !Array.isArray(networkWhitelist) || !networkWhitelist.every((e) => typeof e === 'string')) return [];
    let reach: ListReach;
    try {
      reach = listReach(networkWhitelist as string[]);
    } catch {
      return [];
    }
    const id = printable(clientId); // the registry's answer, printed on the terminal
    const narrow = `Narrow it with: signet clients update ${id} --network ADDR_OR_CIDR`;
    if (reach === 'every-address') {
      return [`note: client ${id} accepts signed requests from every address (its network whitelist holds 0.0.0.0 or a /0 range, or ranges that together cover every IPv4 and IPv6 address). ${narrow}`];
    }
    if (reach === 'every-ipv4-address') {
      return [`note: client ${id} accepts signed requests from every IPv4 address (its network whitelist holds ::ffff:0:0/96, or ranges that together cover all of IPv4); IPv6 callers only from its IPv6 entries. ${narrow}`];
    }
    return [];
  });
}

async function create(registry: RegistryClient, values: Record<string, unknown>): Promise<RegistryAnswer> {
  const name = text(values.name);
  const roles = list(values.role);
  const networkWhitelist = list(values.network);
  if (name === undefined) throw new UsageError('--name is required');
  if (roles.length === 0) throw new UsageError('give at least one --role (e.g. --role demo)');
  if (networkWhitelist.length === 0) throw new UsageError('give at least one --network address or CIDR (--network 0.0.0.0 allows everyone)');
  const publicKeyFile = text(values['public-key']);
  const out = text(values.out);
  const source = keySourceOf(values);
  const given = [publicKeyFile !== undefined && '--public-key', out !== undefined && '--out', source !== undefined && `--${source.flag}`].filter((flag): flag is string => flag !== false);
  if (given.length !== 1) {
    const what = 'give one of: --public-key FILE (your public.pem), --out DIR (make a new key pair there), --jwks-uri URL or --signature-agent ORIGIN (keys the client publishes)';
    throw new UsageError(given.length === 0 ? what : `${what}; not ${given.join(' and ')} together`);
  }
  if (text(values.algorithm) !== undefined && publicKeyFile === undefined) throw new UsageError('--algorithm goes with --public-key only (a published key names its own algorithm; --out makes an RSA key)');
  if (out !== undefined) {
    prepareClientDir(out);
    const existing = existingKeyFiles(out);
    if (existing.length > 0) throw new UsageError(`${out} already holds a key pair (${existing.join(', ')}); nothing was sent. Choose an empty directory.`);
  }

  const generated = out !== undefined ? generateRsaKeyPair() : undefined;
  if (generated !== undefined && out !== undefined) writeKeyFiles(out, generated);
  const unregistered = `note: the new key pair in ${out} is not registered (its files are left there, harmless); to try again, delete them or give another --out DIR.`;
  const key = source !== undefined ? source.body : { publicKey: generated !== undefined ? spkiPemOf(generated.publicKey) : readPublicKeyFile(publicKeyFile as string) };
  const accountId = text(values.account);
  const extra = { ...(text(values.algorithm) !== undefined ? { algorithm: text(values.algorithm) } : {}), ...(text(values.profile) !== undefined ? { profile: text(values.profile) } : {}) };
  let answer: RegistryAnswer;
  try {
    answer = await registry.call('POST', '/registry/clients', { body: { name, networkWhitelist, ...key, roles, ...extra, ...(accountId !== undefined ? { accountId } : {}) } });
  } catch (error) {
    if (out !== undefined) console.error(unregistered);
    throw error;
  }
  if (out === undefined) return answer;
  if (answer.status !== 201) {
    console.error(unregistered);
    return answer;
  }
  const clientId = (answer.body as { clientId?: unknown } | undefined)?.clientId;
  if (!isClientId(clientId)) {
    const shown = printable(JSON.stringify(clientId ?? null).slice(0, 100));
    throw new Error(`the registry answered 201 with clientId ${shown}, which is not a clientId (c_ and 22 letters, digits, - or _); ${join(out, 'client-id')} was not written. Find the new client with \`signet clients find --public-key ${join(out, 'public.pem')}\`.`);
  }
  writeClientId(out, clientId);
  console.error(`wrote the key pair and client-id to ${out}; sign a request with them: signet request --client ${out} /api/echo`);
  return answer;
}

async function update(registry: RegistryClient, values: Record<string, unknown>, [id]: string[]): Promise<RegistryAnswer> {
  const changes: Record<string, unknown> = {};
  const name = text(values.name);
  if (name !== undefined) changes.name = name;
  if (values.role !== undefined) changes.roles = list(values.role);
  if (values.network !== undefined) changes.networkWhitelist = list(values.network);
  const publicKeyFile = text(values['public-key']);
  const source = keySourceOf(values);
  if (publicKeyFile !== undefined && source !== undefined) throw new UsageError(`give --public-key FILE or --${source.flag}, not both: a client has registered keys or a published key source`);
  if (text(values.algorithm) !== undefined && publicKeyFile === undefined) throw new UsageError('--algorithm goes with --public-key only (a published key names its own algorithm)');
  if (publicKeyFile !== undefined) changes.publicKey = readPublicKeyFile(publicKeyFile);
  if (source !== undefined) Object.assign(changes, source.body);
  if (text(values.algorithm) !== undefined) changes.algorithm = text(values.algorithm);
  if (text(values.profile) !== undefined) changes.profile = text(values.profile);
  if (Object.keys(changes).length === 0) throw new UsageError('nothing to change: give --name, --role, --network, --public-key, --jwks-uri, --signature-agent or --profile');
  const version = versionOf(values) ?? (await registry.currentVersion(id));
  return registry.call('PATCH', clientPath(id), { body: { version, ...changes } });
}

/**
 * `--jwks-uri URL` or `--signature-agent ORIGIN`, checked by the core's rules before anything is
 * sent (plain http allowed to 127.0.0.1 and localhost only: the local gateway's sources).
 */
function keySourceOf(values: Record<string, unknown>): { flag: 'jwks-uri' | 'signature-agent'; body: KeySource } | undefined {
  const jwksUri = text(values['jwks-uri']);
  const signatureAgent = text(values['signature-agent']);
  if (jwksUri !== undefined && signatureAgent !== undefined) throw new UsageError('give --jwks-uri URL or --signature-agent ORIGIN, not both: a client has one key source');
  if (jwksUri === undefined && signatureAgent === undefined) return undefined;
  const flag = jwksUri !== undefined ? 'jwks-uri' : 'signature-agent';
  const body: KeySource = jwksUri !== undefined ? { jwksUri } : { signatureAgent: signatureAgent as string };
  const checked = keySourceRequest(body, true);
  if (!checked.ok) throw new UsageError(`--${flag}: ${checked.message}`);
  return { flag, body };
}

async function statusChange(registry: RegistryClient, values: Record<string, unknown>, id: string, action: 'disable' | 'enable'): Promise<RegistryAnswer> {
  const version = versionOf(values);
  return registry.call('POST', clientPath(id, `/${action}`), version === undefined ? {} : { body: { version } });
}

/** The registry's search parameters from the list flags. */
function searchQuery(values: Record<string, unknown>): Record<string, string | undefined> {
  const status = text(values.status);
  if (status !== undefined && status !== 'active' && status !== 'disabled') throw new UsageError('--status must be active or disabled');
  const sortWord = text(values.sort);
  const sort = sortWord === undefined ? undefined : SORTS[sortWord];
  if (sortWord !== undefined && sort === undefined) throw new UsageError(`--sort must be one of: ${Object.keys(SORTS).join(', ')}`);
  const order = text(values.order);
  if (order !== undefined && order !== 'asc' && order !== 'desc') throw new UsageError('--order must be asc or desc');
  return { q: text(values.search), status, role: text(values.role), sort, order };
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function list(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v !== '') : [];
}
