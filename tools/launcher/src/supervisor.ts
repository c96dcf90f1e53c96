import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { READY_FD_ENV } from '@esp/logging';
import { entryNodeArgs } from '@esp/cli-options';

export interface ProcessSpec {
  name: string;
  /** Entry file, relative to the workspace root. */
  entry: string;
  args?: string[];
  env?: Record<string, string>;
  /** Every stderr line of the process (it is forwarded to our stderr as well). */
  onStderrLine?: (line: string) => void;
  /** SIGKILL when it has not exited this long after SIGTERM (default: stopAll's timeout). */
  stopTimeoutMs?: number;
  /** How long it may take to become ready (default DEFAULT_READY_TIMEOUT_MS). */
  readyTimeoutMs?: number;
  /** Readiness lines the process writes about processes of its own (a node controller's: `process` names one). */
  onReadyLine?: (line: ReadyLine) => void;
}

/** The descriptor of the readiness channel in every process started here (fd 3 is the guard's). */
export const READY_FD = 4;
export const DEFAULT_READY_TIMEOUT_MS = 60_000;
/** Lines of a process kept for the message of a start-up failure. */
const LAST_LINES = 8;

/** A readiness line (ESP_READY_FD, @esp/logging announceReady). */
export interface ReadyLine {
  ready: true;
  pid?: number;
  /** Set on the lines a supervisor writes about its own processes. */
  process?: string;
  status_url?: string;
  xmlrpc_url?: string;
}

export function parseReadyLine(line: string): ReadyLine | undefined {
  try {
    const v = JSON.parse(line) as Partial<ReadyLine> | null;
    if (!v || v.ready !== true) return undefined;
    const str = (x: unknown) => (typeof x === 'string' ? x : undefined);
    return { ready: true, pid: typeof v.pid === 'number' ? v.pid : undefined, process: str(v.process), status_url: str(v.status_url), xmlrpc_url: str(v.xmlrpc_url) };
  } catch {
    return undefined;
  }
}

/** A process did not become ready in time. */
export class ReadyTimeout extends Error {
  override readonly name = 'ReadyTimeout';
  readonly code = 'ready_timeout';
}

/** The start was given up because the launcher is stopping (Ctrl-C during the start): not a failure to report. */
export class StartAborted extends Error {
  override readonly name = 'StartAborted';
  readonly code = 'start_aborted';
}

interface Running {
  /** The app's own pid (the guard's child), from the guard's first stderr line. */
  pid?: number;
  statusUrl?: string;
  xmlrpcUrl?: string;
  spec: ProcessSpec;
  child: ChildProcess;
  restarts: number;
  startedAt: number;
}

/**
 * The app runs under a tiny shell guard that SIGKILLs it when the guard's stdin (a pipe from us) closes, that is when
 * the launcher dies, even by SIGKILL. The guard writes the app's pid as its first stderr line. (The guard of the node
 * controller and of @esp/testing.)
 */
const GUARD = `exec 3<&0; "$0" "$@" </dev/null 3<&- & c=$!; echo "guard-pid $c" >&2; (cat <&3 >/dev/null; kill -9 $c 2>/dev/null) & w=$!; exec 3<&-; wait $c; s=$?; kill $w 2>/dev/null; exit $s`;

/**
 * Starts apps as child processes, forwards their log lines, waits for their readiness line (ESP_READY_FD), restarts one that dies
 * (backoff 1 s doubling to 30 s) and stops them in reverse order.
 */
export class Supervisor {
  private readonly running: Running[] = [];
  private stopping = false;
  onChange: () => void = () => undefined;

  constructor(private readonly say: (line: string) => void) {}

  describe(): { name: string; pid: number | undefined; restarts: number; entry: string; status_url?: string; xmlrpc_url?: string }[] {
    return this.running.map((r) => ({
      name: r.spec.name,
      pid: r.pid ?? r.child.pid,
      restarts: r.restarts,
      entry: r.spec.entry,
      ...(r.statusUrl ? { status_url: r.statusUrl } : {}),
      ...(r.xmlrpcUrl ? { xmlrpc_url: r.xmlrpcUrl } : {}),
    }));
  }

