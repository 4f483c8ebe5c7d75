/**
 * What the page knows while it runs: who signs, the account in view, the clients listed and how
 * they are filtered, and the two things any panel may ask of the list (show a changed client,
 * list again). One object, shared by the page's modules; nothing here touches the DOM.
 */
import type { AccountView, ClientView } from '../lambda/registry/view-types';
import type { createRegistryClient } from './registry-client';

export type Registry = ReturnType<typeof createRegistryClient>;
/** What the page needs of an account (all it knows of one it could not read: its id and the roles it may give). */
export type AccountSummary = Pick<AccountView, 'accountId' | 'name' | 'roleCeiling'> & { readonly version?: number };

/** The list's search, filters and order, as GET /registry/clients takes them (unset: the registry's default). */
export interface ListQuery {
  q: string;
  status: '' | 'active' | 'disabled';
  role: string;
  sort: '' | 'name' | 'createdAt' | 'lastUsedAt';
  order: 'asc' | 'desc';
}

export const state = {
  registry: undefined as Registry | undefined,
  /** The clientId whose key signs the page's calls (marked "you" in the list). */
  signerId: undefined as string | undefined,
  /** The roles the signer may give (the catalogue, or its account's ceiling). */
  roles: [] as string[],
  /** The signer holds registry:admin: every account (the operator view). */
  operator: false,
  /** The account whose clients are listed: the signer's own, or the one an operator picked. */
  account: undefined as string | undefined,
  /** Every account (operator view), or the signer's own. */
  accounts: [] as AccountSummary[],
  clients: [] as ClientView[],
  /** The number of clients the query matches, when the registry says. */
  total: undefined as number | undefined,
  nextCursor: undefined as string | undefined,
  query: { q: '', status: '', role: '', sort: '', order: 'asc' } as ListQuery,
  /** Seconds the last write may take to reach running authorizers (registry header). */
  propagationSeconds: undefined as number | undefined,
  /** Client ids whose details are open. */
  open: new Set() as Set<string>,
};

/**
 * What the list does for the panels (set by ./client-list.ts when the page starts), so a panel
 * that changed a client does not need to know how the list is drawn.
 */
export const list = {
  /** Shows a client's new record in place (or first, when it is new to the list). */
  clientChanged: (_client: ClientView): void => undefined,
  /** Lists the clients again from the first page. */
  reload: async (): Promise<void> => undefined,
};

/** How long a change takes to reach the authorizers, in words (after the last write's header). */
export function whenItApplies(): string {
  return state.propagationSeconds === undefined || state.propagationSeconds === 0
    ? 'from the next request'
    : `within ${state.propagationSeconds} s (the authorizers' cache)`;
}

/**
 * The sentence said after a change: when the authorizers apply it.
 */
export function whenItAppliesSentence(): string {
  const seconds = state.propagationSeconds;
  if (seconds === undefined) return '';
  return seconds === 0
    ? 'It applies to the next request.'
    : `Authorizers that already hold this client may go on using its previous record for up to ${seconds} s (their cache).`;
}

/** Operators hold this role; everyone else is scoped to its own account. */
export { REGISTRY_ADMIN_ROLE as OPERATOR_ROLE } from './signet-core';
/** The account of clients created without one (DEFAULT_ACCOUNT_ID). */
export const DEFAULT_ACCOUNT = 'acct_default';
