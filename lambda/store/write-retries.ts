/**
 * The one retry loop of every transactional write in the store: an attempt reads what it needs,
 * plans, writes, and either returns its result, throws a refusal, or answers {@link RETRY} when it
 * lost a race that another attempt may win (a TransactionConflict, an id collision, a concurrent
 * change when no version was given). After {@link MAX_WRITE_ATTEMPTS} the caller's own error is
 * thrown (`busy`, or `version_conflict` where a version was expected).
 */
import { SignetError } from '../core/errors';

/** Attempts for a write that loses races. @default 6 */
export const MAX_WRITE_ATTEMPTS = 6;

/** The error when every attempt lost its race: the caller may retry shortly. */
export function busy(action: string): SignetError {
  return new SignetError('dependency_unavailable', `Could not ${action}: too many concurrent changes to the same items. Retry shortly.`);
}

/** What an attempt answers when it should be tried again. */
export const RETRY: unique symbol = Symbol('retry the write');

export async function withWriteRetries<T>(attempt: () => Promise<T | typeof RETRY>, exhausted: () => Error): Promise<T> {
  for (let n = 1; ; n++) {
    const result = await attempt();
    if (result !== RETRY) return result;
    if (n >= MAX_WRITE_ATTEMPTS) throw exhausted();
    await backoff(n);
  }
}

/** Full jitter, capped at 200 ms. */
function backoff(attempt: number): Promise<void> {
  const ms = Math.random() * Math.min(200, 10 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, ms));
}
