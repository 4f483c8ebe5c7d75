/**
 * Who is calling the registry, and which clients they may see and change. Every rule of account
 * scoping lives here; the service (./registry-service.ts) only asks.
 *
 * - **Operators** (`registry:admin`, the API owner's people) see and manage every account and
 *   every client, create accounts and set each account's role ceiling. They may give any role of
 *   the catalogue to any client (the ceiling binds account admins, whom operators configure).
 * - **Everyone else who reaches the registry** (normally `account:admin`) is scoped to the account
 *   the authorizer says its client belongs to. Anything outside that account answers exactly as
 *   if it did not exist (404 `not_found`), so a partner cannot learn which clientIds, keys or
 *   accounts exist elsewhere. Within its account:
 *   - a role it gives a client must be in the account's role ceiling (400 `role_not_allowed`,
 *     with the allowed list); roles a client already holds may stay;
 *   - `registry:admin` can never be given (operators cannot even put it in a ceiling);
 *   - a client holding `registry:admin` cannot be changed at all (403 `role_forbidden`): taking
 *     over its key would make the account admin an operator;
 *   - a client that holds a role outside the ceiling (which only an operator can have given
 *     it) cannot have its keys changed (add, replace, remove), be enabled, nor have its network
 *     whitelist or coverage profile changed (403 `client_above_ceiling`): whoever sets a
 *     client's key signs as that client, with its roles, and who may sign with such a role, from
 *     where and how, is the operators' to decide (an operator who disabled it after a leak is
 *     not overruled). An operator makes the change, or the account admin first takes the roles
 *     above the ceiling away; the account admin may still rename or disable it. The caller's own
 *     client is exempt: it already signs as itself;
 *   - `account:admin` may be given like any other role when the operator put it in the ceiling:
 *     the operator decides whether a partner may appoint its own administrators.
 * - **Nobody locks themselves out** (409 `self_lockout`): a caller may not disable its own client,
 *   take from it the role it administers the registry with (`registry:admin`, `account:admin`),
 *   nor give it a network whitelist that does not admit the address the call came from. That the registry keeps at least one active operator at all is the store's
 *   rule (`last_admin`), enforced in DynamoDB.
 */
import { ACCOUNT_ADMIN_ROLE, REGISTRY_ADMIN_ROLE } from '../core/defaults';
import { SignetError } from '../core/errors';
import { compileAllowList } from '../core/ip-policy';
import { admitsEverySignatureOf } from '../core/profiles';
import type { CoverageProfile } from '../core/profile-names';
import { DEFAULT_ACCOUNT_ID, isAccountId } from '../store/account-id';
import { accountNotFound } from '../store/account-store';
import type { ClientRecord } from '../domain/client-record';
import type { AccountRecord, ClientGuard } from '../domain/store-types';

/** The acting client, as the authorizer described it. */
export interface RegistryCaller {
  readonly clientId: string;
  readonly roles: readonly string[];
  /** The caller's account; undefined when the authorizer passed none. */
  readonly accountId?: string;
  /** The address the call came from, when known: the one its own whitelist must go on admitting. */
  readonly sourceIp?: string;
  /** The coverage profile the call was admitted under, when known: the one its own client must go on accepting. */
  readonly profile?: CoverageProfile;
}

/** What a caller may reach: everything, or one account. */
export type CallerScope =
  | { readonly kind: 'operator'; readonly caller: RegistryCaller }
  | { readonly kind: 'account'; readonly caller: RegistryCaller; readonly accountId: string };

/**
 * An `role_not_allowed` refusal that carries the roles the caller may give, so the answer can
 * list them (`allowedRoles`) for a portal to offer.
 */
export class RoleNotAllowedError extends SignetError {
  constructor(
    readonly allowedRoles: readonly string[],
    message: string,
  ) {
    super('role_not_allowed', message);
  }
}

/**
 * The caller's scope: operator with `registry:admin`, else its own account.
 * @throws SignetError `internal_error` when a non-operator arrives without an account (an
 *   authorizer older than the registry): refused rather than guessed
 */
export function scopeOf(caller: RegistryCaller): CallerScope {
  if (caller.roles.includes(REGISTRY_ADMIN_ROLE)) return { kind: 'operator', caller };
  if (!isAccountId(caller.accountId)) {
    throw new SignetError(
      'internal_error',
      "The authorizer did not say which account the caller belongs to, so the registry cannot scope the request. Deploy the authorizer and the registry from the same Signet version.",
    );
  }
  return { kind: 'account', caller, accountId: caller.accountId };
}

