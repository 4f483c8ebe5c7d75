/**
 * A Public Key box, checked on every change as the registry will check it: a private key is
 * refused on the spot (and never sent), a good key shows its type, size and the fingerprint the
 * registry will store. Used by the client form (+ Client) and the Add key dialog.
 */
import { $, codeOf, messageOf, showError } from './dom';
import { checkPublicKey } from './keys';
import { screenPublicKey } from './validation';

/** The latest check per box: an older answer arriving late is dropped. */
const checks = new Map<string, number>();

/**
 * Checks the box's text; shows the error or the fingerprint.
 * @returns the fingerprint when the key is good and readable here
 */
export async function checkKeyBox(boxId: string, errorId: string, okId: string): Promise<string | undefined> {
  const box = $(boxId) as HTMLTextAreaElement;
  const text = box.value;
  const sequence = (checks.get(boxId) ?? 0) + 1;
  checks.set(boxId, sequence);
  const ok = $(okId);
  ok.hidden = true;
  if (text.trim() === '') {
    showError(errorId, '', { field: box });
    return undefined;
  }
  try {
    screenPublicKey(text);
    showError(errorId, '', { field: box });
    const key = await checkPublicKey(text);
    if (sequence !== checks.get(boxId)) return undefined;
    if (key !== undefined) {
      ok.textContent = `${key.keyType} public key (${key.algorithm}), fingerprint ${key.fingerprint}`;
      ok.hidden = false;
    }
    return key?.fingerprint;
  } catch (error) {
    if (sequence === checks.get(boxId)) showError(errorId, messageOf(error), { code: codeOf(error), field: box });
    return undefined;
  }
}

/** The registry's refusals that are about the public key (shown at the box). */
export const KEY_ERROR_CODES: ReadonlySet<string> = new Set([
  'private_key_submitted',
  'invalid_public_key',
  'unsupported_key_type',
  'key_too_small',
  'key_already_registered',
]);
