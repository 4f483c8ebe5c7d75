/**
 * Operators create and edit accounts (#account-dialog): a partner organisation's name and its
 * role ceiling, the roles its account admins may give (POST and PATCH /registry/accounts; the
 * registry checks both fields with the rules it checks a client name and roles with). Taking a
 * role out of the ceiling asks first.
 */
import type { AccountView } from '../lambda/registry/view-types';
import { confirmChange } from './confirm';
import { focusField, trapFocus } from './dialogs';
import { $, codeOf, el, input, messageOf, showError } from './dom';
import { formWords } from './form-words';
import { renderScope, showAccount } from './account-scope';
import { OPERATOR_ROLE, state } from './page-state';
import { SignetError, parseClientName } from './signet-core';
import { toast } from './toasts';

/** The account being edited (with the version it was read at), or undefined when creating. */
let editing: AccountView | undefined;
let opener: HTMLElement | null = null;

/** The roles a ceiling may hold: the catalogue's, never registry:admin. */
function ceilingRoles(checked: readonly string[]) {
  return [...new Set([...state.roles, ...checked])].filter((role) => role !== OPERATOR_ROLE);
}

function open(account: AccountView | undefined, from: HTMLElement) {
  editing = account;
  opener = from;
  $('account-dialog-title').textContent = account ? `Edit account ${account.name}` : 'New account';
  $('account-submit').textContent = account ? 'Save account' : 'Create account';
  input('account-name-input').value = account?.name ?? '';
  for (const id of ['account-form-error', 'account-name-error']) showError(id, '');
  input('account-name-input').removeAttribute('aria-invalid');
  const checked = account?.roleCeiling ?? [];
  $('ceiling-options').replaceChildren(
    ...ceilingRoles(checked).map((role, i) => {
      const box = el('input', { type: 'checkbox', id: `ceiling-${i}`, value: role }) as HTMLInputElement;
      box.checked = checked.includes(role);
      return el('div', { class: 'check' }, [box, el('label', { for: `ceiling-${i}` }, [role])]);
    }),
  );
  ($('account-dialog') as HTMLDialogElement).showModal();
  input('account-name-input').focus();
}

async function openEdit(from: HTMLElement) {
  const registry = state.registry;
  const accountId = state.account;
  if (!registry || accountId === undefined) return;
  try {
    open(await registry.getAccount(accountId), from);
  } catch (error) {
    toast(`The account could not be read: ${messageOf(error)}`, 'error');
  }
}

async function onSubmit(event: SubmitEvent) {
  event.preventDefault();
  const registry = state.registry;
  if (!registry) return;
  showError('account-form-error', '');
  const nameField = input('account-name-input');
  let name: string;
  try {
    name = parseClientName(nameField.value);
    showError('account-name-error', '', { field: nameField });
  } catch (error) {
    if (!(error instanceof SignetError)) throw error;
    showError('account-name-error', formWords('name', error, { name: nameField.value }), { code: error.code, field: nameField });
    focusField(nameField);
    return;
  }
  const roleCeiling = Array.from($('ceiling-options').querySelectorAll('input:checked'), (box) => (box as HTMLInputElement).value);
  const submit = $('account-submit') as HTMLButtonElement;
  const before = editing;
  if (before) {
    const changes = {
      ...(name !== before.name ? { name } : {}),
      ...(!sameSet(roleCeiling, before.roleCeiling) ? { roleCeiling } : {}),
    };
    if (Object.keys(changes).length === 0) {
      showError('account-form-error', 'Nothing to change: edit the name or the role ceiling.');
      return;
    }
    const removed = before.roleCeiling.filter((role) => !roleCeiling.includes(role));
    if (
      removed.length > 0 &&
      !(await confirmChange(
        `Take ${removed.join(', ')} out of ${before.name}'s ceiling?`,
        `The account admins of ${before.name} will no longer be able to give ${removed.join(', ')} to its clients (role_not_allowed). Clients that already hold ${removed.length > 1 ? 'them' : 'it'} keep ${removed.length > 1 ? 'them' : 'it'}.`,
        'Save account',
        submit,
      ))
    ) {
      return;
    }
    submit.disabled = true;
    try {
      const saved = await registry.updateAccount(before.accountId, before.version, changes);
      replaceAccount(saved);
      close();
      renderScope();
      toast(`Account ${saved.name} saved: its admins may give ${saved.roleCeiling.length > 0 ? saved.roleCeiling.join(', ') : 'no role'}.`);
    } catch (error) {
      showError('account-form-error', messageOf(error), { code: codeOf(error) });
    } finally {
      submit.disabled = false;
    }
    return;
  }
  submit.disabled = true;
  try {
    const created = await registry.createAccount({ name, roleCeiling });
    replaceAccount(created);
    close();
    await showAccount(created.accountId);
    toast(`Account ${created.name} created (${created.accountId}). Add its first client with + Client.`);
  } catch (error) {
    showError('account-form-error', messageOf(error), { code: codeOf(error) });
  } finally {
    submit.disabled = false;
  }
}

function replaceAccount(account: AccountView) {
  const at = state.accounts.findIndex((a) => a.accountId === account.accountId);
  if (at === -1) state.accounts.push(account);
  else state.accounts[at] = account;
}

function close() {
  ($('account-dialog') as HTMLDialogElement).close();
}

function sameSet(a: readonly string[], b: readonly string[]) {
  return a.length === b.length && a.every((x) => b.includes(x));
}

export function initAccountDialog() {
  trapFocus($('account-dialog') as HTMLDialogElement);
  $('add-account').addEventListener('click', () => open(undefined, $('add-account')));
  $('edit-account').addEventListener('click', () => void openEdit($('edit-account')));
  $('account-cancel').addEventListener('click', () => close());
  $('account-dialog').addEventListener('close', () => {
    editing = undefined;
    opener?.focus();
  });
  ($('account-form') as HTMLFormElement).addEventListener('submit', (e) => void onSubmit(e as SubmitEvent));
}
