/**
 * One authorization decision, whatever API Gateway flavour asked for it.
 *
 * Order (authentication first, then authorization):
 *   1. the core's key-independent checks and signature base (no registry read for junk)
 *   2. the client by keyid (cache first) → `unknown_client`
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
import { readSignatureInput } from '../core/signature-params';
import { SignedRequest } from '../core/types';
import { ParsedSignature, VerificationKey, VerifyPolicy, parseRequestSignature, refuseUnlessUsable, signingKey } from '../core/verify';
import { ClientDirectory, ResolvedClient } from './client-directory';

/** Records a signature as used; false when it was already used (see lambda/store for DynamoDB). */
export interface ReplayGuard {
  /** @param signatureId a hash of the signature value; @param expiresAtS when the record may be forgotten */
  claim(signatureId: string, expiresAtS: number): Promise<boolean>;
}

export interface AuthorizeDeps {
  readonly policy: VerifyPolicy;
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
    let parsed: ReturnType<typeof parseRequestSignature>;
    try {
      parsed = parseRequestSignature(input.request, deps.policy, input.targetUriCandidates);
    } catch (error) {
      if (!isSignetError(error)) throw error;
      const named = await clientNamedBy(input.request, deps);
      return { allowed: false, error, ...named };
    }
    keyId = parsed.keyId;
    const client = await deps.directory.get(parsed.keyId);
    if (client === undefined) {
      throw new SignetError('unknown_client', 'No client is registered with this keyid. Put your clientId in keyid, exactly as the registry gave it.');
    }
    clientId = client.record.clientId;
    const signer = signingKey(parsed, client.keys, deps.policy);
    const { fingerprint } = verifyWithClientKeys(parsed, client, deps.policy, signer);
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
      const expiresAtS = parsed.created + deps.policy.maxAgeS + deps.policy.maxSkewS;
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

/**
 * The registered client that the request's keyid names, for a request refused before its client
 * was looked up. Best effort: an unreadable Signature-Input, an unknown keyid or a registry
 * failure all leave the refusal unattributed (it is still logged).
 */
async function clientNamedBy(request: SignedRequest, deps: AuthorizeDeps): Promise<{ clientId?: string; keyId?: string }> {
  const field = request.headers['signature-input'];
  if (field === undefined) return {};
  let keyId: string | undefined;
  try {
    keyId = readSignatureInput(field, deps.policy.label, deps.policy.maxCoveredComponents).keyid;
  } catch {
    return {};
  }
  if (keyId === undefined || keyId === '' || keyId.length > MAX_KEYID_LENGTH) return {};
  try {
    const client = await deps.directory.get(keyId);
    return client === undefined ? { keyId } : { clientId: client.record.clientId };
  } catch {
    return { keyId };
  }
}

function describeIp(ip: string | undefined): string {
  return ip !== undefined && /^[0-9a-fA-F:.]{2,45}$/.test(ip) ? ip : 'this address';
}
