/**
 * Registers the first `registry:admin` client at deploy time, so the registry API (which itself
 * needs a `registry:admin` signature) can be used at all.
 */
import { Annotations, CustomResource, Duration, Token } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { isSignetError } from '../lambda/core/errors';
import { EVERYONE, normaliseNetworkEntry } from '../lambda/core/network-entries';
import { importPublicKey } from '../lambda/core/keys';
import type { AdminBootstrapProperties } from '../lambda/bootstrap/admin-bootstrap';
import { IClientRegistry } from './client-registry';
import type { SignatureAuthorizerProps } from './signature-authorizer';
import { settingPropProblem, settingsEnvironment } from './setting-props';
import { SignetFunction, type SignetFunctionProps } from './signet-function';
import { SERVICE_NAMES } from '../lambda/observability';

/** `POWERTOOLS_SERVICE_NAME` of the bootstrap function. */
export const BOOTSTRAP_SERVICE_NAME = SERVICE_NAMES.adminBootstrap;

/** Name of the bootstrapped admin client when none is given. */
export const DEFAULT_ADMIN_CLIENT_NAME = 'bootstrap admin';

/**
 * `keySourceKeepDays`: give the authorizer's (SignatureAuthorizer.keySourceKeepDays): the bootstrap
 * counts the operators that can still sign by it (`last_admin`), as the authorizer verifies them.
 */
export interface AdminBootstrapProps extends Pick<SignatureAuthorizerProps, 'keySourceKeepDays'>, Pick<SignetFunctionProps, 'logRetention'> {
  /** The registry to register the admin in. */
  readonly registry: IClientRegistry;
  /**
   * The admin's public key: SPKI PEM (`-----BEGIN PUBLIC KEY-----`), PKCS#1 PEM or Base64 DER.
   * Checked at synth; a private key is refused (and must then be treated as exposed).
   */
  readonly publicKey: string;
  /** @default DEFAULT_ADMIN_CLIENT_NAME ('bootstrap admin') */
  readonly clientName?: string;
  /**
   * Where the admin may call from (IPv4/IPv6 addresses or CIDRs; `0.0.0.0` means everyone).
   * @default ['0.0.0.0'] - everyone: the signature is still required. Narrow it to your admin network.
   */
  readonly networkWhitelist?: readonly string[];
}

/**
 * A custom resource that registers one client with the role `registry:admin` holding the given
 * public key, through the registry's own store (record, key ownership and audit entry in one
 * transaction, audit actor `bootstrap`). If the key is registered already, the holder's clientId
 * is returned; a later deploy that changes `clientName` or `networkWhitelist` applies that change
 * to the holder (audited as `bootstrap`), and leaves alone what it did not change. Removing the
 * resource leaves the client in the registry.
 *
 * @example
 * const admin = new AdminBootstrap(this, 'Admin', { registry, publicKey: fs.readFileSync('admin/public.pem', 'utf8') });
 * new CfnOutput(this, 'AdminClientId', { value: admin.clientId });
 */
export class AdminBootstrap extends Construct {
  /** The admin's clientId (known after deploy; put it in `keyid`). */
  readonly clientId: string;
  /** SHA-256 fingerprint of the admin key (known at synth). */
  readonly fingerprint: string;

  constructor(scope: Construct, id: string, props: AdminBootstrapProps) {
    super(scope, id);
    const { spkiPem, fingerprint, networkWhitelist } = validateBootstrapProps(this.node.path, props);
    this.fingerprint = fingerprint;
    if (props.networkWhitelist === undefined) {
      Annotations.of(this).addWarningV2(
        'signet:admin-network-everyone',
        "The bootstrapped admin holds registry:admin and may call from any address (a signature is still required): set networkWhitelist (adminNetworkWhitelist) to your operators' networks.",
      );
    }

    const fn = new SignetFunction(this, 'Function', {
      entry: 'adminBootstrap',
      serviceName: BOOTSTRAP_SERVICE_NAME,
      description: 'Signet: registers the first registry:admin client (CloudFormation custom resource)',
      timeout: Duration.seconds(60),
      logRetention: props.logRetention,
      // The one key this function registers: whoever else may invoke it cannot make an operator of another.
      environment: settingsEnvironment('bootstrap', { tableName: props.registry.table.tableName, adminKeyFingerprint: fingerprint, keySourceKeepDays: props.keySourceKeepDays }),
    });
    props.registry.grantCreateClients(fn.role);

    const properties: AdminBootstrapProperties = {
      PublicKeyPem: spkiPem,
      ClientName: props.clientName ?? DEFAULT_ADMIN_CLIENT_NAME,
      NetworkWhitelist: JSON.stringify(networkWhitelist),
    };
    const resource = new CustomResource(this, 'Resource', {
      serviceToken: fn.function.functionArn,
      resourceType: 'Custom::SignetAdminBootstrap',
      properties: { ...properties },
      // A function that cannot answer (it failed to load, or timed out) fails the deploy in minutes, not CloudFormation's default hour.
      serviceTimeout: Duration.minutes(3),
    });
    // The grants must be in place before CloudFormation calls the function.
    resource.node.addDependency(fn);
    this.clientId = resource.getAttString('ClientId');
  }
}

/** Checks the key and the allow-list at synth; every problem in one error, never echoing the key. */
function validateBootstrapProps(
  path: string,
  props: AdminBootstrapProps,
): { spkiPem: string; fingerprint: string; networkWhitelist: string[] } {
  const problems: string[] = [];
  let spkiPem = '';
  let fingerprint = '';
  if (Token.isUnresolved(props.publicKey)) {
    problems.push('publicKey must be the key text itself, not a token: it is checked at synth');
  } else {
    try {
      ({ spkiPem, fingerprint } = importPublicKey(props.publicKey));
    } catch (error) {
      if (!isSignetError(error)) throw error;
      problems.push(
        error.code === 'private_key_submitted'
          ? 'publicKey holds a PRIVATE key. Give only the public half (-----BEGIN PUBLIC KEY-----, e.g. public.pem from `signet keygen`), and treat that private key as exposed: generate a new pair'
          : `publicKey is not usable (${error.code}): ${error.message}`,
      );
    }
  }
  const networkWhitelist: string[] = [];
  for (const entry of props.networkWhitelist ?? [EVERYONE]) {
    try {
      networkWhitelist.push(normaliseNetworkEntry(entry));
    } catch {
      problems.push(`networkWhitelist entry ${JSON.stringify(String(entry).slice(0, 64))} is not an IPv4/IPv6 address or CIDR`);
    }
  }
  if (networkWhitelist.length === 0 && problems.length === 0) problems.push('networkWhitelist is empty: give at least one entry (0.0.0.0 means everyone)');
  if (props.clientName !== undefined && (props.clientName.trim() === '' || props.clientName.length > 200)) {
    problems.push('clientName must be 1-200 characters');
  }
  const keepProblem = settingPropProblem('keySourceKeepDays', props.keySourceKeepDays);
  if (keepProblem !== undefined) problems.push(keepProblem);
  if (problems.length > 0) throw new Error(`${path}: invalid admin bootstrap: ${problems.join('; ')}.`);
  return { spkiPem, fingerprint, networkWhitelist };
}
