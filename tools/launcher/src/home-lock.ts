/**
 * One launcher per home: `<home>/launcher.lock`, created exclusively, holds the running launcher's pid (and the
 * pid of the nats-server it started). A second `npm start` on the home is refused at once while that launcher
 * lives; a lock whose launcher is gone (kill -9, a crash) is taken over, and a nats-server it left behind on the
 * home's JetStream store is stopped first: two servers on one store corrupt it.
 *
 *   const lock = acquireHomeLock(home);          // throws HomeInUse
 *   lock.recordNats(natsPid);
 *   lock.release();                              // also on process exit
 */
import { linkSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'launcher.lock';

/** Another launcher runs on this home. */
export class HomeInUse extends Error {
  override readonly name = 'HomeInUse';
  readonly code = 'home_in_use';
  constructor(
    message: string,
    readonly holder: LockContent,
  ) {
    super(message);
  }
}

/** The home, or its lock, belongs to another user: a launcher neither takes over nor acts on another user's files. */
export class HomeNotOurs extends Error {
  override readonly name = 'HomeNotOurs';
  readonly code = 'home_not_ours';
}

/**
 * Whether `pid` is a nats-server running on the store `storeDir` (its command line, Linux /proc): only such a
 * process is stopped as a dead launcher's leftover. A lock file is data; the pid in it could name anything.
 */
export function isNatsServerOn(pid: number, storeDir: string): boolean {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const sd = args.indexOf('-sd');
    return /(^|\/)nats-server$/.test(args[0] ?? '') && sd > 0 && args[sd + 1] === storeDir;
  } catch {
    return false;
  }
}

export interface LockContent {
  pid: number;
  /** The kernel's start time of the pid (Linux /proc), so that a pid reused by another process is not taken for the launcher. */
  proc_start?: string;
  started_at: string;
  nats_pid?: number;
  nats_proc_start?: string;
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot), or undefined where there is no /proc. */
export function procStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) is in parentheses and may hold spaces: count from the last ")"
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // a zombie (state Z) has exited: it only waits to be reaped
    return fields[0] === 'Z' ? 'exited' : fields[19];
  } catch {
    return undefined;
  }
}

/** The process runs, and is the same process as when proc_start was taken (when that is known). */
export function sameProcessAlive(pid: number, start: string | undefined): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const now = procStart(pid);
  if (now === 'exited') return false;
  return now === undefined || start === undefined || now === start;
}

function readLock(path: string): LockContent | undefined {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as LockContent;
    return Number.isInteger(v.pid) && v.pid > 0 ? v : undefined;
  } catch {
    return undefined;
  }
}

export interface HomeLock {
  readonly path: string;
  /** Set when a stale lock was taken over: whose it was. */
  readonly tookOver: LockContent | undefined;
  /** The pid of a nats-server the dead launcher left running on the store, which was stopped. */
  readonly stoppedNats: number | undefined;
  /** Records the nats-server started on the home's store, so that a launcher after a kill -9 of this one can stop it. */
  recordNats(pid: number | undefined): void;
  release(): void;
}

export interface AcquireOptions {
  /** Stops a nats-server a dead launcher left on the store (default: SIGTERM, then SIGKILL after 10 s; waits). */
  stopLeftover?: (pid: number, start: string | undefined) => void;
  /** Whether a leftover pid is the dead launcher's nats-server on this home's store (default: isNatsServerOn <home>/nats). */
  isLeftoverNats?: (pid: number) => boolean;
  now?: () => Date;
}

/**
 * Takes the home's lock or throws HomeInUse naming the launcher that holds it. Creation is a link(2) of a file
 * written beside it, so the lock is never seen half written; a stale lock is moved aside under a name of ours
 * (rename is atomic: of two launchers taking over the same stale lock, one moves it, the other then finds
 * either no lock or the winner's, which is alive).
 */
