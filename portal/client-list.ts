/**
 * The client list: one page at a time from the registry (never every client up front), searched
 * (name, clientId or key fingerprint), filtered by status and role (and by account, the operator's
 * picker), sorted by name, creation or last use, with "Load more" for the next page. Per client:
 * copy its clientId, edit it, open its details (keys, failures), disable or enable it. An empty
 * account, or a search that matches nothing, says what to do next.
 */
import type { ClientView } from '../lambda/registry/view-types';
import { currentAccount } from './account-scope';
import { openClientForm } from './client-form';
import { confirmChange } from './confirm';
import { clientAuditPanel } from './audit-panel';
import { $, announce, codeOf, el, formatDay, formatInstant, icon, input, messageOf, showError } from './dom';
import { failuresPanel } from './failures-panel';
import { keyPanel } from './key-panel';
import { type ListQuery, list, state, whenItApplies, whenItAppliesSentence } from './page-state';
import { toast } from './toasts';
import { keySourceLabel, keySummary, lastUsedText } from './view-model';

/** Clients per page (one registry call each). */
export const PAGE_SIZE = 25;
/** How long typing in the search box waits before it asks the registry, in ms. */
const SEARCH_DELAY_MS = 300;
/** The list's columns (the details row spans them). */
const COLUMNS = 8;

/** Sequence number of the latest listing: an older answer arriving late is dropped. */
let listing = 0;
let searchTimer: number | undefined;

/** Whether anything narrows the list (search or filters). */
function filtered(query: ListQuery = state.query) {
  return query.q.trim() !== '' || query.status !== '' || query.role !== '';
}

/**
 * Lists the first page for the current account and query, or (`more`) appends the next page.
 */
export async function loadClients(more: boolean) {
  const registry = state.registry;
  if (!registry) return;
  const sequence = ++listing;
  showError('list-error', '');
  const query = state.query;
  ($('load-more') as HTMLButtonElement).disabled = true;
  try {
    const page = await registry.listClients({
      limit: PAGE_SIZE,
      cursor: more ? state.nextCursor : undefined,
      account: state.operator ? state.account : undefined,
      q: query.q.trim() || undefined,
      status: query.status || undefined,
      role: query.role || undefined,
      sort: query.sort || undefined,
      order: query.sort ? query.order : undefined,
    });
    if (sequence !== listing) return;
    state.clients = more ? [...state.clients, ...page.clients] : page.clients;
    state.nextCursor = page.nextCursor;
    state.total = page.total;
  } catch (error) {
    if (sequence !== listing) return;
    showError('list-error', `The clients could not be listed: ${messageOf(error)}`, { code: codeOf(error) });
    return;
  } finally {
    if (sequence === listing) ($('load-more') as HTMLButtonElement).disabled = false;
  }
  renderClients();
  if (more) announce(`${state.clients.length} clients shown.`);
}

export function renderClients() {
  const rows = $('client-rows');
  const now = Date.now();
  rows.replaceChildren();
  // Details closed since: opened again, they read the failures and changes afresh.
  for (const id of loadedDetails.keys()) if (!state.open.has(id)) loadedDetails.delete(id);
  for (const client of state.clients) {
    rows.append(...clientRows(client, now));
  }
  renderSortHeaders();
  renderCount();
  renderEmptyState();
  $('load-more').hidden = state.nextCursor === undefined;
}

