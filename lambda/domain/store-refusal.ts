/**
 * A refusal of the store or of the domain's rules: a stable code, what it is about as data, and a
 * plain sentence that names no door into the service (no HTTP route, no CLI command). Whoever
 * answers a caller words it for that caller from the data: the registry names its routes
 * (lambda/registry/store-refusals.ts); the rotation and the local bootstrap pass the sentence on.
 */
import { SignetError, type SignetErrorCode } from '../core/errors';

/** What a refusal is about. An id the caller sent in the wrong shape is left out (undefined), never echoed. */
export type RefusalData =
  /** No client has the id (or the caller may not see the one that has). */
  | { readonly about: 'client'; readonly clientId: string | undefined }
  /** No account has the id (or the caller may not see the one that has). */
  | { readonly about: 'account'; readonly accountId: string | undefined }
  /** The client holds no key with this fingerprint. */
  | { readonly about: 'key'; readonly clientId: string; readonly fingerprint: string | undefined }
  /** The change would leave the client without an active key: `removal` when it removes one, else it expires one. */
  | { readonly about: 'last-active-key'; readonly clientId: string; readonly removal: boolean };

export class StoreRefusal extends SignetError {
  constructor(
    code: SignetErrorCode,
    message: string,
    readonly data: RefusalData,
    options?: ErrorOptions,
  ) {
    super(code, message, options);
  }
}
