import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildFscmtNodeSchedulerMessage, type FscmtNodeSchedulerMessage } from '@esp/codecs';
import { crawlAddress, CrawlEndpoint } from '@esp/crawl-bus';
import type { Middleware } from '@esp/middleware';
import { ChildService, NatsServer } from '@esp/testing';

export interface CrawlClusterOptions {
  startUris: string[];
  nodes: number;
  delaySeconds: number;
  /** Start the feeding chain (name server, indexer, distributor, item processor) and feed crawled pages. */
  feed: boolean;
  collection?: string;
  /** The multinode scheduler keeps its state in <dir>/mns (--data), so it can be killed and restarted. */
  mnsData?: boolean;
  /** The node schedulers keep their state in <dir>/ns (--data), so they can be killed and restarted. */
  nodeData?: boolean;
  /** Keep-alive interval of the multinode and node schedulers (how soon a node notices a restarted scheduler). */
  keepaliveMs?: number;
  /**
   * The duplicate server dup1 gets a replica, dup1r (separate process), and the node schedulers are told of both
   * (--dup-replica) and take the primary for dead after this many ms without an answer (--dup-dead-ms).
   */
  dupReplicaDeadMs?: number;
  /** --dup-timeout-ms of the node schedulers (a PPDUP_ADD unanswered this long is sent again). */
  dupTimeoutMs?: number;
  /** Extra environment of the node scheduler processes (NODE_EXTRA_CA_CERTS for HTTPS test sites). */
  nodeEnv?: Record<string, string>;
  /** Each node scheduler archives what it reads in <dir>/warc-<node id> (--warc). */
  warc?: boolean;
}

/**
 * A whole crawl as separate processes on a real nats-server: the feeding chain (optional), a duplicate server, the
 * multinode scheduler with a generated XML crawl configuration, and N node schedulers.
 */
let clusterCount = 0;

export class CrawlCluster {
  readonly procs: ChildService[] = [];
  readonly nodes: ChildService[] = [];
  mns!: ChildService;
  dup!: ChildService;
  dupReplica: ChildService | undefined;
  configFile = '';
  /** The crawl cluster's name on NATS (--cluster of every process). */
  cluster = '';
  private constructor(
    readonly ns: NatsServer,
    readonly dir: string,
  ) {}

  static async start(opts: CrawlClusterOptions): Promise<CrawlCluster> {
    const ns = await NatsServer.start();
    const c = new CrawlCluster(ns, mkdtempSync(join(tmpdir(), 'esp-crawl-')));
    try {
      await c.launch(opts);
    } catch (err) {
      await c.stop();
      throw err;
    }
    return c;
  }

  private async svc(entry: string, args: string[], env: Record<string, string> = {}): Promise<ChildService> {
    const s = await ChildService.start({ entry, args: ['--nats', this.ns.url, ...args], startTimeoutMs: 60_000, env: { LOG_LEVEL: 'info', ...env } });
    this.procs.push(s);
    return s;
  }

  private async launch(opts: CrawlClusterOptions): Promise<void> {
    const collection = opts.collection ?? 'web';
    if (opts.feed) {
      await this.svc('apps/name-server/src/main.ts', []);
      await Promise.all([
        this.svc('apps/indexer/src/main.ts', ['--data', join(this.dir, 'index'), '--collections', collection]),
        this.svc('apps/content-distributor/src/main.ts', ['--collections', collection]),
        this.svc('apps/item-processor/src/main.ts', ['--name', 'ip-1', '--status-port', '0']),
      ]);
    }
    const config = join(this.dir, 'crawl.xml');
    this.configFile = config;
    writeFileSync(
      config,
      `<?xml version="1.0"?>
<CrawlerConfig>
  <DomainSpecification name="spare"><attrib name="delay" type="real">1</attrib></DomainSpecification>
  <DomainSpecification name="${collection}">
    <attrib name="start_uris" type="list-string">${opts.startUris.map((u) => `<member>${u}</member>`).join('')}</attrib>
    <attrib name="delay" type="real">${opts.delaySeconds}</attrib>
    <attrib name="robots" type="boolean">yes</attrib>
    <section name="crawlmode"><attrib name="mode" type="string">FULL</attrib></section>
    <section name="link_extraction"><attrib name="a" type="boolean">yes</attrib><attrib name="frame" type="boolean">yes</attrib></section>
  </DomainSpecification>
</CrawlerConfig>`,
    );
    // a cluster name of its own: processes of another test on the same machine can never join this crawl
    this.cluster = `crawl-${process.pid}-${++clusterCount}`;
    const common = ['--cluster', this.cluster];
    const keepalive = opts.keepaliveMs !== undefined ? ['--keepalive-ms', String(opts.keepaliveMs)] : [];
    const replica = opts.dupReplicaDeadMs !== undefined;
    if (replica) this.dupReplica = await this.svc('apps/duplicate-server/src/main.ts', [...common, '--id', 'dup1r', '--data', join(this.dir, 'dup1r')]);
    this.dup = await this.svc('apps/duplicate-server/src/main.ts', [...common, '--id', 'dup1', '--data', join(this.dir, 'dup1'), ...(replica ? ['--replica', 'dup1r'] : [])]);
    const dupArgs = [
      ...(replica ? ['--dup-replica', 'dup1r', '--dup-dead-ms', String(opts.dupReplicaDeadMs)] : []),
      ...(opts.dupTimeoutMs !== undefined ? ['--dup-timeout-ms', String(opts.dupTimeoutMs)] : []),
    ];
    this.mns = await this.svc('apps/multinode-scheduler/src/main.ts', [
      ...common,
      '--config',
      config,
      '--min-nodes',
      String(opts.nodes),
      ...keepalive,
      ...(opts.mnsData ? ['--data', join(this.dir, 'mns')] : []),
    ]);
    for (let i = 1; i <= opts.nodes; i++) {
      this.nodes.push(
        await this.svc(
          'apps/node-scheduler/src/main.ts',
          [
            ...common,
            ...['--id', `node${i}`, '--dup', 'dup1', '--ip-key', 'ip-port'],
            ...dupArgs,
            ...keepalive,
            ...(opts.feed ? [] : ['--no-feed']),
            ...(opts.warc ? ['--warc', this.warcDir(`node${i}`)] : []),
            ...(opts.nodeData ? ['--data', join(this.dir, 'ns')] : []),
          ],
          opts.nodeEnv,
        ),
      );
    }
  }

  /** Where node scheduler `nodeId` writes its WARC files (with `warc`). */
  warcDir(nodeId: string): string {
    return join(this.dir, `warc-${nodeId}`);
  }

  /**
   * Sends an administrative message to every node scheduler as the multinode scheduler would (from its address:
   * a node scheduler takes commands from nobody else), for commands the multinode scheduler has no trigger for here.
   */
  async toNodes(client: Middleware, msg: FscmtNodeSchedulerMessage): Promise<void> {
    const ep = await CrawlEndpoint.start(client.bus, { self: { cluster: this.cluster, role: 'mns', id: 'main' } });
    for (let i = 1; i <= this.nodes.length; i++) ep.send(crawlAddress({ cluster: this.cluster, role: 'ns', id: `node${i}` }), buildFscmtNodeSchedulerMessage(msg), 1);
    await ep.flush();
    await ep.stop();
  }

  /** Rewrites the crawl configuration and has the multinode scheduler reload it (SIGHUP). */
  reload(xml: string): void {
    writeFileSync(this.configFile, xml);
    this.mns.signal('SIGHUP');
  }

  async stop(): Promise<void> {
    await Promise.all(this.procs.map((p) => p.kill()));
    await this.ns.cleanup();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
