/**
 * The `keyid` rule, in one place: Signet's signers put the registry's clientId in `keyid`, and
 * the verifier looks keys up by it. A keyid is 1-256 printable ASCII characters without spaces;
 * the verifier refuses a longer one before any lookup, and the signers (the core's
 * `signRequest`, the signer library's key providers and secrets, rotation) refuse anything else
 * before they sign.
 *
 * What a clientId the registry issues looks like (`c_` + 22 URL-safe characters) is narrower, and
 * lives with the store (lambda/store/client-id.ts).
 */

/** The longest keyid the verifier looks up. */
export const MAX_KEYID_LENGTH = 256;

/** The rule as a sentence, for error messages. */
export const KEYID_RULE = `1-${MAX_KEYID_LENGTH} printable ASCII characters without spaces`;

const KEYID = new RegExp(`^[\\x21-\\x7e]{1,${MAX_KEYID_LENGTH}}$`);

/** True when `value` can be a keyid Signet signs with. */
export function isKeyid(value: unknown): value is string {
  return typeof value === 'string' && KEYID.test(value);
}
