/**
 * The client portal's page: wires its parts together when it loads. Plain DOM, no framework;
 * every registry call goes through ./registry-client.ts, signed in this browser.
 *
 * The parts, one job each:
 * - ./sign-in.ts: the admin key (loaded, remembered, forgotten);
 * - ./account-scope.ts, ./account-dialog.ts: whose clients are shown; operators' accounts;
 * - ./client-list.ts: the list (search, filters, sort, pages, empty states, row actions);
 * - ./client-form.ts: + Client and Edit;
 * - ./key-panel.ts, ./failures-panel.ts, ./audit-panel.ts: a client's details (key rollover,
 *   failures, changes) and the account's changes;
 * - ./dialogs.ts, ./form-words.ts: the dialogs' keyboard rules; refusals in the form's words;
 * - ./confirm.ts, ./toasts.ts: asking before a loss, and saying what every change did;
 * - ./page-state.ts, ./dom.ts, ./view-model.ts: shared state, DOM helpers, what is shown.
 */
import { initAccountDialog } from './account-dialog';
import { initAccountAudit } from './audit-panel';
import { initAccountScope } from './account-scope';
import { initClientForm } from './client-form';
import { initClientList } from './client-list';
import { initConfirm } from './confirm';
import { $ } from './dom';
import { initKeyPanel } from './key-panel';
import { initSignIn } from './sign-in';

async function start() {
  if (!window.isSecureContext || !globalThis.crypto?.subtle) {
    const box = $('unsupported');
    box.textContent = 'This page needs WebCrypto, which browsers offer only over HTTPS or on localhost. Open the portal at its https:// address.';
    box.hidden = false;
    return;
  }
  initConfirm();
  initClientList();
  initClientForm();
  initKeyPanel();
  initAccountScope();
  initAccountDialog();
  initAccountAudit();
  $('clients-title').setAttribute('tabindex', '-1');
  await initSignIn();
}

void start();
