/**
 * One keyid rule (lambda/core/keyid.ts) and everything that signs or stores a keyid agrees with
 * it: the core's signRequest, the signer library's key provider and signing secret, and rotation's
 * reading of a secret. Before, signRequest alone accepted a space, so it signed requests no
 * key provider could have been built for and no registry id can match.
 */
import { generateKeyPairSync } from 'node:crypto';
import { KEYID_RULE, MAX_KEYID_LENGTH, isKeyid } from '../../lambda/core/keyid';
import { signRequest } from '../../lambda/core/sign';
import { staticKeyProvider } from '../../lambda/signer/key-provider';
import { parseSigningSecret, signingSecretFor } from '../../lambda/signer/signing-secret';
import { clientIdOfSecret } from '../../lambda/rotation/secret-contents';
import { importPrivateKey } from '../../lambda/core/keys';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const keyInfo = importPrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());

/** Whether each place that takes a keyid accepts `keyid`. */
function acceptedBy(keyid: string): Record<string, boolean> {
  const accepts = (use: () => unknown): boolean => {
    try {
      use();
      return true;
    } catch {
      return false;
    }
  };
  return {
    rule: isKeyid(keyid),
    signRequest: accepts(() => signRequest({ method: 'GET', url: 'https://api.example.com/x', keyId: keyid, privateKey, created: 1_700_000_000 })),
    staticKeyProvider: accepts(() => staticKeyProvider(keyid, privateKey)),
    signingSecretFor: accepts(() => signingSecretFor(keyid, keyInfo, new Date(0))),
    parseSigningSecret: accepts(() =>
      parseSigningSecret(JSON.stringify({ clientId: keyid, privateKey: keyInfo.pkcs8Base64, fingerprint: keyInfo.fingerprint, createdAt: new Date(0).toISOString() })),
    ),
    rotationSecret: accepts(() => clientIdOfSecret(JSON.stringify({ clientId: keyid }), 'secret-1')),
  };
}

test.each<[string, string, boolean]>([
  ['a registry clientId', 'c_AAAAAAAAAAAAAAAAAAAAAA', true],
  ['another id', 'partner-1', true],
  ['punctuation', '!~', true],
  ['256 characters', 'x'.repeat(MAX_KEYID_LENGTH), true],
  ['empty', '', false],
  ['257 characters', 'x'.repeat(MAX_KEYID_LENGTH + 1), false],
  ['a space', 'a b', false],
  ['a tab', 'tab\there', false],
  ['non-ASCII', 'é', false],
])('keyid with %s: the same verdict everywhere', (_what, keyid, accepted) => {
  const verdicts = acceptedBy(keyid);
  expect(verdicts).toEqual(Object.fromEntries(Object.keys(verdicts).map((where) => [where, accepted])));
});

test('the rule says itself in the messages', () => {
  expect(KEYID_RULE).toBe('1-256 printable ASCII characters without spaces');
  expect(() => signRequest({ method: 'GET', url: 'https://api.example.com/x', keyId: 'a b', privateKey, created: 1_700_000_000 })).toThrow(KEYID_RULE);
});
