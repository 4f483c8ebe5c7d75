/**
 * The registry's words for the refusals of the store and the domain's rules: they carry a code
 * and what they are about (lambda/domain/store-refusal.ts); the registry says where to look next
 * in its own routes. Any other error passes through as it is.
 */
import { SignetError } from '../core/errors';
import { type RefusalData, StoreRefusal } from '../domain/store-refusal';

/** The sentence the registry answers a refusal about `data` with. */
export function registrySentence(data: RefusalData): string {
  switch (data.about) {
    case 'client':
      return `No client has the id ${data.clientId ?? '(malformed id)'}. Check the clientId, or list clients with GET /registry/clients.`;
    case 'account':
      return `No account has the id ${data.accountId ?? '(malformed id)'}. Check the accountId, or list accounts with GET /registry/accounts.`;
    case 'key':
      return `Client ${data.clientId} has no key with fingerprint ${data.fingerprint ?? '(malformed)'}. List its keys with GET /registry/clients/${data.clientId}.`;
    case 'last-active-key':
      return data.removal
        ? "This is the client's last active key, so removing it would lock the client out. Add the new key first (POST /registry/clients/{clientId}/keys), then remove this one."
        : 'This would leave the client without an active key. Add the new key first, then expire this one.';
  }
}

/** A store refusal worded for the registry's callers (same code, same cause); anything else unchanged. */
export function inRegistryWords(error: SignetError): SignetError {
  if (!(error instanceof StoreRefusal)) return error;
  return new SignetError(error.code, registrySentence(error.data), { cause: error.cause });
}
