/**
 * `signet keys add|remove|expiring`: key rollover on the registry, and the keys due for rotation,
 * signed with the admin key. See ./registry-client.ts for `--endpoint` and `--admin`.
 *
 *   signet keys add CLIENT_ID --public-key FILE [--not-after ISO-8601] [--version N]
 *   signet keys remove CLIENT_ID FINGERPRINT [--version N]
 *   signet keys expiring [--older-than-days N] [--limit N] [--cursor C]
 *
 * `expiring` lists keys added more than N days ago (default 90, the rotation interval): the
 * partner-held keys that are not rotated through Secrets Manager and are due for a rollover.
 */
import { Options, UsageError, parse, readText } from './args';
import { REGISTRY_OPTIONS, RegistryAnswer, RegistryClient, clientPath, runRegistryCommand, versionOf } from './registry-client';

interface Subcommand {
  readonly options: Options;
  readonly positionals: number;
  readonly usage: string;
  readonly run: (registry: RegistryClient, values: Record<string, unknown>, args: string[]) => Promise<RegistryAnswer>;
}

const SUBCOMMANDS: Record<string, Subcommand> = {
  add: {
    options: { 'public-key': { type: 'string' }, 'not-after': { type: 'string' }, version: { type: 'string' } },
    positionals: 1,
    usage: 'keys add takes one CLIENT_ID',
    run: (registry, values, [id]) => {
      const file = values['public-key'];
      if (typeof file !== 'string' || file === '') throw new UsageError('--public-key FILE is required');
      const notAfter = typeof values['not-after'] === 'string' ? values['not-after'] : undefined;
      const version = versionOf(values);
      return registry.call('POST', clientPath(id, '/keys'), {
        body: { publicKey: readText(file), ...(notAfter !== undefined ? { notAfter } : {}), ...(version !== undefined ? { version } : {}) },
      });
    },
  },
  remove: {
    options: { version: { type: 'string' } },
    positionals: 2,
    usage: 'keys remove takes CLIENT_ID FINGERPRINT',
    run: (registry, values, [id, fingerprint]) => {
      const version = versionOf(values);
      return registry.call('DELETE', clientPath(id, `/keys/${encodeURIComponent(fingerprint)}`), version === undefined ? {} : { body: { version } });
    },
  },
  expiring: {
    options: { 'older-than-days': { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' } },
    positionals: 0,
    usage: 'keys expiring takes no positional argument',
    run: (registry, values) =>
      registry.call('GET', '/registry/keys/expiring', {
        query: { olderThanDays: str(values['older-than-days']), limit: str(values.limit), cursor: str(values.cursor) },
      }),
  },
};

/** The subcommand names, for usage lines. */
export const KEYS_SUBCOMMANDS = Object.keys(SUBCOMMANDS);

/** @public The command, called by bin/signet.ts through its module. */
export async function run(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const sub = name === undefined ? undefined : SUBCOMMANDS[name];
  if (sub === undefined) throw new UsageError(`choose one of: ${KEYS_SUBCOMMANDS.join(', ')}`);
  const { values, positionals } = parse(rest, { ...REGISTRY_OPTIONS, ...sub.options });
  if (positionals.length !== sub.positionals) throw new UsageError(sub.usage);
  const registry = RegistryClient.fromOptions(values);
  return runRegistryCommand(() => sub.run(registry, values, positionals));
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
