/**
 * One authorization decision, whatever API Gateway flavour asked for it.
 *
 * Order (authentication first, then authorization):
 *   0. which signature to check, and the client it names. Each signature Signature-Input declares
 *      (`sig` first, then the others in order, at most MAX_SIGNATURES_READ) first goes through
 *      the core's checks every coverage profile makes (both fields parse, a known `alg`, the
 *      component cap, keyid, the created/expires window, `@method` and the target covered, digest
 *      and date fields): only a signature that passed them costs a registry lookup (cache first,
 *      unknown ones negatively cached; a keyid is a clientId or the JWK thumbprint of a key). Its
 *      client's profile (or the deployment's) says which labels it may sign with: `signet` only
 *      `sig`, `rfc9421` and `web-bot-auth` any. The first that fits is taken.
 *      None fits: a signature that passed but whose keyid names no client → `unknown_client`;
 *      a client whose profile refuses the label → that profile's refusal; none passed → the
 *      refusal of the deployment's profile (e.g. `signature_label_missing`, `expired`).
 *   1. the profile's own checks and the signature base; under `web-bot-auth`, a covered
 *      Signature-Agent must name the client's registered agent → `signature_agent_mismatch`
 *   2. the signature with the client's keys → `signature_mismatch`, `key_expired`
 *   3. the client's status → `client_disabled` (after the signature, so only the client's own
 *      key learns that it is disabled)
 *   4. the caller's IP against the client's allow-list → `ip_not_allowed` (403)
 *   5. the client's roles against the operation → `role_forbidden` (403)
 *   6. optional single use: every signature of the request is claimed, at once → `replayed_request`
 *
 * A refusal is attributed to the client its keyid names whenever the authorizer knows that client
 * without a read: it was looked up for this request, or its record is in the directory's cache
 * (it made a request here within the cache TTL). So a refusal of a key-independent check
 * (expired, clock_skew, digest_required, ...) of an active partner shows in its failure counts,
 * and a stranger's junk never costs a read. Attribution never changes the refusal.
 * `authenticated` says whether one of the client's current keys made the signature (steps 3-6):
 * only then did the request come from the client. Anything else may be anyone's, whatever keyid it
 * names — also `key_expired`: a retired key is no longer guarded as a live one is, so its
 * signature proves nothing about who sent the request.
 */
import { WEB_BOT_AUTH_TAG } from '../core/defaults';
import { SignetError, isSignetError } from '../core/errors';
import { MAX_KEYID_LENGTH } from '../core/keyid';
import { CompiledRoleCatalogue } from '../core/role-policy';
import type { CoverageProfile } from '../core/profiles';
import { SignedRequest } from '../core/types';
import { type CheckedSignature, ParsedSignature, VerificationKey, type Verifier, VerifyPolicy } from '../core/verify';
import type { SignatureSet } from '../core/signature-set';
import { ClientDirectory, ResolvedClient } from './client-directory';

export interface AuthorizeDeps {
  /**
   * The verifier, built once per authorizer: its policy is the deployment's (its profile is that
   * of clients without one of their own), each signature is checked under its client's profile of
   * it, and its replay guard (when set) claims the signatures of every accepted request.
   */
  readonly verifier: Verifier;
  readonly directory: ClientDirectory;
  readonly roles: CompiledRoleCatalogue;
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
      /** The coverage profile the signature was checked under. */
      readonly profile: CoverageProfile;
      /**
       * Whether this exact request was signed (method and path/target covered): under
       * `web-bot-auth` a signature of the authority alone says who the agent is, not what it asked.
       */
      readonly requestBound: boolean;
    }
  | Refusal;