/** @throws SignetError `role_forbidden` unless the caller is an operator */
export function requireOperator(scope: CallerScope, what: string): void {
  if (scope.kind !== 'operator') {
    throw new SignetError('role_forbidden', `Only the API owner's operators (role ${REGISTRY_ADMIN_ROLE}) may ${what}.`);
  }
}

/**
 * The account a request acts on: the one it names (operators; `DEFAULT_ACCOUNT_ID` when none),
 * or the caller's own (account admins, who may name only their own).
 * @throws SignetError `not_found` when an account admin names another account
 */
export function targetAccount(scope: CallerScope, requested: string | undefined): string {
  if (scope.kind === 'operator') return requested ?? DEFAULT_ACCOUNT_ID;
  if (requested !== undefined && requested !== scope.accountId) throw accountNotFound(requested);
  return scope.accountId;
}

/** True when the caller may see this account (operators: any; account admins: their own). */
export function canSeeAccount(scope: CallerScope, accountId: string): boolean {
  return scope.kind === 'operator' || scope.accountId === accountId;
}

/** True when the caller may see this client. */
export function canSeeClient(scope: CallerScope, record: Pick<ClientRecord, 'accountId'>): boolean {
  return canSeeAccount(scope, record.accountId);
}

/**
 * The guard of a change to a client (checked by the store on the record the change is planned
 * from), or undefined for operators.
 * @param notFound the error a client outside the caller's account is answered with: the same as
 *   for a clientId nobody holds
 * @param also a further check on the visible record (e.g. the roles an edit adds)
 */
export function changeGuard(scope: CallerScope, notFound: (clientId: string) => Error, also?: ClientGuard): ClientGuard | undefined {
  if (scope.kind === 'operator') return undefined;
  return (current) => {
    if (!canSeeClient(scope, current)) throw notFound(current.clientId);
    if (current.roles.includes(REGISTRY_ADMIN_ROLE)) {
      throw new SignetError(
        'role_forbidden',
        `This client holds ${REGISTRY_ADMIN_ROLE}, so only the API owner's operators may change it (its key would make its holder an operator).`,
      );
    }
    also?.(current);
  };
}

/** The changes an account admin may not make to a client holding a role above its account's ceiling (see {@link aboveCeilingGuard}). */
export type AboveCeilingChange = 'keys' | 'enable' | 'access';

/** Each change in the refusal's words: "you may not …". */
const ABOVE_CEILING_WORDS: Readonly<Record<AboveCeilingChange, string>> = {
  keys: 'add, replace or remove its keys',
  enable: 'enable it',
  access: 'change its network whitelist or coverage profile',
};

/**
 * The guard of an account admin's change to a client that holds a role outside the account's
 * ceiling (only an operator gives those): its keys (add, replace, remove; the new key's holder
 * would sign with that role), enabling it, or its network whitelist or coverage profile (who may
 * sign with the role, from where and how). Undefined for operators. The caller's own client is
 * exempt for its keys only (it already signs as itself). Checked on the record the change is planned from, after
 * {@link changeGuard}.
 * @param account the caller's account (its ceiling), read for account admins
 * @param rolesAfter the client's roles after the change, when the same edit sets them (the new key signs with those)
 * @throws SignetError `client_above_ceiling` (403) naming the roles and what to do instead
 */
export function aboveCeilingGuard(scope: CallerScope, account: AccountRecord | undefined, change: AboveCeilingChange, rolesAfter?: readonly string[]): ClientGuard | undefined {
  if (scope.kind === 'operator' || account === undefined) return undefined;
  const allowed = grantableRoles(account);
  return (current) => {
    // Its own keys: it already signs as itself. Not its whitelist or profile: who may sign with a
    // role above the ceiling, from where and how, is the operators' to decide, the caller's own too.
    if (change === 'keys' && current.clientId === scope.caller.clientId) return;
    const above = (rolesAfter ?? current.roles).filter((role) => !allowed.includes(role));
    if (above.length === 0) return;
    const held = `This client holds ${above.map((r) => JSON.stringify(r)).join(', ')}, outside your account's role ceiling (only the API owner's operators give such roles), so you may not ${ABOVE_CEILING_WORDS[change]}: `;
    throw new SignetError(
      'client_above_ceiling',
      change === 'keys'
        ? `${held}the key's holder would sign with those roles. Ask the API owner's operators to change its keys, or first remove those roles from the client (PATCH roles), then change its keys.`
        : `${held}who may sign with those roles, from where and how, is the operators' to decide. Ask the API owner's operators to make the change, or first remove those roles from the client (PATCH roles).`,
    );
  };
}

/** The roles that let a client administer the registry: a caller never takes them from itself. */
const ADMINISTERING_ROLES: readonly string[] = [REGISTRY_ADMIN_ROLE, ACCOUNT_ADMIN_ROLE];

