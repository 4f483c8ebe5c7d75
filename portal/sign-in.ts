/**
 * Signing in and out: the admin's private key file is read in the browser, imported as a
 * non-extractable WebCrypto key (./keys.ts), checked with a first signed call (GET
 * /registry/roles), optionally remembered on this device (./key-store.ts), then the clients are
 * listed. Signing out forgets the key and everything the page held: in every tab of the portal
 * (a BroadcastChannel tells the others), each of which loads itself again, since only a new page
 * lets the browser drop the key object the old one used.
 */
import { loadScope } from './account-scope';
import { closeAccountAudit } from './audit-panel';
import { loadClients, renderRoleFilter, resetList } from './client-list';
import { $, announce, codeOf, input, messageOf, showError } from './dom';
import { forgetKey, recallKey, rememberKey } from './key-store';
import { importSigningKey, looksLikePrivateKey } from './keys';
import { RegistryError, apiBaseOf, createRegistryClient } from './registry-client';
import { state } from './page-state';
import { clearToasts } from './toasts';
import { shortFingerprint } from './view-model';

/** What one tab tells the others when it signs out. */
const SIGNED_OUT = 'signed-out';
/** Set just before the page loads itself again after signing out, so the new page says so. */
const SIGNED_OUT_NOTE = 'signet-portal-signed-out';
/** The portal's tabs of this origin, told when one signs out (absent where the browser has no BroadcastChannel). */
const tabs = typeof BroadcastChannel === 'function' ? new BroadcastChannel('signet-portal') : undefined;
/** Another tab signed out while this one was signing in with the remembered key: it must not finish. */
let signedOutElsewhere = false;

/** The most a `client-id` file holds (a clientId is at most 256 characters); key files are larger. */
const CLIENT_ID_FILE_MAX_BYTES = 258;

/** The clientId a chosen `client-id` file holds, if one of `files` is such a file (never a key). */
async function clientIdOf(files: readonly File[]): Promise<string | undefined> {
  for (const file of files) {
    if (file.size > CLIENT_ID_FILE_MAX_BYTES) continue;
    const compact = (await file.text()).trim();
    if (compact.length <= 256 && /^[\x21-\x7e]+$/.test(compact) && !looksLikePrivateKey(compact)) return compact;
  }
  return undefined;
}

/** As soon as the files are chosen: the client ID field shows the `client-id` file's clientId (a typed one is kept). */
async function onKeyFilesChosen() {
  const idInput = input('admin-id');
  const clientId = await clientIdOf(Array.from(input('key-file').files ?? []));
  if (clientId !== undefined && idInput.value.trim() === '') idInput.value = clientId;
}

async function onSignIn(event: SubmitEvent) {
  event.preventDefault();
  for (const id of ['key-file-error', 'admin-id-error', 'sign-in-error']) showError(id, '');
  const fileInput = input('key-file');
  const idInput = input('admin-id');
  const files = Array.from(fileInput.files ?? []);
  const clientId = await clientIdOf(files);
  if (clientId !== undefined && idInput.value.trim() === '') idInput.value = clientId;
  let keyText = '';
  for (const file of files) {
    const text = await file.text();
    if (text.trim() !== clientId) keyText = text;
  }
  if (keyText === '') {
    showError('key-file-error', 'Choose the admin\'s private key file (private.pkcs8.b64 or private.pem).', { field: fileInput });
    fileInput.focus();
    return;
  }
  const keyId = idInput.value.trim();
  if (!/^[\x21-\x7e]{1,256}$/.test(keyId)) {
    showError('admin-id-error', 'Give the admin\'s client ID (its keyid), e.g. the content of $SIGNET_HOME/admin/client-id.', { field: idInput });
    idInput.focus();
    return;
  }
  // A refused sign-in keeps the chosen files (fix the client ID, or the key, and try again);
  // the file input is cleared once the key is in use.
  let key;
  try {
    key = await importSigningKey(keyText);
  } catch (error) {
    showError('key-file-error', messageOf(error), { code: codeOf(error), field: fileInput });
    fileInput.focus();
    return;
  } finally {
    keyText = '';
  }
  const remember = input('remember').checked;
  if (await useKey({ keyId, fingerprint: key.fingerprint, privateKey: key.privateKey }, remember, false)) fileInput.value = '';
}

/**
 * Why the registry refused the key, in the sign-in form's words where the code says what to do
 * (the code itself goes with the message, `data-code`); otherwise the registry's sentence.
 */
function signInRefusal(error: unknown, keyId: string): string {
  switch (codeOf(error)) {
    case 'role_forbidden':
      return `This key has no registry role: client ${keyId} may not manage clients. Sign in with an admin key (registry:admin, or account:admin for a partner's account), e.g. $SIGNET_HOME/admin/private.pkcs8.b64.`;
    case 'unknown_client':
      return `No client has the ID ${keyId}. Check the Admin client ID: select the client-id file beside the key.`;
    case 'signature_mismatch':
      return `This key is not a key of client ${keyId}. Choose the private key that belongs to this client ID (the same folder's private.pkcs8.b64).`;
    default:
      return `The registry refused this key: ${messageOf(error)}`;
  }
}

