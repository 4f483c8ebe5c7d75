/**
 * The client-side signer: a key source plus the core's `signRequest`. The scheme itself
 * (components, parameters, base, algorithm) lives only in lambda/core/sign.ts.
 */
import type { SignatureAlgorithm } from '../core/algorithm-names';
import { KeyObject } from 'node:crypto';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { signRequest } from '../core/sign';
import { SigningKeyProvider, staticKeyProvider } from './key-provider';
import { SecretsManagerKeyProvider } from './secrets-manager-key-provider';

/**
 * The shortest time between two key reads by `refresh()`, in ms: refusals (which anyone on the
 * path can send) cost at most one key read (a Secrets Manager `GetSecretValue`) per interval.
 */
export const KEY_REFRESH_INTERVAL_MS = 30_000;

/** After a key read failed, the shortest time before `refresh()` reads again, in ms (refusals keep coming while Secrets Manager is down). */
export const KEY_RETRY_AFTER_FAILED_READ_MS = 5_000;

/** Options shared by every way of building a signer. */
interface CommonSignerOptions {
  /** Sign in the legacy form (no `date` component, no Date header). @default false */
  readonly legacy?: boolean;
  /**
   * The algorithm the client's key is registered for, sent as `alg`. Only an RSA key registered
   * for `rsa-pss-sha512` needs it; Ed25519 and ECDSA keys have one algorithm each, which is used.
   * @default the key type's own (RSA: rsa-v1_5-sha256)
   */
  readonly algorithm?: SignatureAlgorithm;
  /** The clock, ms since the epoch; `created` and Date come from it. @default Date.now */
  readonly nowMs?: () => number;
}

/** A key held by the caller (e.g. read from `private.pkcs8.b64`). */
export interface StaticKeySignerOptions extends CommonSignerOptions {
  readonly clientId: string;
  /** Headerless Base64 PKCS#8 (private.pkcs8.b64), PKCS#8 or PKCS#1 PEM, or a private KeyObject. */
  readonly privateKey: string | KeyObject;
}

/** A key kept (and rotated) in Secrets Manager; see `signing-secret.ts` for the secret's JSON. */
export interface SecretSignerOptions extends CommonSignerOptions {
  /** The secret's name or ARN. */
  readonly secretId: string;
  /** @default - a client for the ambient region and credentials */
  readonly secretsManager?: SecretsManagerClient;
  /** How long a key read from the secret is used before it is read again. @default 300_000 (DEFAULT_SIGNING_KEY_MAX_AGE_MS) */
  readonly maxAgeMs?: number;
}

/** Any other key source. */
export interface ProviderSignerOptions extends CommonSignerOptions {
  readonly keyProvider: SigningKeyProvider;
}

export type SignerOptions = StaticKeySignerOptions | SecretSignerOptions | ProviderSignerOptions;

/** A request to sign. */
export interface SignableRequest {
  /** Upper-cased before signing; send the request with the upper-cased method. */
  readonly method: string;
  /** The full URL exactly as it will be sent: scheme, host (and port), path, query. */
  readonly url: string;
  /**
   * The request's other headers. Signet's scheme does not cover them, so they do not change the
   * signature; any Date, Content-Digest, Signature-Input or Signature among them must be
   * replaced by the returned ones.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /** The exact bytes that will be sent; an empty body counts as none. */
  readonly body?: Uint8Array | string;
}

/** The headers to add, and which key made them. */
export interface SignatureDetails {
  /** Lower-case names: `signature-input`, `signature`, `date` (unless legacy), `content-digest` (with a body). */
  readonly headers: Record<string, string>;
  readonly keyId: string;
  readonly fingerprint: string;
}

export interface Signer {
  /** The headers to add to the request (lower-case names). */
  sign(request: SignableRequest): Promise<Record<string, string>>;
  /** As {@link sign}, also naming the key used. */
  signDetailed(request: SignableRequest): Promise<SignatureDetails>;
  /**
   * Fetches the key anew (a no-op for a static key). A signer from {@link createSigner} reads at
   * most once per {@link KEY_REFRESH_INTERVAL_MS} of its clock: a call sooner shares the last read
   * (waits for it if it is still running) and reads nothing. A read that failed fails only the call
   * that made it; the calls in the next {@link KEY_RETRY_AFTER_FAILED_READ_MS} read nothing, and one after reads again.
   */
  refresh(): Promise<void>;
  /** The fingerprint of the key the next signature will use. */
  keyFingerprint(): Promise<string>;
}

/**
 * Builds a signer from a key, a Secrets Manager secret, or a key provider.
 *
 * @example
 * const signer = createSigner({ secretId: 'signet/partner-key' });
 * const headers = await signer.sign({ method: 'POST', url: 'https://api.example.com/api/echo?x=1', body });
 * // send the request with these headers added, the same method, URL and body bytes
 */
export function createSigner(options: SignerOptions): Signer {
  const provider = providerFor(options);
  const legacy = options.legacy ?? false;
  const nowMs = options.nowMs ?? Date.now;
  let lastRefresh: { atMs: number; done: Promise<void> } | undefined;

  const signDetailed = async (request: SignableRequest): Promise<SignatureDetails> => {
    const key = await provider.current();
    const { headers } = signRequest({
      method: request.method,
      url: request.url,
      body: request.body,
      keyId: key.clientId,
      privateKey: key.privateKey,
      created: Math.floor(nowMs() / 1000),
      legacy,
      // Only for an RSA key: a rotated key may be of another type than the option was written for.
      ...(options.algorithm !== undefined && key.privateKey.asymmetricKeyType === 'rsa' ? { algorithm: options.algorithm } : {}),
    });
    return { headers: { ...headers }, keyId: key.clientId, fingerprint: key.fingerprint };
  };

  return {
    signDetailed,
    sign: async (request) => (await signDetailed(request)).headers,
    refresh: async () => {
      const now = nowMs();
      if (lastRefresh === undefined || now - lastRefresh.atMs >= KEY_REFRESH_INTERVAL_MS) {
        const read = {
          atMs: now,
          // A failed read is not shared: the refresh that made it fails; later ones within
          // KEY_RETRY_AFTER_FAILED_READ_MS read nothing (and do not fail), and the next one after reads again.
          done: provider.refresh().then(
            () => undefined,
            (error: unknown) => {
              if (lastRefresh === read) lastRefresh = { atMs: now - KEY_REFRESH_INTERVAL_MS + KEY_RETRY_AFTER_FAILED_READ_MS, done: Promise.resolve() };
              throw error;
            },
          ),
        };
        lastRefresh = read;
      }
      await lastRefresh.done;
    },
    keyFingerprint: async () => (await provider.current()).fingerprint,
  };
}

function providerFor(options: SignerOptions): SigningKeyProvider {
  if ('keyProvider' in options) return options.keyProvider;
  if ('secretId' in options) {
    return new SecretsManagerKeyProvider({ secretId: options.secretId, secretsManager: options.secretsManager, maxAgeMs: options.maxAgeMs, nowMs: options.nowMs });
  }
  return staticKeyProvider(options.clientId, options.privateKey);
}
