/**
 * The client form (#client-dialog): + Client (name, network whitelist entered one address at a
 * time, keys, roles) and Edit (name, whitelist, roles; keys are added and removed in the
 * client's details, ./key-panel.ts). Keys are a registered public key, or a published source: a
 * JWKS URL or a Web Bot Auth agent's directory (its origin), which the registry fetches before it
 * saves anything. Edit can switch a client to a source, or back to a pasted key. Every field is
 * checked as the registry will check it (./validation.ts), shown inline; an edit that takes a
 * role away, or replaces the keys, asks first.
 */
import type { ClientView } from '../lambda/registry/view-types';
import { confirmChange } from './confirm';
import { focusField, trapFocus } from './dialogs';
import { $, announce, codeOf, el, input, messageOf, showError } from './dom';
import { type FormField, formWords } from './form-words';
import { KEY_ERROR_CODES, defaultKeyType, initKeyBox, keyBoxMayClose, privateKeySaved, resetKeyBox } from './key-box';
import { type Registry, list, state, whenItApplies, whenItAppliesSentence } from './page-state';
import { type KeySource, MAX_WHITELIST_ENTRIES, SignetError, listReach, normaliseNetworkEntry } from './signet-core';
import { toast } from './toasts';
import { checkClientForm, validateRoles } from './validation';
import { keySourceLabel } from './view-model';

/** Where the client's keys come from, as the form's radio buttons say it. */
type KeyChoice = 'registered' | 'jwksUri' | 'signatureAgent';

/** What the URL field asks for, per choice. */
const SOURCE_FIELD: Record<Exclude<KeyChoice, 'registered'>, { label: string; hint: string; placeholder: string }> = {
  jwksUri: {
    label: 'JWKS URL',
    hint: "The https URL where the partner publishes its public keys (a JSON Web Key Set, e.g. its jwks_uri). Signet fetches it when you save: a URL that cannot be fetched, or holds no key Signet can use, is refused and nothing is saved.",
    placeholder: 'https://partner.example/.well-known/jwks.json',
  },
  signatureAgent: {
    label: 'Agent origin',
    hint: "The Web Bot Auth agent's origin (https://agent.example, no path): its key directory is fetched from /.well-known/http-message-signatures-directory when you save. The client gets the web-bot-auth profile unless it has one.",
    placeholder: 'https://agent.example',
  },
};

const form = {
  /** The client being edited, or undefined when adding. */
  editing: undefined as ClientView | undefined,
  whitelist: [] as string[],
  opener: null as HTMLElement | null,
};

/**
 * Opens the form to add a client (no `client`) or edit one.
 * @param opener focus returns here when the dialog closes
 */
export function openClientForm(client: ClientView | undefined, opener: HTMLElement) {
  form.editing = client;
  form.opener = opener;
  form.whitelist = client ? [...client.networkWhitelist] : [];
  $('dialog-title').textContent = client ? `Edit ${client.name}` : 'Add client';
  $('dialog-submit').textContent = client ? 'Update' : 'Add';
  input('client-name').value = client?.name ?? '';
  input('whitelist-entry').value = '';
  ($('client-key') as HTMLTextAreaElement).value = '';
  for (const id of ['form-error', 'client-name-error', 'whitelist-error', 'client-key-error', 'roles-error']) showError(id, '');
  for (const id of ['client-name', 'whitelist-entry', 'client-key']) $(id).removeAttribute('aria-invalid');
  $('client-key-ok').hidden = true;
  resetKeyBox('client-key');
  defaultKeyType('client-key', undefined);
  const source = client?.keySource;
  const choice: KeyChoice = source === undefined ? 'registered' : 'jwksUri' in source ? 'jwksUri' : 'signatureAgent';
  input('source-url').value = source === undefined ? '' : 'jwksUri' in source ? source.jwksUri : source.signatureAgent;
  showError('source-url-error', '', { field: input('source-url') });
  input(`key-source-${choice === 'registered' ? 'registered' : choice === 'jwksUri' ? 'jwks' : 'agent'}`).checked = true;
  showKeyChoice();
  renderWhitelist();
  renderRoles(client?.roles ?? []);
  ($('client-dialog') as HTMLDialogElement).showModal();
  input('client-name').focus();
  $('client-dialog').scrollTop = 0;
}

