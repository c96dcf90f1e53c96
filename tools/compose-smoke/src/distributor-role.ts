/**
 * Which content distributor is master, read from the JSON log lines a compose service wrote: the last
 * "content distributor is master" / "... is backup" line wins. Pure: takes the log text, returns the role.
 */
export type DistributorRole = 'master' | 'backup' | 'unknown';

export interface RoleReading {
  role: DistributorRole;
  /** the log line's time (ms since the epoch), when it had one */
  at?: number;
}

const ROLE_MESSAGES: Record<string, DistributorRole> = {
  'content distributor is master': 'master',
  'content distributor is backup': 'backup',
};

export function lastRole(logText: string): RoleReading {
  let reading: RoleReading = { role: 'unknown' };
  for (const line of logText.split('\n')) {
    const start = line.indexOf('{');
    if (start < 0) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line.slice(start));
    } catch {
      continue;
    }
    if (typeof entry !== 'object' || entry === null) continue;
    const msg = (entry as { msg?: unknown }).msg;
    const role = typeof msg === 'string' ? ROLE_MESSAGES[msg] : undefined;
    if (!role) continue;
    const time = (entry as { time?: unknown }).time;
    const at = typeof time === 'number' ? time : typeof time === 'string' ? Date.parse(time) : NaN;
    reading = Number.isFinite(at) ? { role, at } : { role };
  }
  return reading;
}
