/**
 * Content-Digest (RFC 9530 §2): the SHA-256 of the request body, as a Structured Field dictionary.
 *
 * Signet writes `sha-256=:<base64>:` and, when reading, accepts a dictionary listing several
 * algorithms as long as `sha-256` is among them; only `sha-256` is compared, in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { DIGEST_ALGORITHM } from './defaults';
import { fail } from './errors';
import { formatContentDigest } from './sign-plan';
import { parseDictionaryField } from './structured-fields';

/** The Content-Digest header value for `body`: `sha-256=:<base64 SHA-256>:`. */
export function computeContentDigest(body: Uint8Array | string): string {
  return formatContentDigest(sha256(body));
}

/**
 * Parses a Content-Digest value into algorithm → digest bytes.
 * @param requiredAlgorithm the algorithm that must be present (@default 'sha-256'); null to require none
 * @throws SignetError `malformed_digest` when it is not a dictionary of byte sequences, or lacks a valid sha-256
 */
export function parseContentDigest(value: string, requiredAlgorithm: string | null = DIGEST_ALGORITHM): Map<string, Buffer> {
  const dict = parseDictionaryField(value, 'malformed_digest', 'Content-Digest', 'sha-256=:<base64 SHA-256 of the body>:');
  const digests = new Map<string, Buffer>();
  for (const [algorithm, member] of dict) {
    const item = member[0];
    if (Array.isArray(item) || !(item instanceof Uint8Array)) {
      fail('malformed_digest', `Content-Digest member "${algorithm}" must be a byte sequence like sha-256=:<base64>:.`);
    }
    digests.set(algorithm, Buffer.isBuffer(item) ? item : Buffer.from(item));
  }
  if (requiredAlgorithm === null) return digests;
  const sha = digests.get(requiredAlgorithm);
  if (sha === undefined) {
    fail('malformed_digest', 'Content-Digest must include sha-256=:<base64 SHA-256 of the body>:.');
  }
  if (sha.length !== 32) {
    fail('malformed_digest', `The sha-256 Content-Digest is ${sha.length} bytes; a SHA-256 digest is 32 bytes.`);
  }
  return digests;
}

/**
 * `sha-256=:<base64>:` exactly as {@link computeContentDigest} writes it: 43 canonical base64
 * characters (the last one carries two zero bits) and one `=`.
 */
const CANONICAL_SHA256_DIGEST = /^sha-256=:[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=:$/;

/**
 * Checks that a Content-Digest value is well formed, lists a digest, and has a valid
 * `requiredAlgorithm` member; the form Signet's signers send is recognised without parsing.
 * @throws SignetError `malformed_digest`, as {@link parseContentDigest}
 */
export function checkContentDigestField(value: string, requiredAlgorithm: string | null = DIGEST_ALGORITHM): void {
  if ((requiredAlgorithm === null || requiredAlgorithm === DIGEST_ALGORITHM) && CANONICAL_SHA256_DIGEST.test(value)) return;
  if (parseContentDigest(value, requiredAlgorithm).size === 0) fail('malformed_digest', 'Content-Digest lists no digest.');
}

/**
 * The body half of the scheme: checks that `body` hashes to the signed Content-Digest.
 *
 * @param signedDigest the Content-Digest header value that the signature covered (from the authorizer context)
 * @param body the body bytes as received (already base64-decoded when API Gateway encoded them)
 * @throws SignetError `digest_required` when a non-empty body has no signed digest,
 *   `malformed_digest`, or `digest_mismatch` when the body differs from what was signed
 */
export function checkContentDigest(signedDigest: string | undefined, body: Uint8Array | string): void {
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  if (signedDigest === undefined || signedDigest === '') {
    if (length === 0) return;
    fail('digest_required', 'The request has a body but no signed Content-Digest. Send Content-Digest: sha-256=:<base64 SHA-256 of the body>: and cover "content-digest" in the signature.');
  }
  const expected = parseContentDigest(signedDigest).get(DIGEST_ALGORITHM) as Buffer;
  if (!timingSafeEqual(expected, sha256(body))) {
    fail('digest_mismatch', 'The body does not match the signed Content-Digest. Compute the digest over the exact bytes you send (same serialisation, no added newline).');
  }
}

function sha256(body: Uint8Array | string): Buffer {
  return createHash('sha256').update(body).digest();
}