/** The key choice ticked. */
function keyChoice(): KeyChoice {
  return (document.querySelector<HTMLInputElement>('input[name="key-source"]:checked')?.value as KeyChoice | undefined) ?? 'registered';
}

/** The published source the form names, or undefined for a registered key. */
function formSource(): KeySource | undefined {
  const choice = keyChoice();
  const value = input('source-url').value.trim();
  return choice === 'registered' ? undefined : choice === 'jwksUri' ? { jwksUri: value } : { signatureAgent: value };
}

/**
 * Shows the fields of the key choice: the Public Key box (adding, or switching a sourced client
 * back to a pasted key), the URL field (a source), or the note that keys are edited in the details.
 */
function showKeyChoice() {
  const editing = form.editing;
  const choice = keyChoice();
  const hadSource = editing?.keySource !== undefined;
  $('source-url-field').hidden = choice === 'registered';
  $('client-key-field').hidden = choice !== 'registered' || (editing !== undefined && !hadSource);
  const note = $('edit-keys-note');
  note.hidden = editing === undefined;
  if (choice !== 'registered') {
    const field = SOURCE_FIELD[choice];
    $('source-url-label').textContent = field.label;
    $('source-url-hint').textContent = field.hint;
    input('source-url').placeholder = field.placeholder;
  }
  if (editing === undefined) return;
  const keys = editing.keys.length === 1 ? '1 key' : `${editing.keys.length} keys`;
  const current = keySourceLabel(editing.keySource);
  note.textContent =
    choice === 'registered' && !hadSource
      ? `${editing.name} has ${keys}. Keys are added and removed in its details (Details, then Add key / Remove), so a rollover never stops the current key by surprise.`
      : choice === 'registered'
        ? `${editing.name} takes its keys from a ${current?.kind ?? 'published source'}. Paste a public key to register it instead: the source and its ${keys} are dropped.`
        : hadSource
          ? `${editing.name} takes its keys from a ${current?.kind ?? 'published source'} (${current?.value ?? ''}). A new URL is fetched when you update: its keys replace the current ones.`
          : `${editing.name} has ${keys}. The source is fetched when you update: its keys replace the ${keys} registered now.`;
}

/** Closes the form; with a generated private key not yet downloaded, only once that is confirmed. */
async function closeDialog() {
  if (await keyBoxMayClose('client-key', $('dialog-cancel'))) ($('client-dialog') as HTMLDialogElement).close();
}

function onDialogClosed() {
  ($('client-key') as HTMLTextAreaElement).value = '';
  resetKeyBox('client-key');
  const clientId = form.editing?.clientId;
  form.editing = undefined;
  // The list may have been drawn again meanwhile: the client's Edit button, if the old one is gone.
  const opener = form.opener;
  const target = opener && opener.getClientRects().length > 0 ? opener : clientId ? document.querySelector<HTMLElement>(`#client-rows tr[data-client-id="${clientId}"] .edit-client`) : null;
  (target ?? $('clients-title')).focus();
}

