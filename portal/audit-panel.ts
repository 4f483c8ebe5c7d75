/**
 * Who changed what, when: a client's audit trail in its details, and the account's (the
 * account's own changes and, where the registry lists them there, its clients'), each newest
 * first, a page at a time with "Load more changes".
 */
import type { ClientView } from '../lambda/registry/view-types';
import { $, button, el, formatInstant, messageOf } from './dom';
import { state } from './page-state';
import { auditLine } from './view-model';

/** Entries per page (one registry call each). */
export const AUDIT_PAGE_SIZE = 10;

type AuditPage = { entries: Parameters<typeof auditLine>[0][]; nextCursor?: string };

/** The names of the clients the page has listed, to name actors and clients by. */
function knownNames(): Map<string, string> {
  return new Map(state.clients.map((c) => [c.clientId, c.name]));
}

/** A trail on the page: its elements, and a way to read its first page again in place. */
export interface AuditTrail {
  readonly element: HTMLElement;
  /** Reads the newest page again and shows it once it has come (what is shown stays until then, and if the read fails, with a line saying so). */
  reload(): void;
}

/**
 * A table of audit entries that loads its pages itself.
 * @param caption names the table (e.g. "Changes to Acme")
 * @param read one page of entries from the registry
 * @param withClient a column naming the client (the account's trail)
 */
function auditTrail(caption: string, read: (cursor: string | undefined) => Promise<AuditPage>, withClient: boolean): AuditTrail {
  const rows = el('tbody');
  const headers = ['When', 'Who', ...(withClient ? ['Client'] : []), 'What'];
  const table = el('table', { class: 'inner audit' }, [
    el('caption', { class: 'visually-hidden' }, [caption]),
    el('thead', {}, [el('tr', {}, headers.map((h) => el('th', { scope: 'col' }, [h])))]),
    rows,
  ]);
  table.hidden = true;
  const status = el('p', { class: 'hint', role: 'status' }, ['Loading changes…']);
  let cursor: string | undefined;
  // A page asked for before the latest reload is dropped when it comes.
  let generation = 0;
  const more = button('Load more changes', { onClick: () => void load(false) });
  more.hidden = true;
  async function load(fromTheTop: boolean) {
    const asked = fromTheTop ? ++generation : generation;
    (more as HTMLButtonElement).disabled = true;
    let page: AuditPage;
    try {
      page = await read(fromTheTop ? undefined : cursor);
    } catch (error) {
      if (asked !== generation) return;
      // A reload keeps the entries shown, and says they may be behind.
      status.textContent =
        fromTheTop && rows.children.length > 0 ? `The latest changes could not be read (${messageOf(error)}); those shown may be out of date.` : `The changes could not be read: ${messageOf(error)}`;
      status.className = 'error';
      return;
    } finally {
      if (asked === generation) (more as HTMLButtonElement).disabled = false;
    }
    if (asked !== generation) return;
    const names = knownNames();
    const lines = page.entries.map((entry) => {
      const line = auditLine(entry, { signerId: state.signerId, names });
      return el('tr', { 'data-action': line.action }, [
        el('td', { 'data-label': 'When', class: 'when' }, [formatInstant(line.at)]),
        el('td', { 'data-label': 'Who' }, [line.who]),
        ...(withClient ? [el('td', { 'data-label': 'Client' }, [line.client ?? '—'])] : []),
        el('td', { 'data-label': 'What' }, [line.what]),
      ]);
    });
    if (fromTheTop) rows.replaceChildren(...lines);
    else rows.append(...lines);
    cursor = page.nextCursor;
    const count = rows.children.length;
    table.hidden = count === 0;
    more.hidden = cursor === undefined;
    status.className = 'hint';
    status.textContent = count === 0 ? 'No changes recorded.' : cursor === undefined ? `${count === 1 ? '1 change' : `${count} changes`}, newest first.` : `The latest ${count} changes, newest first.`;
  }
  void load(true);
  return { element: el('div', { class: 'audit-trail' }, [status, table, more]), reload: () => void load(true) };
}

/** The audit part of a client's details: its heading and trail. */
export function clientAuditPanel(client: ClientView): { readonly elements: HTMLElement[]; readonly trail: AuditTrail } | undefined {
  const registry = state.registry;
  if (!registry) return undefined;
  const trail = auditTrail(`Changes to ${client.name}, newest first`, (cursor) => registry.listAudit(client.clientId, { cursor, limit: AUDIT_PAGE_SIZE }), false);
  return { elements: [el('h3', {}, [`Changes to ${client.name}`]), trail.element], trail };
}

/** Shows or hides the account's changes (#account-audit), read afresh each time it opens. */
function toggleAccountAudit() {
  const panel = $('account-audit');
  const toggle = $('account-audit-toggle');
  const open = panel.hidden;
  panel.hidden = !open;
  toggle.setAttribute('aria-expanded', String(open));
  if (!open) {
    panel.replaceChildren();
    return;
  }
  const registry = state.registry;
  const accountId = state.account;
  if (!registry || accountId === undefined) return;
  const name = state.accounts.find((a) => a.accountId === accountId)?.name ?? accountId;
  panel.replaceChildren(
    el('h3', { id: 'account-audit-title' }, [`Changes to the account ${name}`]),
    auditTrail(`Changes to the account ${name} and its clients, newest first`, (cursor) => registry.listAccountAudit(accountId, { cursor, limit: AUDIT_PAGE_SIZE }), true).element,
  );
}

/** Closes the account's changes (another account is shown, or the signer signed out). */
export function closeAccountAudit() {
  $('account-audit').hidden = true;
  $('account-audit').replaceChildren();
  $('account-audit-toggle').setAttribute('aria-expanded', 'false');
}

export function initAccountAudit() {
  $('account-audit-toggle').addEventListener('click', () => toggleAccountAudit());
}
