/**
 * The keys part of the details of a client whose keys come from a published source (a JWKS URL
 * or a Web Bot Auth directory): the source and its state (last and next fetch, last success,
 * failing since, the last error, until when the keys are kept, keys not used), each key with its
 * kid, thumbprint, algorithm and nbf/exp, and "Refresh keys now" (POST .../keys/refresh), whose
 * outcome is said beside it: keys added, removed and unchanged, or the error and that the keys
 * were kept. Keys of such a client are not added or removed by hand (the registry refuses it,
 * `key_source_managed`): the publisher rotates them at the source.
 */
import type { ClientView } from '../lambda/registry/view-types';
import { button, el, formatInstant, messageOf } from './dom';
import { list, state } from './page-state';
import { toast } from './toasts';
import { keySourceLabel, keySourceRows, keyType, lastUsedText, refreshOutcomeText } from './view-model';

/** The last refresh outcome said per client, kept while the list is drawn again. */
const outcomes = new Map<string, { text: string; failed: boolean }>();

/** Clients whose record was read for the source's state (a listing leaves the state out): read once per opening. */
const stateRead = new Set<string>();

/** Whether the client's keys come from a published source. */
export function hasKeySource(client: ClientView): boolean {
  // A listing leaves keySource out, but its keys say they are published.
  return keySourceLabel(client.keySource) !== undefined || client.keys.some((key) => key.published === true);
}

/** The published keys panel of a client with a source. */
export function keySourcePanel(client: ClientView): HTMLElement {
  const source = keySourceLabel(client.keySource);
  const outcomeId = `refresh-outcome-${client.clientId}`;
  // A listing leaves the source and its state out: read the client once, then draw it with them.
  const complete = client.keySource !== undefined && client.keySourceStatus !== undefined;
  if (!complete && !stateRead.has(client.clientId)) {
    stateRead.add(client.clientId);
    void readState(client.clientId);
  } else if (complete) {
    stateRead.delete(client.clientId);
  }
  const rows = keySourceRows(client.keySourceStatus, formatInstant);
  const status = el(
    'dl',
    { class: 'source-state' },
    rows.flatMap((row) => [el('dt', {}, [row.label]), el('dd', row.warning ? { class: 'warning' } : {}, [row.value])]),
  );
  const keys = client.keys.map((key) =>
    el('tr', { 'data-fingerprint': key.fingerprint }, [
      el('td', { 'data-label': 'kid' }, [key.kid ?? '-']),
      el('td', { 'data-label': 'Thumbprint' }, [el('code', {}, [key.thumbprint ?? '-'])]),
      el('td', { 'data-label': 'Algorithm', class: 'key-type' }, [keyType(key)]),
      el('td', { 'data-label': 'Not before' }, [key.notBefore ? formatInstant(key.notBefore) : '-']),
      el('td', { 'data-label': 'Expires' }, [key.expires ? formatInstant(key.expires) : '-']),
      el('td', { 'data-label': 'Last used' }, [lastUsedText(key, formatInstant)]),
    ]),
  );
  const table = el('table', { class: 'inner keys published' }, [
    el('caption', {}, [`Published keys of ${client.name}`]),
    el('thead', {}, [el('tr', {}, ['kid', 'Thumbprint (JWK SHA-256)', 'Algorithm', 'Not before', 'Expires', 'Last used'].map((h) => el('th', { scope: 'col' }, [h])))]),
    el('tbody', {}, keys),
  ]);
  const said = outcomes.get(client.clientId);
  const outcome = el('p', { id: outcomeId, class: said?.failed ? 'error refresh-outcome' : 'hint refresh-outcome', role: 'status' }, [said?.text ?? '']);
  const refresh = button('Refresh keys now', { name: `Refresh the keys of ${client.name} now`, className: 'primary', onClick: (b) => void refreshKeys(client, b, outcome) });
  refresh.setAttribute('aria-describedby', outcomeId);
  return el('div', { class: 'key-panel key-source' }, [
    el('p', {}, source === undefined ? [el('strong', {}, ['Keys from a published source']), ' (reading it…)'] : [el('strong', {}, [`Keys from ${source.kind}: `]), el('code', {}, [source.value])]),
    status,
    table,
    el('div', { class: 'panel-actions' }, [
      refresh,
      el('p', { class: 'hint' }, [`${client.name} rotates its keys at the source: a new key verifies after the next refresh, a key gone from the source stops. A failed fetch removes nothing.`]),
    ]),
    outcome,
  ]);
}

async function refreshKeys(client: ClientView, opener: HTMLButtonElement, outcome: HTMLElement) {
  const registry = state.registry;
  if (!registry) return;
  opener.disabled = true;
  outcome.className = 'hint refresh-outcome';
  outcome.textContent = `Fetching the keys of ${client.name}…`;
  try {
    const answer = await registry.refreshKeys(client.clientId);
    const updated = answer.client;
    const text = refreshOutcomeText(updated.name, answer.refresh, updated.keySourceStatus?.keptUntil, formatInstant);
    outcomes.set(client.clientId, { text, failed: !answer.refresh.ok });
    state.open.add(client.clientId);
    list.clientChanged(answer.client);
    document.querySelector<HTMLElement>(`#details-${CSS.escape(client.clientId)} .key-source button.primary`)?.focus();
    toast(text, answer.refresh.ok ? 'success' : 'error');
  } catch (error) {
    const text = `The keys of ${client.name} could not be refreshed: ${messageOf(error)}`;
    outcomes.set(client.clientId, { text, failed: true });
    outcome.className = 'error refresh-outcome';
    outcome.textContent = text;
    opener.disabled = false;
  }
}

async function readState(clientId: string) {
  try {
    const fresh = await state.registry?.getClient(clientId);
    if (fresh !== undefined && (fresh.keySource !== undefined || fresh.keySourceStatus !== undefined)) list.clientChanged(fresh);
  } catch {
    // The list's Refresh, or Refresh keys now, reads it again.
  }
}
