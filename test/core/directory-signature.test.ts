/**
 * A Web Bot Auth key directory's own signatures (draft-meunier-webbotauth-httpsig-directory-00),
 * made by Cloudflare's `web-bot-auth` package and checked by lambda/core/directory-signature.ts.
 */
import { generateKeyPairSync } from 'node:crypto';
import { jwkThumbprint } from '../../lambda/core/jwk-thumbprint';
import type { JsonWebKey } from '../../lambda/core/keys';
import { type DirectoryKey, verifyDirectorySignatures } from '../../lambda/core/directory-signature';
import { signDirectory } from '../support/signed-directory';

const NOW_S = 1_775_000_000;
const URL_FETCHED = 'https://agent.example/.well-known/http-message-signatures-directory';

function ed25519(): { pair: ReturnType<typeof generateKeyPairSync>; directoryKey: DirectoryKey } {
  const pair = generateKeyPairSync('ed25519');
  return { pair, directoryKey: { thumbprint: jwkThumbprint(pair.publicKey.export({ format: 'jwk' }) as JsonWebKey), key: pair.publicKey, algorithm: 'ed25519' } };
}

const a = ed25519();
const b = ed25519();

test('every key that signed the answer verifies; a published key that did not sign is not among them', async () => {
  const fields = await signDirectory(URL_FETCHED, [a.pair.privateKey], NOW_S - 10);
  const check = verifyDirectorySignatures({ ...fields, authority: 'agent.example', keys: [a.directoryKey, b.directoryKey], nowS: NOW_S });
  expect(check).toEqual({ signed: true, verified: new Set([a.directoryKey.thumbprint]), problems: [] });
  const both = await signDirectory(URL_FETCHED, [a.pair.privateKey, b.pair.privateKey], NOW_S - 10);
  expect(verifyDirectorySignatures({ ...both, authority: 'agent.example', keys: [a.directoryKey, b.directoryKey], nowS: NOW_S }).verified).toEqual(
    new Set([a.directoryKey.thumbprint, b.directoryKey.thumbprint]),
  );
});

test.each([
  ['fetched from another authority (a copy served elsewhere)', { authority: 'mirror.example' }, 'does not verify'],
  ['past its expires', { nowS: NOW_S + 7_200 }, 'expired'],
  ['created in the future', { nowS: NOW_S - 600 }, 'future'],
])('a signature %s does not verify the key', async (_case, change, reason) => {
  const fields = await signDirectory(URL_FETCHED, [a.pair.privateKey], NOW_S - 10);
  const check = verifyDirectorySignatures({ ...fields, authority: 'agent.example', keys: [a.directoryKey], nowS: NOW_S, ...change });
  expect(check.signed).toBe(true);
  expect(check.verified.size).toBe(0);
  expect(check.problems[0].reason).toContain(reason);
});

test('a keyid naming a key the directory does not publish verifies nothing; a signature made by another key under a published keyid neither', async () => {
  const fields = await signDirectory(URL_FETCHED, [a.pair.privateKey], NOW_S - 10);
  expect(verifyDirectorySignatures({ ...fields, authority: 'agent.example', keys: [b.directoryKey], nowS: NOW_S }).problems[0].reason).toMatch(/keyid/);
  const forged = verifyDirectorySignatures({ ...fields, authority: 'agent.example', keys: [{ ...b.directoryKey, thumbprint: a.directoryKey.thumbprint }], nowS: NOW_S });
  expect(forged.verified.size).toBe(0);
});

test('an answer without the directory tag is not signed; malformed fields are a check without keys, not a throw', () => {
  const untagged = verifyDirectorySignatures({ signature: 'sig1=:AAAA:', signatureInput: 'sig1=("@authority");created=1;keyid="x";tag="web-bot-auth"', authority: 'agent.example', keys: [a.directoryKey], nowS: NOW_S });
  expect(untagged).toEqual({ signed: false, verified: new Set(), problems: [] });
  expect(verifyDirectorySignatures({ signature: '((', signatureInput: '((', authority: 'agent.example', keys: [a.directoryKey], nowS: NOW_S }).verified.size).toBe(0);
});