type Refusal = {
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
  let authenticated = false;
  try {
    const { verifier } = deps;
    const set = verifier.read(input.request);
    const choice = await chooseSignature(set, deps);
    if ('refusal' in choice) return choice.refusal;
    const { client, policy } = choice;
    clientId = client.record.clientId;
    const parsed = verifier.parseChecked(set, choice.member, policy, input.targetUriCandidates);
    if (policy.profile === 'web-bot-auth') checkSignatureAgent(parsed.signatureAgent, client);
    const signer = verifier.signingKey(parsed, client.keys, policy);
    const { fingerprint } = verifyWithClientKeys(verifier, parsed, client, policy, signer);
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
    if (verifier.replay !== undefined && !(await verifier.claim(set, parsed, policy))) {
      throw new SignetError('replayed_request', 'This signed request was already used. Sign every request anew (fresh created and Date).');
    }
    return {
      allowed: true,
      clientId,
      roles: client.record.roles,
      accountId: client.record.accountId,
      fingerprint,
      contentDigest: parsed.contentDigest,
      profile: parsed.profile,
      requestBound: parsed.coversMethod && parsed.coversPath,
    };
  } catch (error) {
    if (!isSignetError(error)) throw error;
    if (clientId === undefined) return { allowed: false, error };
    return authenticated ? { allowed: false, error, clientId, authenticated } : { allowed: false, error, clientId };
  }
}

/**
 * Under `web-bot-auth`, the agent a covered Signature-Agent names must be the client's: the
 * origin of its registered `signatureAgent` source; for a client whose keys come from a JWKS URL,
 * that URL itself (draft-ietf-webbotauth-httpsig-protocol-01 makes every Signature-Agent value a
 * JWKS URL); a client with registered keys names no agent, so any is refused. Without the field,
 * the keyid alone names the key.
 */