function clientRows(client: ClientView, now: number): HTMLElement[] {
  const summary = keySummary(client, now);
  const detailsId = `details-${client.clientId}`;
  const isOpen = state.open.has(client.clientId);
  const copy = el('button', { type: 'button', class: 'icon-button', 'aria-label': `Copy the clientId of ${client.name}`, title: 'Copy clientId' }, [icon('copy')]);
  copy.addEventListener('click', () => void copyClientId(copy, client.clientId));
  const edit = el('button', { type: 'button', class: 'icon-button edit-client', 'aria-label': `Edit ${client.name}`, title: 'Edit' }, [icon('edit')]);
  edit.addEventListener('click', () => void editClient(client, edit));
  const toggle = el('button', { type: 'button', 'aria-expanded': String(isOpen), 'aria-controls': detailsId }, ['Details']);
  toggle.addEventListener('click', () => toggleDetails(client.clientId));
  const enabled = client.status === 'active';
  const status = el('button', { type: 'button', class: 'status-toggle' }, [enabled ? 'Disable' : 'Enable']);
  status.setAttribute('aria-label', `${enabled ? 'Disable' : 'Enable'} ${client.name}`);
  // The signer's own client: marked, and not disabled from here (the page would lock itself
  // out; the registry refuses it too, 409 self_lockout). Another operator can. The button stays
  // focusable (aria-disabled), and its reason is shown beside it, not only in a tooltip.
  const you = client.clientId === state.signerId;
  const selfNoteId = `self-note-${client.clientId}`;
  const selfNote = you && enabled ? [el('p', { id: selfNoteId, class: 'hint self-note' }, ['You are signed in as this client: disabling it would lock you out. Another operator can.'])] : [];
  if (selfNote.length > 0) {
    status.setAttribute('aria-disabled', 'true');
    status.setAttribute('aria-describedby', selfNoteId);
  }
  status.addEventListener('click', () => {
    if (status.getAttribute('aria-disabled') === 'true') announce(selfNote[0]?.textContent ?? '');
    else void setEnabled(client, !enabled, status);
  });
  const row = el('tr', { 'data-client-id': client.clientId }, [
    el('th', { scope: 'row' }, [client.name]),
    el('td', { 'data-label': 'Client ID', class: 'id-cell' }, [el('code', { class: 'client-id' }, [client.clientId]), copy]),
    el('td', { 'data-label': 'Status' }, [el('span', { class: `badge ${client.status}` }, [client.status]), ...(you ? [' ', el('span', { class: 'badge you', title: 'the client you are signed in as' }, ['you'])] : [])]),
    el('td', { 'data-label': 'Roles' }, [client.roles.join(', ')]),
    el('td', { 'data-label': 'Keys', class: summary.due > 0 ? 'due' : '' }, [summary.due > 0 ? `⚠ ${summary.text}` : summary.text, ...sourceNote(client)]),
    el('td', { 'data-label': 'Created', class: 'created', title: formatInstant(client.createdAt) }, [formatDay(client.createdAt)]),
    el('td', { 'data-label': 'Last used', class: 'last-used', ...(client.lastUsedAt ? { title: formatInstant(client.lastUsedAt) } : {}) }, [lastUsedText(client, formatDay)]),
    el('td', { class: 'actions-cell' }, [el('div', { class: 'row-actions' }, [edit, toggle, status]), ...selfNote]),
  ]);
  const cell = el('td', { colspan: String(COLUMNS) }, isOpen ? detailsOf(client) : []);
  const details = el('tr', { id: detailsId, class: 'details' }, [cell]);
  details.hidden = !isOpen;
  return [row, details];
}

/** Opens the edit form; a client with published keys is read first (a listing leaves its source out). */
async function editClient(client: ClientView, opener: HTMLElement) {
  if (client.keySource !== undefined || !client.keys.some((key) => key.published === true)) return openClientForm(client, opener);
  try {
    const fresh = (await state.registry?.getClient(client.clientId)) ?? client;
    openClientForm(fresh, opener);
  } catch (error) {
    toast(`${client.name} could not be read: ${messageOf(error)}`, 'error');
  }
}

/** Where a client's keys come from, when it publishes them: ` from a JWKS URL`, ` from a Web Bot Auth directory` (` published` from a listing, which leaves the source out), with a warning while its source fails. */
function sourceNote(client: ClientView): Array<string | HTMLElement> {
  const label = keySourceLabel(client.keySource);
  // A listing leaves the source out; its keys still say they are published.
  if (label === undefined && !client.keys.some((key) => key.published === true)) return [];
  const failing = client.keySourceStatus?.failingSince !== undefined;
  return [el('span', { class: failing ? 'source-note warning' : 'source-note' }, [` ${label === undefined ? 'published' : `from a ${label.kind}`}${failing ? ', failing' : ''}`])];
}

/**
 * The parts of an open client's details that the registry fills in after they are drawn (its
 * recent failures, its changes), kept while the details stay open. Drawing the list again (after
 * any change to any client) reuses them: read again, they showed "Loading…" and then moved every
 * row below them when the answers came, under the pointer of whoever was about to click there.
 * A new version of the client reads its changes again, in place.
 */
