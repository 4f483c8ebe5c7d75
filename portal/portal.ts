/**
 * The client portal's page: load the admin key, list clients, add and edit them, copy a
 * clientId, disable/enable, and per client the keys (fingerprint, age, 90-day flag) and recent
 * authentication failures. Plain DOM, no framework; every registry call goes through
 * ./registry-client.js, signed in this browser.
 *
 * Accounts: an account admin (`account:admin`) sees its own account's clients only, and may give
 * the roles of its account's ceiling (the registry enforces both; the page only follows). An
 * operator (`registry:admin`) gets the operator view: an account picker over every account,
 * whose clients are listed and where new clients go.
 */
import type { AccountView, ClientView } from '../lambda/registry/view-types';
import { importSigningKey, looksLikePrivateKey, checkPublicKey } from './keys';
import { forgetKey, recallKey, rememberKey } from './key-store';
import { RegistryError, apiBaseOf, createRegistryClient } from './registry-client';
import { MAX_WHITELIST_ENTRIES, REGISTRY_ADMIN_ROLE, SignetError, admitsEveryone, normaliseNetworkEntry } from './signet-core';
import { checkClientForm, screenPublicKey, validateRoles } from './validation';
import { ROTATION_DAYS, failureLine, keySummary, shortFingerprint, unauthenticatedRows } from './view-model';

type Registry = ReturnType<typeof createRegistryClient>;
/** What the page needs of an account (all it knows of one it could not read: its id and the roles it may give). */
type AccountSummary = Pick<AccountView, 'accountId' | 'name' | 'roleCeiling'>;

const $ = (id: string) => (document.getElementById(id) as HTMLElement);
const input = (id: string) => (document.getElementById(id) as HTMLInputElement);

const state = {
  registry: undefined as Registry | undefined,
  /** The clientId whose key signs the page's calls (marked "you" in the list). */
  signerId: undefined as string | undefined,
  /** The roles the signer may give (the catalogue, or its account's ceiling). */
  roles: [] as string[],
  /** The signer holds registry:admin: every account (the operator view). */
  operator: false,
  /** The account whose clients are listed: the signer's own, or the one an operator picked. */
  account: undefined as string | undefined,
  /** Every account (operator view). */
  accounts: [] as AccountSummary[],
  clients: [] as ClientView[],
  /** Seconds the last write may take to reach running authorizers (registry header). */
  propagationSeconds: undefined as number | undefined,
  nextCursor: undefined as string | undefined,
  /** The client being edited, or undefined when adding. */
  editing: undefined as ClientView | undefined,
  whitelist: [] as string[],
  /** Client ids whose details are open. */
  open: new Set() as Set<string>,
  /** Sequence number of the latest public key check (older answers are dropped). */
  keyCheck: 0,
  opener: null as HTMLElement | null,
};

// ------------------------------------------------------------------ small helpers

function el(tag: string, attributes: Record<string, string> = {}, content: Array<Node | string> = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...content);
  return node;
}

/** An icon (decorative: the button carries the label). */
function icon(name: 'copy' | 'edit') {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  svg.setAttribute('class', 'icon');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute(
    'd',
    name === 'copy'
      ? 'M8 8h11v13H8zM5 3h11v3H7v11H5z'
      : 'M4 17.5V21h3.5L18 10.5 14.5 7zM20.7 7.8a1 1 0 0 0 0-1.4l-3.1-3.1a1 1 0 0 0-1.4 0L14.9 4.6l4.5 4.5z',
  );
  svg.append(path);
  return svg;
}

/**
 * Says what a change did, and when the authorizers apply it, in the visible note above the list
 * (and to screen readers).
 */
function noteChange(what: string) {
  const seconds = state.propagationSeconds;
  const when =
    seconds === undefined
      ? ''
      : seconds === 0
        ? ' It applies to the next request.'
        : ` Authorizers that already hold this client may go on using its previous record for up to ${seconds} s (their cache).`;
  const note = $('change-note');
  note.textContent = `${what}${when}`;
  note.hidden = false;
  announce(note.textContent);
}

