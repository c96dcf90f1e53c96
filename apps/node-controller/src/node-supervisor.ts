import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { entryNodeArgs } from '@esp/cli-options';
import { READY_FD_ENV, type Logger } from '@esp/logging';
import { backoffDelay } from '@esp/timers';
import type { ProcessSpec } from './profile';

export type ProcessState = 'starting' | 'running' | 'stopping' | 'stopped' | 'restarting';

/**
 * One row of GetProcessList. `pid` is the pid of the app process itself (what an item processor registers as its
 * pid with the content distributor); `ppid` is its parent, the small shell wrapper that kills the app when the node
 * controller dies (see GUARD). `pid` and `ppid` are 0 while the process does not run.
 */
export interface ProcessInfo {
  name: string;
  pid: number;
  ppid: number;
  state: ProcessState;
  restarts: number;
  /** Seconds since this run of the process started (0 when not running). */
  uptime: number;
}

export class UnknownProcessError extends Error {
  override readonly name = 'UnknownProcessError';
}

export interface NodeSupervisorOptions {
  /** Working directory of the apps (entries are relative to it). */
  cwd: string;
  log: Logger;
  /** First restart delay after a crash; doubles per crash in a row up to maxRestartDelayMs (default 100: a crash that is not a loop costs no waiting). */
  restartDelayMs?: number;
  maxRestartDelayMs?: number;
  /** A process up this long before it crashed counts as healthy: the next delay starts over (default 60 s). */
  healthyAfterMs?: number;
  /** SIGTERM, then SIGKILL after this long (default 10 s). */
  stopTimeoutMs?: number;
  /** Where the apps' output lines go (default: this process's stderr, so that our own stdout stays our log). */
  output?: (name: string, line: string) => void;
  /** A process became ready: the fields of its readiness line (URLs, ports). */
  onReady?: (name: string, fields: Record<string, unknown>) => void;
}

/**
 * The descriptor of the readiness channel in every app started here (ESP_READY_FD; fd 3 is the guard's): an app
 * writes one JSON line there when it is ready, whatever its log level or format (@esp/logging announceReady).
 */
export const READY_FD = 4;

/** The fields of a readiness line, or undefined when the line is not one. */
export function readinessOf(line: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(line) as Record<string, unknown> | null;
    return v && typeof v === 'object' && v['ready'] === true ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The app runs under a tiny shell guard that SIGKILLs it when the guard's stdin (a pipe from the node controller)
 * closes, that is when the node controller dies, even by SIGKILL: no app outlives its supervisor. The guard writes
 * the app's pid as its first stderr line. (The same guard as @esp/testing's process guard; apps do not share code.)
 */
const GUARD = `exec 3<&0; "$0" "$@" </dev/null 3<&- & c=$!; echo "guard-pid $c" >&2; (cat <&3 >/dev/null; kill -9 $c 2>/dev/null) & w=$!; exec 3<&-; wait $c; s=$?; kill $w 2>/dev/null; exit $s`;

interface Run {
  child: ChildProcess;
  pid: number;
  startedAt: number;
  /** Resolves with the exit status (128 + signal number when killed). */
  exited: Promise<number>;
  stopping: boolean;
}

interface Entry {
  spec: ProcessSpec;
  state: ProcessState;
  run: Run | undefined;
  restarts: number;
  /** Crashes in a row (reset by a run longer than healthyAfterMs): the backoff exponent. */
  crashes: number;
  timer: NodeJS.Timeout | undefined;
  /** Serializes start / stop / restart of this entry. */
  lock: Promise<unknown>;
}

const SIGNAL_NUMBERS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGSEGV: 11, SIGTERM: 15 };

/**
 * Supervises the processes of one node: starts them in profile order, restarts one that dies (with backoff),
 * restarts / starts / stops single processes on request, and stops everything in reverse order.
 *
 *   const sup = new NodeSupervisor(loadProfile('node.json'), { cwd: process.cwd(), log });
 *   await sup.startAll();
 *   sup.list();                       // ProcessInfo rows
 *   await sup.restart('item-processor-1');
 *   await sup.stopAll();
 */
