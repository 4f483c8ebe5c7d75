/**
 * The signing key kept in Secrets Manager: reads the `AWSCURRENT` version of the secret
 * (JSON, see `signing-secret.ts`), keeps it for a max age, and fetches anew on `refresh()`.
 *
 * After a rotation the previous key keeps verifying for the grace period (24 h by default), so a
 * cache of a few minutes never breaks signing; `refresh()` on a refusal (401 or 403) covers the rest.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SignetError, fail, isSignetError } from '../core/errors';
import { SigningKey, SigningKeyProvider } from './key-provider';
import { parseSigningSecret } from './signing-secret';

import { DEFAULT_SIGNING_KEY_MAX_AGE_MS, DEFAULT_SIGNING_KEY_STALE_IF_ERROR_MS } from '../core/defaults';

export { DEFAULT_SIGNING_KEY_MAX_AGE_MS, DEFAULT_SIGNING_KEY_STALE_IF_ERROR_MS };

/** After a failed read served from the stale cache, the next read is tried no sooner than this, in ms. */
const RETRY_AFTER_ERROR_MS = 5_000;

/**
 * How long one read of the secret may take, in ms: a read that hangs (a network path that drops
 * packets; the SDK sets no timeout of its own) then fails, and a cached key is served as after any
 * failed read, instead of every request waiting on it.
 */
export const DEFAULT_SECRET_READ_TIMEOUT_MS = 5_000;

/** The staging label the signer reads: the key rotation has finished with. */
const CURRENT_STAGE = 'AWSCURRENT';

export interface SecretsManagerKeyProviderOptions {
  /** The secret's name or ARN. */
  readonly secretId: string;
  /** @default - a client for the ambient region and credentials, shared by all providers */
  readonly secretsManager?: SecretsManagerClient;
  /** @default DEFAULT_SIGNING_KEY_MAX_AGE_MS */
  readonly maxAgeMs?: number;
  /** @default DEFAULT_SIGNING_KEY_STALE_IF_ERROR_MS */
  readonly staleIfErrorMs?: number;
  /** The clock, ms since the epoch; injectable for tests. @default Date.now */
  readonly nowMs?: () => number;
  /** @default DEFAULT_SECRET_READ_TIMEOUT_MS */
  readonly readTimeoutMs?: number;
}

let sharedClient: SecretsManagerClient | undefined;

/** Reads the signing key from Secrets Manager, with a cache. */
export class SecretsManagerKeyProvider implements SigningKeyProvider {
  private readonly secretId: string;
  private readonly client: SecretsManagerClient;
  private readonly maxAgeMs: number;
  private readonly staleIfErrorMs: number;
  private readonly nowMs: () => number;
  private readonly readTimeoutMs: number;
  private cached: { key: SigningKey; fetchedAtMs: number } | undefined;
  private retryAtMs = 0;
  private inFlight: Promise<SigningKey> | undefined;

  constructor(options: SecretsManagerKeyProviderOptions) {
    if (typeof options.secretId !== 'string' || options.secretId.trim() === '') {
      fail('invalid_request', 'secretId must name the Secrets Manager secret that holds the signing key (its name or ARN).');
    }
    this.secretId = options.secretId;
    this.client = options.secretsManager ?? (sharedClient ??= new SecretsManagerClient({}));
    this.maxAgeMs = nonNegative(options.maxAgeMs, DEFAULT_SIGNING_KEY_MAX_AGE_MS, 'maxAgeMs');
    this.staleIfErrorMs = nonNegative(options.staleIfErrorMs, DEFAULT_SIGNING_KEY_STALE_IF_ERROR_MS, 'staleIfErrorMs');
    this.nowMs = options.nowMs ?? Date.now;
    this.readTimeoutMs = nonNegative(options.readTimeoutMs, DEFAULT_SECRET_READ_TIMEOUT_MS, 'readTimeoutMs');
    if (this.readTimeoutMs < 1) fail('invalid_request', 'readTimeoutMs must be at least 1 ms: a read given no time at all always fails.');
  }

  /**
   * The cached key while it is younger than the max age; otherwise reads the secret. When the
   * read fails, a cached key no older than max age + stale-if-error is still returned.
   * @throws SignetError `dependency_unavailable` when Secrets Manager cannot be read and no usable key is cached, or the secret's own errors (see `parseSigningSecret`)
   */
  async current(): Promise<SigningKey> {
    const now = this.nowMs();
    const cached = this.cached;
    if (cached && (now - cached.fetchedAtMs < this.maxAgeMs || now < this.retryAtMs)) return cached.key;
    try {
      return await this.load();
    } catch (error) {
      if (cached && now - cached.fetchedAtMs <= this.maxAgeMs + this.staleIfErrorMs) {
        this.retryAtMs = now + RETRY_AFTER_ERROR_MS;
        return cached.key;
      }
      throw error;
    }
  }

  /**
   * Reads the secret now, whatever the cache holds.
   * @throws SignetError as {@link current}, never answered from the cache
   */
  refresh(): Promise<SigningKey> {
    return this.load();
  }

  /** One read at a time: callers arriving while a read is in flight share it. */
  private load(): Promise<SigningKey> {
    this.inFlight ??= this.fetch().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async fetch(): Promise<SigningKey> {
    let output;
    try {
      output = await this.client.send(new GetSecretValueCommand({ SecretId: this.secretId, VersionStage: CURRENT_STAGE }), { abortSignal: AbortSignal.timeout(this.readTimeoutMs) });
    } catch (cause) {
      const name = cause instanceof Error ? cause.name : 'an unknown error';
      if (name === 'AbortError' || name === 'TimeoutError') {
        throw new SignetError('dependency_unavailable', `Secrets Manager did not answer the read of the signing key within ${this.readTimeoutMs} ms. Check the network path to it (a VPC endpoint, a proxy, a firewall).`, { cause });
      }
      throw new SignetError(
        'dependency_unavailable',
        `Could not read the signing key from Secrets Manager (${name}). Check the secret id, the region, and that this caller may secretsmanager:GetSecretValue on it.`,
        { cause },
      );
    }
    const fetchedAtMs = this.nowMs();
    // Same version as cached: keep the imported key (importing costs more than the read).
    if (this.cached && output.VersionId !== undefined && this.cached.key.versionId === output.VersionId) {
      this.cached = { key: this.cached.key, fetchedAtMs };
      this.retryAtMs = 0;
      return this.cached.key;
    }
    if (typeof output.SecretString !== 'string') {
      fail('invalid_request', 'The signing secret has no SecretString; store the key as JSON text (see lambda/signer/signing-secret.ts).');
    }
    let parsed;
    try {
      parsed = parseSigningSecret(output.SecretString);
    } catch (error) {
      if (isSignetError(error)) throw new SignetError(error.code, `Secret ${this.secretId} (AWSCURRENT): ${error.message}`, { cause: error });
      throw error;
    }
    const key: SigningKey = Object.freeze({
      clientId: parsed.secret.clientId,
      fingerprint: parsed.key.fingerprint,
      privateKey: parsed.key.key,
      versionId: output.VersionId,
    });
    this.cached = { key, fetchedAtMs };
    this.retryAtMs = 0;
    return key;
  }
}

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) fail('invalid_request', `${name} must be a number of milliseconds >= 0; got ${String(value)}.`);
  return value;
}
