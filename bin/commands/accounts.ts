/**
 * `signet accounts create|list|get|update|audit`: partner accounts and their role ceilings
 * (docs/openapi/registry.json, tag `accounts`), signed with the admin key. See
 * ./registry-client.ts for `--endpoint` and `--admin`.
 *
 *   signet accounts create --name NAME [--ceiling ROLE...]
 *   signet accounts list [--limit N] [--cursor C]
 *   signet accounts get ACCOUNT_ID
 *   signet accounts update ACCOUNT_ID [--name NAME] [--ceiling ROLE... | --no-ceiling] [--version N]
 *   signet accounts audit ACCOUNT_ID [--limit N] [--cursor C]
 *
 * `--ceiling` (repeatable) lists the roles the account's admins (`account:admin`) may give its
 * clients; `--no-ceiling` empties it. Creating, listing and updating accounts needs
 * `registry:admin`; an account admin may `get` and `audit` its own account. Updates without
 * `--version` read the current version first; a change made in between still fails with 409.
 */
import { Options, UsageError, parse } from './args';
import { CommandHelp, GroupHelp } from './help';
import { REGISTRY_FLAGS, REGISTRY_OPTIONS, RegistryAnswer, RegistryClient, RegistryRefusal, runRegistryCommand, versionOf, VERSION_FLAG } from './registry-client';
import { Formatter, accountSummary, accountTable, auditTable } from './registry-output';

interface Subcommand {
  readonly help: Omit<CommandHelp, 'options'>;
  readonly options: Options;
  readonly positionals: number;
  readonly format: Formatter;
  readonly run: (registry: RegistryClient, values: Record<string, unknown>, args: string[]) => Promise<RegistryAnswer>;
}

const PAGE_OPTIONS = { limit: { type: 'string' }, cursor: { type: 'string' } } as const;
const PAGE_FLAGS = {
  limit: { meaning: 'at most this many per page', value: 'N', default: "the registry's page size" },
  cursor: { meaning: 'the next page: the cursor the previous page printed', value: 'CURSOR' },
};
const NAME_FLAG = { name: { meaning: "the account's name (the partner organisation)", value: 'NAME' } };
const CEILING_FLAG = { ceiling: { meaning: "a role the account's admins (account:admin) may give its clients", value: 'ROLE' } };
const ACCOUNT_ID_ARG = { ACCOUNT_ID: 'the account id as the registry gave it (acct_...)' };

const SUBCOMMANDS: Record<string, Subcommand> = {
  create: {
    help: {
      summary: "create a partner account and its role ceiling (operators); prints the accountId",
      usage: 'accounts create --name NAME [--ceiling ROLE...]',
      flags: { ...NAME_FLAG, ...CEILING_FLAG, ...REGISTRY_FLAGS },
      examples: ["accounts create --name 'Acme' --ceiling demo --ceiling account:admin"],
    },
    options: { name: { type: 'string' }, ceiling: { type: 'string', multiple: true } },
    positionals: 0,
    format: accountSummary,
    run: (registry, values) => {
      const name = text(values.name);
      if (name === undefined) throw new UsageError('--name is required');
      return registry.call('POST', '/registry/accounts', { body: { name, roleCeiling: list(values.ceiling) } });
    },
  },
  list: {
    help: { summary: 'list the accounts (operators)', usage: 'accounts list [--limit N] [--cursor CURSOR] [--json]', flags: { ...PAGE_FLAGS, ...REGISTRY_FLAGS }, examples: ['accounts list'] },
    options: PAGE_OPTIONS,
    positionals: 0,
    format: accountTable,
    run: (registry, values) => registry.call('GET', '/registry/accounts', { query: { limit: text(values.limit), cursor: text(values.cursor) } }),
  },
  get: {
    help: { summary: 'show one account and its role ceiling', usage: 'accounts get ACCOUNT_ID [--json]', arguments: ACCOUNT_ID_ARG, flags: REGISTRY_FLAGS, examples: ['accounts get acct_default'] },
    options: {},
    positionals: 1,
    format: accountSummary,
    run: (registry, _values, [id]) => registry.call('GET', accountPath(id)),
  },
  update: {
    help: {
      summary: "rename an account or replace its role ceiling (operators)",
      usage: 'accounts update ACCOUNT_ID [--name NAME] [--ceiling ROLE... | --no-ceiling] [--version N]',
      arguments: ACCOUNT_ID_ARG,
      flags: {
        ...NAME_FLAG,
        ...CEILING_FLAG,
        'no-ceiling': { meaning: 'empty the role ceiling: its admins may then give no role' },
        ...VERSION_FLAG,
        ...REGISTRY_FLAGS,
      },
      examples: ['accounts update acct_... --ceiling demo'],
    },
    options: { name: { type: 'string' }, ceiling: { type: 'string', multiple: true }, 'no-ceiling': { type: 'boolean' }, version: { type: 'string' } },
    positionals: 1,
    format: accountSummary,
    run: update,
  },
  audit: {
    help: {
      summary: "who changed what in an account's clients and the account itself",
      usage: 'accounts audit ACCOUNT_ID [--limit N] [--cursor CURSOR] [--json]',
      arguments: ACCOUNT_ID_ARG,
      flags: { ...PAGE_FLAGS, ...REGISTRY_FLAGS },
      examples: ['accounts audit acct_default --limit 20'],
    },
    options: PAGE_OPTIONS,
    positionals: 1,
    format: auditTable,
    run: (registry, values, [id]) => registry.call('GET', accountPath(id, '/audit'), { query: { limit: text(values.limit), cursor: text(values.cursor) } }),
  },
};

