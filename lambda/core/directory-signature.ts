/**
 * Verifying the signatures a Web Bot Auth key directory puts on its own answer
 * (draft-meunier-webbotauth-httpsig-directory-00 §5): each key of the directory signs the
 * response, with tag `http-message-signatures-directory`, covering the authority of the request
 * that fetched it (`"@authority";req`, RFC 9421 §2.4), keyid = the key's JWK thumbprint. A key
 * whose signature verifies shows the directory's publisher holds it; the fetch caller ignores the
 * others (lambda/key-sources/published-keys.ts).
 *
 * Pure: the caller gives the time, the authority it fetched from and the keys the body published.
 */
import type { KeyObject } from 'node:crypto';
import { algorithmFits, verifySignature } from './algorithms';
import type { SignatureAlgorithm } from './algorithm-names';
import { DEFAULT_MAX_SKEW_S } from './defaults';
import { listSignatureMembers, readSignatureInput, readSignatureValue } from './signature-params';

/** The tag of a key directory's signatures. */
export const DIRECTORY_SIGNATURE_TAG = 'http-message-signatures-directory';

/** The one component a directory signature covers: the authority the directory was fetched from. */
const AUTHORITY_OF_REQUEST = '"@authority";req';

/** The most signatures of one answer looked at (a directory holds at most MAX_PUBLISHED_KEYS keys). */
export const MAX_DIRECTORY_SIGNATURES = 20;

/** A key the directory published, as the verifier needs it. */
export interface DirectoryKey {
  readonly thumbprint: string;
  readonly key: KeyObject;
  readonly algorithm: SignatureAlgorithm;
}

export interface DirectorySignatureInput {
  /** The answer's `Signature` field. */
  readonly signature: string;
  /** The answer's `Signature-Input` field. */
  readonly signatureInput: string;
  /** The authority (host, and port unless the scheme's default) of the URL fetched. */
  readonly authority: string;
  readonly keys: readonly DirectoryKey[];
  /** Unix seconds. */
  readonly nowS: number;
  /** How far `created` may be ahead of `nowS`. @default DEFAULT_MAX_SKEW_S */
  readonly maxSkewS?: number;
}

/** What the signatures of one answer prove. */
export interface DirectorySignatureCheck {
  /** Whether the answer carries at least one signature with the directory tag. */
  readonly signed: boolean;
  /** Thumbprints of the keys whose signature of this answer verifies. */
  readonly verified: ReadonlySet<string>;
  /** Each tagged signature that did not verify, by label, and why (for people; never key material). */
  readonly problems: ReadonlyArray<{ readonly label: string; readonly reason: string }>;
}

/**
 * Checks every signature with the directory tag: its keyid names a key of `keys`, it covers
 * `"@authority";req` and nothing else, it is within its `created` / `expires`, its `alg` (if
 * any) is the key's, and it verifies. Malformed fields are a check with no verified key, never a throw.
 * @example
 * const check = verifyDirectorySignatures({ signature, signatureInput, authority: url.host, keys, nowS });
 * const usable = published.filter((k) => check.verified.has(k.thumbprint));
 */
export function verifyDirectorySignatures(input: DirectorySignatureInput): DirectorySignatureCheck {
  const verified = new Set<string>();
  const problems: Array<{ label: string; reason: string }> = [];
  let members;
  try {
    members = listSignatureMembers(input.signatureInput, MAX_DIRECTORY_SIGNATURES);
  } catch {
    return { signed: false, verified, problems: [{ label: '', reason: 'Signature-Input is not a dictionary of at most 20 signatures' }] };
  }
  const byThumbprint = new Map(input.keys.map((k) => [k.thumbprint, k]));
  let signed = false;
  for (const { label } of members) {
    let params;
    try {
      params = readSignatureInput(input.signatureInput, label);
    } catch {
      continue;
    }
    if (params.tag !== DIRECTORY_SIGNATURE_TAG) continue;
    signed = true;
    const reason = problemOf(input, params, byThumbprint);
    if (reason !== undefined) {
      problems.push({ label, reason });
      continue;
    }
    const key = byThumbprint.get(params.keyid as string) as DirectoryKey;
    let value: Buffer;
    try {
      value = readSignatureValue(input.signature, label);
    } catch {
      problems.push({ label, reason: 'no signature value with this label' });
      continue;
    }
    const base = `${AUTHORITY_OF_REQUEST}: ${input.authority}\n"@signature-params": ${params.signatureParams}`;
    if (verifySignature(key.algorithm, Buffer.from(base, 'utf8'), key.key, value)) verified.add(key.thumbprint);
    else problems.push({ label, reason: 'the signature does not verify with the key its keyid names' });
  }
  return { signed, verified, problems };
}

/** Why a tagged signature cannot be one of the directory's, before its value is checked; undefined if it can. */
function problemOf(
  input: DirectorySignatureInput,
  params: ReturnType<typeof readSignatureInput>,
  keys: ReadonlyMap<string, DirectoryKey>,
): string | undefined {
  if (params.covered.length !== 1 || params.covered[0].serialized !== AUTHORITY_OF_REQUEST) return `it must cover ${AUTHORITY_OF_REQUEST} only`;
  const key = params.keyid === undefined ? undefined : keys.get(params.keyid);
  if (key === undefined) return 'its keyid is not the thumbprint of a key of the directory';
  if (params.alg !== undefined && !algorithmFits(params.alg, key.algorithm)) return `its alg is not the key's (${key.algorithm})`;
  if (params.created !== undefined && params.created > input.nowS + (input.maxSkewS ?? DEFAULT_MAX_SKEW_S)) return 'it is created in the future';
  if (params.expires !== undefined && params.expires <= input.nowS) return 'it has expired';
  return undefined;
}
