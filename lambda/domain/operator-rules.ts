/**
 * The registry always keeps an operator who can administer it: an active client with
 * `registry:admin` and a key that stays usable for {@link OPERATOR_KEY_MARGIN_MS} more. Usable is
 * what the authorizer verifies ({@link keyVerifiesAt}): a published key past its exp or its keep
 * bound does not count. These are the rules, as pure functions of client records, the time and
 * the keep bound; the store holds them in its transactions (an admin roster item, a condition on
 * another able operator's version).
 */
import { REGISTRY_ADMIN_ROLE } from '../core/defaults';
import { SignetError } from '../core/errors';
import { type ClientRecord, keyVerifiesAt } from './client-record';

/** An operator the registry counts on: active, with `registry:admin`. */
export function isActiveAdmin(record: Pick<ClientRecord, 'status' | 'roles'>): boolean {
  return record.status === 'active' && record.roles.includes(REGISTRY_ADMIN_ROLE);
}

/**
 * How long an operator's key must stay usable for the operator to count as one that can
 * administer the registry: a change may not leave the registry with none (`last_admin`).
 */
export const OPERATOR_KEY_MARGIN_MS = 24 * 60 * 60 * 1000;

/**
 * An active operator holding a key that verifies now and for {@link OPERATOR_KEY_MARGIN_MS} more.
 * `keepS`: the deployment's keep bound for published keys, in seconds (SIGNET_KEY_SOURCE_KEEP_DAYS).
 */
export function canAdminister(record: ClientRecord, nowMs: number, keepS: number): boolean {
  return isActiveAdmin(record) && record.keys.some((key) => keyVerifiesAt(key, record, keepS, nowMs) && keyVerifiesAt(key, record, keepS, nowMs + OPERATOR_KEY_MARGIN_MS));
}

/** What a change would do to the last operator, for the `last_admin` sentence (`keepS` as for {@link canAdminister}). */
export function describeLoss(current: ClientRecord, next: ClientRecord, nowMs: number, keepS: number): string {
  if (current.status === 'active' && next.status === 'disabled') return 'disable it';
  if (current.roles.includes(REGISTRY_ADMIN_ROLE) && !next.roles.includes(REGISTRY_ADMIN_ROLE)) return 'remove the role from it';
  return next.keys.some((key) => keyVerifiesAt(key, next, keepS, nowMs))
    ? `leave it only keys that expire within ${OPERATOR_KEY_MARGIN_MS / 3_600_000} hours`
    : 'leave it without a usable key';
}

/** Whether a change makes the client an active operator, or takes that away; undefined when neither. */
export function operatorChange(current: ClientRecord, next: ClientRecord): 'added' | 'removed' | undefined {
  const before = isActiveAdmin(current);
  const after = isActiveAdmin(next);
  if (before === after) return undefined;
  return after ? 'added' : 'removed';
}

/** The `last_admin` refusal: `what` is what the change would do, e.g. "disable it". */
export function lastAdmin(what: string): SignetError {
  return new SignetError(
    'last_admin',
    `This is the last active client with ${REGISTRY_ADMIN_ROLE} and a key that lasts: if you ${what}, nobody can administer the registry any more. Give ${REGISTRY_ADMIN_ROLE} to another client with a lasting key (or enable one that has it), or add a key that lasts longer, first; then retry.`,
  );
}