function announce(message: string) {
  const announcer = $('announcer');
  announcer.textContent = '';
  window.setTimeout(() => (announcer.textContent = message), 50);
}

/**
 * Shows (or clears, with an empty message) the inline error of a field.
 */
function showError(errorId: string, message: string, options: { code?: string; field?: HTMLElement | null; } = {}) {
  const box = $(errorId);
  box.textContent = message;
  box.hidden = message === '';
  if (options.code) box.dataset.code = options.code;
  else delete box.dataset.code;
  if (options.field) {
    if (message === '') options.field.removeAttribute('aria-invalid');
    else options.field.setAttribute('aria-invalid', 'true');
  }
}

function messageOf(error: unknown) {
  if (error instanceof RegistryError) return `${error.message} (${error.code}${error.requestId ? `, request ${error.requestId}` : ''})`;
  if (error instanceof SignetError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

function codeOf(error: unknown) {
  return error instanceof RegistryError || error instanceof SignetError ? error.code : 'error';
}

function formatInstant(iso: string) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

// ------------------------------------------------------------------ signing in

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
  let key;
  try {
    key = await importSigningKey(keyText);
  } catch (error) {
    showError('key-file-error', messageOf(error), { code: codeOf(error), field: fileInput });
    fileInput.focus();
    return;
  } finally {
    keyText = '';
    fileInput.value = '';
  }
  const remember = input('remember').checked;
  await useKey({ keyId, fingerprint: key.fingerprint, privateKey: key.privateKey }, remember, false);
}

/**
 * Checks the key against the registry (GET /registry/roles), then shows the clients.
 * @param remember store it on this device
 * @param remembered it came from this device's store
 */
async function useKey(signer: { keyId: string; fingerprint: string; privateKey: CryptoKey; }, remember: boolean, remembered: boolean) {
  const registry = createRegistryClient({
    apiBase: apiBaseOf(location.href),
    keyId: signer.keyId,
    privateKey: signer.privateKey,
    onWrite: (seconds) => (state.propagationSeconds = seconds),
  });
  const submit = ($('sign-in-submit') as HTMLButtonElement);
  submit.disabled = true;
  try {
    state.roles = (await registry.listRoles()).roles;
  } catch (error) {
    showError('sign-in-error', `The registry refused this key: ${messageOf(error)}`, { code: codeOf(error) });
    if (remembered) await forgetKey();
    return;
  } finally {
    submit.disabled = false;
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
  await loadScope(registry, signer.keyId);
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
}

async function onSignOut() {
  state.registry = undefined;
  state.signerId = undefined;
  state.clients = [];
  state.operator = false;
  state.account = undefined;
  state.accounts = [];
  $('account-scope').hidden = true;
  state.open.clear();
  await forgetKey();
  $('client-rows').replaceChildren();
  $('signer-status').hidden = true;
  $('clients').hidden = true;
  $('sign-in').hidden = false;
  input('admin-id').value = '';
  input('remember').checked = false;
  announce('Signed out; the key is gone from this page and this device.');
  input('key-file').focus();
}

// ------------------------------------------------------------------ accounts

/** Operators hold this role; everyone else is scoped to its own account. */
const OPERATOR_ROLE = REGISTRY_ADMIN_ROLE;
/** The account of clients created without one (DEFAULT_ACCOUNT_ID). */
const DEFAULT_ACCOUNT = 'acct_default';

/**
 * Who the signer is: an operator (the account picker) or an account admin (its own account).
 * Read from the signer's own client record; the registry scopes every answer anyway.
 */
async function loadScope(registry: Registry, keyId: string) {
  state.operator = false;
  state.account = undefined;
  state.accounts = [];
  let self: ClientView | undefined;
  try {
    self = await registry.getClient(keyId);
  } catch {
    self = undefined; // not readable: list what the registry gives by default
  }
  if (self?.roles.includes(OPERATOR_ROLE)) {
    state.operator = true;
    state.account = DEFAULT_ACCOUNT;
    try {
      let cursor: string | undefined;
      do {
        const page = await registry.listAccounts({ limit: 100, cursor });
        state.accounts.push(...page.accounts);
        cursor = page.nextCursor;
      } while (cursor !== undefined && state.accounts.length < 2_000);
    } catch (error) {
      showError('list-error', `The accounts could not be listed: ${messageOf(error)}`, { code: codeOf(error) });
    }
  } else if (self?.accountId !== undefined) {
    state.account = self.accountId;
    let account: AccountSummary = { accountId: self.accountId, name: self.accountId, roleCeiling: state.roles };
    try {
      account = await registry.getAccount(self.accountId);
    } catch {
      // the name is a nicety; the id and the roles it may give are known
    }
    state.accounts = [account];
  }
  renderScope();
}

function renderScope() {
  const known = state.account !== undefined;
  $('account-scope').hidden = !known;
  $('operator-view').hidden = !state.operator;
  $('account-line').hidden = !known || state.operator;
  if (!known) return;
  if (state.operator) {
    const select = ($('account-select') as HTMLSelectElement);
    const accounts = state.accounts.some((a) => a.accountId === state.account) ? state.accounts : [{ accountId: String(state.account), name: 'Default account', roleCeiling: [] }, ...state.accounts];
    select.replaceChildren(
      ...accounts.map((a) => {
        const option = (el('option', { value: a.accountId }, [`${a.name} (${a.accountId})`]) as HTMLOptionElement);
        option.selected = a.accountId === state.account;
        return option;
      }),
    );
    const current = accounts.find((a) => a.accountId === state.account);
    $('account-select-ceiling').textContent = current ? `Its admins may give: ${current.roleCeiling.length > 0 ? current.roleCeiling.join(', ') : 'no role yet'}.` : '';
    return;
  }
  const account = state.accounts[0];
  $('account-name').textContent = account?.name ?? String(state.account);
  $('account-id').textContent = String(state.account);
  $('account-ceiling').textContent = state.roles.length > 0 ? state.roles.join(', ') : 'none yet (ask the API owner)';
}

/** The operator picked another account: list its clients. */
async function onAccountPicked() {
  const select = ($('account-select') as HTMLSelectElement);
  state.account = select.value;
  state.open.clear();
  renderScope();
  await loadClients(false);
  const picked = state.accounts.find((a) => a.accountId === state.account);
  announce(`Showing the clients of ${picked?.name ?? state.account}.`);
}

// ------------------------------------------------------------------ the list

/** `more`: append the next page. */
async function loadClients(more: boolean) {
  const registry = state.registry;
  if (!registry) return;
  showError('list-error', '');
  try {
    const page = await registry.listClients({ limit: 50, cursor: more ? state.nextCursor : undefined, account: state.operator ? state.account : undefined });
    state.clients = more ? [...state.clients, ...page.clients] : page.clients;
    state.nextCursor = page.nextCursor;
  } catch (error) {
    showError('list-error', `The clients could not be listed: ${messageOf(error)}`, { code: codeOf(error) });
    return;
  }
  renderClients();
}

function renderClients() {
  const rows = $('client-rows');
  const now = Date.now();
  rows.replaceChildren();
  for (const client of state.clients) {
    const summary = keySummary(client, now);
    const detailsId = `details-${client.clientId}`;
    const copy = el('button', { type: 'button', class: 'icon-button', 'aria-label': `Copy the clientId of ${client.name}`, title: 'Copy clientId' }, [icon('copy')]);
    copy.addEventListener('click', () => void copyClientId(copy, client.clientId));
    const edit = el('button', { type: 'button', class: 'icon-button', 'aria-label': `Edit ${client.name}`, title: 'Edit' }, [icon('edit')]);
    edit.addEventListener('click', () => openDialog(client, edit));
    const toggle = el('button', { type: 'button', 'aria-expanded': String(state.open.has(client.clientId)), 'aria-controls': detailsId }, ['Details']);
    toggle.addEventListener('click', () => toggleDetails(client.clientId));
    const enabled = client.status === 'active';
    const status = el('button', { type: 'button' }, [enabled ? 'Disable' : 'Enable']);
    status.setAttribute('aria-label', `${enabled ? 'Disable' : 'Enable'} ${client.name}`);
    status.addEventListener('click', () => void setEnabled(client, !enabled, status));
    // The signer's own client: marked, and not disabled from here (the page would lock itself
    // out; the registry refuses it too, 409 self_lockout). Another operator can.
    const you = client.clientId === state.signerId;
    if (you && enabled) {
      (status as HTMLButtonElement).disabled = true;
      status.title = 'This is the client you are signed in as: disabling it here would lock you out. Another operator can disable it.';
    }

    const row = el('tr', { 'data-client-id': client.clientId }, [
      el('th', { scope: 'row' }, [client.name]),
      el('td', {}, [el('code', { class: 'client-id' }, [client.clientId]), copy]),
      el('td', {}, [el('span', { class: `badge ${client.status}` }, [client.status]), ...(you ? [' ', el('span', { class: 'badge you', title: 'the client you are signed in as' }, ['you'])] : [])]),
      el('td', {}, [client.roles.join(', ')]),
      el('td', { class: summary.due > 0 ? 'due' : '' }, [summary.due > 0 ? `⚠ ${summary.text}` : summary.text]),
      el('td', {}, [el('div', { class: 'row-actions' }, [edit, toggle, status])]),
    ]);
    rows.append(row);
    const details = el('tr', { id: detailsId, class: 'details' }, [el('td', { colspan: '6' }, [])]);
    details.hidden = !state.open.has(client.clientId);
    rows.append(details);
    if (state.open.has(client.clientId)) void renderDetails(client);
  }
  $('no-clients').hidden = state.clients.length > 0;
  $('load-more').hidden = state.nextCursor === undefined;
}

async function copyClientId(button: HTMLElement, clientId: string) {
  let copied = false;
  try {
    await navigator.clipboard.writeText(clientId);
    copied = true;
  } catch {
    // No clipboard permission (or no secure context): copy through a selection.
    const area = el('textarea', { class: 'visually-hidden', 'aria-hidden': 'true' });
    (area as HTMLTextAreaElement).value = clientId;
    document.body.append(area);
    (area as HTMLTextAreaElement).select();
    copied = document.execCommand('copy');
    area.remove();
  }
  button.dataset.copied = clientId;
  announce(copied ? `Copied ${clientId}` : 'The clientId could not be copied; select it and copy it by hand.');
}

function toggleDetails(clientId: string) {
  if (state.open.has(clientId)) state.open.delete(clientId);
  else state.open.add(clientId);
  renderClients();
}

async function renderDetails(client: ClientView) {
  const cell = ($(`details-${client.clientId}`).firstElementChild as HTMLElement);
  const now = Date.now();
  const keyRows = keySummary(client, now).lines.map((line) =>
    el('tr', { class: line.due ? 'due' : '' }, [
      el('td', {}, [el('code', {}, [line.fingerprint])]),
      el('td', {}, [formatInstant(line.addedAt)]),
      el('td', {}, [line.due ? `⚠ ${line.age} — older than ${ROTATION_DAYS} days, rotate it` : line.age]),
      el('td', {}, [line.active ? (line.notAfter ? `active until ${formatInstant(line.notAfter)}` : 'active') : `expired ${line.notAfter ? formatInstant(line.notAfter) : ''}`]),
    ]),
  );
  const keysTable = el('table', { class: 'inner' }, [
    el('caption', {}, [`Keys of ${client.name}`]),
    el('thead', {}, [el('tr', {}, ['Fingerprint (SHA-256)', 'Added', 'Age', 'State'].map((h) => el('th', { scope: 'col' }, [h])))]),
    el('tbody', {}, keyRows),
  ]);
  const whitelist = el('p', {}, [el('strong', {}, ['Network whitelist: ']), client.networkWhitelist.join(', ')]);
  const failuresBox = el('div', { class: 'failures', 'aria-live': 'polite' }, [el('p', {}, ['Loading recent authentication failures…'])]);
  const refresh = el('button', { type: 'button' }, ['Refresh failures']);
  refresh.addEventListener('click', () => void loadFailures(client, failuresBox));
  cell.replaceChildren(keysTable, whitelist, el('h3', {}, [`Recent authentication failures of ${client.name}`]), refresh, failuresBox);
  await loadFailures(client, failuresBox);
}

/**
 * The troubleshooting view: the client's last refused requests and why (those its own keys
 * signed), then the counts of refusals anyone could have caused by naming it.
 */
async function loadFailures(client: ClientView, box: HTMLElement) {
  const registry = state.registry;
  if (!registry) return;
  let failures;
  let counts;
  try {
    const answer = await registry.listAuthFailures(client.clientId);
    failures = answer.failures;
    counts = unauthenticatedRows(answer.unauthenticated);
  } catch (error) {
    box.replaceChildren(el('p', { class: 'error' }, [`The failures could not be read: ${messageOf(error)}`]));
    return;
  }
  const countsPart = counts.length === 0
    ? []
    : [
        el('p', {}, ['Refused requests that named this client but were not signed by any of its keys (anyone can send those), counted per hour:']),
        el('table', { class: 'inner' }, [
          el('caption', { class: 'visually-hidden' }, [`Unsigned refusals naming ${client.name}, per hour`]),
          el('thead', {}, [el('tr', {}, ['Hour from', 'Reason', 'Requests'].map((h) => el('th', { scope: 'col' }, [h])))]),
          el('tbody', {}, counts.map((row) => el('tr', {}, [el('td', {}, [formatInstant(row.start)]), el('td', {}, [el('code', { class: 'reason' }, [row.reason])]), el('td', {}, [String(row.count)])]))),
        ]),
      ];
  if (failures.length === 0) {
    box.replaceChildren(el('p', {}, ['No refused requests signed by this client recorded (failures are kept 7 days).']), ...countsPart);
    return;
  }
  const rows = failures.map((f: Parameters<typeof failureLine>[0]) => {
    const line = failureLine(f);
    return el('tr', {}, [
      el('td', {}, [formatInstant(line.at)]),
      el('td', {}, [el('code', { class: 'reason' }, [line.reason])]),
      el('td', {}, [line.message]),
      el('td', {}, [line.request]),
      el('td', {}, [line.sourceIp]),
    ]);
  });
  box.replaceChildren(
    el('table', { class: 'inner' }, [
      el('caption', { class: 'visually-hidden' }, [`Recent authentication failures of ${client.name}`]),
      el('thead', {}, [el('tr', {}, ['When', 'Reason', 'What the caller was told', 'Request', 'Source IP'].map((h) => el('th', { scope: 'col' }, [h])))]),
      el('tbody', {}, rows),
    ]),
    ...countsPart,
  );
}

/**
 * Asks before a change that takes something away, naming what will happen. Resolves true when
 * confirmed; Cancel or Escape: false. Focus starts on Cancel and returns to `opener`.
 */
function confirmChange(title: string, text: string, action: string, opener: HTMLElement): Promise<boolean> {
  const dialog = $('confirm-dialog') as HTMLDialogElement;
  $('confirm-title').textContent = title;
  $('confirm-text').textContent = text;
  $('confirm-ok').textContent = action;
  dialog.returnValue = '';
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        opener.focus();
        resolve(dialog.returnValue === 'confirm');
      },
      { once: true },
    );
    dialog.showModal();
    $('confirm-cancel').focus();
  });
}

