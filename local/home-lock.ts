/**
 * One local gateway per `$SIGNET_HOME`: two DynamoDB Local processes writing the same database
 * file, or two stand-ins mirroring the same state file, would corrupt each other. The running
 * gateway's pid sits in `gateway.pid`; a file left by a process that is gone (killed) is taken over.
 * Only a gateway whose pid file names it, alive and this user's, is running: the local tools trust
 * what it wrote (local.json) only then ({@link runningGatewayPid}).
 */
import { randomBytes } from 'node:crypto';
import { lstatSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createFileOnce } from './private-file';

/** A held lock. */
export interface HomeLock {
  /** Removes the pid file if it is still ours. Safe to call more than once. */
  release(): void;
}

/**
 * Takes the lock by creating the pid file with this process's pid, atomically: the pid is written
 * to a file of its own, which is then hard-linked at the pid file's path; a link fails when the
 * path exists, so of two gateways starting at once exactly one creates it, and the file is never
 * seen without its pid (where the file system has no hard links, it is created exclusively and
 * then written). A file whose process is gone is moved aside and checked there before it is
 * removed: a lock that another gateway took in between is linked back (should a third start take
 * the path in that instant, the start that moved it says so and stops).
 * @throws Error naming the other gateway's pid when one is alive
 */
export function lockHome(pidFile: string, pid: number = process.pid): HomeLock {
  for (let attempt = 0; ; attempt++) {
    if (createFileOnce(pidFile, `${pid}\n`, 0o644)) break;
    const holder = readPid(pidFile);
    if (holder !== undefined && holder !== pid && isAlive(holder)) throw anotherGateway(holder, pidFile);
    // Empty and just made: another start that created it is writing its pid (no hard links here).
    if (attempt === 2 || (holder === undefined && isBeingWritten(pidFile))) {
      throw new Error(`Another local gateway is starting on this SIGNET_HOME (${pidFile}). Wait for it, or set SIGNET_HOME to another directory.`);
    }
    // Gone (or not a pid at all): moved aside first, so that only what was read is removed.
    const aside = join(dirname(pidFile), `.${basename(pidFile)}.${randomBytes(6).toString('hex')}.stale`);
    try {
      renameSync(pidFile, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    const moved = readPid(aside);
    rmSync(aside, { force: true });
    if (moved !== undefined && moved !== holder && moved !== pid && isAlive(moved)) {
      // Another gateway's lock, taken after the read above: it goes back where it was.
      throw anotherGateway(moved, pidFile, createFileOnce(pidFile, `${moved}\n`, 0o644));
    }
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      if (readPid(pidFile) === pid) rmSync(pidFile, { force: true });
    },
  };
}

function anotherGateway(holder: number, pidFile: string, restored = true): Error {
  const note = restored ? '' : ' (its pid file could not be put back: stop it and start again)';
  return new Error(`Another local gateway (pid ${holder}) is using this SIGNET_HOME (${pidFile})${note}. Stop it first, or set SIGNET_HOME to another directory.`);
}

/** An empty pid file made in the last two seconds (a crash leaves an older one, which is taken over). */
function isBeingWritten(pidFile: string): boolean {
  try {
    const stat = lstatSync(pidFile);
    return stat.isFile() && stat.size === 0 && Date.now() - stat.mtimeMs < 2000;
  } catch {
    return false;
  }
}

function readPid(pidFile: string): number | undefined {
  try {
    const text = readFileSync(pidFile, 'utf8').trim();
    // 0 would name the process group (kill(0, 0) always succeeds): never a gateway.
    return /^[1-9]\d{0,9}$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The pid of the gateway that holds `pidFile`, when that process is alive and this user's (a
 * signal to it is allowed); otherwise undefined: a gateway that was killed left its files behind,
 * and the ports they name may since belong to anyone.
 */
export function runningGatewayPid(pidFile: string): number | undefined {
  const pid = readPid(pidFile);
  if (pid === undefined) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}
