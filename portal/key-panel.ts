/**
 * A client's keys, in its details: each with fingerprint, type, age (flagged past the rotation
 * interval), last use and state; Add key (#key-dialog: both keys verify from then on) and Remove
 * (asks first, naming the key and what stops working). The last active key cannot be removed (the
 * registry refuses it, `last_key`): its Remove button is disabled, and the panel says why and what
 * to do instead. A client whose keys come from a published source shows them as
 * ./key-source-panel.ts does instead.
 */
import type { ClientView } from '../lambda/registry/view-types';
import { confirmChange } from './confirm';
import { $, button, codeOf, el, formatDay, formatInstant, messageOf, showError } from './dom';
import { focusField, trapFocus } from './dialogs';
import { KEY_ERROR_CODES, defaultKeyType, initKeyBox, keyBoxMayClose, privateKeySaved, resetKeyBox } from './key-box';
import { hasKeySource, keySourcePanel } from './key-source-panel';
import { checkPublicKey } from './keys';
import { list, state, whenItApplies } from './page-state';
import { SignetError } from './signet-core';
import { toast } from './toasts';
import { screenPublicKey } from './validation';
import { ROTATION_DAYS, keySummary, lastUsedText, shortFingerprint } from './view-model';

/** The client the Add key dialog adds to. */
let adding: ClientView | undefined;

/** The id of the Add key button of a client (focus returns there after a change redraws the list). */
const addKeyButtonId = (clientId: string) => `add-key-${clientId}`;

/**
 * The keys part of a client's details.
 */
export function keyPanel(client: ClientView): HTMLElement {
  if (hasKeySource(client)) return keySourcePanel(client);
  const lines = keySummary(client, Date.now()).lines;
  const lastKeyNoteId = `last-key-${client.clientId}`;
  const rows = lines.map((line) => {
    const short = shortFingerprint(line.fingerprint);
    const remove = button('Remove', { name: `Remove key ${short} of ${client.name}`, className: 'danger-outline' });
    if (line.removable) {
      remove.addEventListener('click', () => void removeKey(client, line.fingerprint, remove));
    } else {
      remove.disabled = true;
      remove.setAttribute('aria-describedby', lastKeyNoteId);
    }
    const state = line.active ? (line.notAfter ? `active until ${formatInstant(line.notAfter)}` : 'active') : `expired ${line.notAfter ? formatInstant(line.notAfter) : ''}`;
    return el('tr', { class: line.due ? 'due' : '', 'data-fingerprint': line.fingerprint }, [
      el('td', { 'data-label': 'Fingerprint' }, [el('code', {}, [line.fingerprint])]),
      el('td', { 'data-label': 'Type', class: 'key-type' }, [line.type]),
      el('td', { 'data-label': 'Added' }, [formatInstant(line.addedAt)]),
      el('td', { 'data-label': 'Age' }, [line.due ? `⚠ ${line.age} — older than ${ROTATION_DAYS} days, rotate it` : line.age]),
      el('td', { 'data-label': 'Last used' }, [lastUsedText(line, formatInstant)]),
      el('td', { 'data-label': 'State' }, [state]),
      el('td', { 'data-label': 'Actions' }, [remove]),
    ]);
  });
  const table = el('table', { class: 'inner keys' }, [
    el('caption', {}, [`Keys of ${client.name}`]),
    el('thead', {}, [el('tr', {}, [...['Fingerprint (SHA-256)', 'Type', 'Added', 'Age', 'Last used', 'State'].map((h) => el('th', { scope: 'col' }, [h])), el('th', { scope: 'col' }, [el('span', { class: 'visually-hidden' }, ['Actions'])])])]),
    el('tbody', {}, rows),
  ]);
  const add = button('Add key', { name: `Add key to ${client.name}`, className: 'primary', onClick: (b) => openAddKey(client, b) });
  add.id = addKeyButtonId(client.clientId);
  const kept = lines.find((l) => !l.removable);
  const note = kept
    ? [
        el('p', { id: lastKeyNoteId, class: 'hint last-key' }, [
          `Key ${shortFingerprint(kept.fingerprint)} is the only active key of ${client.name}, so it cannot be removed: the client would be locked out. ` +
            `To replace it, add the new key first, then remove this one once ${client.name} signs with the new key.`,
        ]),
      ]
    : [];
  const intro = el('p', { class: 'hint' }, [
    lines.length > 1
      ? `Requests signed with any active key are accepted. Remove the old key once ${client.name} signs with the new one.`
      : `To rotate: Add key (both keys then verify), and remove the old key once ${client.name} signs with the new one.`,
  ]);
  return el('div', { class: 'key-panel' }, [table, ...note, el('div', { class: 'panel-actions' }, [add, intro])]);
}

// ------------------------------------------------------------------ add

function openAddKey(client: ClientView, opener: HTMLElement) {
  adding = client;
  $('key-dialog-title').textContent = `Add a key to ${client.name}`;
  $('key-dialog-intro').textContent =
    `The new key verifies as soon as it is added, next to ${client.keys.length === 1 ? 'the current key' : `the ${client.keys.length} current keys`}: nothing stops working. Remove the old key once ${client.name} signs with the new one.`;
  const box = $('new-key') as HTMLTextAreaElement;
  box.value = '';
  for (const id of ['key-form-error', 'new-key-error']) showError(id, '', { field: id === 'new-key-error' ? box : null });
  $('new-key-ok').hidden = true;
  resetKeyBox('new-key');
  defaultKeyType('new-key', client.keys);
  const dialog = $('key-dialog') as HTMLDialogElement;
  dialog.addEventListener('close', () => onAddKeyClosed(opener), { once: true });
  dialog.showModal();
  box.focus();
  dialog.scrollTop = 0;
}