/** How long a change takes to reach the authorizers, in words (after the last write's header). */
function whenItApplies(): string {
  return state.propagationSeconds === undefined || state.propagationSeconds === 0
    ? 'from the next request'
    : `within ${state.propagationSeconds} s (the authorizers' cache)`;
}

async function setEnabled(client: ClientView, enabled: boolean, opener: HTMLElement) {
  const registry = state.registry;
  if (!registry) return;
  const text = `Requests signed by ${client.name}'s keys will be refused (client_disabled) ${whenItApplies()}. You can enable it again.`;
  if (!enabled && !(await confirmChange(`Disable ${client.name}?`, text, 'Disable', opener))) return;
  try {
    const updated = await registry.setEnabled(client.clientId, enabled, client.version);
    replaceClient(updated);
    noteChange(`${client.name} is now ${updated.status}.`);
  } catch (error) {
    showError('list-error', `${client.name} could not be ${enabled ? 'enabled' : 'disabled'}: ${messageOf(error)}`, { code: codeOf(error) });
    await loadClients(false);
  }
}

function replaceClient(updated: ClientView) {
  const at = state.clients.findIndex((c) => c.clientId === updated.clientId);
  if (at === -1) state.clients.unshift(updated);
  else state.clients[at] = updated;
  renderClients();
}

