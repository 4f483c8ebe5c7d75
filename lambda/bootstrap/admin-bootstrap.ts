/**
 * CloudFormation custom resource that registers the first `registry:admin` client, through the
 * same store the registry uses (so the record, the key-ownership item and the audit entry are
 * written exactly as a registration writes them, in one transaction).
 *
 * Only the key whose fingerprint the stack set at synth (`SIGNET_ADMIN_KEY_FINGERPRINT`) is
 * registered: the function outlives the deploy, and whoever else may invoke it must not be able to
 * make an operator of a key of their own.
 *
 * Create and Update register the key unless it is already registered; when it is, the holder's
 * clientId is returned ("registration skipped"). An Update whose `ClientName` or
 * `NetworkWhitelist` differs from the previous deploy's applies that change to the holder
 * (audited as the bootstrap, at the version it read), so editing `adminClientName` or
 * `adminNetworkWhitelist` and deploying again takes effect; a field the deploy did not change is
 * left as the registry has it (an operator's edit stays). An Update that kept the key while no client
 * holds it any more (the admin replaced or removed it through the registry) does not register it
 * again: the name or allow-list goes to the client the bootstrap registered. An Update that changed none of these three
 * properties (only CloudFormation's own: the function behind the token, the service timeout) reads
 * and writes nothing: the admin may have replaced or removed that key through the registry since,
 * and registering it again would make a new operator of a retired key. Delete leaves the client in
 * place: the table is retained and other admins may depend on it.
 *
 * The function is the resource's service token; ./custom-resource.ts answers CloudFormation.
 * `createAdminBootstrap(config, dependencies)` builds it; the Lambda entry
 * (lambda/handlers/admin-bootstrap.ts) calls it with `loadConfig()` and Powertools.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import type { SignetConfig } from '../config';
import { ENV } from '../config-env';
import { SignetError } from '../core/errors';
import { REGISTRY_ADMIN_ROLE } from '../core/defaults';
import { normaliseNetworkEntry } from '../core/network-entries';
import { importPublicKey } from '../core/keys';
import { DEFAULT_ACCOUNT_ID } from '../store/account-id';
import { isClientId } from '../store/client-id';
import { DynamoClientStore } from '../store/client-store';
import type { ClientChanges } from '../domain/store-types';
import { createDocumentClient } from '../store/dynamodb-client';
import { type CustomResourceLogger, answerCustomResource } from './custom-resource';

/** The actor name the audit trail records for the bootstrap. */
export const BOOTSTRAP_ACTOR = 'bootstrap';

/** Properties of the custom resource (all strings: CloudFormation passes strings). */
export interface AdminBootstrapProperties {
  /** SPKI PEM of the first admin's public key. */
  readonly PublicKeyPem: string;
  /** The admin client's name. */
  readonly ClientName: string;
  /** JSON list of allow-list entries. */
  readonly NetworkWhitelist: string;
}

/** The physical id of a registered admin is this and its clientId. */
const ADMIN_ID_PREFIX = 'signet-admin-';

/** The properties that are Signet's (the rest, ServiceToken and ServiceTimeout, are CloudFormation's). */
const ADMIN_PROPERTIES = ['PublicKeyPem', 'ClientName', 'NetworkWhitelist'] as const satisfies readonly (keyof AdminBootstrapProperties)[];

/** What the resource returns (`GetAtt`). */
export interface AdminBootstrapData {
  readonly ClientId: string;
  readonly Fingerprint: string;
  /**
   * `created`; `skipped` (the key was registered already; ClientId is its holder); `updated`
   * (registered already, and the name or allow-list this deploy changed was applied to it).
   */
  readonly Registration: 'created' | 'skipped' | 'updated';
}

export interface AdminBootstrapDependencies {
  /** Where a failed registration is logged. */
  readonly logger: CustomResourceLogger;
  /** @default one for `config.dynamoDbEndpoint` */
  readonly doc?: DynamoDBDocumentClient;
}

export type AdminBootstrapHandler = (event: CloudFormationCustomResourceEvent, context?: { readonly logStreamName?: string }) => Promise<void>;

export function createAdminBootstrap(config: SignetConfig, dependencies: AdminBootstrapDependencies): AdminBootstrapHandler {
  const store = new DynamoClientStore({ tableName: config.tableName, client: dependencies.doc ?? createDocumentClient({ endpoint: config.dynamoDbEndpoint }), keySourceKeepDays: config.keySourceKeepDays });
  return (event, context = {}) =>
    answerCustomResource<AdminBootstrapData>(event, context, {
      name: 'admin bootstrap',
      logger: dependencies.logger,
      failedCreateId: (e) => `signet-admin-bootstrap-${e.RequestId}`,
      run: async (e) => {
        const props = e.ResourceProperties as unknown as AdminBootstrapProperties;
        const previous = e.RequestType === 'Update' ? (e.OldResourceProperties as Partial<AdminBootstrapProperties>) : undefined;
        const registered = e.RequestType === 'Update' ? registeredClientOf(e.PhysicalResourceId) : undefined;
        if (registered !== undefined && ADMIN_PROPERTIES.every((name) => previous?.[name] === props[name])) {
          const data: AdminBootstrapData = { ClientId: registered, Fingerprint: importPublicKey(props.PublicKeyPem).fingerprint, Registration: 'skipped' };
          return { physicalId: `${ADMIN_ID_PREFIX}${registered}`, data };
        }
        const keptKey = registered !== undefined && previous?.PublicKeyPem === props.PublicKeyPem ? registered : undefined;
        const data = await register(store, props, previous, config.adminKeyFingerprint, keptKey);
        return { physicalId: `${ADMIN_ID_PREFIX}${data.ClientId}`, data };
      },
    });
}

