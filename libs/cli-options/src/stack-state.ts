/**
 * What <home>/stack.json says of the stack that wrote it, and whether its launcher still runs:
 *
 *   const s = stackState(home);          // { state: 'running', nats: 'nats://127.0.0.1:4222', launcherPid: 4242 }
 *   if (s.state === 'stopped' || s.state === 'gone') ...   // no server to wait for: say so at once
 *
 * The launcher writes stack.json as soon as it holds the home ('starting', no NATS URL yet), again once its
 * nats-server runs ('starting' with the URL), once every process is ready ('running'), and at its stop
 * ('stopped'). A 'starting' or 'running' file whose launcher pid is no longer alive is 'gone' (a launcher killed
 * by SIGKILL: its processes die with it). A file without a launcher pid (written by hand, or by an older launcher)
 * is 'unknown', and only its NATS URL counts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type StackStateName = 'starting' | 'running' | 'stopped' | 'gone' | 'unknown' | 'none';

export interface StackState {
  state: StackStateName;
  nats?: string;
  launcherPid?: number;
  /** When the stack stopped (state 'stopped'). */
  stoppedAt?: string;
}

/** The written states of stack.json (the launcher's). */
export const STACK_STATES = ['starting', 'running', 'stopped'] as const;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: a process of another user holds the pid; the launcher of a home is its owner's, so it is not ours
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function stackState(home: string): StackState {
  const file = join(home, 'stack.json');
  if (!existsSync(file)) return { state: 'none' };
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return { state: 'none' };
  }
  const nats = typeof raw['nats'] === 'string' && raw['nats'] ? raw['nats'] : undefined;
  const pid = typeof raw['launcher_pid'] === 'number' ? raw['launcher_pid'] : undefined;
  const written = typeof raw['state'] === 'string' && (STACK_STATES as readonly string[]).includes(raw['state']) ? (raw['state'] as (typeof STACK_STATES)[number]) : undefined;
  const base = { ...(nats ? { nats } : {}), ...(pid ? { launcherPid: pid } : {}) };
  if (!written || !pid) return { state: 'unknown', ...base };
  if (written === 'stopped') return { state: 'stopped', ...base, ...(typeof raw['stopped_at'] === 'string' ? { stoppedAt: raw['stopped_at'] } : {}) };
  return { state: alive(pid) ? written : 'gone', ...base };
}
