import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { ChildService, NatsServer } from '@esp/testing';

export interface ChainOptions {
  collections: string[];
  processors: number;
  leaseSeconds?: number;
  /** the distributor's PPP liveness (missed heartbeat intervals before a processor is declared dead; default 3). */
  liveness?: number;
  /** the distributor's --gone-probe (default on) */
  goneProbe?: boolean;
  /** item-processor pipeline configuration (written to a file). */
  pipeline?: unknown;
  /** more arguments of every item processor */
  processorArgs?: string[];
}

/**
 * The whole feeding chain as separate processes on a real nats-server: name server, indexer, one content
 * distributor, N item processors. The test's own Middleware is the content client.
 */
export class Chain {
  readonly procs: ChildService[] = [];
  processors: ChildService[] = [];
  distributor!: ChildService;
  indexer!: ChildService;
  client!: Middleware;
  private constructor(
    readonly ns: NatsServer,
    private readonly dir: string,
    private readonly opts: ChainOptions,
  ) {}

  static async start(opts: ChainOptions): Promise<Chain> {
    const ns = await NatsServer.start();
    const dir = mkdtempSync(join(tmpdir(), 'esp-chain-'));
    const chain = new Chain(ns, dir, opts);
    try {
      await chain.launch();
    } catch (err) {
      await chain.stop();
      throw err;
    }
    return chain;
  }

  private async svc(entry: string, args: string[]): Promise<ChildService> {
    const s = await ChildService.start({ entry, args: ['--nats', this.ns.url, ...args], startTimeoutMs: 60_000 });
    this.procs.push(s);
    return s;
  }

  private async launch(): Promise<void> {
    const collections = this.opts.collections.join(',');
    const pipelineFile = join(this.dir, 'pipeline.json');
    writeFileSync(pipelineFile, JSON.stringify(this.opts.pipeline ?? { pipelines: { standard: [{ type: 'utf8' }, { type: 'xml' }, { type: 'html' }, { type: 'normalize' }] }, default_pipeline: 'standard' }));
    await this.svc('apps/name-server/src/main.ts', []);
    // the rest start side by side: each waits for what it needs through the name server
    const [indexer, distributor] = await Promise.all([
      this.svc('apps/indexer/src/main.ts', ['--data', join(this.dir, 'index'), '--collections', collections]),
      this.svc('apps/content-distributor/src/main.ts', ['--collections', collections, '--lease-seconds', String(this.opts.leaseSeconds ?? 300), '--liveness', String(this.opts.liveness ?? 3), '--gone-probe', this.opts.goneProbe === false ? 'off' : 'on']),
    ]);
    this.indexer = indexer;
    this.distributor = distributor;
    this.processors = await Promise.all(
      Array.from({ length: this.opts.processors }, (_, i) => this.svc('apps/item-processor/src/main.ts', ['--name', `ip-${i + 1}`, '--status-port', '0', '--pipeline-config', pipelineFile, ...(this.opts.processorArgs ?? [])])),
    );
    this.client = await Middleware.connect({ name: 'e2e-client', servers: this.ns.url, logger: createLogger('e2e-client', {}, { level: 'warn' }) });
  }

  /** The item processor that logged accepting a batch containing this operation id of this session. */
  holderOf(sessionId: number, opId: number): ChildService | undefined {
    return this.processors.find((p) =>
      p.logs.some((l) => l['msg'] === 'batch accepted' && l['session_id'] === sessionId && (l['first'] as number) <= opId && (l['last'] as number) >= opId),
    );
  }

  async stop(): Promise<void> {
    await this.client?.close().catch(() => undefined);
    await Promise.all(this.procs.map((p) => p.kill()));
    await this.ns.cleanup();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
