/**
 * `signet clients create|list|get|update|disable|enable|find|failures`: the registry's client
 * routes (docs/openapi/registry.json), signed with the admin key. See ./registry-client.ts for
 * `--endpoint` and `--admin`.
 *
 *   signet clients create --name NAME --role ROLE... --network ADDR_OR_CIDR... (--public-key FILE | --out DIR) [--account ACCOUNT_ID]
 *   signet clients list [--account ACCOUNT_ID] [--limit N] [--cursor C]
 *   signet clients get CLIENT_ID
 *   signet clients update CLIENT_ID [--name NAME] [--role ROLE...] [--network ...] [--public-key FILE] [--version N]
 *   signet clients disable|enable CLIENT_ID [--version N]
 *   signet clients find (--public-key FILE | --fingerprint FP) [--account ACCOUNT_ID]
 *   signet clients failures CLIENT_ID
 *
 * `--out DIR` makes a new key pair and writes it with the new clientId as a client directory
 * (usable with `signet request --client DIR`). Edits without `--version` read the current
 * version first; a change made in between still fails with 409 `version_conflict`.
 *
 * `--account` names the account (partner organisation) to create in, list or search. Without it,
 * an operator (`registry:admin`) works in the default account `acct_default`, and an account
 * admin (`account:admin`, its key given with `--admin DIR`) in its own, the only one it may name.
 *
 * Every client the answer shows whose network whitelist lets everyone in (core `admitsEveryone`:
 * `0.0.0.0`, any `/0`, `::ffff:0:0/96`) gets a note on stderr, so it is never a surprise.
 */
import { admitsEveryone } from '../../lambda/core/ip-policy';
import { generateRsaKeyPair, spkiPemOf } from '../../lambda/core/keys';
import { hasClientKey, writeClientDir } from '../../local/client-dir';
import { Options, UsageError, parse, readText } from './args';
import { REGISTRY_OPTIONS, RegistryAnswer, RegistryClient, clientPath, runRegistryCommand, versionOf } from './registry-client';

interface Subcommand {
  readonly options: Options;
  /** How many positional arguments (after the subcommand) it takes. */
  readonly positionals: number;
  readonly run: (registry: RegistryClient, values: Record<string, unknown>, args: string[]) => Promise<RegistryAnswer>;
}

const FIELD_OPTIONS = {
  name: { type: 'string' },
  role: { type: 'string', multiple: true },
  network: { type: 'string', multiple: true },
  'public-key': { type: 'string' },
} as const;

const VERSION_OPTION = { version: { type: 'string' } } as const;

const ACCOUNT_OPTION = { account: { type: 'string' } } as const;

const SUBCOMMANDS: Record<string, Subcommand> = {
  create: {
    options: { ...FIELD_OPTIONS, ...ACCOUNT_OPTION, out: { type: 'string' } },
    positionals: 0,
    run: create,
  },
  list: {
    options: { limit: { type: 'string' }, cursor: { type: 'string' }, ...ACCOUNT_OPTION },
    positionals: 0,
    run: (registry, values) =>
      registry.call('GET', '/registry/clients', { query: { account: text(values.account), limit: text(values.limit), cursor: text(values.cursor) } }),
  },
  get: { options: {}, positionals: 1, run: (registry, _values, [id]) => registry.call('GET', clientPath(id)) },
  update: { options: { ...FIELD_OPTIONS, ...VERSION_OPTION }, positionals: 1, run: update },
  disable: { options: VERSION_OPTION, positionals: 1, run: (registry, values, [id]) => statusChange(registry, values, id, 'disable') },
  enable: { options: VERSION_OPTION, positionals: 1, run: (registry, values, [id]) => statusChange(registry, values, id, 'enable') },
  find: {
    options: { 'public-key': { type: 'string' }, fingerprint: { type: 'string' }, ...ACCOUNT_OPTION },
    positionals: 0,
    run: (registry, values) => {
      const publicKey = text(values['public-key']);
      const fingerprint = text(values.fingerprint);
      if ((publicKey === undefined) === (fingerprint === undefined)) throw new UsageError('give --public-key FILE or --fingerprint FP');
      const account = text(values.account);
      return registry.call('GET', '/registry/clients', { query: { ...(publicKey !== undefined ? { publicKey: readText(publicKey) } : { fingerprint }), account } });
    },
  },
  failures: { options: {}, positionals: 1, run: (registry, _values, [id]) => registry.call('GET', clientPath(id, '/auth-failures')) },
};

