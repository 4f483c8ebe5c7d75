/**
 * `signet verify`: prints `valid` (exit 0) or `invalid: <reason_code>: <sentence>` (exit 1).
 * The same core pipeline as the authorizer, plus the backend's body check when a body is given.
 */
import { checkContentDigest } from '../../lambda/core/content-digest';
import { isSignetError } from '../../lambda/core/errors';
import { importPublicKey } from '../../lambda/core/keys';
import { verifyRequest } from '../../lambda/core/verify';
import { readReceivedRequest } from './request-inputs';

/** @public The command, called by bin/signet.ts through its module. */
export async function run(argv: string[]): Promise<number> {
  const input = readReceivedRequest(argv);
  try {
    const publicKey = importPublicKey(input.publicKeyText);
    const verdict = await verifyRequest(input.request, input.policy, () => [{ fingerprint: publicKey.fingerprint, key: publicKey.key }]);
    if (input.body !== undefined) checkContentDigest(verdict.contentDigest, input.body);
    console.log('valid');
    return 0;
  } catch (error) {
    if (!isSignetError(error)) throw error;
    console.log(`invalid: ${error.code}: ${error.message}`);
    return 1;
  }
}