/** What a change does to a client, as far as locking its holder out goes. */
export interface LockoutRelevantChange {
  readonly disable?: boolean;
  /** The client's roles after the change, when it changes them. */
  readonly roles?: readonly string[];
  /** The client's network whitelist after the change, when it changes it. */
  readonly networkWhitelist?: readonly string[];
  /** The client's coverage profile after the change, when the change names one. */
  readonly profile?: CoverageProfile;
}


/**
 * The guard refusing a change by which the caller would lock itself out: disabling its own client,
 * removing from it a role it administers the registry with, a whitelist that no longer admits
 * the caller's address, or a coverage profile that may refuse the signer this call was admitted
 * with (a call whose profile the authorizer did not pass is taken for `signet`, the default).
 * Checked on the record the change is planned from.
 * @throws SignetError `self_lockout` (409) saying what to do instead
 */
export function selfLockoutGuard(caller: RegistryCaller, change: LockoutRelevantChange): ClientGuard {
  return (current) => {
    if (current.clientId !== caller.clientId) return;
    if (change.disable === true && current.status === 'active') {
      throw new SignetError(
        'self_lockout',
        'You cannot disable the client you are calling with: you would lock yourself out of the registry. Have another administrator disable it, or disable it from another client.',
      );
    }
    const dropped = change.roles === undefined ? [] : ADMINISTERING_ROLES.filter((role) => current.roles.includes(role) && !change.roles?.includes(role));
    if (dropped.length > 0) {
      throw new SignetError(
        'self_lockout',
        `You cannot remove ${dropped.join(' and ')} from the client you are calling with: you would lock yourself out of the registry. Give the role to another client first and have that client remove it from yours.`,
      );
    }
    // The same rule the authorizer applies to the next request (core compileAllowList).
    if (change.networkWhitelist !== undefined && caller.sourceIp !== undefined && !compileAllowList(change.networkWhitelist).allows(caller.sourceIp)) {
      throw new SignetError(
        'self_lockout',
        `The new network whitelist does not admit ${caller.sourceIp}, the address this request came from: the client you are calling with would be refused from its next request on. Include ${caller.sourceIp} (or a range holding it), or make this change from an address the new list admits.`,
      );
    }
    if (change.profile !== undefined && change.profile !== current.profile && !admitsEverySignatureOf(change.profile, caller.profile ?? 'signet')) {
      throw new SignetError(
        'self_lockout',
        `This request was admitted under the ${caller.profile ?? 'signet'} profile; under ${change.profile} the client you are calling with could be refused from its next request on ` +
          `(${change.profile === 'web-bot-auth' ? "Web Bot Auth asks for tag=\"web-bot-auth\" and an expiry, which Signet's signers do not send" : 'its signer may not cover what that profile requires'}). ` +
          'Have another administrator make this change.',
      );
    }
  };
}

/** Both guards, in order (either may be absent). */
export function bothGuards(first: ClientGuard | undefined, second: ClientGuard | undefined): ClientGuard | undefined {
  if (first === undefined) return second;
  if (second === undefined) return first;
  return (current) => {
    first(current);
    second(current);
  };
}

/** The roles an account admin may give in `account`: its ceiling, never `registry:admin`. */
export function grantableRoles(account: AccountRecord): string[] {
  return [...account.roleCeiling].filter((role) => role !== REGISTRY_ADMIN_ROLE).sort();
}

/**
 * Checks the roles a client is given: operators may give any (already catalogue-checked) role;
 * an account admin only roles in its account's ceiling, besides roles the client already holds.
 * @param held the roles the client holds now (none for a new client)
 * @throws RoleNotAllowedError (`role_not_allowed`, 400) naming the refused and the allowed roles
 */
export function checkRolesGiven(scope: CallerScope, account: AccountRecord, roles: readonly string[], held: readonly string[] = []): void {
  if (scope.kind === 'operator') return;
  const allowed = grantableRoles(account);
  const refused = roles.filter((role) => !held.includes(role) || role === REGISTRY_ADMIN_ROLE).filter((role) => !allowed.includes(role));
  if (refused.length === 0) return;
  const names = (list: readonly string[]) => list.map((r) => JSON.stringify(r)).join(', ');
  throw new RoleNotAllowedError(
    allowed,
    `Your account may not give the role(s) ${names(refused)}. ` +
      (allowed.length > 0 ? `It may give: ${names(allowed)}.` : 'It may not give any role yet.') +
      ` Ask the API owner to raise the account's role ceiling${refused.includes(REGISTRY_ADMIN_ROLE) ? ` (${REGISTRY_ADMIN_ROLE} is only ever given by the API owner)` : ''}.`,
  );
}
