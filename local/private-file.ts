/**
 * Writing a file that holds a secret (a private key, a signing secret) where another local user
 * might reach: never through a symbolic link or into a file someone else made.
 */
import { closeSync, constants, fsyncSync, linkSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `text` to a new file next to `path` (created exclusively, never through a symbolic link,
 * with `mode`), flushes it, and renames it over `path`: whatever `path` was (an existing file, a
 * symbolic link) is replaced, never written into. The temporary file is removed if anything fails.
 */
export function writeFileAtomically(path: string, text: string, mode: number): void {
  const tmp = writtenAside(path, text, mode);
  try {
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

/**
 * Creates `path` holding `text` unless something is there already (then false, and nothing is
 * written): the text is written to a file of its own next to it, which is then hard-linked at
 * `path`. A link fails when the path exists (a file, a symbolic link), so of two processes creating
 * it at once exactly one does, and it never appears partly written. Where the file system has no
 * hard links (FAT, some network mounts) it is created exclusively and then written.
 */
export function createFileOnce(path: string, text: string, mode: number): boolean {
  const tmp = writtenAside(path, text, mode);
  try {
    linkSync(tmp, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw error;
    let fd: number;
    try {
      fd = openSync(path, EXCLUSIVE, mode);
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw cause;
    }
    try {
      writeFileSync(fd, text);
    } finally {
      closeSync(fd);
    }
    return true;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Created only if nothing is at the path, never through a symbolic link. */
const EXCLUSIVE = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | (constants.O_NOFOLLOW ?? 0);

/** A new file next to `path` holding `text`, flushed; removed if writing it fails. */
function writtenAside(path: string, text: string, mode: number): string {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, EXCLUSIVE, mode);
  try {
    try {
      writeFileSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
  return tmp;
}