/**
 * Checks the key against the registry (GET /registry/roles), then shows the clients.
 * @returns false when the registry refused the key (the form says why)
 * @param remember store it on this device
 * @param remembered it came from this device's store
 */
async function useKey(signer: { keyId: string; fingerprint: string; privateKey: CryptoKey }, remember: boolean, remembered: boolean): Promise<boolean> {
  const registry = createRegistryClient({
    apiBase: apiBaseOf(location.href),
    keyId: signer.keyId,
    privateKey: signer.privateKey,
    onWrite: (seconds) => (state.propagationSeconds = seconds),
  });
  const submit = $('sign-in-submit') as HTMLButtonElement;
  submit.disabled = true;
  try {
    state.roles = (await registry.listRoles()).roles;
  } catch (error) {
    showError('sign-in-error', signInRefusal(error, signer.keyId), { code: codeOf(error) });
    // A remembered key the API refuses is forgotten; one it could not judge (no answer, a fault,
    // a throttle) is kept for the next visit.
    if (remembered && error instanceof RegistryError && (error.status === 401 || error.status === 403)) await forgetKey();
    return false;
  } finally {
    submit.disabled = false;
  }
  if (remembered && signedOutElsewhere) {
    location.reload();
    return false;
  }
  if (remember) {
    try {
      await rememberKey(signer);
      remembered = true;
    } catch (error) {
      announce(messageOf(error));
    }
  }
  state.registry = registry;
  state.signerId = signer.keyId;
  resetList();
  await loadScope(registry, signer.keyId);
  renderRoleFilter();
  $('signer-id').textContent = signer.keyId;
  $('signer-fingerprint').textContent = shortFingerprint(signer.fingerprint);
  $('signer-fingerprint').title = signer.fingerprint;
  $('signer-remembered').hidden = !remembered;
  $('signer-status').hidden = false;
  $('sign-in').hidden = true;
  $('clients').hidden = false;
  announce(`Signing as ${signer.keyId}.`);
  await loadClients(false);
  $('clients-title').focus();
  return true;
}

/**
 * Forgets the key (the remembered one too) and what the page held, tells the portal's other tabs
 * to do the same (unless this tab was told), and loads the page again: the new page has no key
 * object, and says it signed out.
 */
async function onSignOut(toldByAnotherTab = false) {
  state.registry = undefined;
  state.signerId = undefined;
  state.operator = false;
  state.account = undefined;
  state.accounts = [];
  resetList();
  clearToasts();
  closeAccountAudit();
  try {
    await forgetKey();
    if (!toldByAnotherTab) tabs?.postMessage(SIGNED_OUT);
    sessionStorage.setItem(SIGNED_OUT_NOTE, '1');
  } finally {
    // Whatever failed above, the page goes: a new one holds no key.
    location.reload();
  }
}

/** On the page loaded after signing out: says so, where the key file is chosen. */
function sayIfSignedOut() {
  if (sessionStorage.getItem(SIGNED_OUT_NOTE) === null) return;
  sessionStorage.removeItem(SIGNED_OUT_NOTE);
  announce('Signed out; the key is gone from this page and this device.');
  input('key-file').focus();
}

/**
 * On a loopback http address (`npm start`'s portal), says what remembering costs there: the
 * browser keeps a remembered key for the origin, and whatever any other tool serves later at
 * the same address and port (a common development port) can sign with it.
 */
function warnOfSharedOrigin() {
  const { protocol, hostname, origin } = window.location;
  const loopback = hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
  if (protocol !== 'http:' || !loopback) return;
  const warning = $('remember-warning');
  warning.textContent = `This page is served from ${origin}, an address any local development server may use: a key remembered here can sign for whatever another tool serves at ${origin} later. Remember only a local admin key, never one a deployed registry trusts.`;
  warning.hidden = false;
  input('remember').setAttribute('aria-describedby', 'remember-warning');
}

/** Wires the form and signs in with a remembered key, if this device holds one. */
export async function initSignIn() {
  warnOfSharedOrigin();
  ($('sign-in-form') as HTMLFormElement).addEventListener('submit', (e) => void onSignIn(e as SubmitEvent));
  input('key-file').addEventListener('change', () => void onKeyFilesChosen());
  $('sign-out').addEventListener('click', () => void onSignOut());
  // Another tab signed out: so does this one, if it is signed in.
  tabs?.addEventListener('message', (event) => {
    if (event.data !== SIGNED_OUT) return;
    signedOutElsewhere = true;
    if (state.registry !== undefined) void onSignOut(true);
  });
  sayIfSignedOut();
  const remembered = await recallKey();
  if (remembered) await useKey(remembered, false, true);
}
