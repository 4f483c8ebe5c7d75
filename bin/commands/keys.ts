/**
 * `signet keys add|remove|refresh|expiring`: key rollover on the registry, fetching a published
 * key source now, and the keys due for rotation, signed with the admin key. See
 * ./registry-client.ts for `--endpoint` and `--admin`.
 *
 *   signet keys add CLIENT_ID --public-key FILE [--not-after ISO-8601] [--version N]
 *   signet keys remove CLIENT_ID FINGERPRINT [--version N]
 *   signet keys refresh CLIENT_ID
 *   signet keys expiring [--older-than-days N] [--limit N] [--cursor C]
 *
 * `refresh` prints what the fetch did (keys added, removed, unchanged) or the error it recorded
 * (the keys are then kept, and the command exits 1 so a script sees it), then the client.
 *
 * `expiring` lists keys added more than N days ago (default 90, the rotation interval): the
 * partner-held keys that are not rotated through Secrets Manager and are due for a rollover.
 */
import { Options, UsageError, parse, readPublicKeyFile } from './args';
import { CommandHelp, GroupHelp } from './help';
import { REGISTRY_FLAGS, REGISTRY_OPTIONS, RegistryAnswer, RegistryClient, clientPath, runRegistryCommand, versionOf, VERSION_FLAG } from './registry-client';
import { Formatter, clientSummary, expiringTable, refreshSummary } from './registry-output';

interface Subcommand {
  readonly help: Omit<CommandHelp, 'options'>;
  readonly options: Options;
  readonly positionals: number;
  readonly usage: string;
  readonly format: Formatter;
  readonly run: (registry: RegistryClient, values: Record<string, unknown>, args: string[]) => Promise<RegistryAnswer>;
}

const PAGE_FLAGS = {
  limit: { meaning: 'at most this many per page', value: 'N', default: "the registry's page size" },
  cursor: { meaning: 'the next page: the cursor the previous page printed', value: 'CURSOR' },
};