function renderWhitelist() {
  $('whitelist-list').replaceChildren(
    ...form.whitelist.map((entry) => {
      const remove = el('button', { type: 'button', class: 'chip-remove', 'aria-label': `Remove ${entry}` }, ['×']);
      remove.addEventListener('click', () => {
        form.whitelist = form.whitelist.filter((e) => e !== entry);
        renderWhitelist();
        input('whitelist-entry').focus();
      });
      return el('li', { class: 'chip' }, [el('span', {}, [entry]), remove]);
    }),
  );
  // 0.0.0.0 and a /0 range let every address in; ::ffff:0:0/96 every IPv4 address (IPv6 callers
  // still need an entry); ranges can do either together. Say which beside the list (core listReach).
  const open = form.whitelist.filter((entry) => listReach([entry]) === 'every-address');
  const openIpv4 = form.whitelist.filter((entry) => listReach([entry]) === 'every-ipv4-address');
  const together = listReach(form.whitelist);
  const warning = $('whitelist-open');
  warning.textContent =
    open.length > 0
      ? `${open.join(', ')} lets every address in: only the signature protects this client.`
      : together === 'every-address'
        ? 'Together these entries let every address in: only the signature protects this client.'
        : openIpv4.length > 0
          ? `${openIpv4.join(', ')} lets every IPv4 address in: only the signature protects this client from IPv4 callers.`
          : together === 'every-ipv4-address'
            ? 'Together these entries let every IPv4 address in: only the signature protects this client from IPv4 callers.'
            : '';
  warning.hidden = warning.textContent === '';
}

/**
 * Adds the typed entry to the list. Returns false (and shows why) when it is not valid.
 */
function addWhitelistEntry(): boolean {
  const field = input('whitelist-entry');
  let canonical;
  try {
    canonical = normaliseNetworkEntry(field.value);
  } catch (error) {
    showError('whitelist-error', messageOf(error), { code: codeOf(error), field });
    return false;
  }
  if (!form.whitelist.includes(canonical)) {
    if (form.whitelist.length >= MAX_WHITELIST_ENTRIES) {
      const refusal = { code: 'invalid_network', message: `networkWhitelist must hold 1 to ${MAX_WHITELIST_ENTRIES} entries.` };
      showError('whitelist-error', formWords('networkWhitelist', refusal, { networkWhitelist: form.whitelist }), { code: refusal.code, field });
      return false;
    }
    form.whitelist.push(canonical);
  }
  showError('whitelist-error', '', { field });
  field.value = '';
  renderWhitelist();
  announce(`${canonical} is on the whitelist.`);
  return true;
}

function renderRoles(checked: readonly string[]) {
  const names = [...new Set([...state.roles, ...checked])];
  $('role-options').replaceChildren(
    ...names.map((role, i) => {
      const box = el('input', { type: 'checkbox', id: `role-${i}`, value: role }) as HTMLInputElement;
      box.checked = checked.includes(role);
      box.addEventListener('change', () => checkRoles());
      const known = state.roles.includes(role);
      // An account admin may keep a role it cannot give (the operator gave it); the catalogue is the operator's.
      const note = known ? '' : state.operator ? ' (not in the role catalogue)' : ' (held; only the API owner can give it)';
      return el('div', { class: 'check' }, [box, el('label', { for: `role-${i}` }, [role, note])]);
    }),
  );
  if (checked.some((r) => !knownRoles().includes(r))) checkRoles();
}

/** The roles the form accepts: those the signer may give, and, for an account admin, those the edited client already holds. */
function knownRoles() {
  return state.operator || !form.editing ? state.roles : [...new Set([...state.roles, ...form.editing.roles])];
}

function selectedRoles() {
  return Array.from($('role-options').querySelectorAll('input:checked'), (box) => (box as HTMLInputElement).value);
}

function checkRoles() {
  try {
    validateRoles(selectedRoles(), knownRoles());
    showRolesError(undefined);
  } catch (error) {
    if (!(error instanceof SignetError)) throw error;
    showRolesError(error);
  }
}

/** The roles' error (or none), and `aria-invalid` on each role's checkbox with it. */
function showRolesError(refusal: { code: string; message: string } | undefined) {
  showError('roles-error', refusal ? wordsFor('roles', refusal) : '', { code: refusal?.code });
  for (const box of Array.from($('role-options').querySelectorAll('input'))) {
    if (refusal) box.setAttribute('aria-invalid', 'true');
    else box.removeAttribute('aria-invalid');
  }
}

/** A refusal of `field` in the form's words, for what the form holds now. */
function wordsFor(field: FormField, refusal: { code: string; message: string }) {
  return formWords(field, refusal, {
    name: input('client-name').value,
    networkWhitelist: form.whitelist,
    publicKey: ($('client-key') as HTMLTextAreaElement).value,
    roles: { chosen: selectedRoles(), known: knownRoles() },
  });
}

