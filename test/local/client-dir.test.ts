/**
 * Client directories: what npm start writes and `--client DIR` / `--admin DIR` read, and how
 * `signet keygen --out DIR` and `signet clients create --out DIR` write one where other users
 * may reach it.
 */
import { chmodSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run as clients } from '../../bin/commands/clients';
import { run as keygen } from '../../bin/commands/keygen';
import { importPublicKey } from '../../lambda/core/keys';
import { hasClientKey, prepareClientDir, readClientDir, readClientKey, writeClientDir, writeKeyFiles } from '../../local/client-dir';
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

describe('writing where other users may reach', () => {
  let stderr: string[];
  beforeEach(() => {
    stderr = [];
    jest.spyOn(console, 'log').mockImplementation(() => undefined);
    jest.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => void stderr.push(parts.join(' ')));
  });
  afterEach(() => jest.restoreAllMocks());

  test('a directory other users may write to is refused and nothing is written into it', async () => {
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    expect(() => writeKeyFiles(dir, nextTestKey())).toThrow(`${dir} is writable by other users (mode 0777), who could replace the key files in it; nothing was written. Run \`chmod go-w ${dir}\`, or choose another directory.`);
    await expect(keygen(['--out', dir, '--alg', 'ed25519'])).rejects.toThrow(/is writable by other users/);
    expect(readdirSync(dir)).toEqual([]);
  });

  test('a directory of another user is refused', () => {
    mkdirSync(dir, { mode: 0o700 });
    const owner = statSync(dir).uid;
    expect(() => prepareClientDir(dir, owner + 1)).toThrow(`${dir} belongs to another user (uid ${owner}), who could replace the key files in it; nothing was written. Choose a directory of your own.`);
    expect(() => prepareClientDir(dir, owner)).not.toThrow();
  });

  test('a symbolic link as the directory is refused', () => {
    const real = join(dir, '..', 'real');
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, dir);
    expect(() => writeKeyFiles(dir, nextTestKey())).toThrow(/is a symbolic link.*nothing was written/);
    expect(readdirSync(real)).toEqual([]);
  });

  test('keygen counts a dangling symbolic link as a key file, and --force replaces the link, not what it points to', async () => {
    mkdirSync(dir, { mode: 0o700 });
    const target = join(dir, '..', 'elsewhere.pem');
    symlinkSync(target, join(dir, 'private.pem'));
    await expect(keygen(['--out', dir, '--alg', 'ed25519'])).rejects.toThrow(`${dir} already holds a key pair (private.pem); nothing was written.`);
    expect(readdirSync(dir)).toEqual(['private.pem']);
    expect(await keygen(['--out', dir, '--alg', 'ed25519', '--force'])).toBe(0);
    expect(existsSync(target)).toBe(false);
    const written = lstatSync(join(dir, 'private.pem'));
    expect(written.isFile()).toBe(true);
    expect(written.mode & 0o777).toBe(0o600);
    expect(readClientKey(dir).key.asymmetricKeyType).toBe('ed25519');
  });

  test("keygen --force from an Ed25519 key to another type removes the old key's seed file too", async () => {
    expect(await keygen(['--out', dir, '--alg', 'ed25519'])).toBe(0);
    expect(readdirSync(dir)).toContain('private.ed25519.hex');
    expect(await keygen(['--out', dir, '--alg', 'ecdsa-p256', '--force'])).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['private.pem', 'private.pkcs8.b64', 'public.pem']);
  });

  test('an existing private key file with a loose mode is replaced by a new 0600 file, not written through', () => {
    mkdirSync(dir, { mode: 0o700 });
    const path = join(dir, 'private.pkcs8.b64');
    writeFileSync(path, 'old\n');
    chmodSync(path, 0o666);
    const kept = join(dir, '..', 'kept-link'); // another name for the old file, as its owner would keep
    linkSync(path, kept);
    const key = nextTestKey();
    writeKeyFiles(dir, key);
    expect(statSync(path).ino).not.toBe(statSync(kept).ino);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe(`${key.pkcs8Base64}\n`);
    expect(readFileSync(kept, 'utf8')).toBe('old\n');
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  describe('clients create --out DIR against a stand-in registry', () => {
    let server: Server;
    let endpoint: string;
    let admin: string;
    let answer: { status: number; body: unknown };
    let requests: number;
    beforeAll(async () => {
      server = createServer((request, response) => {
        requests += 1;
        request.resume();
        request.on('end', () => response.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body)));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
    beforeEach(() => {
      requests = 0;
      admin = join(dir, '..', 'admin');
      writeClientDir(admin, 'c_AdminAdminAdminAdmin00', nextTestKey());
    });
    const create = (): Promise<number> => clients(['create', '--name', 'n', '--role', 'demo', '--network', '127.0.0.1', '--out', dir, '--endpoint', endpoint, '--admin', admin]);

    test('a clientId with a control character in the 201 answer is refused and no client-id is written', async () => {
      answer = { status: 201, body: { clientId: 'c_\u001b[2JAbcdefghijklmnopqr' } };
      await expect(create()).rejects.toThrow(/clientId "c_\\u001b\[2JAbcdefghijklmnopqr", which is not a clientId.*client-id was not written/);
      expect(requests).toBe(1);
      expect(existsSync(join(dir, 'client-id'))).toBe(false);
      expect(readdirSync(dir).sort()).toEqual(['private.pem', 'private.pkcs8.b64', 'public.pem']);
    });

    test('the key files are written before the registry is called; a refusal leaves them and says so', async () => {
      answer = { status: 500, body: { error: 'internal', message: 'x' } };
      expect(await create()).toBe(1);
      expect(stderr.join('\n')).toContain(`the new key pair in ${dir} is not registered`);
      expect(readdirSync(dir).sort()).toEqual(['private.pem', 'private.pkcs8.b64', 'public.pem']);
      answer = { status: 201, body: { clientId: 'c_AbcdefghijklmnopqrstuV' } };
      await expect(create()).rejects.toThrow(`${dir} already holds a key pair (private.pkcs8.b64, private.pem, public.pem); nothing was sent.`);
      expect(requests).toBe(1);
    });

    test('an unsafe directory is refused before anything is sent', async () => {
      mkdirSync(dir);
      chmodSync(dir, 0o777);
      await expect(create()).rejects.toThrow(/is writable by other users/);
      expect(requests).toBe(0);
      expect(readdirSync(dir)).toEqual([]);
    });

    test('a good 201 answer completes the client directory', async () => {
      answer = { status: 201, body: { clientId: 'c_AbcdefghijklmnopqrstuV' } };
      expect(await create()).toBe(0);
      expect(readClientDir(dir).clientId).toBe('c_AbcdefghijklmnopqrstuV');
    });
  });
});
