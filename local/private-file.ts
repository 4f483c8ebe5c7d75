/**
 * Writing a file that holds a secret (a private key, a signing secret) where another local user
 * might reach: never through a symbolic link or into a file someone else made.
 */
import { closeSync, constants, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `text` to a new file next to `path` (created exclusively, never through a symbolic link,
 * with `mode`), flushes it, and renames it over `path`: whatever `path` was (an existing file, a
 * symbolic link) is replaced, never written into. The temporary file is removed if anything fails.
 */
export function writeFileAtomically(path: string, text: string, mode: number): void {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | (constants.O_NOFOLLOW ?? 0), mode);
  try {
    try {
      writeFileSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}
