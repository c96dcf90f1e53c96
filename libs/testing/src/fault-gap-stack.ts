import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { decodeXmlRpcResponse, encodeXmlRpcRequest } from '@esp/codecs';
import { ChildService } from './child-service';
import type { RigLogLine } from './fault-gap';
import { NatsServer } from './nats-server';
import { waitFor } from './wait-for';

/**
 * The stack of `npm start` for the fault-gap rig (fault-gap-rig.ts): name server, config server, and a node
 * controller running the indexer, two content distributors and two item processors, on a real nats-server; the log
 * lines of every process; and the faults.
 */

export const FAULTS = ['nats-restart', 'kill-processor', 'kill-indexer', 'kill-master'] as const;
export type Fault = (typeof FAULTS)[number];

/** What a fault may cost a content client at most: the longest time without a final status. */
export const FAULT_GAP_GOALS_MS: Readonly<Record<Fault, number>> = { 'nats-restart': 5000, 'kill-processor': 4000, 'kill-indexer': 5000, 'kill-master': 3000 };

/** How long nats-server stays down in the nats-restart fault. */
export const NATS_DOWN_MS = 2000;

export interface StackProcess {
  name: string;
  pid: number;
  state: string;
  restarts: number;
}


const DEFAULT_PIPELINES = { pipelines: { default: ['detect', 'charset', 'pdf', 'docx', 'utf8', 'xml', 'html', 'title', 'normalize'].map((type) => ({ type })) }, default_pipeline: 'default' };
const WORTH_SHOWING = /ready|master|backup|regist|dead|restart|reconnect|disconnect|lost|takeover|failover|timed? ?out|died|started|gone|resolve/i;

const parseLine = (process: string, text: string): RigLogLine | undefined => {
  if (!text.startsWith('{')) return undefined;
  try {
    const line = JSON.parse(text) as Record<string, unknown>;
    const t = line['time'];
    return { process, time: typeof t === 'number' ? t : Date.parse(String(t)), level: Number(line['level'] ?? 30), msg: String(line['msg'] ?? ''), line };
  } catch {
    return undefined;
  }
};

export class FaultGapStack {
  readonly logs: RigLogLine[] = [];
  private readonly procs: { name: string; svc: ChildService }[] = [];
  private nodeControllerUrl = '';

  private constructor(
    readonly ns: NatsServer,
    private readonly dir: string,
    readonly collection: string,
  ) {}

  /** Everything started and every process of the node controller ready. */
  static async start(opts: { collection?: string } = {}): Promise<FaultGapStack> {
    const stack = new FaultGapStack(await NatsServer.start(), mkdtempSync(join(tmpdir(), 'esp-fault-gap-')), opts.collection ?? 'gap');
    try {
      await stack.launch();
    } catch (err) {
      await stack.stop();
      throw err;
    }
    return stack;
  }

  private keep(l: RigLogLine | undefined): void {
    if (!l) return;
    this.logs.push(l);
    if (this.logs.length > 200_000) this.logs.splice(0, 100_000);
  }

