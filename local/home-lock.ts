/**
 * One local gateway per `$SIGNET_HOME`: two DynamoDB Local processes writing the same database
 * file, or two stand-ins mirroring the same state file, would corrupt each other. The running
 * gateway's pid sits in `gateway.pid`; a file left by a process that is gone (killed) is taken over.
 */
import { readFileSync, rmSync } from 'node:fs';
import { writeFileAtomically } from './private-file';

/** A held lock. */
export interface HomeLock {
  /** Removes the pid file if it is still ours. Safe to call more than once. */
  release(): void;
}

/**
 * Takes the lock by writing this process's pid.
 * @throws Error naming the other gateway's pid when one is alive
 */
export function lockHome(pidFile: string, pid: number = process.pid): HomeLock {
  const holder = readPid(pidFile);
  if (holder !== undefined && holder !== pid && isAlive(holder)) {
    throw new Error(
      `Another local gateway (pid ${holder}) is using this SIGNET_HOME (${pidFile}). Stop it first, or set SIGNET_HOME to another directory.`,
    );
  }
  // Written aside and renamed in: a symbolic link left at the path is replaced, never written through.
  writeFileAtomically(pidFile, `${pid}\n`, 0o644);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      if (readPid(pidFile) === pid) rmSync(pidFile, { force: true });
    },
  };
}

function readPid(pidFile: string): number | undefined {
  try {
    const text = readFileSync(pidFile, 'utf8').trim();
    return /^\d{1,10}$/.test(text) ? Number(text) : undefined;
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
