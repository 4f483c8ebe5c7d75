/**
 * What the benchmarks ran on: CPU count and model, memory, Node version, and the load average at
 * the time (this machine is shared; a high load inflates wall-clock figures, which is why several
 * sections also report CPU time).
 */
import os from 'node:os';

export interface MachineInfo {
  readonly nproc: number;
  readonly cpuModel: string;
  readonly totalMemMb: number;
  readonly node: string;
  readonly platform: string;
  /** 1-minute load average when sampled. */
  readonly loadAvg1: number;
}

export function describeMachine(): MachineInfo {
  const cpus = os.cpus();
  return {
    nproc: os.availableParallelism?.() ?? cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    totalMemMb: Math.round(os.totalmem() / 1024 / 1024),
    node: process.version,
    platform: `${os.platform()} ${os.arch()} ${os.release()}`,
    loadAvg1: os.loadavg()[0],
  };
}

/** One line: `2 CPUs (model), 24 GB, Node v20.x, linux x64, load 1.23`. */
export function machineLine(m: MachineInfo = describeMachine()): string {
  return `${m.nproc} CPUs (${m.cpuModel}), ${(m.totalMemMb / 1024).toFixed(0)} GB RAM, Node ${m.node}, ${m.platform}, load average ${m.loadAvg1.toFixed(2)}`;
}

/** The current 1-minute load average, for per-section notes. */
export function loadAverage(): number {
  return os.loadavg()[0];
}