  private async svc(name: string, entry: string, args: string[]): Promise<ChildService> {
    const s = await ChildService.start({
      entry,
      args,
      // info, as npm start runs them (debug lines per batch would be load of their own); the node controller's
      // processes inherit it and their lines come on its stderr, each as "[name] {json}"
      env: { LOG_LEVEL: 'info' },
      startTimeoutMs: 90_000,
      onStderrLine: (text) => {
        const [, process, json] = /^\[([^\]]+)\] (.*)$/.exec(text) ?? [];
        if (process && json) this.keep(parseLine(process, json));
      },
    });
    this.procs.push({ name, svc: s });
    return s;
  }

  private async launch(): Promise<void> {
    const config = join(this.dir, 'config');
    mkdirSync(join(config, 'DocumentProcessor'), { recursive: true });
    writeFileSync(join(config, 'collections.json'), JSON.stringify({ collections: [{ name: this.collection, pipeline: 'default' }] }));
    writeFileSync(join(config, 'DocumentProcessor', 'pipelines.json'), JSON.stringify(DEFAULT_PIPELINES));
    const nats = ['--nats', this.ns.url, '--wait'];
    await this.svc('name-server', 'apps/name-server/src/main.ts', nats);
    const cfg = await this.svc('config-server', 'apps/config-server/src/main.ts', [...nats, '--port', '0', '--listen', '127.0.0.1', '--config-dir', config]);
    const cfgUrl = String(cfg.logs.find((l) => l['msg'] === 'ready')?.['xmlrpc_url']);
    // tools/launcher/profiles/default.json without the crawl roles
    const profile = {
      node: 'node-1',
      processes: [
        { name: 'indexer', entry: 'apps/indexer/src/main.ts', args: [...nats, '--data', join(this.dir, 'indexer'), '--collections', this.collection, '--config-service'] },
        { name: 'content-distributor', entry: 'apps/content-distributor/src/main.ts', instances: 2, args: [...nats, '--node-id', '{instance}', '--config-service'] },
        // debug: their "batch accepted" and "batch processed" lines tell which one holds a batch (two lines a batch)
        { name: 'item-processor', entry: 'apps/item-processor/src/main.ts', instances: 2, args: [...nats, '--name', '{name}', '--status-port', '0', '--config-server', cfgUrl], env: { LOG_LEVEL: 'debug' } },
      ],
    };
    writeFileSync(join(this.dir, 'node.json'), JSON.stringify(profile));
    const nc = await this.svc('node-controller', 'apps/node-controller/src/main.ts', ['--profile', join(this.dir, 'node.json'), '--port', '0', '--listen', '127.0.0.1', '--config-server', cfgUrl]);
    this.nodeControllerUrl = String(nc.logs.find((l) => l['msg'] === 'ready')?.['xmlrpc_url']);
    await this.waitRunning(120_000);
    // the item processors have registered with the master (its log says so), so a feed can start
    await waitFor(() => new Set(this.logs.filter((l) => l.msg === 'item processor registered with master').map((l) => l.line['procserver'])).size >= 2, {
      what: 'both item processors registered with the master',
      timeoutMs: 60_000,
    });
  }

  /** GetProcessList of the node controller. */
  async processes(): Promise<StackProcess[]> {
    const res = await fetch(this.nodeControllerUrl, { method: 'POST', body: encodeXmlRpcRequest('GetProcessList', []) });
    const reply = decodeXmlRpcResponse(new Uint8Array(await res.arrayBuffer()));
    if (reply.kind === 'fault') throw reply.fault;
    return reply.value as unknown as StackProcess[];
  }

  async waitRunning(timeoutMs: number): Promise<StackProcess[]> {
    return waitFor(async () => {
      const rows = await this.processes();
      return rows.length > 0 && rows.every((r) => r.state === 'running') ? rows : undefined;
    }, { what: 'every process of the node controller running', timeoutMs, intervalMs: 100 });
  }

  /** The content distributor that last said it is master. */
  master(): string | undefined {
    return this.logs.findLast((l) => l.msg === 'content distributor is master')?.process;
  }

  /**
   * Injects the fault now. `at` is when it hit (the kill, or nats-server's stop); `done` resolves once the stack
   * is whole again (nats-server back, the victim restarted by the node controller and ready).
   */
  async inject(fault: Fault): Promise<{ at: number; victim: string | undefined; done: Promise<void> }> {
    if (fault === 'nats-restart') {
      const at = Date.now();
      return { at, victim: undefined, done: this.ns.restart({ downMs: NATS_DOWN_MS }) };
    }
    const victim = fault === 'kill-processor' ? await this.processorWithBatch() : fault === 'kill-indexer' ? 'indexer' : this.master();
    const row = (await this.processes()).find((p) => p.name === victim);
    if (!victim || !row?.pid) throw new Error(`${fault}: no running process to kill (${victim ?? 'no master known'})`);
    process.kill(row.pid, 'SIGKILL');
    const at = Date.now();
    const done = waitFor(async () => (await this.processes()).some((p) => p.name === victim && p.pid !== row.pid && p.state === 'running' && p.restarts === row.restarts + 1), {
      what: `${victim} restarted by the node controller`,
      timeoutMs: 90_000,
      intervalMs: 50,
    }).then(() => undefined);
    return { at, victim, done };
  }

  /** Each item processor's content distributor now (the dispatcher id it last registered with). */
  registrations(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const l of this.logs) if (l.msg === 'registered with the content distributor') out[l.process] = Number(l.line['dispatcher_id']);
    return out;
  }

  /** The operations of the batch this item processor accepted last and has not processed yet, if any. */
  batchHeldBy(name: string): { first: number; last: number } | undefined {
    let processed: unknown;
    for (let i = this.logs.length - 1; i >= 0; i--) {
      const l = this.logs[i];
      if (l?.process !== name) continue;
      if (l.msg === 'batch processed' && processed === undefined) processed = l.line['first'];
      if (l.msg === 'batch accepted') return l.line['first'] === processed ? undefined : { first: Number(l.line['first']), last: Number(l.line['last']) };
    }
    return undefined;
  }

  /**
   * An item processor that holds a batch (the usual case under load, and the one that costs: the batch must go
   * elsewhere); item-processor-1 when none does within 10 s.
   */
  private async processorWithBatch(): Promise<string> {
    const names = ['item-processor-1', 'item-processor-2'];
    const holder = await waitFor(() => names.find((n) => this.batchHeldBy(n)), { what: 'an item processor holding a batch', timeoutMs: 10_000, intervalMs: 5 }).catch(() => undefined);
    return holder ?? 'item-processor-1';
  }

  /** Log lines worth reading to see where the time of a gap went: warnings and errors, and role, registration and restart news. */
  timeline(from: number, to: number): RigLogLine[] {
    // the lines of the processes started here (the node controller's own: died, restarting, started, ready)
    const own = this.procs.flatMap((p) => p.svc.logs.map((l) => parseLine(p.name, JSON.stringify(l))).filter((l) => l !== undefined));
    return [...this.logs, ...own].filter((l) => l.time >= from && l.time <= to && (l.level >= 40 || WORTH_SHOWING.test(l.msg))).sort((a, b) => a.time - b.time);
  }

  /** A stream for the content client's JSON log lines (they join the timeline as process "client"). */
  clientLogSink(): Writable {
    let rest = '';
    return new Writable({
      write: (chunk: Buffer, _enc, cb) => {
        const lines = (rest + chunk.toString()).split('\n');
        rest = lines.pop() ?? '';
        for (const text of lines) this.keep(parseLine('client', text));
        cb();
      },
    });
  }

  async stop(): Promise<void> {
    await Promise.all([...this.procs].reverse().map((p) => p.svc.kill()));
    await this.ns.cleanup();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

