/**
 * Why the node controller's processes did not all become ready in time: which ones, in which state, and the last
 * lines each wrote (the node controller forwards them on its stderr as `[name] line`).
 */
import type { ProcessRow } from './node-control';

/** How long the node controller's processes may take, together, to become ready after it has started them. */
export const NODE_READY_TIMEOUT_MS = 120_000;

const PER_PROCESS = 5;
const MAX_LINE = 400;

/** The last few lines of each process, from the node controller's `[name] line` stderr lines. */
export class LastLines {
  private readonly byName = new Map<string, string[]>();

  add(line: string): void {
    const m = /^\[([^\]]+)\] (.*)$/.exec(line);
    if (!m?.[1] || m[2] === undefined) return;
    const lines = this.byName.get(m[1]) ?? [];
    lines.push(m[2].length > MAX_LINE ? `${m[2].slice(0, MAX_LINE)}...` : m[2]);
    if (lines.length > PER_PROCESS) lines.shift();
    this.byName.set(m[1], lines);
  }

  of(name: string): string[] {
    return this.byName.get(name) ?? [];
  }
}

export function notReady(rows: ProcessRow[], lines: LastLines, timeoutMs: number): string {
  if (rows.length === 0) return `the node controller listed no process within ${timeoutMs / 1000} s`;
  const late = rows.filter((r) => r.state !== 'running');
  const detail = late.map((r) => {
    const said = lines.of(r.name);
    const why = r.restarts > 0 ? `, restarted ${r.restarts} time${r.restarts === 1 ? '' : 's'}` : '';
    return `  ${r.name}: ${r.state}${why}${said.length ? `; its last lines:\n    ${said.join('\n    ')}` : '; it wrote nothing'}`;
  });
  return `not ready within ${timeoutMs / 1000} s: ${late.map((r) => r.name).join(', ')} (${rows.length - late.length} of ${rows.length} ready)\n${detail.join('\n')}`;
}
