import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeXmlRpcResponse, encodeXmlRpcRequest, type XmlRpcInput, type XmlRpcValue } from '@esp/codecs';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { ChildService, NatsServer } from '@esp/testing';

export interface ProcessRow {
  name: string;
  pid: number;
  ppid: number;
  state: string;
  restarts: number;
  uptime: number;
}

/**
 * The feeding chain with the item processors under a node controller: name server, config server, indexer and
 * content distributor as separate processes, and a node controller (registered with the config server as
 * NodeControl) that runs N item processors from a node profile. The test's own Middleware is the content client.
 */
export class NodeControllerChain {
  readonly procs: ChildService[] = [];
  distributor!: ChildService;
  nodeController!: ChildService;
  client!: Middleware;
  nodeControllerUrl = '';

  private constructor(
    readonly ns: NatsServer,
    private readonly dir: string,
  ) {}

  static async start(opts: { collection: string; processors: number; leaseSeconds: number; pipeline: unknown }): Promise<NodeControllerChain> {
    const ns = await NatsServer.start();
    const chain = new NodeControllerChain(ns, mkdtempSync(join(tmpdir(), 'esp-nc-chain-')));
    try {
      await chain.launch(opts);
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

  private async launch(o: { collection: string; processors: number; leaseSeconds: number; pipeline: unknown }): Promise<void> {
    const pipelineFile = join(this.dir, 'pipeline.json');
    writeFileSync(pipelineFile, JSON.stringify(o.pipeline));
    await this.svc('apps/name-server/src/main.ts', []);
    const [cfg, , distributor] = await Promise.all([
      this.svc('apps/config-server/src/main.ts', ['--port', '0', '--listen', '127.0.0.1']),
      this.svc('apps/indexer/src/main.ts', ['--data', join(this.dir, 'index'), '--collections', o.collection]),
      this.svc('apps/content-distributor/src/main.ts', ['--collections', o.collection, '--lease-seconds', String(o.leaseSeconds)]),
    ]);
    this.distributor = distributor;
    const cfgUrl = String(cfg.logs.find((l) => l['msg'] === 'ready')?.['xmlrpc_url']);
    const profile = {
      processes: [
        {
          name: 'item-processor',
          entry: 'apps/item-processor/src/main.ts',
          instances: o.processors,
          args: ['--nats', this.ns.url, '--name', '{name}', '--status-port', '0', '--pipeline-config', pipelineFile],
        },
      ],
    };
    writeFileSync(join(this.dir, 'node.json'), JSON.stringify(profile));
    this.nodeController = await ChildService.start({
      entry: 'apps/node-controller/src/main.ts',
      args: ['--profile', join(this.dir, 'node.json'), '--port', '0', '--listen', '127.0.0.1', '--config-server', cfgUrl, '--restart-delay-ms', '100', '--stop-timeout-ms', '2000'],
      startTimeoutMs: 60_000,
    });
    this.procs.push(this.nodeController);
    this.nodeControllerUrl = String(this.nodeController.logs.find((l) => l['msg'] === 'ready')?.['xmlrpc_url']);
    this.client = await Middleware.connect({ name: 'e2e-client', servers: this.ns.url, logger: createLogger('e2e-client', {}, { level: 'warn' }) });
  }

  async nodeControl(method: string, params: XmlRpcInput[] = []): Promise<XmlRpcValue> {
    const res = await fetch(this.nodeControllerUrl, { method: 'POST', body: encodeXmlRpcRequest(method, params) });
    const reply = decodeXmlRpcResponse(new Uint8Array(await res.arrayBuffer()));
    if (reply.kind === 'fault') throw reply.fault;
    return reply.value;
  }

  async processes(): Promise<ProcessRow[]> {
    return (await this.nodeControl('GetProcessList')) as unknown as ProcessRow[];
  }

  async stop(): Promise<void> {
    await this.client?.close().catch(() => undefined);
    await Promise.all([...this.procs].reverse().map((p) => p.kill()));
    await this.ns.cleanup();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