// ------------------------------------------------------------------ the form

/**
 * Opens the form to add a client (no `client`) or edit one.
 * @param opener focus returns here when the dialog closes
 */
function openDialog(client: ClientView | undefined, opener: HTMLElement) {
  state.editing = client;
  state.opener = opener;
  state.whitelist = client ? [...client.networkWhitelist] : [];
  $('dialog-title').textContent = client ? `Edit ${client.name}` : 'Add client';
  $('dialog-submit').textContent = client ? 'Update' : 'Add';
  input('client-name').value = client?.name ?? '';
  input('whitelist-entry').value = '';
  ($('client-key') as HTMLTextAreaElement).value = '';
  for (const id of ['form-error', 'client-name-error', 'whitelist-error', 'client-key-error', 'roles-error']) showError(id, '');
  for (const id of ['client-name', 'whitelist-entry', 'client-key']) $(id).removeAttribute('aria-invalid');
  $('client-key-ok').hidden = true;
  $('current-keys').hidden = client === undefined;
  $('current-key-list').replaceChildren(
    ...(client?.keys ?? []).map((k) => el('li', {}, [el('code', {}, [k.fingerprint]), ` added ${formatInstant(k.addedAt)}`])),
  );
  renderWhitelist();
  renderRoles(client?.roles ?? []);
  ($('client-dialog') as HTMLDialogElement).showModal();
  input('client-name').focus();
}