const SUBCOMMANDS: Record<string, Subcommand> = {
  add: {
    help: {
      summary: 'add a public key to a client (rollover: old and new keys both verify until you remove the old one)',
      usage: 'keys add CLIENT_ID --public-key FILE [--algorithm ALG] [--not-after ISO-8601] [--version N]',
      arguments: { CLIENT_ID: 'the client to add the key to' },
      flags: {
        'public-key': { meaning: 'the new PUBLIC key file (public.pem); a private key is refused before anything is sent', value: 'FILE' },
        algorithm: { meaning: "the key's algorithm: only for an RSA key that signs rsa-pss-sha512 (RSA keys are rsa-v1_5-sha256 otherwise; Ed25519 and ECDSA keys have one each)", value: 'ALG' },
        'not-after': { meaning: 'the instant after which this key stops verifying', value: 'ISO-8601', default: 'never' },
        ...VERSION_FLAG,
        ...REGISTRY_FLAGS,
      },
      notes: ["An account admin may not change the keys of a client holding a role outside its account's ceiling (client_above_ceiling): an operator does, or take those roles from the client first."],
      examples: ['keys add c_... --public-key acme/next.pem', 'keys add c_... --public-key acme/next.pem --not-after 2027-03-01T00:00:00Z'],
    },
    options: { 'public-key': { type: 'string' }, algorithm: { type: 'string' }, 'not-after': { type: 'string' }, version: { type: 'string' } },
    positionals: 1,
    usage: 'keys add takes one CLIENT_ID',
    format: clientSummary,
    run: (registry, values, [id]) => {
      const file = values['public-key'];
      if (typeof file !== 'string' || file === '') throw new UsageError('--public-key FILE is required');
      const notAfter = typeof values['not-after'] === 'string' ? values['not-after'] : undefined;
      const version = versionOf(values);
      return registry.call('POST', clientPath(id, '/keys'), {
        body: {
          publicKey: readPublicKeyFile(file),
          ...(typeof values.algorithm === 'string' ? { algorithm: values.algorithm } : {}),
          ...(notAfter !== undefined ? { notAfter } : {}),
          ...(version !== undefined ? { version } : {}),
        },
      });
    },
  },
  remove: {
    help: {
      summary: "remove a client's key by fingerprint (never its last active key: add the new one first)",
      usage: 'keys remove CLIENT_ID FINGERPRINT [--version N]',
      arguments: { CLIENT_ID: 'the client', FINGERPRINT: 'the key to remove, as `signet clients get CLIENT_ID` shows it' },
      flags: { ...VERSION_FLAG, ...REGISTRY_FLAGS },
      notes: ["An account admin may not change the keys of a client holding a role outside its account's ceiling (client_above_ceiling): an operator does, or take those roles from the client first."],
      examples: ['keys remove c_... lLLBAficwm02Qarn8AAKRR8YJA0E5NXbGEI-EwxM5Tw'],
    },
    options: { version: { type: 'string' } },
    positionals: 2,
    usage: 'keys remove takes CLIENT_ID FINGERPRINT',
    format: clientSummary,
    run: (registry, values, [id, fingerprint]) => {
      const version = versionOf(values);
      return registry.call('DELETE', clientPath(id, `/keys/${encodeURIComponent(fingerprint)}`), version === undefined ? {} : { body: { version } });
    },
  },
  refresh: {
    help: {
      summary: "fetch a client's published key source now (JWKS or Web Bot Auth directory): keys added, removed, unchanged, or the error",
      usage: 'keys refresh CLIENT_ID [--json]',
      arguments: { CLIENT_ID: 'a client registered with --jwks-uri or --signature-agent' },
      flags: { ...REGISTRY_FLAGS },
      notes: [
        'A key gone from the source stops verifying now; a new one verifies now. A failed fetch removes nothing ' +
          '(but a JWKS that no longer lists a key ends that key now, even with no usable key): the error is recorded on the client ' +
          '(signet clients show CLIENT_ID), its keys are kept until the keep bound, and the command exits 1.',
      ],
      examples: ['keys refresh c_...'],
    },
    options: {},
    positionals: 1,
    usage: 'keys refresh takes one CLIENT_ID',
    format: refreshSummary,
    run: (registry, _values, [id]) => registry.call('POST', clientPath(id, '/keys/refresh')),
  },
  expiring: {
    help: {
      summary: 'keys added more than N days ago: the partner-held keys due for a rollover',
      usage: 'keys expiring [--older-than-days N] [--limit N] [--cursor CURSOR] [--json]',
      flags: { 'older-than-days': { meaning: 'list keys added more than this many days ago', value: 'N', default: '90, the rotation interval' }, ...PAGE_FLAGS, ...REGISTRY_FLAGS },
      examples: ['keys expiring', 'keys expiring --older-than-days 60 --json'],
    },
    options: { 'older-than-days': { type: 'string' }, limit: { type: 'string' }, cursor: { type: 'string' } },
    positionals: 0,
    usage: 'keys expiring takes no positional argument',
    format: expiringTable,
    run: (registry, values) =>
      registry.call('GET', '/registry/keys/expiring', {
        query: { olderThanDays: str(values['older-than-days']), limit: str(values.limit), cursor: str(values.cursor) },
      }),
  },
};

/** The subcommand names, for usage lines. */
export const KEYS_SUBCOMMANDS = Object.keys(SUBCOMMANDS);

/** `signet help keys [subcommand]`. */
export const HELP: GroupHelp = {
  summary: 'key rollover on the registry, refreshing a published key source, and the keys due for rotation',
  subcommands: Object.fromEntries(Object.entries(SUBCOMMANDS).map(([name, sub]) => [name, { ...sub.help, options: { ...sub.options, ...REGISTRY_OPTIONS } }])),
};

export async function run(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const sub = name === undefined ? undefined : SUBCOMMANDS[name];
  if (sub === undefined) throw new UsageError(`choose one of: ${KEYS_SUBCOMMANDS.join(', ')}`);
  const { values, positionals } = parse(rest, { ...sub.options, ...REGISTRY_OPTIONS });
  if (positionals.length !== sub.positionals) throw new UsageError(sub.usage);
  const registry = RegistryClient.fromOptions(values);
  let failedRefresh = false;
  const code = await runRegistryCommand(async () => {
    const answer = await sub.run(registry, values, positionals);
    failedRefresh = name === 'refresh' && answer.status === 200 && (answer.body as { refresh?: { ok?: unknown } } | undefined)?.refresh?.ok === false;
    return answer;
  }, { json: values.json === true, format: sub.format });
  // A refresh whose fetch failed is answered 200 (the error is recorded, the keys kept); a script still sees it.
  return code === 0 && failedRefresh ? 1 : code;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
