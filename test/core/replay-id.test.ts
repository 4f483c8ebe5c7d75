/**
 * The replay id of a signature: one id for (r, s) and (r, n − s) of an ECDSA signature (both
 * verify), for P-256 and P-384; the id of the raw bytes for everything else and for low-S
 * signatures (so records written before the rule still count); distinct signatures, distinct ids.
 */
import { createHash, generateKeyPairSync, sign, verify } from 'node:crypto';
import { signatureReplayId } from '../../lambda/core/replay-id';

const CURVES = [
  { curve: 'P-256', digest: 'sha256', n: 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n, half: 32 },
  { curve: 'P-384', digest: 'sha384', n: 0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973n, half: 48 },
] as const;

const rawId = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('base64url');

describe.each(CURVES)('ECDSA $curve', ({ curve, digest, n, half }) => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: curve });
  const message = Buffer.from('"@method": GET');
  const flip = (signature: Buffer): Buffer => {
    const s = BigInt(`0x${signature.subarray(half).toString('hex')}`);
    return Buffer.concat([signature.subarray(0, half), Buffer.from((n - s).toString(16).padStart(half * 2, '0'), 'hex')]);
  };
  const isHigh = (signature: Buffer): boolean => BigInt(`0x${signature.subarray(half).toString('hex')}`) > n / 2n;

  test('(r, s) and (r, n − s) both verify and have one replay id, the raw id of the low-S form', () => {
    // 16 signatures: high-S and low-S ones both occur (each about half the time).
    const signatures = Array.from({ length: 16 }, () => sign(digest, message, { key: privateKey, dsaEncoding: 'ieee-p1363' }));
    for (const signature of signatures) {
      const twin = flip(signature);
      expect(verify(digest, message, { key: publicKey, dsaEncoding: 'ieee-p1363' }, twin)).toBe(true);
      expect(signatureReplayId(twin)).toBe(signatureReplayId(signature));
      expect(signatureReplayId(signature)).toBe(rawId(isHigh(signature) ? twin : signature));
    }
    expect(new Set(signatures.map(signatureReplayId)).size).toBe(signatures.length);
  });

  test('an s at or above n (which verifies under no key) is hashed as it is', () => {
    const signature = Buffer.alloc(half * 2, 0xff);
    expect(signatureReplayId(signature)).toBe(rawId(signature));
  });
});

test('RSA and other lengths: the id of the raw bytes', () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signature = sign('sha256', Buffer.from('base'), privateKey);
  expect(signatureReplayId(signature)).toBe(rawId(signature));
  expect(signatureReplayId(Buffer.from('short'))).toBe(rawId(Buffer.from('short')));
});
