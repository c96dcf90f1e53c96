import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
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
 * Starts apps as child processes, forwards their log lines, waits for their "ready" line, restarts one that dies
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
    // own process group (detached): a Ctrl-C in the terminal reaches the launcher only, which stops the processes in
    // order; the guard kills the app if the launcher dies, even by SIGKILL
    const child = spawn('/bin/sh', ['-c', GUARD, process.execPath, ...entryNodeArgs(spec.entry), ...(spec.args ?? [])], {
      env: { ...process.env, LOG_FORMAT: 'json', ...spec.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    child.stdin?.on('error', () => undefined);
    const entry: Running = { spec, child, restarts, startedAt: Date.now() };
    const existing = this.running.findIndex((r) => r.spec.name === spec.name);
    if (existing >= 0) this.running[existing] = entry;
    else this.running.push(entry);
    if (child.stderr) {
      createInterface({ input: child.stderr }).on('line', (line) => {
        const guard = entry.pid === undefined ? /^guard-pid (\d+)$/.exec(line) : null;
        if (guard) {
          entry.pid = Number(guard[1]);
          return;
        }
        process.stderr.write(line + '\n');
        spec.onStderrLine?.(line);
      });
    }
    const ready = new Promise<void>((resolve, reject) => {
      if (!child.stdout) throw new Error('no stdout');
      createInterface({ input: child.stdout }).on('line', (line) => {
        process.stdout.write(line + '\n');
        if (line.includes('"msg":"ready"')) {
          const url = /"status_url":"([^"]+)"/.exec(line)?.[1];
          if (url) entry.statusUrl = url;
          const xmlrpc = /"xmlrpc_url":"([^"]+)"/.exec(line)?.[1];
          if (xmlrpc) entry.xmlrpcUrl = xmlrpc;
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`${spec.name} exited with ${code} before it was ready`)));
    });
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