/** The subcommand names, for usage lines. */
export const ACCOUNTS_SUBCOMMANDS = Object.keys(SUBCOMMANDS);

/** `signet help accounts [subcommand]`. */
export const HELP: GroupHelp = {
  summary: 'partner accounts, their role ceilings and their audit trail',
  subcommands: Object.fromEntries(Object.entries(SUBCOMMANDS).map(([name, sub]) => [name, { ...sub.help, options: { ...sub.options, ...REGISTRY_OPTIONS } }])),
};

export async function run(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const sub = name === undefined ? undefined : SUBCOMMANDS[name];
  if (sub === undefined) throw new UsageError(`choose one of: ${ACCOUNTS_SUBCOMMANDS.join(', ')}`);
  const { values, positionals } = parse(rest, { ...sub.options, ...REGISTRY_OPTIONS });
  if (positionals.length !== sub.positionals) {
    throw new UsageError(sub.positionals === 1 ? `accounts ${name} takes one ACCOUNT_ID` : `accounts ${name} takes no positional argument`);
  }
  const registry = RegistryClient.fromOptions(values);
  return runRegistryCommand(() => sub.run(registry, values, positionals), { json: values.json === true, format: sub.format });
}

async function update(registry: RegistryClient, values: Record<string, unknown>, [id]: string[]): Promise<RegistryAnswer> {
  const changes: Record<string, unknown> = {};
  const name = text(values.name);
  if (name !== undefined) changes.name = name;
  if (values['no-ceiling'] === true && values.ceiling !== undefined) throw new UsageError('give --ceiling ROLE... or --no-ceiling, not both');
  if (values['no-ceiling'] === true) changes.roleCeiling = [];
  if (values.ceiling !== undefined) changes.roleCeiling = list(values.ceiling);
  if (Object.keys(changes).length === 0) throw new UsageError('nothing to change: give --name, --ceiling or --no-ceiling');
  const version = versionOf(values) ?? (await currentVersion(registry, id));
  return registry.call('PATCH', accountPath(id), { body: { version, ...changes } });
}

/** The account's version, for updates given no `--version` (0 for the default account before its first edit). */
async function currentVersion(registry: RegistryClient, accountId: string): Promise<number> {
  const answer = await registry.call('GET', accountPath(accountId));
  if (answer.status !== 200) throw new RegistryRefusal(answer);
  const version = (answer.body as { version?: unknown }).version;
  if (typeof version !== 'number') throw new Error('The registry answered an account without a version.');
  return version;
}

/** `/registry/accounts/{accountId}` with the id escaped. */
function accountPath(accountId: string, suffix = ''): string {
  return `/registry/accounts/${encodeURIComponent(accountId)}${suffix}`;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function list(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v !== '') : [];
}