/** The subcommand names, for usage lines. */
export const CLIENTS_SUBCOMMANDS = Object.keys(SUBCOMMANDS);

export async function run(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const sub = name === undefined ? undefined : SUBCOMMANDS[name];
  if (sub === undefined) throw new UsageError(`choose one of: ${CLIENTS_SUBCOMMANDS.join(', ')}`);
  const { values, positionals } = parse(rest, { ...REGISTRY_OPTIONS, ...sub.options });
  if (positionals.length !== sub.positionals) {
    throw new UsageError(sub.positionals === 1 ? `clients ${name} takes one CLIENT_ID` : `clients ${name} takes no positional argument`);
  }
  const registry = RegistryClient.fromOptions(values);
  return runRegistryCommand(async () => {
    const answer = await sub.run(registry, values, positionals);
    for (const note of openToEveryoneNotes(answer)) console.error(note);
    return answer;
  });
}

/** A note for each client of a successful answer (one record, or a `clients` list) whose whitelist lets everyone in. */
export function openToEveryoneNotes(answer: RegistryAnswer): string[] {
  if (answer.status < 200 || answer.status >= 300 || typeof answer.body !== 'object' || answer.body === null) return [];
  const body = answer.body as { clients?: unknown };
  const records: unknown[] = Array.isArray(body.clients) ? body.clients : [body];
  return records.flatMap((record) => {
    const { clientId, networkWhitelist } = (record ?? {}) as { clientId?: unknown; networkWhitelist?: unknown };
    if (typeof clientId !== 'string' || !Array.isArray(networkWhitelist) || !networkWhitelist.every((e) => typeof e === 'string')) return [];
    let open: boolean;
    try {
      open = admitsEveryone(networkWhitelist as string[]);
    } catch {
      return [];
    }
    return open
      ? [`note: client ${clientId} accepts signed requests from every address (its network whitelist holds 0.0.0.0, a /0 range or ::ffff:0:0/96). Narrow it with: signet clients update ${clientId} --network ADDR_OR_CIDR`]
      : [];
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
  if ((publicKeyFile === undefined) === (out === undefined)) throw new UsageError('give --public-key FILE (your public.pem), or --out DIR to make a new key pair there');
  if (out !== undefined && hasClientKey(out)) throw new UsageError(`${out} already holds a private key; choose an empty directory`);

  const generated = out !== undefined ? generateRsaKeyPair() : undefined;
  const publicKey = generated !== undefined ? spkiPemOf(generated.publicKey) : readText(publicKeyFile as string);
  const accountId = text(values.account);
  const answer = await registry.call('POST', '/registry/clients', { body: { name, networkWhitelist, publicKey, roles, ...(accountId !== undefined ? { accountId } : {}) } });
  const clientId = (answer.body as { clientId?: unknown } | undefined)?.clientId;
  if (generated !== undefined && out !== undefined && answer.status === 201 && typeof clientId === 'string') {
    writeClientDir(out, clientId, generated);
    console.error(`wrote the key pair and client-id to ${out}`);
  }
  return answer;
}

async function update(registry: RegistryClient, values: Record<string, unknown>, [id]: string[]): Promise<RegistryAnswer> {
  const changes: Record<string, unknown> = {};
  const name = text(values.name);
  if (name !== undefined) changes.name = name;
  if (values.role !== undefined) changes.roles = list(values.role);
  if (values.network !== undefined) changes.networkWhitelist = list(values.network);
  const publicKeyFile = text(values['public-key']);
  if (publicKeyFile !== undefined) changes.publicKey = readText(publicKeyFile);
  if (Object.keys(changes).length === 0) throw new UsageError('nothing to change: give --name, --role, --network or --public-key');
  const version = versionOf(values) ?? (await registry.currentVersion(id));
  return registry.call('PATCH', clientPath(id), { body: { version, ...changes } });
}

async function statusChange(registry: RegistryClient, values: Record<string, unknown>, id: string, action: 'disable' | 'enable'): Promise<RegistryAnswer> {
  const version = versionOf(values);
  return registry.call('POST', clientPath(id, `/${action}`), version === undefined ? {} : { body: { version } });
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function list(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v !== '') : [];
}
