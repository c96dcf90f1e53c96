/**
 * The roles that speak their own protocols on plain subjects, on the generated configuration: a PPP queue, worker
 * and client of the ppp-gateway identity serve a request (replies included); crawl peers of each crawl role reach
 * each other and answer on the sender's address; a peer of one role cannot listen on another role's addresses.
 */
import { FswcuDict } from '@esp/codecs';
import { crawlAddress, CrawlEndpoint, type CrawlInbound, type CrawlPeer, type CrawlRole } from '@esp/crawl-bus';
import { createLogger } from '@esp/logging';
import { PppClient, PppQueue, PppWorker } from '@esp/ppp';
import { waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusRole } from '../src/bus/bus-roles';
import { trySubscribe } from './bus-probes';
import { SecuredBus } from './secured-bus';

const log = createLogger('test', {}, { level: 'silent' });

describe('plain-subject roles on the generated configuration', () => {
  let bus: SecuredBus;
  const stops: Array<() => Promise<void> | void> = [];

  beforeAll(async () => {
    bus = await SecuredBus.start();
  });
  afterAll(async () => {
    for (const s of stops.reverse()) await s();
    await bus?.stop();
  });

  it('PPP: queue, worker and client with the ppp-gateway identity serve a request', async () => {
    const queue = await PppQueue.start((await bus.connect('ppp-gateway', { name: 'queue' })).bus, { service: 'echo' });
    const worker = await PppWorker.start((await bus.connect('ppp-gateway', { name: 'worker' })).bus, (content) => content, { service: 'echo' });
    stops.push(() => worker.stop(), () => queue.stop());
    const client = new PppClient((await bus.connect('ppp-gateway', { name: 'client' })).bus, { service: 'echo', timeoutMs: 2500, retries: 3 });
    const [reply] = await client.request(new TextEncoder().encode('hello'));
    expect(new TextDecoder().decode(reply)).toBe('hello');
  });

  it('crawl peers of each role talk to each other on their addresses, and listen on no other role\'s', async () => {
    const roles: Array<[CrawlRole, BusRole]> = [
      ['mns', 'multinode-scheduler'],
      ['ns', 'node-scheduler'],
      ['dup', 'duplicate-server'],
      ['tcp', 'fscmt-gateway'],
    ];
    const inbox = new Map<CrawlRole, CrawlInbound[]>();
    const eps = new Map<CrawlRole, CrawlEndpoint>();
    for (const [role, busRole] of roles) {
      const self: CrawlPeer = { cluster: 'c1', role, id: `${role}1` };
      const got: CrawlInbound[] = [];
      inbox.set(role, got);
      const mw = await bus.connect(busRole, { name: `crawl-${role}` });
      const ep = await CrawlEndpoint.start(mw.bus, { self, onBatch: (batch) => got.push(...batch), log });
      eps.set(role, ep);
      stops.push(() => ep.stop());
      const other = roles.find(([r]) => r !== role)?.[0] as CrawlRole;
      expect(await trySubscribe(mw, crawlAddress({ cluster: 'c1', role: other, id: 'x' })), `${role} on ${other}`).toBe('denied');
    }
    // every peer sends to every other; each answers the first message on the sender's address
    for (const [from] of roles) for (const [to] of roles) if (from !== to) eps.get(from)?.send(crawlAddress({ cluster: 'c1', role: to, id: `${to}1` }), new FswcuDict([['hello', from]]));
    await waitFor(() => [...inbox.values()].every((g) => g.length >= 3), { what: 'every peer heard the three others', timeoutMs: 5_000 });
    const first = inbox.get('dup')?.[0];
    expect(first?.from).toMatch(/^esp\.raw\.fscmt\.c1\./);
    eps.get('dup')?.send(first?.from as string, new FswcuDict([['ack', 'yes']]));
    await waitFor(() => roles.some(([r]) => inbox.get(r)?.some((m) => m.dict.getText('ack') === 'yes')), { what: 'the answer on the sender address', timeoutMs: 5_000 });
  });
});
