/**
 * A client directory: one client's key pair and clientId on disk, as `npm start` writes
 * `$SIGNET_HOME/admin/` and `$SIGNET_HOME/demo/`, and as `signet request --client DIR` and the
 * registry commands' `--admin DIR` read them.
 *
 * ```
 * private.pkcs8.b64   the private key as PKCS#8 DER in Base64, one line                     0600
 * private.pem         the same key as PKCS#8 PEM                                           0600
 * public.pem          the public key (SPKI PEM): what the registry holds
 * client-id           the clientId (the signature's keyid)
 * ```
 * Errors name the file and what to do; they never contain key material.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PrivateKeyInfo, ed25519SeedHex, importPrivateKey, spkiPemOf } from '../lambda/core/keys';

/** File names inside a client directory. */
export const CLIENT_DIR_FILES = {
  privateKeyB64: 'private.pkcs8.b64',
  privateKeyPem: 'private.pem',
  publicKeyPem: 'public.pem',
  /** Ed25519 only: the 32-byte seed as 64 hex digits, the file curl's `--httpsig-key @FILE` reads. */
  ed25519SeedHex: 'private.ed25519.hex',
  clientId: 'client-id',
} as const;

/** A client directory read back. */
export interface ClientDir {
  readonly dir: string;
  readonly clientId: string;
  readonly key: PrivateKeyInfo;
}

/** Writes the key pair and clientId (private files mode 0600, the directory 0700). */
export function writeClientDir(dir: string, clientId: string, key: PrivateKeyInfo): void {
  writeKeyFiles(dir, key);
  writeFileSync(join(dir, CLIENT_DIR_FILES.clientId), `${clientId}\n`);
}

/** Writes only the key files (`signet clients create --out DIR` before the clientId is known). */
export function writeKeyFiles(dir: string, key: PrivateKeyInfo): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writePrivate(join(dir, CLIENT_DIR_FILES.privateKeyB64), `${key.pkcs8Base64}\n`);
  writePrivate(join(dir, CLIENT_DIR_FILES.privateKeyPem), key.key.export({ type: 'pkcs8', format: 'pem' }) as string);
  writeFileSync(join(dir, CLIENT_DIR_FILES.publicKeyPem), spkiPemOf(key.publicKey));
  if (key.key.asymmetricKeyType === 'ed25519') writePrivate(join(dir, CLIENT_DIR_FILES.ed25519SeedHex), `${ed25519SeedHex(key.key)}\n`);
}

/** True when `dir` holds a private key. */
export function hasClientKey(dir: string): boolean {
  return existsSync(join(dir, CLIENT_DIR_FILES.privateKeyB64)) || existsSync(join(dir, CLIENT_DIR_FILES.privateKeyPem));
}

/**
 * The private key of a client directory (`private.pkcs8.b64`, else `private.pem`).
 * @throws Error when neither file exists; SignetError when the key cannot be read
 */
export function readClientKey(dir: string): PrivateKeyInfo {
  for (const name of [CLIENT_DIR_FILES.privateKeyB64, CLIENT_DIR_FILES.privateKeyPem]) {
    const path = join(dir, name);
    if (existsSync(path)) return importPrivateKey(readFileSync(path, 'utf8'));
  }
  throw new Error(
    `${dir} holds no private key (${CLIENT_DIR_FILES.privateKeyB64} or ${CLIENT_DIR_FILES.privateKeyPem}). ` +
      'Run `npm start` once to create the local admin and demo clients, or point to a directory written by `signet clients create --out DIR`.',
  );
}

/**
 * Reads a client directory: its key and its clientId.
 * @throws Error naming the missing file; SignetError when the key cannot be read
 */
export function readClientDir(dir: string): ClientDir {
  const key = readClientKey(dir);
  const idPath = join(dir, CLIENT_DIR_FILES.clientId);
  if (!existsSync(idPath)) {
    throw new Error(`${idPath} is missing: a client directory needs the clientId the registry gave (one line).`);
  }
  const clientId = readFileSync(idPath, 'utf8').trim();
  if (!/^[\x21-\x7e]{1,256}$/.test(clientId)) {
    throw new Error(`${idPath} must hold exactly one clientId (printable characters, no spaces).`);
  }
  return { dir, clientId, key };
}

function writePrivate(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600); // an existing file keeps its old mode otherwise
}
