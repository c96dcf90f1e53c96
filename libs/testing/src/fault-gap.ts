/**
 * The measure of a fault seen by a content client: the longest stretch of time in which no document got its final
 * status. A fault that is handled well costs a few seconds of that; one that waits for a call timeout costs the
 * timeout.
 *
 *   const times: number[] = [];                        // Date.now() of every final status, in arrival order
 *   longestGap(times, faultAt).ms                       // from the fault to the end of the run
 */

export interface Gap {
  /** Length of the longest stretch without a completion (ms). */
  ms: number;
  /** Where it starts: `from`, or the completion before it. */
  start: number;
  /** Where it ends: the first completion after it. */
  end: number;
}

/**
 * The longest stretch without a completion in [from, to]: from `from` to the first completion after it, then
 * between consecutive completions, then (when `to` is given) from the last completion to `to`. `times` must be in
 * ascending order. No completion at all in the window gives the whole window (Infinity without a `to`).
 */
export function longestGap(times: readonly number[], from: number, to?: number): Gap {
  let prev = from;
  let best: Gap = { ms: 0, start: from, end: from };
  const consider = (end: number) => {
    if (end - prev > best.ms) best = { ms: end - prev, start: prev, end };
    prev = end;
  };
  for (const t of times) {
    if (t < from) continue;
    if (to !== undefined && t > to) break;
    consider(t);
  }
  if (to !== undefined) consider(to);
  else if (prev === from) best = { ms: Infinity, start: from, end: Infinity };
  return best;
}

/**
 * Restarts counted by a node controller between two readings of its process list that nobody asked for: every
 * process but the victim must show none, and the victim exactly one (it was killed once).
 */
export function unexpectedRestarts(
  before: readonly { name: string; restarts: number }[],
  after: readonly { name: string; restarts: number }[],
  victim: string | undefined,
): string[] {
  const out: string[] = [];
  for (const a of after) {
    const b = before.find((p) => p.name === a.name)?.restarts ?? 0;
    const expected = a.name === victim ? 1 : 0;
    if (a.restarts - b !== expected) out.push(`${a.name}: ${a.restarts - b} restart(s), expected ${expected}`);
  }
  return out;
}

/** A log line of a process of the stack, or of the node controller, or of the content client. */
export interface RigLogLine {
  process: string;
  time: number;
  level: number;
  msg: string;
  line: Record<string, unknown>;
}


/**
 * One line per log line of a timeline: "+1234 ms indexer WARN message {fields}"; a message a process repeats is shown
 * once, with how often and until when ("x 40 until +5187 ms").
 */
export function formatTimeline(lines: readonly RigLogLine[]): string[] {
  const skip = new Set(['level', 'time', 'pid', 'hostname', 'component', 'msg']);
  const out: { first: RigLogLine; n: number; last: number }[] = [];
  const open = new Map<string, { first: RigLogLine; n: number; last: number }>();
  for (const l of lines) {
    const key = `${l.process}\u0000${l.msg}`;
    const seen = open.get(key);
    if (seen && l.level >= 40) {
      seen.n++;
      seen.last = l.time;
      continue;
    }
    const entry = { first: l, n: 1, last: l.time };
    out.push(entry);
    if (l.level >= 40) open.set(key, entry);
  }
  return out.map(({ first: l, n, last }) => {
    const fields = Object.fromEntries(Object.entries(l.line).filter(([k]) => !skip.has(k)));
    const level = l.level >= 50 ? 'ERROR' : l.level >= 40 ? 'WARN' : 'info';
    const repeated = n > 1 ? ` (x ${n} until +${last} ms)` : '';
    return `${l.time >= 0 ? '+' : ''}${l.time} ms ${l.process} ${level} ${l.msg}${repeated} ${JSON.stringify(fields).slice(0, 300)}`;
  });
}

