/**
 * Whose clients the page shows. An account admin (`account:admin`) sees its own account's clients
 * only, and may give the roles of its account's ceiling (the registry enforces both; the page only
 * follows). An operator (`registry:admin`) gets the operator view: an account picker over every
 * account, whose clients are listed and where new clients go, with + Account and Edit account
 * (./account-dialog.ts).
 */
import type { ClientView } from '../lambda/registry/view-types';
import { closeAccountAudit } from './audit-panel';
import { $, announce, codeOf, el, messageOf, showError } from './dom';
import { type AccountSummary, DEFAULT_ACCOUNT, OPERATOR_ROLE, type Registry, list, state } from './page-state';

/** The most accounts the picker lists. */
const MAX_ACCOUNTS = 2_000;

/**
 * Who the signer is: an operator (the account picker) or an account admin (its own account).
 * Read from the signer's own client record; the registry scopes every answer anyway.
 */
export async function loadScope(registry: Registry, keyId: string) {
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
    await loadAccounts(registry);
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

/** Every account, for the operator's picker. */
export async function loadAccounts(registry: Registry) {
  const accounts: AccountSummary[] = [];
  try {
    let cursor: string | undefined;
    do {
      const page = await registry.listAccounts({ limit: 100, cursor });
      accounts.push(...page.accounts);
      cursor = page.nextCursor;
    } while (cursor !== undefined && accounts.length < MAX_ACCOUNTS);
  } catch (error) {
    showError('list-error', `The accounts could not be listed: ${messageOf(error)}`, { code: codeOf(error) });
  }
  state.accounts = accounts;
}

/** The account in view, as the page knows it. */
export function currentAccount(): AccountSummary | undefined {
  return state.accounts.find((a) => a.accountId === state.account);
}

/** Shows the account line (account admin) or the operator view. */
export function renderScope() {
  const known = state.account !== undefined;
  $('account-scope').hidden = !known;
  $('account-audit-toggle').hidden = !known;
  $('operator-view').hidden = !state.operator;
  $('account-line').hidden = !known || state.operator;
  if (!known) return;
  if (state.operator) {
    const select = $('account-select') as HTMLSelectElement;
    const accounts = currentAccount() ? state.accounts : [{ accountId: String(state.account), name: 'Default account', roleCeiling: [] }, ...state.accounts];
    select.replaceChildren(
      ...accounts.map((a) => {
        const option = el('option', { value: a.accountId }, [`${a.name} (${a.accountId})`]) as HTMLOptionElement;
        option.selected = a.accountId === state.account;
        return option;
      }),
    );
    const current = accounts.find((a) => a.accountId === state.account);
    $('account-select-ceiling').textContent = current ? `Its admins may give: ${current.roleCeiling.length > 0 ? current.roleCeiling.join(', ') : 'no role yet (its role ceiling is empty: operators give every role its clients hold)'}.` : '';
    $('edit-account').setAttribute('aria-label', `Edit account ${current?.name ?? String(state.account)}`);
    $('no-partner-accounts').hidden = accounts.some((a) => a.accountId !== DEFAULT_ACCOUNT);
    return;
  }
  const account = state.accounts[0];
  $('account-name').textContent = account?.name ?? String(state.account);
  $('account-id').textContent = String(state.account);
  $('account-ceiling').textContent = state.roles.length > 0 ? state.roles.join(', ') : 'none yet (ask the API owner)';
}

/** The operator picked another account (or created one): list its clients. */
export async function showAccount(accountId: string) {
  state.account = accountId;
  state.open.clear();
  closeAccountAudit();
  renderScope();
  await list.reload();
  announce(`Showing the clients of ${currentAccount()?.name ?? accountId}.`);
}

export function initAccountScope() {
  $('account-select').addEventListener('change', () => void showAccount(($('account-select') as HTMLSelectElement).value));
}
