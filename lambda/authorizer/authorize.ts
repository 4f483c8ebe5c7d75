/**
 * One authorization decision, whatever API Gateway flavour asked for it.
 *
 * Order (authentication first, then authorization):
 *   0. which signature to check: the keyid of each one Signature-Input declares (at most
 *      MAX_SIGNATURES_READ) names a client (cache first, unknown ones negatively cached), and
 *      that client's profile (or the deployment's) says which labels it may sign with: `signet`
 *      only `sig`, `rfc9421` any. A `sig` signature naming a client is taken at once (every
 *      profile accepts it); otherwise the first that fits is checked under that profile's rules.
 *   1. the core's key-independent checks and signature base
 *   2. the client by keyid → `unknown_client`
 *   3. the signature with the client's keys → `signature_mismatch`, `key_expired`
 *   4. the client's status → `client_disabled` (after the signature, so only the client's own
 *      key learns that it is disabled)
 *   5. the caller's IP against the client's allow-list → `ip_not_allowed` (403)
 *   6. the client's roles against the operation → `role_forbidden` (403)
 *   7. optional single use of the signature → `replayed_request`
 *
 * A refusal is attributed to the client its keyid names whenever that client exists, also when
 * the request failed a key-independent check (expired, clock_skew, digest_required, ...): those
 * are the failures a partner most needs to see. Attribution reads the directory (cached,
 * negatively cached) only after such a check failed and only when Signature-Input yields a keyid;
 * it never changes the refusal. `authenticated` says whether one of the client's current keys made
 * the signature (steps 4-7): only then did the request come from the client. Anything else may be
 * anyone's, whatever keyid it names — also `key_expired`: a retired key is no longer guarded as a
 * live one is, so its signature proves nothing about who sent the request.
 */
import { createHash } from 'node:crypto';
import { SignetError, isSignetError } from '../core/errors';
import { MAX_KEYID_LENGTH } from '../core/keyid';
import { CompiledRoleCatalogue } from '../core/role-policy';
import { type CoverageProfile, DEFAULT_PROFILE, MAX_SIGNATURES_READ, policyForProfile } from '../core/profiles';
import { SignedRequest } from '../core/types';
import { ParsedSignature, VerificationKey, VerifyPolicy, parseRequestSignature, peekKeyId, readSignatureMembersMemoized, refuseUnlessUsable, signingKey } from '../core/verify';
import { ClientDirectory, ResolvedClient } from './client-directory';

/** Records a signature as used; false when it was already used (see lambda/store for DynamoDB). */
export interface ReplayGuard {
  /** @param signatureId a hash of the signature value; @param expiresAtS when the record may be forgotten */
  claim(signatureId: string, expiresAtS: number): Promise<boolean>;
}

export interface AuthorizeDeps {
  /** The verification policy (its windows and limits); each signature is checked under its client's profile of it. */
  readonly policy: VerifyPolicy;
  /** The coverage profile of clients without one of their own. @default 'signet' */
  readonly profile?: CoverageProfile;
  readonly directory: ClientDirectory;
  readonly roles: CompiledRoleCatalogue;
  readonly replay?: ReplayGuard;
}

/** What is being asked: the request, other spellings of its URL (REST v1), and the API-relative operation. */
export interface AuthorizeInput {
  readonly request: SignedRequest;
  /** Read only when the key does not verify the request's own URL, so it may be lazy (AdaptedRequest.alternativeTargetUris). */
  readonly targetUriCandidates?: Iterable<string>;
  /** The path relative to the API (stage and base path removed), for the role catalogue. */
  readonly operationPath: string;
}

export type Decision =
  | {
      readonly allowed: true;
      readonly clientId: string;
      readonly roles: readonly string[];
      /** The client's account (from the record the signature was verified with). */
      readonly accountId: string;
      readonly fingerprint: string;
      readonly contentDigest?: string;
    }
  | {
      readonly allowed: false;
      readonly error: SignetError;
      /** Set when the keyid named a registered client (so the failure can be recorded for it). */
      readonly clientId?: string;
      /** The keyid presented, when it named no registered client (for the log; never a secret). */
      readonly keyId?: string;
      /** True when one of the client's current keys made the signature (so the request really is the client's). */
      readonly authenticated?: true;
    };

/** Decides; never throws for a refusal (only unexpected programming errors escape). */
export async function authorize(input: AuthorizeInput, deps: AuthorizeDeps): Promise<Decision> {
  let clientId: string | undefined;
  let keyId: string | undefined;
  let authenticated = false;
  try {
    const choice = await chooseSignature(input.request, deps);
    let parsed: ReturnType<typeof parseRequestSignature>;
    try {
      parsed = parseRequestSignature(input.request, choice.policy, input.targetUriCandidates, choice.label);
    } catch (error) {
      if (!isSignetError(error)) throw error;
      // The refusal is attributed to the client the keyid names, when there is one (see above).
      return { allowed: false, error, ...(choice.client !== undefined ? { clientId: choice.client.record.clientId } : choice.keyId !== undefined ? { keyId: choice.keyId } : {}) };
    }
    keyId = parsed.keyId;
    const client = choice.client !== undefined && choice.keyId === parsed.keyId ? choice.client : await deps.directory.get(parsed.keyId);
    if (client === undefined) {
      throw new SignetError('unknown_client', 'No client is registered with this keyid. Put your clientId in keyid, exactly as the registry gave it.');
    }
    clientId = client.record.clientId;
    const signer = signingKey(parsed, client.keys, choice.policy);
    const { fingerprint } = verifyWithClientKeys(parsed, client, choice.policy, signer);
    authenticated = true;
    if (client.record.status !== 'active') {
      throw new SignetError('client_disabled', 'This client is disabled. Ask the API owner to enable it.');
    }
    if (!client.allowList.allows(input.request.sourceIp)) {
      throw new SignetError('ip_not_allowed', `Requests from ${describeIp(input.request.sourceIp)} are not in this client's network whitelist. Ask the API owner to add your egress address or range.`);
    }
    const method = input.request.method.toUpperCase();
    if (!deps.roles.allows(client.record.roles, method, input.operationPath)) {
      throw new SignetError('role_forbidden', `This client's roles do not allow ${method} ${input.operationPath.slice(0, 200)}. Ask the API owner for a role that does.`);
    }
    if (deps.replay !== undefined) {
      const signatureId = createHash('sha256').update(parsed.signature).digest('base64url');
      const expiresAtS = parsed.created + choice.policy.maxAgeS + choice.policy.maxSkewS;
      if (!(await deps.replay.claim(signatureId, expiresAtS))) {
        throw new SignetError('replayed_request', 'This exact signed request was already used. Sign every request anew (fresh created and Date).');
      }
    }
    return { allowed: true, clientId, roles: client.record.roles, accountId: client.record.accountId, fingerprint, contentDigest: parsed.contentDigest };
  } catch (error) {
    if (!isSignetError(error)) throw error;
    if (clientId === undefined) return { allowed: false, error, keyId };
    return authenticated ? { allowed: false, error, clientId, authenticated } : { allowed: false, error, clientId };
  }
}