async function onSubmitClient(event: SubmitEvent) {
  event.preventDefault();
  const registry = state.registry;
  if (!registry) return;
  showError('form-error', '');
  if (input('whitelist-entry').value.trim() !== '' && !addWhitelistEntry()) {
    input('whitelist-entry').focus();
    return;
  }
  const editing = form.editing;
  const source = formSource();
  const keyBoxShown = !$('client-key-field').hidden;
  if (keyBoxShown && !privateKeySaved('client-key')) return;
  const keyBox = $('client-key') as HTMLTextAreaElement;
  const check = await checkClientForm(
    { name: input('client-name').value, networkWhitelist: form.whitelist, publicKey: keyBoxShown ? keyBox.value : '', roles: selectedRoles(), source },
    {
      mode: editing ? 'edit' : 'create',
      knownRoles: knownRoles(),
      current: editing,
      // The local gateway fetches http://127.0.0.1 and http://localhost sources; a deployed portal is served over https.
      allowLocalHttp: window.location.protocol === 'http:',
    },
  );
  const fields = [
    ['name', 'client-name-error', 'client-name'],
    ['networkWhitelist', 'whitelist-error', 'whitelist-entry'],
    ['publicKey', 'client-key-error', 'client-key'],
    ['source', 'source-url-error', 'source-url'],
    ['roles', 'roles-error', 'role-options'],
  ] as const;
  let firstInvalid: HTMLElement | null | undefined;
  for (const [name, errorId, fieldId] of fields) {
    const error = check.errors[name];
    if (fieldId === 'role-options') showRolesError(error);
    else if (name === 'source') showError(errorId, error?.message ?? '', { code: error?.code, field: $(fieldId) });
    else showError(errorId, error ? wordsFor(name, error) : '', { code: error?.code, field: $(fieldId) });
    if (error && firstInvalid === undefined) firstInvalid = fieldId === 'role-options' ? $('role-options').querySelector('input') : $(fieldId);
  }
  if (firstInvalid) {
    focusField(firstInvalid);
    return;
  }
  // Switching a sourced client back to a registered key needs that key.
  if (editing && keyBoxShown && keyBox.value.trim() === '') {
    const refusal = new SignetError('invalid_public_key', `Paste the public key to register for ${editing.name} instead of its published source, or choose its source again.`);
    showError('client-key-error', refusal.message, { code: refusal.code, field: keyBox });
    focusField(keyBox);
    return;
  }
  const body = check.body;
  if (editing && Object.keys(body).length === 0) {
    showError('form-error', 'Nothing to change: edit the name, the whitelist, the roles or where the keys come from.');
    return;
  }
  const submit = $('dialog-submit') as HTMLButtonElement;
  if (editing) {
    // What the edit takes away, said before it is sent.
    const roles = body.roles as string[] | undefined;
    const removed = roles === undefined ? [] : editing.roles.filter((role) => !roles.includes(role));
    const replacesKeys = 'jwksUri' in body || 'signatureAgent' in body || 'publicKey' in body;
    if (
      replacesKeys &&
      !(await confirmChange(
        `Replace the keys of ${editing.name}?`,
        `The ${editing.keys.length === 1 ? 'key' : `${editing.keys.length} keys`} of ${editing.name} will be replaced by ${'publicKey' in body ? 'the key you pasted' : 'the keys fetched from the source'}: requests signed with a key that is not among them are refused ${whenItApplies()}.`,
        'Replace keys',
        submit,
      ))
    ) {
      return;
    }
    if (
      removed.length > 0 &&
      !(await confirmChange(
        `Update ${editing.name}?`,
        `${editing.name} loses the role${removed.length > 1 ? 's' : ''} ${removed.join(', ')}: the calls only ${removed.length > 1 ? 'they allow' : 'it allows'} will be refused (role_forbidden) ${whenItApplies()}.`,
        'Update',
        submit,
      ))
    ) {
      return;
    }
  }
  submit.disabled = true;
  try {
    if (editing) {
      const updated = await registry.updateClient(editing.clientId, editing.version, body);
      ($('client-dialog') as HTMLDialogElement).close();
      list.clientChanged(updated);
      toast(`${updated.name} updated. ${whenItAppliesSentence()}`.trim());
    } else {
      // checkClientForm in create mode puts every field of POST /registry/clients in the body, checked.
      const created = await registry.createClient({ ...body, ...(state.operator && state.account ? { accountId: state.account } : {}) } as Parameters<Registry['createClient']>[0]);
      if (created.registration === 'skipped') {
        showError('form-error', `This public key is already registered on ${created.name} (${created.clientId}); nothing was created.`, { code: 'registration_skipped' });
        return;
      }
      ($('client-dialog') as HTMLDialogElement).close();
      await list.reload();
      if (!state.clients.some((c) => c.clientId === created.clientId)) list.clientChanged(created);
      toast(`${created.name} added with clientId ${created.clientId}. ${whenItAppliesSentence()}`.trim());
    }
  } catch (error) {
    showServerError(error);
  } finally {
    submit.disabled = false;
  }
}

