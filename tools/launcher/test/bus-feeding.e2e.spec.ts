/**
 * The permissions are enough, not only restrictive: the real name server, content distributor, item processor and
 * indexer run as processes, each with its own role's credentials from the environment, on a nats-server with the
 * generated configuration, and a client with the feed identity feeds (a large document through the claim check
 * too), gets every callback and searches. Meanwhile it can neither read what travels nor take a dispatcher name.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FeedingClient, type FeedDocument } from '@esp/content-client';
import { DISPATCHER_NAME, INDEX_SEARCH_NAME, searchInterface } from '@esp/interfaces';
import { createLogger } from '@esp/logging';
import type { Middleware } from '@esp/middleware';
import { ChildService } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusRole } from '../src/bus/bus-roles';
import { setUpJetStream } from '../src/bus/jetstream-setup';
import { permissionDenied, trySubscribe } from './bus-probes';
import { SecuredBus } from './secured-bus';

const log = createLogger('e2e', {}, { level: 'warn' });

function doc(i: number, bytes = 0): FeedDocument {
  const filler = bytes > 0 ? ' lorem'.repeat(Math.ceil(bytes / 6)) : '';
  return { id: `doc-${i}`, attributes: { title: `Document ${i}`, body: `secret${i}x words of document ${i}${filler}`, content_type: 'text/plain' } };
}

describe('the feeding chain on the least-privilege bus (processes with their own identities)', () => {
  let bus: SecuredBus;
  let dir: string;
  const procs: ChildService[] = [];
  let client: Middleware;

  const svc = async (role: BusRole, entry: string, args: string[]): Promise<void> => {
    procs.push(await ChildService.start({ entry, args: ['--nats', bus.url, ...args], env: bus.env(role), startTimeoutMs: 60_000 }));
  };

  beforeAll(async () => {
    bus = await SecuredBus.start();
    // as npm start does before any role: the stack's streams, made by admin (no other role may)
    await setUpJetStream({ url: bus.url, identity: bus.env('admin'), say: () => undefined });
    dir = mkdtempSync(join(tmpdir(), 'esp-bus-chain-'));
    const pipeline = join(dir, 'pipeline.json');
    writeFileSync(pipeline, JSON.stringify({ pipelines: { standard: [{ type: 'utf8' }, { type: 'normalize' }] }, default_pipeline: 'standard' }));
    await svc('name-server', 'apps/name-server/src/main.ts', []);
    await Promise.all([
      svc('indexer', 'apps/indexer/src/main.ts', ['--data', join(dir, 'index'), '--collections', 'e2e']),
      svc('content-distributor', 'apps/content-distributor/src/main.ts', ['--collections', 'e2e', '--lease-seconds', '300']),
    ]);
    // an item processor's user is its name: it serves its own processor_server objects only
    procs.push(await ChildService.start({ entry: 'apps/item-processor/src/main.ts', args: ['--nats', bus.url, '--name', 'item-processor-1', '--status-port', '0', '--pipeline-config', pipeline], env: bus.processorEnv('item-processor-1'), startTimeoutMs: 60_000 }));
    client = await bus.connect('client', { timeoutMs: 30_000 });
  }, 180_000);
  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill()));
    await bus?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a feed client opens a session, feeds (one document through the claim check), gets every callback and finds them', async () => {
    const feeder = await FeedingClient.open({ mw: client, collection: 'e2e', log });
    const N = 50;
    for (let i = 0; i < N; i++) await feeder.feed(doc(i, i === 7 ? 600 * 1024 : 0));
    const { unfinished, stats } = await feeder.drain(60_000);
    expect(unfinished).toEqual([]);
    expect(stats).toMatchObject({ completed: N, failed: 0, lost: 0 });
    const { proxy: search } = await client.names.resolveProxy(searchInterface, INDEX_SEARCH_NAME);
    expect(await search.count('e2e')).toBe(N);
    expect((await search.search('e2e', 'secret7x', 5, 0)).hits.map((h) => h.id)).toEqual(['doc-7']);
    await feeder.close();
  }, 120_000);

  it('meanwhile the feed identity reads no document in transit and takes no dispatcher name', async () => {
    for (const subject of ['>', 'esp.obj.processing::session.>', 'esp.obj.processing::processor_server.>', 'esp.obj.coreprocessing::session.>', '_INBOX.>', 'esp.ns.rpc']) {
      expect(await trySubscribe(client, subject), subject).toBe('denied');
    }
    const b = await client.names.resolve(DISPATCHER_NAME, 'processing::session_factory', '5.1');
    await expect(client.names.unbind(DISPATCHER_NAME, 'processing::session_factory', null)).rejects.toThrow(permissionDenied);
    await expect(client.names.bind(DISPATCHER_NAME, { ...b.aor, object_id: 'thief' })).rejects.toThrow(permissionDenied);
    expect((await client.names.resolve(DISPATCHER_NAME, 'processing::session_factory', '5.1')).revision).toBe(b.revision);
  });

  it('no process of the chain was refused anything it tried', () => {
    for (const p of procs) {
      const refused = p.logs.filter((l) => permissionDenied.test(JSON.stringify(l)));
      expect(refused, JSON.stringify(refused.slice(0, 3))).toEqual([]);
    }
  });
});
