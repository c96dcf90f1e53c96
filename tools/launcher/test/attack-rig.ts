/**
 * The stack an attacker meets: a nats-server with the generated least-privilege configuration (SecuredBus), the
 * name server, indexer, content distributor and config server as processes with their own identities, and a node
 * controller that runs the item processor, every one of them holding the admin secret. The attacker holds the feed
 * identity (`client`) and not the secret.
 *
 *   const rig = await AttackRig.start();
 *   ...attack...
 *   const { ms } = await rig.feedBatch('after-rebind');   // 200 documents, each completed once and searchable
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FeedingClient, type FeedDocument } from '@esp/content-client';
import { INDEX_SEARCH_NAME, searchInterface } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import type { Middleware } from '@esp/middleware';
import { ChildService, reservePorts, waitFor } from '@esp/testing';
import { xmlRpcCall } from '@esp/xmlrpc-http';
import { expect } from 'vitest';
import type { BusRole } from '../src/bus/bus-roles';
import { setUpJetStream } from '../src/bus/jetstream-setup';
import { SecuredBus } from './secured-bus';

const log = createLogger('attack-rig', {}, { level: 'warn' });
export const COLLECTION = 'attacked';
/** The item processor's name, as the node controller knows it (its profile name: one instance). */
export const IP_NAME = 'item-processor';

export interface ProcessRow {
  name: string;
  pid: number;
  state: string;
  restarts: number;
}

export interface RigOptions {
  /** The content bucket's bound (default: the stack's, 2 GiB). */
  contentMaxBytes?: number;
  /** The distributor's Lease Timeout (default 300 s) and gone probe (default on). */
  leaseSeconds?: number;
  goneProbe?: boolean;
  /** The node controller registers with the config server, where a Lease Timeout finds it (default false). */
  registerNodeController?: boolean;
}

export class AttackRig {
  readonly procs: Record<'nameServer' | 'indexer' | 'distributor' | 'configServer' | 'nodeController', ChildService>;
  /** The attacker's connection: the feed identity, as every feed client holds it. */
  client!: Middleware;
  configUrl = '';
  nodeControlUrl = '';
  statusUrl = '';
  /** Documents fed and completed so far: the index must hold exactly these. */
  private fed = 0;

  private constructor(
    readonly bus: SecuredBus,
    readonly dir: string,
    readonly secret: string,
  ) {
    this.procs = {} as AttackRig['procs'];
  }

  get secretFile(): string {
    return join(this.dir, 'admin-secret');
  }

  static async start(opts: RigOptions = {}): Promise<AttackRig> {
    const bus = await SecuredBus.start();
    const dir = mkdtempSync(join(tmpdir(), 'esp-attacks-'));
    const rig = new AttackRig(bus, dir, randomBytes(24).toString('base64url'));
    try {
      // as npm start does before any role: the stack's streams, made by admin (no other role may)
      await setUpJetStream({ url: bus.url, identity: bus.env('admin'), ...(opts.contentMaxBytes ? { contentMaxBytes: opts.contentMaxBytes } : {}), say: () => undefined });
      await rig.launch(opts);
    } catch (err) {
      await rig.stop();
      throw err;
    }
    return rig;
  }

  private async svc(role: BusRole, entry: string, args: string[], env: Record<string, string> = {}): Promise<ChildService> {
    return ChildService.start({ entry, args: ['--nats', this.bus.url, ...args], env: { ...this.bus.env(role), ESP_ADMIN_SECRET_FILE: this.secretFile, ...env }, startTimeoutMs: 60_000 });
  }

