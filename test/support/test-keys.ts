/**
 * RSA key pairs for tests without generating them: a 2048-bit key takes 0.1-0.5 s of CPU to
 * generate, and the suite needs hundreds. test/fixtures/rsa-2048-test-keys.pem holds 96 distinct
 * test-only keys, read once per test file and imported when first handed out:
 * - `testKey(i)` is the i-th of the first {@link INDEXED_KEYS}, the same key for the same `i`
 *   within a test file (the registry fixtures' numbering);
 * - `nextTestKey()` is another key on each call, from the rest, never one `testKey` hands out.
 * Past either part of the pool, a fresh key is generated, so a test never gets a key twice by
 * running out. Each test file has its own module registry, so keys repeat across files, which
 * never share a table or a gateway.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateRsaKeyPair, importPrivateKey, type PrivateKeyInfo } from '../../lambda/core/keys';

/** How many keys of the pool `testKey(i)` numbers; `nextTestKey()` draws from the rest. */
export const INDEXED_KEYS = 48;

let pems: string[] | undefined;
const imported = new Map<number, PrivateKeyInfo>();
const numbered = new Map<number, PrivateKeyInfo>();
let drawn = 0;

function pooled(index: number): PrivateKeyInfo | undefined {
  pems ??= readFileSync(join(__dirname, '..', 'fixtures', 'rsa-2048-test-keys.pem'), 'utf8').match(/-----BEGIN PRIVATE KEY-----[^-]+-----END PRIVATE KEY-----/g) ?? [];
  if (index >= pems.length) return undefined;
  let key = imported.get(index);
  if (key === undefined) {
    key = importPrivateKey(pems[index]);
    imported.set(index, key);
  }
  return key;
}

/** The i-th test key pair of this file (2048-bit RSA): the same for the same `i`. */
export function testKey(i: number): PrivateKeyInfo {
  if (!Number.isInteger(i) || i < 0) throw new RangeError(`testKey takes an index from 0, not ${i}`);
  let key = i < INDEXED_KEYS ? pooled(i) : numbered.get(i);
  if (key === undefined) {
    key = generateRsaKeyPair(2048);
    numbered.set(i, key);
  }
  return key;
}

/** A 2048-bit RSA key pair this file has not been handed before. */
export function nextTestKey(): PrivateKeyInfo {
  return pooled(INDEXED_KEYS + drawn++) ?? generateRsaKeyPair(2048);
}
