import type { ChildProcess } from 'node:child_process';

const live = new Set<ChildProcess>();
let installed = false;

export function track(child: ChildProcess): void {
  live.add(child);
}

export function untrack(child: ChildProcess): void {
  live.delete(child);
}

/**
 * Belt and braces beside the shell guard: on a normal exit or a signal, kill every process we started.
 * (SIGKILL of this process is covered by the guard, which sees its stdin close.)
 */
export function killAllOnExit(): void {
  if (installed) return;
  installed = true;
  const reap = () => {
    for (const child of live) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
    live.clear();
  };
  process.once('exit', reap);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      reap();
      process.exit(128 + (sig === 'SIGINT' ? 2 : 15));
    });
  }
}
