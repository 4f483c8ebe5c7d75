/**
 * `signet verify`: prints `valid` (exit 0) or `invalid: <reason_code>: <sentence>` (exit 1).
 * The same core pipeline as the authorizer, plus the backend's body check when a body is given;
 * a request whose signed Content-Digest was not compared with a body says so.
 */
import { checkContentDigest } from '../../lambda/core/content-digest';
import { isSignetError } from '../../lambda/core/errors';
import { importPublicKey } from '../../lambda/core/keys';
import { verifyRequest } from '../../lambda/core/verify';
import { CommandHelp } from './help';
import { RECEIVED_REQUEST_FLAGS, RECEIVED_REQUEST_OPTIONS, readReceivedRequest } from './request-inputs';

export const HELP: CommandHelp = {
  summary: 'check a received request as the authorizer does: prints `valid`, or `invalid: <code>: <sentence>` (exit 1)',
  usage: "verify --public-key FILE... --method M --url URL -H 'Name: value'... [--data STR | --data-file FILE] [--now UNIX] [--allow-legacy] [--profile signet|rfc9421|web-bot-auth] [--key-alg ALG]",
  options: RECEIVED_REQUEST_OPTIONS,
  flags: RECEIVED_REQUEST_FLAGS,
  notes: ['--public-key takes any key the registry accepts: RSA, Ed25519, ECDSA P-256/P-384, as PEM, Base64 DER or a JWK.', 'With a body (--data or --data-file) it also runs the backend\'s check that the body hashes to the signed Content-Digest; without one it says the body was not checked.'],
  examples: ["verify --public-key acme/public.pem --method GET --url 'https://api.example.com/api/echo?x=1' -H 'Date: ...' -H 'Signature-Input: sig=...' -H 'Signature: sig=:...:'"],
};

/** @public The command, called by bin/signet.ts through its module. */
export async function run(argv: string[]): Promise<number> {
  const input = readReceivedRequest(argv);
  try {
    const keys = input.publicKeyTexts.map((text) => importPublicKey(text, input.keyAlgorithm)).map((info) => ({ fingerprint: info.fingerprint, key: info.key, algorithm: info.algorithm }));
    const verdict = await verifyRequest(input.request, input.policy, () => keys);
    if (input.body !== undefined) checkContentDigest(verdict.contentDigest, input.body);
    console.log('valid');
    if (verdict.contentDigest !== undefined && input.body === undefined) {
      console.log('note: the signature covers Content-Digest but no body was given, so the body was NOT checked; add --data or --data-file to check it.');
    }
    return 0;
  } catch (error) {
    if (!isSignetError(error)) throw error;
    console.log(`invalid: ${error.code}: ${error.message}`);
    return 1;
  }
}