function checkSignatureAgent(agent: string | undefined, client: ResolvedClient): void {
  if (agent === undefined) return;
  const named = parseUrl(agent);
  const source = client.record.keySource;
  const registered = client.agent;
  if (source !== undefined && 'signatureAgent' in source) {
    const origin = registered !== undefined && 'origin' in registered ? registered.origin : undefined;
    if (named !== undefined && origin !== undefined && named.origin === origin) return;
    throw new SignetError(
      'signature_agent_mismatch',
      `The Signature-Agent this request signed names ${describeAgent(named)}, but this client's agent is ${origin ?? 'another origin'}. Sign with the keys your own agent directory publishes, and name that agent.`,
    );
  }
  if (source !== undefined && 'jwksUri' in source) {
    const href = registered !== undefined && 'href' in registered ? registered.href : undefined;
    if (named !== undefined && href !== undefined && named.href === href) return;
    throw new SignetError('signature_agent_mismatch', `The Signature-Agent this request signed names ${describeAgent(named)}, but this client's keys are published at another URL. Send no Signature-Agent, or name the client's JWKS URL.`);
  }
  throw new SignetError(
    'signature_agent_mismatch',
    `The Signature-Agent this request signed names ${describeAgent(named)}, but this client has no published agent directory: its keys are registered with the API. Send no Signature-Agent, or ask the API owner to register the client by its agent (signatureAgent).`,
  );
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** The agent named, as a log-safe origin: never the request's raw text. */
function describeAgent(url: URL | undefined): string {
  return url === undefined || !/^https?:$/.test(url.protocol) ? 'something that is not an http(s) URL' : url.origin.slice(0, 200);
}

/**
 * The core's verdict (`refuseUnlessUsable`) for the key that signed; when stored keys were refused
 * (weak or unreadable) the refusal says so, since signing again cannot help; when published keys
 * stopped verifying because their source has not been fetched for the keep bound, it says that.
 */
function verifyWithClientKeys(verifier: Verifier, parsed: ParsedSignature, client: ResolvedClient, policy: VerifyPolicy, signer: VerificationKey | undefined): { fingerprint: string } {
  try {
    return verifier.refuseUnlessUsable(parsed, client.keys, policy, signer);
  } catch (error) {
    if (isSignetError(error) && error.code === 'key_expired' && client.keptUntilS !== undefined && policy.nowS() > client.keptUntilS) {
      const since = client.record.keysFetchedAt ?? 'it was registered';
      throw new SignetError(
        'key_expired',
        `This client's keys come from its key source, which has not been fetched successfully since ${since}; published keys stop verifying when a source stays unreachable that long. Ask the API owner to check the source and refresh it (signet keys refresh ${client.record.clientId}).`,
      );
    }
    if (!isSignetError(error) || error.code !== 'signature_mismatch' || client.refusedKeys.length === 0) throw error;
    const reasons = [...new Set(client.refusedKeys.map((k) => k.reason))].join(', ');
    throw new SignetError(
      'signature_mismatch',
      `${error.message} ${client.refusedKeys.length} of this client's registered keys cannot be used (${reasons}); ask the API owner to register a new key (Ed25519, ECDSA P-256 or P-384, or RSA of 2048 bits or more with exponent 65537).`,
    );
  }
}

/** The signature to check, the policy to check it under and the client it names; or the refusal when none can be checked. */
type SignatureChoice =
  | { readonly member: CheckedSignature; readonly policy: VerifyPolicy; readonly client: ResolvedClient }
  | { readonly refusal: Refusal };

/**
 * Step 0 (see the top of this file). Only a signature that passed the checks every profile
 * makes is looked up, at most one lookup per signature. A registry failure refuses the request
 * (`dependency_unavailable`: fail closed), logged with the keyid being looked up.
 */
async function chooseSignature(set: SignatureSet, deps: AuthorizeDeps): Promise<SignatureChoice> {
  const { verifier } = deps;
  const deploymentPolicy = verifier.policy;
  const deploymentProfile: CoverageProfile = deploymentPolicy.profile;
  if (!set.present) return refuseUnread(set, deps);
  /** A signature that passed, but whose keyid names no client. */
  let unknown: CheckedSignature | undefined;
  /** A client whose own `signet` profile refuses the label it signed with. */
  let named: ResolvedClient | undefined;
  // The usual request: a `sig` signature. Every profile accepts that label, and its parse is the
  // one the verifier reuses; only when it does not lead to a client are the other labels read.
  // A request without one (a Web Bot Auth agent signs as `sig1`) is not asked for it: that would
  // build a refusal only to catch it.
  const sig = set.declares(deploymentPolicy.label) ? checkedMember(set, deploymentPolicy.label, deps) : undefined;
  if (sig !== undefined) {
    const client = await lookUp(sig.keyId, deps);
    if (client !== undefined && 'refusal' in client) return client;
    if (client !== undefined) return { member: sig, policy: verifier.policyFor(client.record.profile ?? deploymentProfile), client };
    unknown = sig;
  }
  let members: ReturnType<SignatureSet['members']> = [];
  try {
    members = set.members();
  } catch (error) {
    if (!isSignetError(error)) throw error;
    if (unknown === undefined) return refuseUnread(set, deps);
  }
  for (const { label, keyid, components } of members) {
    // What the member list already shows would fail the checks is not parsed again.
    if (label === deploymentPolicy.label || keyid === undefined || components > deploymentPolicy.maxCoveredComponents) continue;
    const member = checkedMember(set, label, deps);
    if (member === undefined) continue;
    const client = await lookUp(member.keyId, deps);
    if (client !== undefined && 'refusal' in client) return client;
    if (client === undefined) {
      unknown ??= member;
      continue;
    }
    const profile = client.record.profile ?? deploymentProfile;
    if (profile === 'signet') {
      // Judged, if nothing else fits, by this client's own (stricter) rules: never the deployment's.
      named ??= client;
      continue;
    }
    return { member, policy: verifier.policyFor(profile), client };
  }
  if (named !== undefined) {
    const refusal = refusalUnder(set, verifier.policyFor('signet'), deps);
    if (refusal !== undefined) return { refusal: { allowed: false, error: refusal, clientId: named.record.clientId } };
  }
  if (unknown !== undefined) {
    const error = new SignetError(
      'unknown_client',
      'No registered client has this keyid. Put your clientId in keyid, exactly as the registry gave it, or the JWK thumbprint of a key registered with (or published to) the API (keys registered before thumbprints were indexed are found by clientId only).',
    );
    return { refusal: { allowed: false, error, keyId: unknown.keyId } };
  }
  return refuseUnread(set, deps);
}

/** The client `keyId` names, or undefined; a registry failure is the refusal (`dependency_unavailable`: fail closed), logged with the keyid. */
async function lookUp(keyId: string, deps: AuthorizeDeps): Promise<ResolvedClient | undefined | { readonly refusal: Refusal }> {
  try {
    return await deps.directory.get(keyId);
  } catch (error) {
    if (!isSignetError(error)) throw error;
    return { refusal: { allowed: false, error, keyId } };
  }
}

/** Stage 1 of the core's checks for signature `label` under the deployment's policy, or undefined when it fails them. */
function checkedMember(set: SignatureSet, label: string, deps: AuthorizeDeps): CheckedSignature | undefined {
  try {
    return deps.verifier.checkMember(set, label);
  } catch (error) {
    if (isSignetError(error)) return undefined;
    throw error;
  }
}

/** The refusal `policy` gives the request when checked as it reads it by default, or undefined when it passes. */
function refusalUnder(set: SignatureSet, policy: VerifyPolicy, deps: AuthorizeDeps): SignetError | undefined {
  try {
    deps.verifier.parse(set, policy);
    return undefined;
  } catch (error) {
    if (isSignetError(error)) return error;
    throw error;
  }
}

/**
 * The refusal of a request no signature of which passed the checks every profile makes: the one
 * the deployment's profile gives (or, for a signature tagged `web-bot-auth`, the one that profile
 * gives: what its signer aimed at), attributed without a read (only to a client whose record the
 * directory holds).
 */
function refuseUnread(set: SignatureSet, deps: AuthorizeDeps): SignatureChoice {
  const policy = refusalPolicy(set, deps);
  const error =
    refusalUnder(set, policy, deps) ??
    // Not reached: a request with a signature that passes under the deployment's profile passed stage 1 too.
    new SignetError('signature_label_missing', 'No signature of this request can be checked. Sign it as described in the README ("The scheme").');
  const keyId = set.present ? readKeyId(set, policy) : undefined;
  if (keyId === undefined) return { refusal: { allowed: false, error } };
  const client = deps.directory.cached(keyId);
  return { refusal: client !== undefined ? { allowed: false, error, clientId: client.record.clientId } : { allowed: false, error, keyId } };
}

/** The deployment's policy, or the `web-bot-auth` one when the signature it reads by default is tagged so. */
function refusalPolicy(set: SignatureSet, deps: AuthorizeDeps): VerifyPolicy {
  const deployment = deps.verifier.policy;
  if (deployment.profile === 'web-bot-auth' || !set.present) return deployment;
  const agentPolicy = deps.verifier.policyFor('web-bot-auth');
  try {
    return set.input(set.defaultLabel(agentPolicy), agentPolicy).checked.input.tag === WEB_BOT_AUTH_TAG ? agentPolicy : deployment;
  } catch (error) {
    if (isSignetError(error)) return deployment;
    throw error;
  }
}

/** The keyid of the signature the policy reads by default, when its Signature-Input parses and gives a keyid of a bounded length. */
function readKeyId(set: SignatureSet, policy: VerifyPolicy): string | undefined {
  let label: string;
  try {
    label = set.defaultLabel(policy);
  } catch (error) {
    if (isSignetError(error)) return undefined;
    throw error;
  }
  const keyId = set.keyIdOf(label, policy);
  return keyId !== undefined && keyId !== '' && keyId.length <= MAX_KEYID_LENGTH ? keyId : undefined;
}

function describeIp(ip: string | undefined): string {
  return ip !== undefined && /^[0-9a-fA-F:.]{2,45}$/.test(ip) ? ip : 'this address';
}