export class NodeSupervisor {
  private readonly entries: Entry[];
  private shuttingDown = false;

  constructor(
    specs: readonly ProcessSpec[],
    private readonly opts: NodeSupervisorOptions,
  ) {
    this.entries = specs.map((spec) => ({ spec, state: 'stopped', run: undefined, restarts: 0, crashes: 0, timer: undefined, lock: Promise.resolve() }));
  }

  list(now = Date.now()): ProcessInfo[] {
    return this.entries.map((e) => {
      const live = e.run && e.state !== 'stopped' && e.state !== 'restarting';
      return {
        name: e.spec.name,
        pid: live && e.run ? e.run.pid : 0,
        ppid: live && e.run ? (e.run.child.pid ?? 0) : 0,
        state: e.state,
        restarts: e.restarts,
        uptime: live && e.run ? Math.floor((now - e.run.startedAt) / 1000) : 0,
      };
    });
  }

  names(): string[] {
    return this.entries.map((e) => e.spec.name);
  }

  /** Starts every process in profile order (each one's pid is known when this returns). */
  async startAll(): Promise<void> {
    for (const e of this.entries) await this.locked(e, () => this.spawn(e));
  }

  /** StartProcess: starts a stopped process (or one waiting to be restarted) now; a running one is left alone. */
  async start(name: string): Promise<void> {
    const e = this.entry(name);
    await this.locked(e, async () => {
      if (e.state === 'starting' || e.state === 'running') return;
      this.cancelTimer(e);
      await this.spawn(e);
    });
  }

  /** StopProcess: stops a process and keeps it stopped (no restart) until StartProcess or RestartProcess. */
  async stop(name: string): Promise<void> {
    const e = this.entry(name);
    await this.locked(e, async () => {
      this.cancelTimer(e);
      await this.terminate(e);
      e.state = 'stopped';
    });
  }

  /** RestartProcess: stops the process if it runs (SIGTERM, SIGKILL after the stop timeout) and starts it again. */
  async restart(name: string): Promise<void> {
    const e = this.entry(name);
    await this.locked(e, async () => {
      this.cancelTimer(e);
      await this.terminate(e);
      e.restarts++;
      await this.spawn(e);
    });
  }

  /** Stops everything in reverse profile order; nothing is restarted afterwards. */
  async stopAll(): Promise<void> {
    this.shuttingDown = true;
    for (const e of [...this.entries].reverse()) {
      this.cancelTimer(e);
      await this.locked(e, async () => {
        await this.terminate(e);
        e.state = 'stopped';
      });
    }
  }

  private entry(name: string): Entry {
    const e = this.entries.find((x) => x.spec.name === name);
    if (!e) throw new UnknownProcessError(`no process named "${name}" on this node; there are: ${this.names().join(', ') || '(none)'}`);
    return e;
  }

  private locked<T>(e: Entry, fn: () => Promise<T>): Promise<T> {
    const next = e.lock.then(fn, fn);
    e.lock = next.catch(() => undefined);
    return next;
  }

  private cancelTimer(e: Entry): void {
    if (e.timer) clearTimeout(e.timer);
    e.timer = undefined;
  }

