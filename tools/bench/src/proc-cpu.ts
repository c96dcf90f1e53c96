/**
 * CPU time of processes from /proc (Linux): what a benchmark phase cost each process, independent of how busy the
 * shared machine was at the time. Elsewhere (no /proc) every reading is 0.
 *
 *   const before = cpuOf(pids); ...; const ms = cpuDelta(before, cpuOf(pids));   // { [pid]: ms }
 */
import { readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** user + system CPU milliseconds of one process, 0 when unknown. */
export function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the fields after the command name (which may contain spaces) in parentheses
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

export function cpuOf(pids: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMsOf(pid)]));
}

export function cpuDelta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([name, ms]) => [name, ms - (before[name] ?? 0)]));
}
