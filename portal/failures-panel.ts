/**
 * The troubleshooting part of a client's details: its last refused requests and why (those its
 * own keys signed), then the counts of refusals anyone could have caused by naming it.
 */
import type { ClientView } from '../lambda/registry/view-types';
import { button, el, formatInstant, messageOf } from './dom';
import { state } from './page-state';
import { failureLine, unauthenticatedRows } from './view-model';

/** The heading, a Refresh button and the failures (loaded now). */
export function failuresPanel(client: ClientView): HTMLElement[] {
  const box = el('div', { class: 'failures', 'aria-live': 'polite' }, [el('p', {}, ['Loading recent authentication failures…'])]);
  const refresh = button('Refresh failures', { onClick: () => void loadFailures(client, box) });
  void loadFailures(client, box);
  return [el('h3', {}, [`Recent authentication failures of ${client.name}`]), refresh, box];
}

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
        el('p', {}, ['Refused requests that named this client but whose signature none of its keys verified (anyone can send those, and so is a request changed after it was signed), counted per hour:']),
        el('table', { class: 'inner' }, [
          el('caption', { class: 'visually-hidden' }, [`Unsigned refusals naming ${client.name}, per hour`]),
          el('thead', {}, [el('tr', {}, ['Hour from', 'Reason', 'Requests'].map((h) => el('th', { scope: 'col' }, [h])))]),
          el(
            'tbody',
            {},
            counts.map((row) =>
              el('tr', {}, [
                el('td', { 'data-label': 'Hour from' }, [formatInstant(row.start)]),
                el('td', { 'data-label': 'Reason' }, [el('code', { class: 'reason' }, [row.reason])]),
                el('td', { 'data-label': 'Requests' }, [String(row.count)]),
              ]),
            ),
          ),
        ]),
      ];
  if (failures.length === 0) {
    box.replaceChildren(el('p', {}, ['No refused requests signed by this client recorded (failures are kept 7 days).']), ...countsPart);
    return;
  }
  const rows = failures.map((f: Parameters<typeof failureLine>[0]) => {
    const line = failureLine(f);
    return el('tr', {}, [
      el('td', { 'data-label': 'When' }, [formatInstant(line.at)]),
      el('td', { 'data-label': 'Reason' }, [el('code', { class: 'reason' }, [line.reason])]),
      el('td', { 'data-label': 'What the caller was told' }, [line.message]),
      el('td', { 'data-label': 'Request' }, [line.request]),
      el('td', { 'data-label': 'Source IP' }, [line.sourceIp]),
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