  private async spawn(e: Entry): Promise<void> {
    if (this.shuttingDown) return;
    const { spec } = e;
    const log = this.opts.log;
    const out = this.opts.output ?? ((name: string, line: string) => process.stderr.write(`[${name}] ${line}\n`));
    const child = spawn('/bin/sh', ['-c', GUARD, process.execPath, ...entryNodeArgs(spec.entry, this.opts.cwd), ...spec.args], {
      cwd: this.opts.cwd,
      env: { ...process.env, ...spec.env, [READY_FD_ENV]: String(READY_FD) },
      stdio: ['pipe', 'pipe', 'pipe', 'ignore', 'pipe'],
    });
    child.stdin?.on('error', () => undefined);
    const exited = new Promise<number>((resolve) =>
      child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? (SIGNAL_NUMBERS[signal] ?? 0) : 0))),
    );
    const pid = await new Promise<number>((resolve) => {
      let head = '';
      const stderr = child.stderr;
      if (!stderr) return resolve(0);
      const onData = (d: Buffer) => {
        head += d.toString();
        const m = /guard-pid (\d+)\n/.exec(head);
        if (!m) return;
        stderr.off('data', onData);
        resolve(Number(m[1]));
        const rest = head.slice(m.index + m[0].length);
        if (rest.trim()) out(spec.name, rest.trimEnd());
        createInterface({ input: stderr }).on('line', (line) => out(spec.name, line));
      };
      stderr.on('data', onData);
      child.once('exit', () => resolve(0));
      child.once('error', () => resolve(0));
    });
    const run: Run = { child, pid, startedAt: Date.now(), exited, stopping: false };
    e.run = run;
    e.state = 'starting';
    if (child.stdout) createInterface({ input: child.stdout }).on('line', (line) => out(spec.name, line));
    const channel = child.stdio[READY_FD] as Readable | null;
    if (channel) {
      channel.on('error', () => undefined);
      createInterface({ input: channel }).on('line', (line) => {
        const fields = readinessOf(line);
        if (!fields || e.run !== run || e.state !== 'starting') return;
        e.state = 'running';
        log.info({ process: spec.name, pid }, 'process ready');
        this.opts.onReady?.(spec.name, fields);
      });
    }
    log.info({ process: spec.name, pid, wrapper: child.pid, entry: spec.entry, restarts: e.restarts }, 'process started');
    void exited.then((status) => this.onExit(e, run, status));
  }

  private onExit(e: Entry, run: Run, status: number): void {
    if (e.run !== run || run.stopping) return;
    const upMs = Date.now() - run.startedAt;
    const healthy = upMs >= (this.opts.healthyAfterMs ?? 60_000);
    e.crashes = healthy ? 1 : e.crashes + 1;
    if (this.shuttingDown) {
      e.state = 'stopped';
      return;
    }
    const delay = backoffDelay(e.crashes - 1, { initialMs: this.opts.restartDelayMs ?? 100, maxMs: this.opts.maxRestartDelayMs ?? 30_000 });
    e.state = 'restarting';
    this.opts.log.warn({ process: e.spec.name, pid: run.pid, status, up_ms: upMs, restart_in_ms: delay }, 'process died; restarting');
    e.timer = setTimeout(() => {
      e.timer = undefined;
      void this.locked(e, async () => {
        if (e.state !== 'restarting' || e.run !== run) return;
        e.restarts++;
        await this.spawn(e);
      }).catch((err: Error) => this.opts.log.error({ process: e.spec.name, err: err.message }, 'restart failed'));
    }, delay);
  }

  /** Stops the current run, if any: SIGTERM (and SIGCONT, for a paused one), SIGKILL after the stop timeout. */
  private async terminate(e: Entry): Promise<void> {
    const run = e.run;
    if (!run || run.child.exitCode !== null || run.child.signalCode !== null) return;
    run.stopping = true;
    e.state = 'stopping';
    const target = run.pid || run.child.pid;
    const signal = (sig: NodeJS.Signals) => {
      try {
        if (target) process.kill(target, sig);
      } catch {
        // already gone
      }
    };
    signal('SIGTERM');
    signal('SIGCONT');
    const timer = setTimeout(() => {
      this.opts.log.warn({ process: e.spec.name, pid: run.pid }, 'did not stop in time; SIGKILL');
      signal('SIGKILL');
    }, this.opts.stopTimeoutMs ?? 10_000);
    const status = await run.exited;
    clearTimeout(timer);
    this.opts.log.info({ process: e.spec.name, pid: run.pid, status }, 'process stopped');
  }
}