/**
 * A refusal from the registry, shown next to the field it is about.
 */
function showServerError(error: unknown) {
  const code = codeOf(error);
  const message = messageOf(error);
  const refusal = { code, message: error instanceof Error ? error.message : message };
  if (code === 'unknown_role' || code === 'role_not_allowed') {
    showRolesError(refusal);
    focusField($('role-options').querySelector('input') ?? $('roles-error'));
    return;
  }
  if (code === 'key_source_refused' && !$('source-url-field').hidden) {
    showError('source-url-error', message, { code, field: input('source-url') });
    focusField(input('source-url'));
    return;
  }
  const byCode: Record<string, [FormField, string, string]> = { invalid_network: ['networkWhitelist', 'whitelist-error', 'whitelist-entry'] };
  const target = KEY_ERROR_CODES.has(code) ? (['publicKey', 'client-key-error', 'client-key'] as const) : byCode[code];
  if (target) {
    const [name, errorId, fieldId] = target;
    showError(errorId, wordsFor(name, refusal), { code, field: $(fieldId) });
    focusField($(fieldId));
  } else {
    showError('form-error', message, { code });
  }
  if (code === 'version_conflict' && form.editing && state.registry) {
    const editing = form.editing;
    void state.registry.getClient(editing.clientId).then((fresh) => {
      form.editing = fresh;
      list.clientChanged(fresh);
      showError('form-error', `${message} The latest version is loaded; submit again to apply your changes on top of it.`, { code });
    });
  }
}

export function initClientForm() {
  $('add-client').addEventListener('click', () => openClientForm(undefined, $('add-client')));
  $('dialog-cancel').addEventListener('click', () => void closeDialog());
  // Escape asks first too, when a generated private key was not downloaded.
  $('client-dialog').addEventListener('cancel', (event) => {
    event.preventDefault();
    void closeDialog();
  });
  trapFocus($('client-dialog') as HTMLDialogElement);
  $('client-dialog').addEventListener('close', () => onDialogClosed());
  ($('client-form') as HTMLFormElement).addEventListener('submit', (e) => void onSubmitClient(e as SubmitEvent));
  $('whitelist-add').addEventListener('click', () => {
    addWhitelistEntry();
    input('whitelist-entry').focus();
  });
  input('whitelist-entry').addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      addWhitelistEntry();
    }
  });
  input('whitelist-entry').addEventListener('input', () => showError('whitelist-error', '', { field: input('whitelist-entry') }));
  for (const radio of Array.from(document.querySelectorAll<HTMLInputElement>('input[name="key-source"]'))) radio.addEventListener('change', () => showKeyChoice());
  input('source-url').addEventListener('input', () => showError('source-url-error', '', { field: input('source-url') }));
  initKeyBox('client-key');
}
