/**
 * What one caller's searches may read (pure). A search of `GET /registry/clients` reads the whole
 * account (up to MAX_SEARCHED_CLIENTS clients) on every page, and with `sort=lastUsedAt` the last use
 * of every match's keys too; a plain page reads one page. So each caller (by clientId, whatever its
 * role) has a budget of reads per window, counted in DynamoDB across every registry instance
 * (lambda/store/search-budget-store.ts): a search started once the window's budget is spent is
 * refused with 429 `search_budget_exceeded` and `Retry-After` (the seconds left in the window).
 *
 * A read is one client record, or one key whose last use is read. The search that crosses the
 * budget still runs (its cost is known only once it has read); concurrent searches of one caller
 * may each pass the check before any is charged, so a caller can overrun by what its searches in
 * flight read. Plain listing pages and finding one key's holder are not counted: each is bounded
 * by its page.
 */
import { SignetError } from '../core/errors';

/** Reads one caller's searches may make per window. @default 50_000 (ten pages of a 5,000-client account, five sorted by last use) */
export const SEARCH_BUDGET_READS = 50_000;

/** The window a caller's search budget is counted over, in seconds. @default 60 */
export const SEARCH_BUDGET_WINDOW_S = 60;

export interface SearchBudget {
  /** Reads per window. */
  readonly reads: number;
  /** Window length in seconds; windows start at multiples of it (Unix time). */
  readonly windowS: number;
}

export const DEFAULT_SEARCH_BUDGET: SearchBudget = Object.freeze({ reads: SEARCH_BUDGET_READS, windowS: SEARCH_BUDGET_WINDOW_S });

/** The budget window `nowMs` falls in: its start and end, in Unix seconds. */
export function budgetWindow(budget: SearchBudget, nowMs: number): { readonly startS: number; readonly endS: number } {
  const startS = Math.floor(nowMs / 1000 / budget.windowS) * budget.windowS;
  return { startS, endS: startS + budget.windowS };
}

/** A refused search: the caller's budget for this window is spent. */
export class SearchBudgetExceededError extends SignetError {
  constructor(
    /** Whole seconds until the window ends (the `Retry-After` header). */
    readonly retryAfterS: number,
    message: string,
  ) {
    super('search_budget_exceeded', message);
  }
}

/**
 * Refuses a search when the caller has spent the window's budget.
 * @param spent the reads the caller's searches made in the window so far
 * @throws SearchBudgetExceededError (`search_budget_exceeded`, 429) with the seconds to wait
 */
export function checkSearchBudget(budget: SearchBudget, spent: number, nowMs: number): void {
  if (spent < budget.reads) return;
  const retryAfterS = Math.max(1, Math.ceil(budgetWindow(budget, nowMs).endS - nowMs / 1000));
  throw new SearchBudgetExceededError(
    retryAfterS,
    `Your searches read ${spent.toLocaleString('en-US')} clients and key last uses in this ${budget.windowS}-second window, the most one caller may (${budget.reads.toLocaleString('en-US')}): ` +
      `every search page reads the whole account. Retry after ${retryAfterS} s, page through the account without q, status, role, sort and order (one page read per page), or find one client with fingerprint=.`,
  );
}
