/**
 * A Public Key box, checked on every change as the registry will check it: a private key is
 * refused on the spot (and never sent), a good key shows its type, algorithm and the fingerprint
 * the registry will store. Beside it, "Generate a key pair" (./key-generation.ts) fills the box
 * with a new public key and offers its private key once, as a download. Used by the client form
 * (+ Client) and the Add key dialog; a box's elements are named by its id (`client-key`,
 * `client-key-error`, `client-key-generate`, ...).
 */
import type { KeyView } from '../lambda/registry/view-types';
import { confirmChange } from './confirm';
import { $, announce, codeOf, messageOf, showError } from './dom';
import { GENERATED_KEY_TYPES, PRIVATE_KEY_FILE, generateKeyPair, isGeneratedKeyType, keyTypeForRollover } from './key-generation';
import { checkPublicKey } from './keys';
import { screenPublicKey } from './validation';

/** The latest check per box: an older answer arriving late is dropped. */
const checks = new Map<string, number>();

/**
 * Checks the box's text; shows the error or the fingerprint.
 * @returns the fingerprint when the key is good and readable here
 */
async function checkKeyBox(boxId: string): Promise<string | undefined> {
  const errorId = `${boxId}-error`;
  const okId = `${boxId}-ok`;
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

// ------------------------------------------------------------------ generating a key pair

/**
 * A generated pair's private key per box, held only until it is downloaded, the box's text
 * changes or the dialog closes: never logged, stored or put in the page.
 */
const undownloaded = new Map<string, { readonly publicKeyPem: string; privateKey: string }>();

/** Wires a box: checked on every change; Generate fills it; Download hands the private key over once. */
export function initKeyBox(boxId: string) {
  const box = $(boxId) as HTMLTextAreaElement;
  box.addEventListener('input', () => {
    // A changed box no longer holds the generated public key: its private key is of no use.
    if (undownloaded.get(boxId)?.publicKeyPem !== box.value) resetKeyBox(boxId);
    void checkKeyBox(boxId);
  });
  $(`${boxId}-generate`).addEventListener('click', () => void generateInto(boxId));
  $(`${boxId}-download`).addEventListener('click', () => downloadPrivateKey(boxId));
}

/** Forgets a generated private key and hides its panel (the dialog opened, closed, or the box changed). */
export function resetKeyBox(boxId: string) {
  undownloaded.delete(boxId);
  $(`${boxId}-private`).hidden = true;
  ($(`${boxId}-download`) as HTMLButtonElement).disabled = false;
  $(`${boxId}-private-status`).textContent = '';
}

/**
 * Sets the box's key type: for a new key of an existing client, the type of the key it signs
 * with now; for a new client (no keys), Ed25519.
 */
export function defaultKeyType(boxId: string, keys: readonly KeyView[] | undefined) {
  ($(`${boxId}-type`) as HTMLSelectElement).value = keyTypeForRollover(keys ?? []);
}

/** True while the box holds a generated public key whose private key was not downloaded. */
function holdsUndownloadedKey(boxId: string) {
  const pending = undownloaded.get(boxId);
  return pending !== undefined && pending.publicKeyPem === ($(boxId) as HTMLTextAreaElement).value;
}

/**
 * Whether the box's dialog may close: yes, unless it holds a generated key whose private key
 * was not downloaded; then only once the admin confirms that the pair is thrown away.
 * @param opener focus returns here when the question is answered
 */
export async function keyBoxMayClose(boxId: string, opener: HTMLElement): Promise<boolean> {
  if (!holdsUndownloadedKey(boxId)) return true;
  return confirmChange(
    'Close without the private key?',
    `The key pair generated here is thrown away: its private key (${PRIVATE_KEY_FILE}) was not downloaded, and the page keeps no copy. Download it first to keep the pair.`,
    'Close and discard the pair',
    opener,
  );
}

/**
 * Refuses a submit while the box holds a generated public key whose private key was not
 * downloaded: the client would get a key no one holds.
 * @returns true when the submit may go on
 */
export function privateKeySaved(boxId: string): boolean {
  const box = $(boxId) as HTMLTextAreaElement;
  if (!holdsUndownloadedKey(boxId)) return true;
  showError(`${boxId}-error`, `Download the private key (${PRIVATE_KEY_FILE}) first: the page keeps no copy, and without it no one can sign with this key.`, {
    code: 'private_key_not_downloaded',
    field: box,
  });
  $(`${boxId}-download`).focus();
  return false;
}

async function generateInto(boxId: string) {
  const type = ($(`${boxId}-type`) as HTMLSelectElement).value;
  const button = $(`${boxId}-generate`) as HTMLButtonElement;
  const box = $(boxId) as HTMLTextAreaElement;
  if (!isGeneratedKeyType(type)) return;
  button.disabled = true;
  try {
    const pair = await generateKeyPair(type);
    resetKeyBox(boxId);
    box.value = pair.publicKeyPem;
    undownloaded.set(boxId, { publicKeyPem: pair.publicKeyPem, privateKey: pair.privateKeyPkcs8Base64 });
    $(`${boxId}-private`).hidden = false;
    const fingerprint = await checkKeyBox(boxId);
    announce(`A new ${GENERATED_KEY_TYPES[type].label} key pair: its public key is in the box${fingerprint ? ` (fingerprint ${fingerprint})` : ''}. Download its private key now.`);
    $(`${boxId}-download`).focus();
  } catch (error) {
    showError(`${boxId}-error`, messageOf(error), { code: 'key_generation_failed', field: box });
  } finally {
    button.disabled = false;
  }
}

/** The private key as a file, once: a Blob behind a URL revoked right after the click, and the page's copy dropped. */
function downloadPrivateKey(boxId: string) {
  const pending = undownloaded.get(boxId);
  if (pending === undefined) return;
  const url = URL.createObjectURL(new Blob([`${pending.privateKey}\n`], { type: 'application/octet-stream' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = PRIVATE_KEY_FILE;
  link.click();
  window.setTimeout(() => URL.revokeObjectURL(url), 0);
  pending.privateKey = '';
  undownloaded.delete(boxId);
  ($(`${boxId}-download`) as HTMLButtonElement).disabled = true;
  if ($(`${boxId}-error`).dataset.code === 'private_key_not_downloaded') showError(`${boxId}-error`, '', { field: $(boxId) });
  $(`${boxId}-private-status`).textContent = `Downloaded as ${PRIVATE_KEY_FILE}. The page has no copy left: hand the file to the partner's signer, then delete it here.`;
}
