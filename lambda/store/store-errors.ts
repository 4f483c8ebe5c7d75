/**
 * Turning DynamoDB SDK failures into Signet errors, at the store's boundary: callers only ever
 * see a `SignetError` with a stable code, never a raw SDK exception.
 */
import { SignetError, isSignetError } from '../core/errors';

/** One entry of a TransactionCanceledException's CancellationReasons, as the SDK reports it. */
export interface CancellationReason {
  readonly Code?: string;
  readonly Message?: string;
  /** The item as it was, when the write asked for ReturnValuesOnConditionCheckFailure ALL_OLD (raw AttributeValues). */
  readonly Item?: Record<string, { S?: string; N?: string } | undefined>;
}

/** The cancellation reasons of a cancelled transaction, in the order the items were given, or undefined. */
export function cancellationReasons(error: unknown): readonly CancellationReason[] | undefined {
  if (errorName(error) !== 'TransactionCanceledException') return undefined;
  const reasons = (error as { CancellationReasons?: CancellationReason[] }).CancellationReasons;
  return Array.isArray(reasons) ? reasons : [];
}

/** True when a cancelled transaction lost a race with another transaction on the same items. */
export function isTransactionConflict(reasons: readonly CancellationReason[]): boolean {
  return reasons.some((r) => r.Code === 'TransactionConflict');
}

/** The SDK error's name, or '' for anything else. */
export function errorName(error: unknown): string {
  return typeof error === 'object' && error !== null && typeof (error as { name?: unknown }).name === 'string'
    ? (error as { name: string }).name
    : '';
}

const PROGRAMMING_ERRORS = new Set(['TypeError', 'RangeError', 'ReferenceError', 'SyntaxError', 'ValidationException', 'SerializationException']);

/**
 * The Signet error for an unexpected storage failure while trying to `action` (a verb phrase,
 * e.g. "read the client"). A SignetError passes through unchanged.
 */
export function storageError(error: unknown, action: string): SignetError {
  if (isSignetError(error)) return error;
  const name = errorName(error);
  if (name === 'ResourceNotFoundException') {
    return new SignetError('internal_error', `Could not ${action}: the client table does not exist. Check the table name the service is configured with.`, { cause: error });
  }
  if (PROGRAMMING_ERRORS.has(name)) {
    return new SignetError('internal_error', `Could not ${action} because of an internal error. It has been logged.`, { cause: error });
  }
  return new SignetError('dependency_unavailable', `Could not ${action}: DynamoDB did not answer or refused the request. Retry shortly.`, { cause: error });
}

/**
 * The `version_conflict` error for an edit of `what` (a client or an account) made against
 * version `expected`, when the record is now at `actual` (undefined: not known).
 */
export function versionConflict(what: 'client' | 'account', expected: number, actual: number | undefined): SignetError {
  const now = actual !== undefined ? `, it is now at version ${actual}` : '';
  return new SignetError(
    'version_conflict',
    `The ${what} was changed by someone else: you edited version ${expected}${now}. Read it again, reapply your change, and send the new version.`,
  );
}
