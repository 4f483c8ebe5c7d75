/**
 * The DER shapes of key formats (lambda/core/der.ts), judged without node:crypto so the browser
 * can run them, against what node:crypto makes and reads: every private key encoding Node writes
 * is recognised as private, no public key is, and PKCS#1 wrapped as SPKI / PKCS#8 imports in Node.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { RSA_ENCRYPTION_OID, isPkcs1PublicKey, isPrivateKeyDer, judgePkcs1PublicKey, judgePrivateKeyDer, judgeSpki, pkcs8AlgorithmOid, pkcs8OfPkcs1, spkiAlgorithmOid, spkiOfPkcs1 } from '../../lambda/core/der';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pairs: Record<string, { privateKey: KeyObject; publicKey: KeyObject }> = {
  rsa,
  'rsa-pss': generateKeyPairSync('rsa-pss', { modulusLength: 2048 }),
  'ec P-256': generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  'ec P-384': generateKeyPairSync('ec', { namedCurve: 'P-384' }),
  ed25519: generateKeyPairSync('ed25519'),
  x25519: generateKeyPairSync('x25519'),
  dsa: generateKeyPairSync('dsa', { modulusLength: 2048, divisorLength: 256 }),
};

const der = (key: KeyObject, options: Record<string, unknown>) => new Uint8Array(key.export({ format: 'der', ...options } as never) as Buffer);

test.each(Object.keys(pairs))('%s: every private encoding Node writes is private, the public ones are not', (name) => {
  const { privateKey, publicKey } = pairs[name];
  const privateForms = [der(privateKey, { type: 'pkcs8' }), der(privateKey, { type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: 'x' })];
  if (name === 'rsa') privateForms.push(der(privateKey, { type: 'pkcs1' }));
  if (name.startsWith('ec')) privateForms.push(der(privateKey, { type: 'sec1' }));
  for (const form of privateForms) expect(isPrivateKeyDer(form)).toBe(true);
  const publicForms = [der(publicKey, { type: 'spki' })];
  if (name === 'rsa') publicForms.push(der(publicKey, { type: 'pkcs1' }));
  for (const form of publicForms) expect(isPrivateKeyDer(form)).toBe(false);
});

test("algorithm OIDs are read from SPKI and PKCS#8 as Node's key types name them", () => {
  expect(spkiAlgorithmOid(der(rsa.publicKey, { type: 'spki' }))).toBe(RSA_ENCRYPTION_OID);
  expect(pkcs8AlgorithmOid(der(rsa.privateKey, { type: 'pkcs8' }))).toBe(RSA_ENCRYPTION_OID);
  expect(spkiAlgorithmOid(der(pairs.ed25519.publicKey, { type: 'spki' }))).toBe('2b6570');
  expect(spkiAlgorithmOid(der(pairs['ec P-256'].publicKey, { type: 'spki' }))).toBe('2a8648ce3d0201');
  expect(isPkcs1PublicKey(der(rsa.publicKey, { type: 'pkcs1' }))).toBe(true);
  expect(isPkcs1PublicKey(der(rsa.publicKey, { type: 'spki' }))).toBe(false);
});

test('PKCS#1 wrapped as SPKI and PKCS#8 is the same key to Node', () => {
  const spki = spkiOfPkcs1(der(rsa.publicKey, { type: 'pkcs1' }));
  expect(Buffer.from(spki)).toEqual(Buffer.from(der(rsa.publicKey, { type: 'spki' })));
  const pkcs8 = pkcs8OfPkcs1(der(rsa.privateKey, { type: 'pkcs1' }));
  const imported = createPrivateKey({ key: Buffer.from(pkcs8), format: 'der', type: 'pkcs8' });
  expect(createPublicKey(imported).export({ type: 'spki', format: 'der' })).toEqual(Buffer.from(spki));
});

test('random and truncated bytes never throw, and a truncated key is not read past its end', () => {
  const full = der(rsa.privateKey, { type: 'pkcs8' });
  for (let cut = 0; cut < full.length; cut += 37) expect(isPrivateKeyDer(full.subarray(0, cut))).toBe(false);
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
      expect(typeof isPrivateKeyDer(bytes)).toBe('boolean');
      const oid = spkiAlgorithmOid(bytes);
      expect(oid === undefined || /^([0-9a-f]{2})*$/.test(oid)).toBe(true);
    }),
    { numRuns: 2000, seed: 5 },
  );
});

test.each(Object.keys(pairs))("%s: the key gate takes every encoding Node writes of the key types Signet verifies with, and names the others' type", (name) => {
  const { privateKey, publicKey } = pairs[name];
  const spki = judgeSpki(der(publicKey, { type: 'spki' }));
  const pkcs8 = judgePrivateKeyDer(der(privateKey, { type: 'pkcs8' }), 'pkcs8');
  if (name === 'x25519' || name === 'dsa') {
    for (const verdict of [spki, pkcs8]) expect(verdict).toEqual({ ok: false, unsupported: true, reason: expect.stringMatching(name === 'dsa' ? /DSA key/ : /X25519 key/) });
    return;
  }
  const type = name.startsWith('ec') ? 'ec' : name;
  expect(spki).toMatchObject({ ok: true, type });
  expect(pkcs8).toMatchObject({ ok: true, type });
  if (name.startsWith('ec')) expect(judgePrivateKeyDer(der(privateKey, { type: 'sec1' }), 'sec1')).toMatchObject({ ok: true, type: 'ec', curve: name.slice(3) });
  if (name === 'rsa') {
    expect(judgePkcs1PublicKey(der(publicKey, { type: 'pkcs1' }))).toEqual({ ok: true, type: 'rsa' });
    expect(judgePrivateKeyDer(der(privateKey, { type: 'pkcs1' }), 'pkcs1')).toEqual({ ok: true, type: 'rsa' });
  }
});

test('the key gate never throws on random or cut bytes, and refuses them with a reason', () => {
  const full = der(pairs['ec P-384'].publicKey, { type: 'spki' });
  for (let cut = 0; cut < full.length; cut += 7) expect(judgeSpki(full.subarray(0, cut))).toMatchObject({ ok: false, reason: expect.any(String) });
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), fc.constantFrom('pkcs8', 'pkcs1', 'sec1') as fc.Arbitrary<'pkcs8' | 'pkcs1' | 'sec1'>, (bytes, form) => {
      expect(typeof judgeSpki(bytes).ok).toBe('boolean');
      expect(typeof judgePrivateKeyDer(bytes, form).ok).toBe('boolean');
    }),
    { numRuns: 1000, seed: 5 },
  );
});
