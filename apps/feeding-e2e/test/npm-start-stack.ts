import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { waitFor } from '@esp/testing';

const ROOT = new URL('../../../', import.meta.url).pathname;

/** One log line of a process of the stack: `[name] {json}` on the launcher's stderr. */
export interface StackLogLine {
  process: string;
  line: Record<string, unknown>;
}

/**
 * The stack of `npm start` as it runs: tools/launcher/src/main.ts with a home of its own, no crawl roles, its own
 * secured nats-server (TLS, one user per role), the node controller with the indexer, two content distributors and
 * two item processors. Options reach the processes through the environment (`ESP_SESSION_IDLE_MS`...), which the
 * launcher and the node controller pass on. `stop()` is Ctrl-C; `start()` again on the same home is a full restart.
 *
 *   const stack = await NpmStartStack.start(home, { ESP_SESSION_IDLE_MS: '15000' });
 *   const mw = await stack.connect('client');      // the identity of <home>/nats-auth/client.env
 *   await stack.stop();
 */
export class NpmStartStack {
  readonly logs: StackLogLine[] = [];
  private stderr = '';
  private readonly open: Middleware[] = [];

  private constructor(
    readonly home: string,
    private readonly proc: ChildProcess,
  ) {}

  static async start(home: string, env: Record<string, string> = {}): Promise<NpmStartStack> {
    const clean: NodeJS.ProcessEnv = { ...process.env, VITEST: '', ...env };
    for (const k of ['NATS_URL', 'NATS_USER', 'NATS_PASSWORD', 'NATS_TOKEN', 'NATS_NKEY', 'NATS_CREDS', 'NATS_CA', 'NATS_CERT', 'NATS_KEY']) delete clean[k];
    const proc = spawn(process.execPath, ['--import', 'tsx', 'tools/launcher/src/main.ts', '--home', home, '--crawl-nodes', '0'], {
      cwd: ROOT,
      env: clean,
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    const stack = new NpmStartStack(home, proc);
    let partial = '';
    proc.stderr?.on('data', (d: Buffer) => {
      const text = partial + d.toString();
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) stack.take(l);
    });
    try {
      await waitFor(() => stack.stderr.includes('Ctrl-C stops everything') || proc.exitCode !== null, { timeoutMs: 180_000, what: 'the stack of npm start ready' });
      if (proc.exitCode !== null) throw new Error(`the launcher exited with ${proc.exitCode}:\n${stack.stderr.slice(-5000)}`);
      // the item processors registered with the master: a feed can start
      await waitFor(() => new Set(stack.logs.filter((l) => l.line['msg'] === 'item processor registered with master').map((l) => l.line['procserver'])).size >= 2, {
        what: 'both item processors registered with the master',
        timeoutMs: 90_000,
      });
    } catch (err) {
      await stack.stop();
      throw err;
    }
    return stack;
  }

  private take(text: string): void {
    this.stderr = (this.stderr + text + '\n').slice(-400_000);
    const m = /^\[([^\]]+)\] (\{.*\})$/.exec(text);
    if (!m) return;
    try {
      this.logs.push({ process: m[1] as string, line: JSON.parse(m[2] as string) as Record<string, unknown> });
    } catch {
      // not a log line of ours
    }
  }

  /** The last lines of the launcher's stderr (for a failure's message). */
  tail(chars = 5000): string {
    return this.stderr.slice(-chars);
  }

  /** Log lines with this message, of processes whose name starts with `process` (all when undefined). */
  lines(msg: string | RegExp, process?: string): Record<string, unknown>[] {
    return this.logs.filter((l) => (process === undefined || l.process.startsWith(process)) && (typeof msg === 'string' ? l.line['msg'] === msg : msg.test(String(l.line['msg'])))).map((l) => l.line);
  }

  get natsUrl(): string {
    return (JSON.parse(readFileSync(join(this.home, 'stack.json'), 'utf8')) as { nats: string }).nats;
  }

  /** A connection with the identity the home gives a role (`client` or `admin`: `<home>/nats-auth/<role>.env`). */
  async connect(role: 'client' | 'admin', name: string = role): Promise<Middleware> {
    const env = Object.fromEntries(
      readFileSync(join(this.home, 'nats-auth', `${role}.env`), 'utf8')
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as const),
    );
    const mw = await Middleware.connect({
      name,
      servers: this.natsUrl,
      security: { user: env['NATS_USER'], password: env['NATS_PASSWORD'], tls: { caFile: env['NATS_CA'] } },
      logger: createLogger(name, {}, { level: 'warn' }),
      timeoutMs: 30_000,
    });
    this.open.push(mw);
    return mw;
  }

  /** Ctrl-C: the launcher stops everything in order. */
  async stop(): Promise<void> {
    await Promise.all(this.open.splice(0).map((m) => m.close().catch(() => undefined)));
    const pid = this.proc.pid;
    if (!pid || this.proc.exitCode !== null) return;
    const exited = new Promise((r) => this.proc.once('exit', r));
    process.kill(-pid, 'SIGINT');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 60_000))]);
    if (this.proc.exitCode === null && this.proc.signalCode === null) process.kill(-pid, 'SIGKILL');
  }
}