function onAddKeyClosed(opener: HTMLElement) {
  ($('new-key') as HTMLTextAreaElement).value = '';
  resetKeyBox('new-key');
  const clientId = adding?.clientId;
  adding = undefined;
  // The list may have been drawn again meanwhile: the client's Add key button, if the old one is gone.
  const target = opener.getClientRects().length > 0 ? opener : clientId ? document.getElementById(addKeyButtonId(clientId)) : null;
  (target ?? $('clients-title')).focus();
}

async function onAddKey(event: SubmitEvent) {
  event.preventDefault();
  const registry = state.registry;
  const client = adding;
  if (!registry || !client) return;
  showError('key-form-error', '');
  if (!privateKeySaved('new-key')) return;
  const box = $('new-key') as HTMLTextAreaElement;
  const text = box.value;
  let fingerprint: string | undefined;
  try {
    if (text.trim() === '') throw new SignetError('invalid_public_key', 'Paste the new public key (SPKI PEM: -----BEGIN PUBLIC KEY-----).');
    screenPublicKey(text);
    fingerprint = (await checkPublicKey(text))?.fingerprint;
    if (fingerprint !== undefined && client.keys.some((k) => k.fingerprint === fingerprint)) {
      throw new SignetError('key_already_registered', `This key (fingerprint ${fingerprint}) is already a key of ${client.name}. Paste the partner's new public key.`);
    }
  } catch (error) {
    showError('new-key-error', messageOf(error), { code: codeOf(error), field: box });
    focusField(box);
    return;
  }
  const submit = $('key-submit') as HTMLButtonElement;
  submit.disabled = true;
  try {
    const updated = await registry.addKey(client.clientId, text, client.version);
    const added = updated.keys.find((k) => !client.keys.some((old) => old.fingerprint === k.fingerprint));
    const dropped = client.keys.filter((old) => !updated.keys.some((k) => k.fingerprint === old.fingerprint));
    state.open.add(client.clientId);
    ($('key-dialog') as HTMLDialogElement).close();
    list.clientChanged(updated);
    const droppedText = dropped.length > 0 ? ` The expired key${dropped.length > 1 ? 's' : ''} ${dropped.map((k) => shortFingerprint(k.fingerprint)).join(', ')} ${dropped.length > 1 ? 'were' : 'was'} dropped.` : '';
    toast(
      `Key ${shortFingerprint(added?.fingerprint ?? fingerprint ?? '')} added to ${updated.name}: ${updated.keys.length} keys verify now.${droppedText} Remove the old key once ${updated.name} signs with the new one.`,
    );
  } catch (error) {
    const code = codeOf(error);
    if (KEY_ERROR_CODES.has(code)) showError('new-key-error', messageOf(error), { code, field: box });
    else showError('key-form-error', messageOf(error), { code });
    if (code === 'version_conflict') {
      await reloadClient(client, (fresh) => {
        adding = fresh;
        showError('key-form-error', `${messageOf(error)} The latest version is loaded: add the key again.`, { code });
      });
    }
  } finally {
    submit.disabled = false;
  }
}

// ------------------------------------------------------------------ remove

async function removeKey(client: ClientView, fingerprint: string, opener: HTMLElement) {
  const registry = state.registry;
  const key = client.keys.find((k) => k.fingerprint === fingerprint);
  if (!registry || !key) return;
  const short = shortFingerprint(fingerprint);
  const others = client.keys.filter((k) => k.fingerprint !== fingerprint);
  const used = lastUsedText(key, formatInstant);
  const text =
    `Requests signed with the key ${fingerprint} (added ${formatDay(key.addedAt)}, last used ${used}) will be refused (signature_mismatch) ${whenItApplies()}. ` +
    `${client.name} keeps ${others.length === 1 ? 'its other key' : `its ${others.length} other keys`} (${others.map((k) => shortFingerprint(k.fingerprint)).join(', ')}). ` +
    `Remove it only once ${client.name} signs with the new key; to use this key again, it must be added again.`;
  if (!(await confirmChange(`Remove key ${short} from ${client.name}?`, text, 'Remove key', opener))) return;
  try {
    const updated = await registry.removeKey(client.clientId, fingerprint, client.version);
    state.open.add(client.clientId);
    list.clientChanged(updated);
    document.getElementById(addKeyButtonId(client.clientId))?.focus();
    toast(`Key ${short} removed from ${updated.name}: requests signed with it are refused ${whenItApplies()}. ${updated.keys.length === 1 ? '1 key remains' : `${updated.keys.length} keys remain`}.`);
  } catch (error) {
    toast(`Key ${short} could not be removed from ${client.name}: ${messageOf(error)}`, 'error');
    await reloadClient(client);
  }
}

/** After a refusal: the client as it is now, in the list. */
async function reloadClient(client: ClientView, then?: (fresh: ClientView) => void) {
  try {
    const fresh = await state.registry?.getClient(client.clientId);
    if (fresh) {
      list.clientChanged(fresh);
      then?.(fresh);
    }
  } catch {
    // the list's Refresh reads it again
  }
}

export function initKeyPanel() {
  initKeyBox('new-key');
  const dialog = $('key-dialog') as HTMLDialogElement;
  // Cancel and Escape ask first when a generated private key was not downloaded.
  const close = async () => {
    if (await keyBoxMayClose('new-key', $('key-cancel'))) dialog.close();
  };
  $('key-cancel').addEventListener('click', () => void close());
  dialog.addEventListener('cancel', (event) => {
    event.preventDefault();
    void close();
  });
  trapFocus(dialog);
  ($('key-form') as HTMLFormElement).addEventListener('submit', (e) => void onAddKey(e as SubmitEvent));
}
