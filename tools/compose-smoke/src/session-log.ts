/**
 * Which feeding sessions a content distributor created, read from the JSON log lines of its compose service
 * ("session created", with the session id and the line's time). Pure: takes the log text, returns the sessions.
 *
 *   const mine = sessionsCreated(await compose.logs('content-distributor')).filter((s) => (s.at ?? 0) >= startedAt);
 */
export interface SessionCreated {
  session: number;
  /** the log line's time (ms since the epoch), when it had one */
  at?: number;
}

export function sessionsCreated(logText: string): SessionCreated[] {
  const out: SessionCreated[] = [];
  for (const line of logText.split('\n')) {
    const start = line.indexOf('{');
    if (start < 0) continue;
    let entry: { msg?: unknown; session?: unknown; time?: unknown };
    try {
      entry = JSON.parse(line.slice(start)) as typeof entry;
    } catch {
      continue;
    }
    if (typeof entry !== 'object' || entry === null || entry.msg !== 'session created' || typeof entry.session !== 'number') continue;
    const at = typeof entry.time === 'number' ? entry.time : typeof entry.time === 'string' ? Date.parse(entry.time) : NaN;
    out.push(Number.isFinite(at) ? { session: entry.session, at } : { session: entry.session });
  }
  return out;
}