  async start(spec: ProcessSpec, restarts = 0): Promise<void> {
    if (this.stopping) throw new StartAborted(`${spec.name} not started: stopping`);
    // own process group (detached): a Ctrl-C in the terminal reaches the launcher only, which stops the processes in
    // order; the guard kills the app if the launcher dies, even by SIGKILL. Readiness comes on fd 4 (ESP_READY_FD),
    // whatever the log level or format.
    const child = spawn('/bin/sh', ['-c', GUARD, process.execPath, ...entryNodeArgs(spec.entry), ...(spec.args ?? [])], {
      env: { ...process.env, LOG_FORMAT: 'json', ...spec.env, [READY_FD_ENV]: String(READY_FD) },
      stdio: ['pipe', 'pipe', 'pipe', 'ignore', 'pipe'],
      detached: true,
    });
    child.stdin?.on('error', () => undefined);
    const entry: Running = { spec, child, restarts, startedAt: Date.now() };
    const existing = this.running.findIndex((r) => r.spec.name === spec.name);
    if (existing >= 0) this.running[existing] = entry;
    else this.running.push(entry);
    /** The last lines the process wrote: what a start-up failure shows. */
    const last: string[] = [];
    const keep = (line: string) => {
      last.push(line.length > 500 ? `${line.slice(0, 500)}...` : line);
      if (last.length > LAST_LINES) last.shift();
    };
    if (child.stderr) {
      createInterface({ input: child.stderr }).on('line', (line) => {
        const guard = entry.pid === undefined ? /^guard-pid (\d+)$/.exec(line) : null;
        if (guard) {
          entry.pid = Number(guard[1]);
          return;
        }
        keep(line);
        process.stderr.write(line + '\n');
        spec.onStderrLine?.(line);
      });
    }
    child.stdout?.on('error', () => undefined);
    if (child.stdout) {
      createInterface({ input: child.stdout }).on('line', (line) => {
        keep(line);
        process.stdout.write(line + '\n');
      });
    }
    const timeoutMs = spec.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
    const why = () => (last.length ? `; its last lines:\n  ${last.join('\n  ')}` : '; it wrote nothing');
    let readyTimer: NodeJS.Timeout | undefined;
    const ready = new Promise<void>((resolve, reject) => {
      const channel = child.stdio[READY_FD] as Readable | null;
      channel?.on('error', () => undefined);
      let own = false;
      if (channel) {
        createInterface({ input: channel }).on('line', (line) => {
          const r = parseReadyLine(line);
          if (!r) return;
          if (r.process !== undefined) return spec.onReadyLine?.(r);
          if (own) return;
          own = true;
          if (r.status_url) entry.statusUrl = r.status_url;
          if (r.xmlrpc_url) entry.xmlrpcUrl = r.xmlrpc_url;
          resolve();
        });
      }
      readyTimer = setTimeout(() => {
        reject(new ReadyTimeout(`${spec.name} (pid ${entry.pid ?? child.pid}) did not become ready within ${Math.round(timeoutMs / 1000)} s${why()}`));
      }, timeoutMs);
      child.once('exit', (code, signal) => {
        if (this.stopping) reject(new StartAborted(`${spec.name} stopped before it was ready`));
        else reject(new Error(`${spec.name} exited (${signal ?? `exit ${code}`}) before it was ready${why()}`));
      });
    }).finally(() => clearTimeout(readyTimer));
    child.once('exit', (code, signal) => {
      if (this.stopping) return;
      const upFor = Date.now() - entry.startedAt;
      const delay = upFor > 60_000 ? 1000 : Math.min(30_000, 1000 * 2 ** Math.min(entry.restarts, 5));
      this.say(`${spec.name} (pid ${entry.pid ?? child.pid}) died (${signal ?? `exit ${code}`}); restarting in ${delay} ms`);
      setTimeout(() => {
        if (!this.stopping) this.start(spec, entry.restarts + 1).then(this.onChange, (err: Error) => this.say(err.message));
      }, delay);
    });
    await ready;
    this.say(`${spec.name} ready (pid ${entry.pid ?? child.pid})`);
  }

  async stopAll(timeoutMs = 15_000): Promise<void> {
    this.stopping = true;
    for (const r of [...this.running].reverse()) {
      if (r.child.exitCode !== null || r.child.signalCode !== null) {
        this.say(`${r.spec.name} stopped (it had exited by itself: ${r.child.signalCode ?? `exit ${r.child.exitCode}`})`);
        continue;
      }
      const exited = new Promise((res) => r.child.once('exit', res));
      const signal = (sig: NodeJS.Signals) => {
        const pid = r.pid ?? r.child.pid;
        if (!pid) return;
        try {
          process.kill(pid, sig);
        } catch {
          // already gone
        }
      };
      signal('SIGTERM');
      const t = setTimeout(() => signal('SIGKILL'), r.spec.stopTimeoutMs ?? timeoutMs);
      await exited;
      clearTimeout(t);
      this.say(`${r.spec.name} stopped`);
    }
  }
}