  private async launch(opts: RigOptions): Promise<void> {
    const { dir, bus } = this;
    writeFileSync(this.secretFile, this.secret, { mode: 0o600 });
    const pipeline = join(dir, 'pipeline.json');
    writeFileSync(pipeline, JSON.stringify({ pipelines: { standard: [{ type: 'utf8' }, { type: 'normalize' }] }, default_pipeline: 'standard' }));
    this.procs.nameServer = await this.svc('name-server', 'apps/name-server/src/main.ts', []);
    const [indexer, distributor, configServer] = await Promise.all([
      this.svc('indexer', 'apps/indexer/src/main.ts', ['--data', join(dir, 'index'), '--collections', COLLECTION]),
      this.svc('content-distributor', 'apps/content-distributor/src/main.ts', ['--collections', COLLECTION, '--lease-seconds', String(opts.leaseSeconds ?? 300), ...(opts.goneProbe === false ? ['--gone-probe', 'off'] : [])]),
      this.svc('config-server', 'apps/config-server/src/main.ts', ['--port', '0']),
    ]);
    Object.assign(this.procs, { indexer, distributor, configServer });
    this.configUrl = String(configServer.logs.find((l) => l['msg'] === 'ready')?.['xmlrpc_url']);

    // the node controller does not connect to NATS: it runs the item processor with the processor's identity
    const [statusPort] = await reservePorts(1);
    this.statusUrl = `http://127.0.0.1:${statusPort}/RPC2`;
    const profile = join(dir, 'node.json');
    const ipArgs = ['--nats', bus.url, '--name', '{name}', '--status-port', String(statusPort), '--pipeline-config', pipeline];
    writeFileSync(profile, JSON.stringify({ node: 'attacked-node', processes: [{ name: 'item-processor', entry: 'apps/item-processor/src/main.ts', args: ipArgs, env: bus.env('item-processor') }] }), { mode: 0o600 });
    this.procs.nodeController = await ChildService.start({ entry: 'apps/node-controller/src/main.ts', args: ['--profile', profile, '--port', '0', ...(opts.registerNodeController ? ['--config-server', this.configUrl, '--restart-delay-ms', '100', '--stop-timeout-ms', '2000'] : [])], env: { ESP_ADMIN_SECRET_FILE: this.secretFile } });
    this.nodeControlUrl = String(this.procs.nodeController.logs.find((l) => l['msg'] === 'ready')?.['xmlrpc_url']);
    await waitFor(() => distributor.logs.some((l) => l['msg'] === 'item processor registered'), { timeoutMs: 60_000, what: 'the item processor registered' });
    this.client = await bus.connect('client', { timeoutMs: 30_000 });
  }

  /** Documents a test fed and saw completed on its own: the index holds them too. */
  countFed(n: number): void {
    this.fed += n;
  }

  /** The node controller's view of the item processor (pid, state, restarts). */
  async itemProcessor(): Promise<ProcessRow> {
    const rows = (await xmlRpcCall(this.nodeControlUrl, 'GetProcessList', [], { secret: this.secret })) as unknown as ProcessRow[];
    const row = rows.find((r) => r.name === IP_NAME);
    if (!row) throw new Error(`${IP_NAME} is not in the node controller's list: ${JSON.stringify(rows)}`);
    return row;
  }

  /**
   * Feeds `n` documents through a new feeding session as the feed identity and waits for all of them. Checks that
   * each has exactly one final status, completed, and that the index holds every document fed so far, these found
   * by their marker. Returns the time from the call (the attack's end) to the last document searchable.
   */
  async feedBatch(label: string, n = 200): Promise<{ ms: number }> {
    const t0 = performance.now();
    const finals = new Map<string, number>();
    const feeder = await FeedingClient.open({ mw: this.client, collection: COLLECTION, log, onOutcome: (id) => finals.set(id, (finals.get(id) ?? 0) + 1) });
    try {
      const marker = `mark${label.replace(/[^a-z0-9]/gi, '')}x`;
      for (let i = 0; i < n; i++) await feeder.feed(doc(label, marker, i));
      const { unfinished, stats, outcomes } = await feeder.drain(30_000);
      expect(unfinished, label).toEqual([]);
      expect(stats, label).toMatchObject({ completed: n, failed: 0, lost: 0, duplicateFinals: 0 });
      expect([...outcomes.values()].every((o) => o.kind === 'completed'), label).toBe(true);
      expect(finals.size, label).toBe(n);
      expect([...finals.values()].every((c) => c === 1), label).toBe(true);
      this.fed += n;
      const { proxy: search } = await this.client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
      expect(await search.count(COLLECTION), label).toBe(this.fed);
      expect((await search.search(COLLECTION, marker, 1, 0)).total, label).toBe(n);
    } finally {
      await feeder.close();
    }
    return { ms: Math.round(performance.now() - t0) };
  }

  async stop(): Promise<void> {
    await Promise.all(Object.values(this.procs).map((p) => p.kill()));
    await this.bus.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function doc(label: string, marker: string, i: number): FeedDocument {
  return { id: `${label}-${i}`, attributes: { title: `${label} ${i}`, body: `${marker} words of document ${i} after ${label}`, content_type: 'text/plain' } };
}
