/**
 * A client directory: one client's key pair and clientId on disk, as `npm start` writes
 * `$SIGNET_HOME/admin/` and `$SIGNET_HOME/demo/`, and as `signet request --client DIR` and the
 * registry commands' `--admin DIR` read them.
 *
 * ```
 * private.pkcs8.b64   the private key as PKCS#8 DER in Base64, one line                    0600
 * private.pem         the same key as PKCS#8 PEM                                           0600
 * public.pem          the public key (SPKI PEM): what the registry holds                   0644
 * client-id           the clientId (the signature's keyid)                                 0644
 * ```
 * Errors name the file and what to do; they never contain key material.
 *
 * Writing is safe in a directory other users can reach: the directory must be a real directory
 * (not a symbolic link) of the current user that no one else may write to, and each file is
 * written to a new temporary file there and renamed over its name, so an existing file or
 * symbolic link of that name is replaced, never written through.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PrivateKeyInfo, ed25519SeedHex, importPrivateKey, spkiPemOf } from '../lambda/core/keys';
import { writeFileAtomically } from './private-file';

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
  writeClientId(dir, clientId);
}

/** Writes only the key files (`signet clients create --out DIR` before the clientId is known). */
export function writeKeyFiles(dir: string, key: PrivateKeyInfo): void {
  prepareClientDir(dir);
  writeFileAtomically(join(dir, CLIENT_DIR_FILES.privateKeyB64), `${key.pkcs8Base64}\n`, 0o600);
  writeFileAtomically(join(dir, CLIENT_DIR_FILES.privateKeyPem), key.key.export({ type: 'pkcs8', format: 'pem' }) as string, 0o600);
  writeFileAtomically(join(dir, CLIENT_DIR_FILES.publicKeyPem), spkiPemOf(key.publicKey), 0o644);
  const seed = join(dir, CLIENT_DIR_FILES.ed25519SeedHex);
  // A replaced Ed25519 key's seed (its private key) does not stay beside a key of another type.
  if (key.key.asymmetricKeyType === 'ed25519') writeFileAtomically(seed, `${ed25519SeedHex(key.key)}\n`, 0o600);
  else rmSync(seed, { force: true });
}

/** Writes the `client-id` file into a directory {@link prepareClientDir} accepts. */
export function writeClientId(dir: string, clientId: string): void {
  prepareClientDir(dir);
  writeFileAtomically(join(dir, CLIENT_DIR_FILES.clientId), `${clientId}\n`, 0o644);
}

/**
 * Creates `dir` (mode 0700) if it is missing, then makes sure no other user can change what is
 * written there: it must be a directory, not a symbolic link, owned by the current user, with no
 * group or other write permission. Where there are no POSIX owners (Windows) only the first two hold.
 * @param uid the user who must own it: the current one
 * @throws Error naming the directory and what to do; nothing has been written then
 */
export function prepareClientDir(dir: string, uid: number | undefined = process.getuid?.()): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  const refuse = (why: string, fix: string): never => {
    throw new Error(`${dir} ${why}; nothing was written. ${fix}`);
  };
  if (stat.isSymbolicLink()) refuse('is a symbolic link, which another user may be able to point elsewhere', 'Give the real directory, or choose another directory.');
  if (!stat.isDirectory()) refuse('exists and is not a directory', 'Choose another directory.');
  if (uid === undefined) return;
  if (stat.uid !== uid) refuse(`belongs to another user (uid ${stat.uid}), who could replace the key files in it`, 'Choose a directory of your own.');
  if ((stat.mode & 0o022) !== 0) {
    const mode = (stat.mode & 0o777).toString(8).padStart(4, '0');
    refuse(`is writable by other users (mode ${mode}), who could replace the key files in it`, `Run \`chmod go-w ${dir}\`, or choose another directory.`);
  }
}

/**
 * The key files present in `dir` (private.pkcs8.b64, private.pem, public.pem, private.ed25519.hex).
 * A symbolic link counts even when what it points to is missing: writing there is never silent.
 */
export function existingKeyFiles(dir: string): string[] {
  const names = [CLIENT_DIR_FILES.privateKeyB64, CLIENT_DIR_FILES.privateKeyPem, CLIENT_DIR_FILES.publicKeyPem, CLIENT_DIR_FILES.ed25519SeedHex];
  return names.filter((name) => lstatSync(join(dir, name), { throwIfNoEntry: false }) !== undefined);
}

/** True when `dir` holds a private key file (a symbolic link counts, as in {@link existingKeyFiles}). */
export function hasClientKey(dir: string): boolean {
  return existingKeyFiles(dir).some((name) => name === CLIENT_DIR_FILES.privateKeyB64 || name === CLIENT_DIR_FILES.privateKeyPem);
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