function closeDialog() {
  ($('client-dialog') as HTMLDialogElement).close();
}

function onDialogClosed() {
  ($('client-key') as HTMLTextAreaElement).value = '';
  state.editing = undefined;
  state.opener?.focus();
}

function renderWhitelist() {
  $('whitelist-list').replaceChildren(
    ...state.whitelist.map((entry) => {
      const remove = el('button', { type: 'button', class: 'chip-remove', 'aria-label': `Remove ${entry}` }, ['×']);
      remove.addEventListener('click', () => {
        state.whitelist = state.whitelist.filter((e) => e !== entry);
        renderWhitelist();
        input('whitelist-entry').focus();
      });
      return el('li', { class: 'chip' }, [el('span', {}, [entry]), remove]);
    }),
  );
  // 0.0.0.0, a /0 range and ::ffff:0:0/96 let every (IPv4) address in, and so do ranges that
  // together cover all of IPv4 or IPv6: say so beside the list.
  const open = state.whitelist.filter((entry) => admitsEveryone([entry]));
  const together = open.length === 0 && admitsEveryone(state.whitelist);
  const warning = $('whitelist-open');
  warning.textContent =
    open.length > 0
      ? `${open.join(', ')} lets every address in: only the signature protects this client.`
      : together
        ? 'Together these entries let every address in: only the signature protects this client.'
        : '';
  warning.hidden = open.length === 0 && !together;
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
  if (!state.whitelist.includes(canonical)) {
    if (state.whitelist.length >= MAX_WHITELIST_ENTRIES) {
      showError('whitelist-error', `networkWhitelist must hold 1 to ${MAX_WHITELIST_ENTRIES} entries; use ["0.0.0.0"] to allow everyone.`, { code: 'invalid_network', field });
      return false;
    }
    state.whitelist.push(canonical);
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
      const box = (el('input', { type: 'checkbox', id: `role-${i}`, value: role }) as HTMLInputElement);
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
  return state.operator || !state.editing ? state.roles : [...new Set([...state.roles, ...state.editing.roles])];
}

function selectedRoles() {
  return Array.from($('role-options').querySelectorAll('input:checked'), (box) => (box as HTMLInputElement).value);
}

function checkRoles() {
  try {
    validateRoles(selectedRoles(), knownRoles());
    showError('roles-error', '');
  } catch (error) {
    showError('roles-error', messageOf(error), { code: codeOf(error) });
  }
}

/** The public key box, checked on every change: a private key is refused at once. */
async function checkKeyBox() {
  const box = ($('client-key') as HTMLTextAreaElement);
  const text = box.value;
  const sequence = ++state.keyCheck;
  const ok = $('client-key-ok');
  ok.hidden = true;
  if (text.trim() === '') {
    showError('client-key-error', '', { field: box });
    return;
  }
  try {
    screenPublicKey(text);
    showError('client-key-error', '', { field: box });
    const key = await checkPublicKey(text);
    if (sequence !== state.keyCheck) return;
    if (key !== undefined) {
      ok.textContent = `RSA ${key.bits}-bit public key, fingerprint ${key.fingerprint}`;
      ok.hidden = false;
    }
  } catch (error) {
    if (sequence !== state.keyCheck) return;
    showError('client-key-error', messageOf(error), { code: codeOf(error), field: box });
  }
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
  const editing = state.editing;
  const keyBox = ($('client-key') as HTMLTextAreaElement);
  const check = await checkClientForm(
    { name: input('client-name').value, networkWhitelist: state.whitelist, publicKey: keyBox.value, roles: selectedRoles() },
    { mode: editing ? 'edit' : 'create', knownRoles: knownRoles(), current: editing },
  );
  const fields = ([
    ['name', 'client-name-error', 'client-name'],
    ['networkWhitelist', 'whitelist-error', 'whitelist-entry'],
    ['publicKey', 'client-key-error', 'client-key'],
    ['roles', 'roles-error', 'role-options'],
  ] as const);
  let firstInvalid;
  for (const [name, errorId, fieldId] of fields) {
    const error = check.errors[name];
    const field = fieldId === 'role-options' ? null : $(fieldId);
    showError(errorId, error ? error.message : '', { code: error?.code, field });
    if (error && firstInvalid === undefined) firstInvalid = fieldId === 'role-options' ? $('role-options').querySelector('input') : field;
  }
  if (firstInvalid) {
    (firstInvalid as HTMLElement).focus();
    return;
  }
  if (editing && Object.keys(check.body).length === 0) {
    showError('form-error', 'Nothing to change: edit the name, the whitelist, the roles, or paste a new public key.');
    return;
  }
  const submit = ($('dialog-submit') as HTMLButtonElement);
  if (editing) {
    // What the edit takes away, said before it is sent.
    const roles = check.body.roles as string[] | undefined;
    const removed = roles === undefined ? [] : editing.roles.filter((role) => !roles.includes(role));
    const losses = [
      ...(removed.length > 0 ? [`${editing.name} loses the role${removed.length > 1 ? 's' : ''} ${removed.join(', ')}: the calls only ${removed.length > 1 ? 'they allow' : 'it allows'} will be refused (role_forbidden) ${whenItApplies()}.`] : []),
      ...(check.body.publicKey !== undefined ? [`The new key replaces every current key of ${editing.name} (${editing.keys.length}): requests signed with ${editing.keys.length > 1 ? 'them' : 'it'} will be refused (signature_mismatch).`] : []),
    ];
    if (losses.length > 0 && !(await confirmChange(`Update ${editing.name}?`, losses.join(' '), 'Update', submit))) return;
  }
  submit.disabled = true;
  try {
    if (editing) {
      const updated = await registry.updateClient(editing.clientId, editing.version, check.body);
      closeDialog();
      replaceClient(updated);
      noteChange(`${updated.name} updated.`);
    } else {
      // checkClientForm in create mode puts every field of POST /registry/clients in the body, checked.
      const body = { ...check.body, ...(state.operator && state.account ? { accountId: state.account } : {}) } as Parameters<Registry['createClient']>[0];
      const created = await registry.createClient(body);
      if (created.registration === 'skipped') {
        showError('form-error', `This public key is already registered on ${created.name} (${created.clientId}); nothing was created.`, { code: 'registration_skipped' });
        return;
      }
      closeDialog();
      await loadClients(false);
      if (!state.clients.some((c) => c.clientId === created.clientId)) replaceClient(created);
      noteChange(`${created.name} added with clientId ${created.clientId}.`);
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
    const byCode: Record<string, [string, string | null]> = {
    private_key_submitted: ['client-key-error', 'client-key'],
    invalid_public_key: ['client-key-error', 'client-key'],
    unsupported_key_type: ['client-key-error', 'client-key'],
    key_too_small: ['client-key-error', 'client-key'],
    key_already_registered: ['client-key-error', 'client-key'],
    invalid_network: ['whitelist-error', 'whitelist-entry'],
    unknown_role: ['roles-error', null],
    role_not_allowed: ['roles-error', null],
  };
  const [errorId, fieldId] = byCode[code] ?? ['form-error', null];
  showError(errorId, message, { code, field: fieldId ? $(fieldId) : null });
  if (code === 'version_conflict' && state.editing && state.registry) {
    const editing = state.editing;
    void state.registry.getClient(editing.clientId).then((fresh) => {
      state.editing = fresh;
      replaceClient(fresh);
      showError('form-error', `${message} The latest version is loaded; submit again to apply your changes on top of it.`, { code });
    });
  }
}

// ------------------------------------------------------------------ start

async function start() {
  if (!window.isSecureContext || !globalThis.crypto?.subtle) {
    const box = $('unsupported');
    box.textContent = 'This page needs WebCrypto, which browsers offer only over HTTPS or on localhost. Open the portal at its https:// address.';
    box.hidden = false;
    return;
  }
  ($('sign-in-form') as HTMLFormElement).addEventListener('submit', (e) => void onSignIn((e as SubmitEvent)));
  input('key-file').addEventListener('change', () => void onKeyFilesChosen());
  $('sign-out').addEventListener('click', () => void onSignOut());
  $('refresh').addEventListener('click', () => void loadClients(false));
  $('load-more').addEventListener('click', () => void loadClients(true));
  $('account-select').addEventListener('change', () => void onAccountPicked());
  $('add-client').addEventListener('click', () => openDialog(undefined, $('add-client')));
  $('dialog-cancel').addEventListener('click', () => closeDialog());
  $('client-dialog').addEventListener('close', () => onDialogClosed());
  ($('client-form') as HTMLFormElement).addEventListener('submit', (e) => void onSubmitClient((e as SubmitEvent)));
  $('confirm-ok').addEventListener('click', () => ($('confirm-dialog') as HTMLDialogElement).close('confirm'));
  $('confirm-cancel').addEventListener('click', () => ($('confirm-dialog') as HTMLDialogElement).close('cancel'));
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
  $('client-key').addEventListener('input', () => void checkKeyBox());
  $('clients-title').setAttribute('tabindex', '-1');

  const remembered = await recallKey();
  if (remembered) await useKey(remembered, false, true);
}

void start();