/** The admin's clientId in a physical id this resource answered (`signet-admin-<clientId>`), if it is one. */
function registeredClientOf(physicalId: string): string | undefined {
  const clientId = physicalId.startsWith(ADMIN_ID_PREFIX) ? physicalId.slice(ADMIN_ID_PREFIX.length) : undefined;
  return isClientId(clientId) ? clientId : undefined;
}

/**
 * `registeredWithSameKey`: on an Update that kept the key, the client the bootstrap registered it on.
 * If no client holds the key any more, the admin replaced or removed it through the registry (a key
 * retired because it leaked, say): it is not registered again, and this deploy's name or allow-list
 * goes to that client.
 */
async function register(
  store: DynamoClientStore,
  props: AdminBootstrapProperties,
  previous: Partial<AdminBootstrapProperties> | undefined,
  expectedFingerprint: string | undefined,
  registeredWithSameKey?: string,
): Promise<AdminBootstrapData> {
  const key = importPublicKey(props.PublicKeyPem);
  if (key.fingerprint !== expectedFingerprint) {
    throw new SignetError(
      'invalid_request',
      expectedFingerprint === undefined
        ? `This function was deployed without ${ENV.adminKeyFingerprint}, so it registers no admin key. Deploy it with AdminBootstrap, which sets it from the admin's public key.`
        : `This function registers only the admin key its stack was deployed with (fingerprint ${expectedFingerprint}); the event names another (${key.fingerprint}). Change adminPublicKey and deploy, rather than invoking the function.`,
    );
  }
  const networkWhitelist = whitelistOf(props.NetworkWhitelist);
  if (registeredWithSameKey !== undefined && (await store.findByFingerprint(key.fingerprint, { consistentRead: true })) === undefined) {
    const done = { ClientId: registeredWithSameKey, Fingerprint: key.fingerprint };
    const admin = await store.getClient(registeredWithSameKey, { consistentRead: true });
    const changes = admin === undefined ? undefined : changedByDeploy(props, networkWhitelist, previous);
    if (admin === undefined || changes === undefined) return { ...done, Registration: 'skipped' };
    const updated = await store.updateClient(admin.clientId, admin.version, changes, BOOTSTRAP_ACTOR);
    return { ...done, Registration: updated.version === admin.version ? 'skipped' : 'updated' };
  }
  const { record, created } = await store.createClient(
    { name: props.ClientName, networkWhitelist, roles: [REGISTRY_ADMIN_ROLE], key: { fingerprint: key.fingerprint, spkiPem: key.spkiPem } },
    BOOTSTRAP_ACTOR,
  );
  const done = { ClientId: record.clientId, Fingerprint: key.fingerprint };
  if (created) return { ...done, Registration: 'created' };
  // Keys are registered without proof of possession: a partner may hold the admin's public key.
  // Its client is not the admin, and the deploy must not report it as one nor edit it.
  if (!record.roles.includes(REGISTRY_ADMIN_ROLE) || record.accountId !== DEFAULT_ACCOUNT_ID) {
    throw new SignetError(
      'key_already_registered',
      `The admin key (fingerprint ${key.fingerprint}) is registered on client ${record.clientId} of account ${record.accountId}, which is not an operator (${REGISTRY_ADMIN_ROLE} in ${DEFAULT_ACCOUNT_ID}): ` +
        'nothing was written. If that client holds it without its private key, release it (disable that client and replace its key) and deploy again; otherwise deploy with another admin key.',
    );
  }
  const changes = changedByDeploy(props, networkWhitelist, previous);
  if (changes === undefined) return { ...done, Registration: 'skipped' };
  // At the version just read: an operator's edit in between is a version_conflict, and the deploy
  // fails saying so instead of overwriting it.
  const updated = await store.updateClient(record.clientId, record.version, changes, BOOTSTRAP_ACTOR);
  return { ...done, Registration: updated.version === record.version ? 'skipped' : 'updated' };
}

/** The name and allow-list this deploy changed (against the previous deploy's properties), or undefined when it changed neither. */
function changedByDeploy(props: AdminBootstrapProperties, networkWhitelist: string[], previous: Partial<AdminBootstrapProperties> | undefined): ClientChanges | undefined {
  if (previous === undefined) return undefined;
  const changes: { name?: string; networkWhitelist?: string[] } = {};
  if (previous.ClientName !== props.ClientName) changes.name = props.ClientName;
  const before = previous.NetworkWhitelist === undefined ? undefined : safeWhitelist(previous.NetworkWhitelist);
  if (before === undefined || before.join(',') !== networkWhitelist.join(',')) changes.networkWhitelist = networkWhitelist;
  return Object.keys(changes).length > 0 ? changes : undefined;
}

function whitelistOf(json: string): string[] {
  return (JSON.parse(json) as unknown[]).map(normaliseNetworkEntry);
}

/** The previous deploy's allow-list, or undefined when it cannot be read (then the new one is applied). */
function safeWhitelist(json: string): string[] | undefined {
  try {
    return whitelistOf(json);
  } catch {
    return undefined;
  }
}
