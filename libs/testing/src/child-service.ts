import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { spawnGuarded, type GuardedProcess } from './process-guard';

const WORKSPACE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface ChildServiceOptions {
  /** Entry file relative to the workspace root, e.g. apps/name-server/src/main.ts */
  entry: string;
  args?: string[];
  env?: Record<string, string>;
  /** A log line (JSON) for which this returns true means the service is ready. Default: msg === 'ready'. */
  ready?: (line: Record<string, unknown>) => boolean;
  startTimeoutMs?: number;
  /** Every stderr line (a node controller writes its processes' log lines there, each prefixed with [name]). */
  onStderrLine?: (line: string) => void;
}

/**
 * An app of this workspace as a separate OS process (node + tsx), for tests that kill, pause and restart services.
 * Its JSON log lines are kept (tests assert on what a service said) and the process never outlives the test run.
 */
export class ChildService {
  readonly logs: Record<string, unknown>[] = [];
  private proc: GuardedProcess | undefined;
  private realPid = 0;
  private stderr = '';

  private constructor(private readonly opts: ChildServiceOptions) {}

  static async start(opts: ChildServiceOptions): Promise<ChildService> {
    const svc = new ChildService(opts);
    await svc.launch();
    return svc;
  }

  get pid(): number {
    return this.realPid;
  }
  get running(): boolean {
    return this.proc !== undefined;
  }

  private async launch(): Promise<void> {
    const o = this.opts;
    // ESP_CHILD_NODE_ARGS: extra node flags for every child (for example --cpu-prof when profiling a benchmark)
    const nodeArgs = (process.env['ESP_CHILD_NODE_ARGS'] ?? '').split(' ').filter(Boolean);
    const proc = spawnGuarded(process.execPath, [...nodeArgs, '--import', 'tsx', o.entry, ...(o.args ?? [])], {
      cwd: WORKSPACE_ROOT,
      env: { ...process.env, LOG_FORMAT: 'json', LOG_LEVEL: process.env['ESP_CHILD_LOG_LEVEL'] ?? 'debug', VITEST: '', ...o.env },
    });
    this.proc = proc;
    this.realPid = await proc.pid;
    proc.child.stderr?.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-8000);
    });
    const onStderrLine = o.onStderrLine;
    const stderr = proc.child.stderr;
    if (onStderrLine && stderr) createInterface({ input: stderr }).on('line', onStderrLine);
    const isReady = o.ready ?? ((l) => l['msg'] === 'ready');
    const ready = new Promise<void>((resolve, reject) => {
      const stdout = proc.child.stdout;
      if (!stdout) throw new Error("child has no stdout");
      const rl = createInterface({ input: stdout });
      rl.on('line', (line) => {
        let parsed: Record<string, unknown>;
        try {
          parsed = JSON.parse(line) as Record<string, unknown>;
        } catch {
          parsed = { msg: line };
        }
        this.logs.push(parsed);
        if (this.logs.length > 10_000) this.logs.splice(0, 5_000);
        if (isReady(parsed)) resolve();
      });
      void proc.exited.then((code) => reject(new Error(`${o.entry} exited with ${code} before it was ready: ${this.stderr.trim()}`)));
    });
    void proc.exited.then(() => {
      if (this.proc === proc) this.proc = undefined;
    });
    const timeout = o.startTimeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${o.entry} not ready within ${timeout} ms: ${this.stderr.trim()}`)), timeout);
    });
    try {
      await Promise.race([ready, timedOut]);
    } catch (err) {
      await this.kill();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  signal(sig: NodeJS.Signals): void {
    if (this.proc && this.realPid) process.kill(this.realPid, sig);
  }

  /** SIGTERM and wait (SIGKILL after timeoutMs). Returns the exit status. */
  async stop(timeoutMs = 10_000): Promise<number | undefined> {
    const proc = this.proc;
    if (!proc) return undefined;
    this.signal('SIGCONT');
    this.signal('SIGTERM');
    const t = setTimeout(() => this.signal('SIGKILL'), timeoutMs);
    const code = await proc.exited;
    clearTimeout(t);
    proc.release();
    return code;
  }

  /** SIGKILL: no cleanup, no goodbye. */
  async kill(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    this.signal('SIGCONT');
    this.signal('SIGKILL');
    await proc.exited;
    proc.release();
  }

  async restart(): Promise<void> {
    await this.kill();
    await this.launch();
  }
}
