/** Client directories: what npm start writes and `--client DIR` / `--admin DIR` read. */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importPublicKey } from '../../lambda/core/keys';
import { hasClientKey, readClientDir, readClientKey, writeClientDir, writeKeyFiles } from '../../local/client-dir';
import { nextTestKey } from '../support/test-keys';

let dir: string;
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'signet-client-dir-')), 'client');
});
afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

test('writes the four files (private ones 0600, the directory 0700) and reads them back', () => {
  const key = nextTestKey();
  writeClientDir(dir, 'c_AbcdefghijklmnopqrstuV', key);
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  expect(statSync(join(dir, 'private.pkcs8.b64')).mode & 0o777).toBe(0o600);
  expect(statSync(join(dir, 'private.pem')).mode & 0o777).toBe(0o600);
  expect(readFileSync(join(dir, 'private.pkcs8.b64'), 'utf8')).toBe(`${key.pkcs8Base64}\n`);
  expect(importPublicKey(readFileSync(join(dir, 'public.pem'), 'utf8')).fingerprint).toBe(key.fingerprint);
  const back = readClientDir(dir);
  expect(back.clientId).toBe('c_AbcdefghijklmnopqrstuV');
  expect(back.key.fingerprint).toBe(key.fingerprint);
});

test('falls back to private.pem when the Base64 file is absent', () => {
  const key = nextTestKey();
  writeKeyFiles(dir, key);
  rmSync(join(dir, 'private.pkcs8.b64'));
  expect(hasClientKey(dir)).toBe(true);
  expect(readClientKey(dir).fingerprint).toBe(key.fingerprint);
});

test('says what is missing, without key material', () => {
  expect(hasClientKey(dir)).toBe(false);
  expect(() => readClientKey(dir)).toThrow(/holds no private key .*npm start/);
  const key = nextTestKey();
  writeKeyFiles(dir, key);
  expect(existsSync(join(dir, 'client-id'))).toBe(false);
  expect(() => readClientDir(dir)).toThrow(/client-id is missing/);
  writeFileSync(join(dir, 'client-id'), 'two words\n');
  let message = '';
  try {
    readClientDir(dir);
  } catch (error) {
    message = (error as Error).message;
  }
  expect(message).toMatch(/must hold exactly one clientId/);
  expect(message).not.toContain(key.pkcs8Base64.slice(0, 40));
});