const loadedDetails = new Map<string, { name: string; version: number; failures: HTMLElement[]; audit: ReturnType<typeof clientAuditPanel> }>();

/** A client's details: its keys, its whitelist, its recent failures, its changes. */
function detailsOf(client: ClientView): HTMLElement[] {
  const whitelist = el('p', {}, [el('strong', {}, ['Network whitelist: ']), client.networkWhitelist.join(', ')]);
  let loaded = loadedDetails.get(client.clientId);
  if (loaded === undefined || loaded.name !== client.name) {
    // New, or renamed (the headings and captions name it): read afresh.
    loaded = { name: client.name, version: client.version, failures: failuresPanel(client), audit: clientAuditPanel(client) };
    loadedDetails.set(client.clientId, loaded);
  } else if (loaded.version !== client.version) {
    loaded.version = client.version;
    loaded.audit?.trail.reload();
  }
  return [keyPanel(client), whitelist, ...loaded.failures, ...(loaded.audit?.elements ?? [])];
}

function toggleDetails(clientId: string) {
  if (state.open.has(clientId)) state.open.delete(clientId);
  else state.open.add(clientId);
  renderClients();
  document.querySelector<HTMLElement>(`[aria-controls="details-${clientId}"]`)?.focus();
}

async function copyClientId(copyButton: HTMLElement, clientId: string) {
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
  copyButton.dataset.copied = clientId;
  announce(copied ? `Copied ${clientId}` : 'The clientId could not be copied; select it and copy it by hand.');
}

async function setEnabled(client: ClientView, enabled: boolean, opener: HTMLElement) {
  const registry = state.registry;
  if (!registry) return;
  const text = `Requests signed by ${client.name}'s keys will be refused (client_disabled) ${whenItApplies()}. You can enable it again.`;
  if (!enabled && !(await confirmChange(`Disable ${client.name}?`, text, 'Disable', opener))) return;
  try {
    const updated = await registry.setEnabled(client.clientId, enabled, client.version);
    clientChanged(updated);
    document.querySelector<HTMLElement>(`#client-rows tr[data-client-id="${client.clientId}"] .status-toggle`)?.focus();
    toast(`${client.name} is now ${updated.status}. ${whenItAppliesSentence()}`.trim());
  } catch (error) {
    showError('list-error', `${client.name} could not be ${enabled ? 'enabled' : 'disabled'}: ${messageOf(error)}`, { code: codeOf(error) });
    await loadClients(false);
  }
}

/** Shows a client's new record in place, or first when it is new to the list. */
function clientChanged(updated: ClientView) {
  const at = state.clients.findIndex((c) => c.clientId === updated.clientId);
  if (at === -1) state.clients.unshift(updated);
  else state.clients[at] = updated;
  renderClients();
}

// ------------------------------------------------------------------ counts and empty states

function renderCount() {
  const shown = state.clients.length;
  const noun = (n: number) => (n === 1 ? 'client' : 'clients');
  const line = $('list-count');
  if (shown === 0) {
    line.textContent = '';
    return;
  }
  const matching = filtered() ? ' matching' : '';
  line.textContent =
    state.total !== undefined
      ? `Showing ${shown} of ${state.total}${matching} ${noun(state.total)}.`
      : state.nextCursor !== undefined
        ? `Showing the first ${shown}${matching} ${noun(shown)}; Load more for the next ${PAGE_SIZE}.`
        : `${shown}${matching} ${noun(shown)}.`;
}

function renderEmptyState() {
  const empty = state.clients.length === 0;
  $('client-table').hidden = empty;
  $('empty-state').hidden = !empty;
  if (!empty) return;
  const narrowed = filtered();
  $('empty-filtered').hidden = !narrowed;
  $('empty-account').hidden = narrowed;
  if (narrowed) {
    const q = state.query.q.trim();
    $('empty-filtered-title').textContent = q !== '' ? `No client matches “${q}” with these filters.` : 'No client matches these filters.';
    return;
  }
  const account = currentAccount();
  $('empty-account-title').textContent = state.operator
    ? `No clients in ${account?.name ?? state.account ?? 'this account'} yet`
    : 'No clients in your account yet';
}

// ------------------------------------------------------------------ search, filters, sort