export function acquireHomeLock(home: string, opts: AcquireOptions = {}): HomeLock {
  const path = join(home, LOCK_FILE);
  const uid = process.getuid?.();
  const owner = (p: string): number | undefined => statSync(p, { throwIfNoEntry: false })?.uid;
  const homeOwner = owner(home);
  if (uid !== undefined && homeOwner !== undefined && homeOwner !== uid) {
    throw new HomeNotOurs(`${home} belongs to uid ${homeOwner}, not to this user (uid ${uid}): npm start runs only in a home of its own user (--home <dir>) [home_not_ours]`);
  }
  const mine: LockContent = { pid: process.pid, proc_start: procStart(process.pid), started_at: (opts.now?.() ?? new Date()).toISOString() };
  const tmp = `${path}.${process.pid}`;
  const write = (c: LockContent) => {
    writeFileSync(tmp, JSON.stringify(c) + '\n');
    renameSync(tmp, path);
  };
  let tookOver: LockContent | undefined;
  let stoppedNats: number | undefined;
  for (let attempt = 0; ; attempt++) {
    writeFileSync(tmp, JSON.stringify(mine) + '\n');
    try {
      linkSync(tmp, path);
      unlinkSync(tmp);
      break;
    } catch (err) {
      unlinkSync(tmp);
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const lockOwner = owner(path);
    if (uid !== undefined && lockOwner !== undefined && lockOwner !== uid) {
      throw new HomeNotOurs(`the lock ${path} belongs to uid ${lockOwner}, not to this user (uid ${uid}): it is not a lock this user's launcher wrote; remove it if you know where it comes from [home_not_ours]`);
    }
    const held = readLock(path);
    if (held && sameProcessAlive(held.pid, held.proc_start)) {
      throw new HomeInUse(
        `another launcher runs on ${home} (pid ${held.pid}, started ${held.started_at}): stop it first (Ctrl-C in its terminal, or kill ${held.pid}), or start this one with --home <another directory>`,
        held,
      );
    }
    if (attempt >= 20) throw new Error(`cannot take the lock ${path}: it keeps changing`);
    // an unreadable lock (not ours: we never write it in place) is as stale as a dead pid's once it is a few
    // seconds old
    const st = statSync(path, { throwIfNoEntry: false });
    if (!held && st && Date.now() - st.mtimeMs < 2000) {
      sleepSync(200);
      continue;
    }
    const aside = `${path}.stale.${process.pid}`;
    try {
      renameSync(path, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // another launcher moved it first
      throw err;
    }
    const moved = readLock(aside);
    rmSync(aside, { force: true });
    if (moved && sameProcessAlive(moved.pid, moved.proc_start)) {
      // what we moved was not the stale lock we looked at but a live launcher's new one: put it back (unless another
      // lock took its place meanwhile: the next round tells whose)
      try {
        writeFileSync(tmp, JSON.stringify(moved) + '\n');
        linkSync(tmp, path);
      } catch {
        // taken again
      } finally {
        rmSync(tmp, { force: true });
      }
      continue;
    }
    tookOver = moved ?? held;
    if (tookOver?.nats_pid && sameProcessAlive(tookOver.nats_pid, tookOver.nats_proc_start) && (opts.isLeftoverNats ?? ((pid) => isNatsServerOn(pid, join(home, 'nats'))))(tookOver.nats_pid)) {
      (opts.stopLeftover ?? stopProcess)(tookOver.nats_pid, tookOver.nats_proc_start);
      stoppedNats = tookOver.nats_pid;
    }
  }

  let released = false;
  const ownsIt = () => readLock(path)?.pid === process.pid;
  const release = () => {
    if (released) return;
    released = true;
    if (ownsIt()) rmSync(path, { force: true });
  };
  process.once('exit', release);
  return {
    path,
    tookOver,
    stoppedNats,
    recordNats(pid) {
      if (!ownsIt()) return;
      if (pid) Object.assign(mine, { nats_pid: pid, nats_proc_start: procStart(pid) });
      write(mine);
    },
    release,
  };
}

/** SIGTERM, then SIGKILL after `graceMs`; returns once the process is gone (synchronously: nothing else may start meanwhile). */
export function stopProcess(pid: number, start: string | undefined, graceMs = 10_000): void {
  const wait = sleepSync;
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {
      // gone
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (sameProcessAlive(pid, start) && Date.now() < deadline) wait(50);
  if (!sameProcessAlive(pid, start)) return;
  signal('SIGKILL');
  const hard = Date.now() + 5000;
  while (sameProcessAlive(pid, start) && Date.now() < hard) wait(50);
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