/**
 * The core's verdict (`refuseUnlessUsable`) for the key that signed; when stored keys were refused
 * (weak or unreadable) the refusal says so, since signing again cannot help.
 */
function verifyWithClientKeys(parsed: ParsedSignature, client: ResolvedClient, policy: VerifyPolicy, signer: VerificationKey | undefined): { fingerprint: string } {
  try {
    return refuseUnlessUsable(parsed, client.keys, policy, signer);
  } catch (error) {
    if (!isSignetError(error) || error.code !== 'signature_mismatch' || client.refusedKeys.length === 0) throw error;
    const reasons = [...new Set(client.refusedKeys.map((k) => k.reason))].join(', ');
    throw new SignetError(
      'signature_mismatch',
      `${error.message} ${client.refusedKeys.length} of this client's registered keys cannot be used (${reasons}); ask the API owner to register a new key (RSA, 2048 bits or more, exponent 65537).`,
    );
  }
}

/** The signature to check, the policy to check it under, and the client its keyid names (if looked up). */
interface SignatureChoice {
  /** Undefined: the policy's default (its label; under `rfc9421`, the first signature). */
  readonly label?: string;
  readonly policy: VerifyPolicy;
  readonly keyId?: string;
  readonly client?: ResolvedClient;
}

/**
 * Step 0: the first signature whose label its client's profile accepts (`signet`: only the
 * policy's label, `sig`; `rfc9421`: any). A keyid that names no client falls under the
 * deployment's profile. When none fits, the deployment's default, so the refusal is the usual
 * one (e.g. `signature_label_missing`). Malformed headers are left for the parse to refuse.
 */
async function chooseSignature(request: SignedRequest, deps: AuthorizeDeps): Promise<SignatureChoice> {
  const deploymentProfile = deps.profile ?? DEFAULT_PROFILE;
  const fallback: SignatureChoice = { policy: policyForProfile(deps.policy, deploymentProfile) };
  const field = request.headers['signature-input'];
  if (field === undefined || request.headers['signature'] === undefined) return fallback;
  // The usual request: a `sig` signature whose keyid names a client. Every profile accepts that
  // label, and its parse is the one the verifier reuses; only otherwise are all labels read.
  const sigKeyId = peekKeyId(field, deps.policy.label, deps.policy);
  if (sigKeyId !== undefined && sigKeyId !== '' && sigKeyId.length <= MAX_KEYID_LENGTH) {
    const client = await lookUp(sigKeyId, deps);
    if (client !== undefined) return { label: deps.policy.label, policy: policyForProfile(deps.policy, client.record.profile ?? deploymentProfile), keyId: sigKeyId, client };
  }
  let members: ReturnType<typeof readSignatureMembersMemoized>;
  try {
    members = readSignatureMembersMemoized(field, MAX_SIGNATURES_READ);
  } catch (error) {
    if (isSignetError(error)) return fallback;
    throw error;
  }
  let named: SignatureChoice | undefined;
  for (const { label, keyid, components } of members) {
    // Nothing over the component cap costs a lookup: the parse refuses it unread (a stranger's costliest request stays cheap).
    if (keyid === undefined || keyid === '' || keyid.length > MAX_KEYID_LENGTH || components > deps.policy.maxCoveredComponents) continue;
    const client = await lookUp(keyid, deps);
    const profile = client?.record.profile ?? deploymentProfile;
    if (profile === 'signet' && label !== deps.policy.label) {
      // Checked, if nothing else fits, under this client's own (stricter) rules: never the deployment's.
      named ??= { policy: policyForProfile(deps.policy, profile), client };
      continue;
    }
    return { label, policy: policyForProfile(deps.policy, profile), keyId: keyid, client };
  }
  // No signature fits its client's profile: refused under the first named client's rules, else the deployment's.
  return named ?? fallback;
}

/** The client a keyid names, or undefined; a registry failure here leaves the choice to the parse (the lookup after it reports the failure). */
async function lookUp(keyId: string, deps: AuthorizeDeps): Promise<ResolvedClient | undefined> {
  try {
    return await deps.directory.get(keyId);
  } catch {
    return undefined;
  }
}

function describeIp(ip: string | undefined): string {
  return ip !== undefined && /^[0-9a-fA-F:.]{2,45}$/.test(ip) ? ip : 'this address';
}