function readFilters() {
  state.query.q = input('search').value;
  state.query.status = ($('filter-status') as HTMLSelectElement).value as ListQuery['status'];
  state.query.role = ($('filter-role') as HTMLSelectElement).value;
  $('clear-filters').hidden = !filtered();
}

function onFiltersChanged(delayMs: number) {
  window.clearTimeout(searchTimer);
  readFilters();
  state.open.clear();
  if (delayMs === 0) void loadClients(false);
  else searchTimer = window.setTimeout(() => void loadClients(false), delayMs);
}

/** Clears the search and the filters (the account stays). */
function clearFilters() {
  input('search').value = '';
  ($('filter-status') as HTMLSelectElement).value = '';
  ($('filter-role') as HTMLSelectElement).value = '';
  onFiltersChanged(0);
  input('search').focus();
}

/** The role filter offers the roles the signer may give (they are all a client of its account can hold, but for older grants). */
export function renderRoleFilter() {
  const select = $('filter-role') as HTMLSelectElement;
  const current = select.value;
  select.replaceChildren(el('option', { value: '' }, ['Any role']), ...state.roles.map((role) => el('option', { value: role }, [role])));
  select.value = state.roles.includes(current) ? current : '';
}

/**
 * The order the list is in: the one chosen, or the registry's own (creation order, oldest first)
 * while none is.
 */
function effectiveOrder(): { sort: Exclude<ListQuery['sort'], ''>; order: ListQuery['order'] } {
  return state.query.sort === '' ? { sort: 'createdAt', order: 'asc' } : { sort: state.query.sort, order: state.query.order };
}

/** Sorting by a column: a new column starts with names A→Z and dates newest first (the registry's defaults); the same column turns the order round. */
function onSort(column: Exclude<ListQuery['sort'], ''>) {
  const current = effectiveOrder();
  state.query.sort = column;
  state.query.order = current.sort === column ? (current.order === 'asc' ? 'desc' : 'asc') : column === 'name' ? 'asc' : 'desc';
  void loadClients(false).then(() => document.querySelector<HTMLElement>(`button[data-sort="${column}"]`)?.focus());
}

function renderSortHeaders() {
  const current = effectiveOrder();
  for (const header of Array.from(document.querySelectorAll<HTMLElement>('#client-table th[data-sort-column]'))) {
    const column = header.dataset.sortColumn;
    const sorted = current.sort === column;
    if (sorted) header.setAttribute('aria-sort', current.order === 'asc' ? 'ascending' : 'descending');
    else header.removeAttribute('aria-sort');
    const arrow = header.querySelector('.sort-arrow');
    if (arrow) arrow.textContent = sorted ? (current.order === 'asc' ? '▲' : '▼') : '';
  }
}

/** Back to the first state (signing out, or another signer). */
export function resetList() {
  window.clearTimeout(searchTimer);
  listing++;
  state.clients = [];
  state.total = undefined;
  state.nextCursor = undefined;
  state.query = { q: '', status: '', role: '', sort: '', order: 'asc' };
  state.open.clear();
  input('search').value = '';
  ($('filter-status') as HTMLSelectElement).value = '';
  $('clear-filters').hidden = true;
  $('client-rows').replaceChildren();
}

export function initClientList() {
  list.clientChanged = clientChanged;
  list.reload = () => loadClients(false);
  $('refresh').addEventListener('click', () => void loadClients(false));
  $('load-more').addEventListener('click', () => void loadClients(true));
  ($('list-filters') as HTMLFormElement).addEventListener('submit', (event) => {
    event.preventDefault();
    onFiltersChanged(0);
  });
  input('search').addEventListener('input', () => onFiltersChanged(SEARCH_DELAY_MS));
  $('filter-status').addEventListener('change', () => onFiltersChanged(0));
  $('filter-role').addEventListener('change', () => onFiltersChanged(0));
  $('clear-filters').addEventListener('click', () => clearFilters());
  $('empty-clear').addEventListener('click', () => clearFilters());
  $('empty-add').addEventListener('click', () => openClientForm(undefined, $('empty-add')));
  for (const sortButton of Array.from(document.querySelectorAll<HTMLElement>('#client-table button[data-sort]'))) {
    sortButton.addEventListener('click', () => onSort(sortButton.dataset.sort as Exclude<ListQuery['sort'], ''>));
  }
}
