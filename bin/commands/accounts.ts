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
import { REGISTRY_OPTIONS, RegistryAnswer, RegistryClient, RegistryRefusal, runRegistryCommand, versionOf } from './registry-client';

interface Subcommand {
  readonly options: Options;
  readonly positionals: number;
  readonly run: (registry: RegistryClient, values: Record<string, unknown>, args: string[]) => Promise<RegistryAnswer>;
}

const PAGE_OPTIONS = { limit: { type: 'string' }, cursor: { type: 'string' } } as const;

const SUBCOMMANDS: Record<string, Subcommand> = {
  create: {
    options: { name: { type: 'string' }, ceiling: { type: 'string', multiple: true } },
    positionals: 0,
    run: (registry, values) => {
      const name = text(values.name);
      if (name === undefined) throw new UsageError('--name is required');
      return registry.call('POST', '/registry/accounts', { body: { name, roleCeiling: list(values.ceiling) } });
    },
  },
  list: {
    options: PAGE_OPTIONS,
    positionals: 0,
    run: (registry, values) => registry.call('GET', '/registry/accounts', { query: { limit: text(values.limit), cursor: text(values.cursor) } }),
  },
  get: { options: {}, positionals: 1, run: (registry, _values, [id]) => registry.call('GET', accountPath(id)) },
  update: {
    options: { name: { type: 'string' }, ceiling: { type: 'string', multiple: true }, 'no-ceiling': { type: 'boolean' }, version: { type: 'string' } },
    positionals: 1,
    run: update,
  },
  audit: {
    options: PAGE_OPTIONS,
    positionals: 1,
    run: (registry, values, [id]) => registry.call('GET', accountPath(id, '/audit'), { query: { limit: text(values.limit), cursor: text(values.cursor) } }),
  },
};

/** The subcommand names, for usage lines. */
export const ACCOUNTS_SUBCOMMANDS = Object.keys(SUBCOMMANDS);

/** @public The command, called by bin/signet.ts through its module. */
export async function run(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const sub = name === undefined ? undefined : SUBCOMMANDS[name];
  if (sub === undefined) throw new UsageError(`choose one of: ${ACCOUNTS_SUBCOMMANDS.join(', ')}`);
  const { values, positionals } = parse(rest, { ...REGISTRY_OPTIONS, ...sub.options });
  if (positionals.length !== sub.positionals) {
    throw new UsageError(sub.positionals === 1 ? `accounts ${name} takes one ACCOUNT_ID` : `accounts ${name} takes no positional argument`);
  }
  const registry = RegistryClient.fromOptions(values);
  return runRegistryCommand(() => sub.run(registry, values, positionals));
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
