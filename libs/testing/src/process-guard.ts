import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { killAllOnExit, track, untrack } from './process-reaper';

/**
 * Starts `cmd args` under a tiny shell guard that SIGKILLs it when our end of the guard's stdin closes: when this
 * process dies for any reason (even SIGKILL) or when release() is called. The command's own stdin is /dev/null.
 * The guard prints the command's pid as the first stderr line ("guard-pid N") so tests can signal the real process.
 */
export interface GuardedProcess {
  child: ChildProcess;
  /** Resolves to the real command's pid. */
  pid: Promise<number>;
  /** Resolves when the command exited (with its exit status, or 128+signal). */
  exited: Promise<number>;
  /** Stop guarding (closes the guard's stdin: if the command still runs, it gets SIGKILL). */
  release(): void;
}

// (an asynchronous list in sh reads /dev/null unless told otherwise, hence the explicit fd 3)
const GUARD = `exec 3<&0; "$0" "$@" </dev/null 3<&- & c=$!; echo "guard-pid $c" >&2; (cat <&3 >/dev/null; kill -9 $c 2>/dev/null) & w=$!; exec 3<&-; wait $c; s=$?; kill $w 2>/dev/null; exit $s`;

export function spawnGuarded(cmd: string, args: string[], opts: Omit<SpawnOptions, 'stdio'> = {}): GuardedProcess {
  killAllOnExit();
  const child = spawn('/bin/sh', ['-c', GUARD, cmd, ...args], { ...opts, stdio: ['pipe', 'pipe', 'pipe'] });
  track(child);
  let stderrHead = '';
  const pid = new Promise<number>((resolve, reject) => {
    const onData = (d: Buffer) => {
      stderrHead += d.toString();
      const m = /guard-pid (\d+)\n/.exec(stderrHead);
      if (m) {
        child.stderr?.off('data', onData);
        resolve(Number(m[1]));
      }
    };
    child.stderr?.on('data', onData);
    child.once('exit', () => reject(new Error(`${cmd} exited before it started`)));
  });
  pid.catch(() => undefined);
  const exited = new Promise<number>((resolve) =>
    child.once('exit', (code, signal) => {
      untrack(child);
      resolve(code ?? 128 + (signal === 'SIGKILL' ? 9 : 15));
    }),
  );
  return {
    child,
    pid,
    exited,
    release: () => {
      child.stdin?.end();
    },
  };
}
