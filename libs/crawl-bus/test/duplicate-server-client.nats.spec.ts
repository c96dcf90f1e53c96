import { buildFscmtNodeSchedulerMessage, FswcuDict, readFscmtDuplicateServerMessage } from '@esp/codecs';
import { Middleware } from '@esp/middleware';
import { NatsServer } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrawlEndpoint, DuplicateServerClient, DuplicateServerTimeout } from '../src';

let ns: NatsServer;
let mw: Middleware;
beforeAll(async () => {
  ns = await NatsServer.start({ jetstream: false });
  mw = await Middleware.connect({ name: 'dup-client-test', servers: ns.url });
});
afterAll(async () => {
  await mw?.close();
  await ns?.cleanup();
});

describe('DuplicateServerClient on a real nats-server', () => {
  it('answers settle their own add; unanswered adds time out after timeoutMs, answered ones never do', async () => {
    // a duplicate server that answers PPDUP_ADD for URIs ending in "ok" (as duplicates of /owner) and ignores the rest
    const server: CrawlEndpoint = await CrawlEndpoint.start(mw.bus, {
      self: { cluster: 'tc', role: 'dup', id: 'd' },
      onBatch: (batch) => {
        for (const m of batch) {
          const msg = readFscmtDuplicateServerMessage(m.dict);
          if (msg.command !== 'PPDUP_ADD' || !msg.uri.endsWith('ok') || m.from === undefined) continue;
          server.send(m.from, buildFscmtNodeSchedulerMessage({ command: 'PPDUP_ADD_OK', dspecName: msg.dspecName, id: msg.id, uri: msg.uri, ownUri: 'http://a/owner' }));
        }
      },
    });
    const client = await DuplicateServerClient.start(mw.bus, { self: { cluster: 'tc', role: 'ns', id: 'n' }, server: server.address, node: 'n', timeoutMs: 400 });
    const csum = new Uint8Array(16);
    const t0 = performance.now();
    const outcome = (p: Promise<{ ownUri: string }>) =>
      p.then(
        (v) => ({ ownUri: v.ownUri, ms: performance.now() - t0 }),
        (e: Error) => ({ error: e, ms: performance.now() - t0 }),
      );
    const first = [outcome(client.add('c', 'http://a/1-ok', csum)), outcome(client.add('c', 'http://a/2-lost', csum))];
    // a second wave later: its deadline is later than the first wave's
    await new Promise((r) => setTimeout(r, 200));
    const second = [outcome(client.add('c', 'http://a/3-lost', csum)), outcome(client.add('c', 'http://a/4-ok', csum))];
    const [ok1, lost2, lost3, ok4] = await Promise.all([...first, ...second]);
    expect(ok1).toMatchObject({ ownUri: 'http://a/owner' });
    expect(ok4).toMatchObject({ ownUri: 'http://a/owner' });
    expect((lost2 as { error: Error }).error).toBeInstanceOf(DuplicateServerTimeout);
    expect((lost3 as { error: Error }).error).toBeInstanceOf(DuplicateServerTimeout);
    expect((lost3 as { error: Error }).error.message).toContain('http://a/3-lost');
    // each timed out about timeoutMs after it was sent, not all at once
    expect(lost2!.ms).toBeGreaterThanOrEqual(390);
    expect(lost3!.ms).toBeGreaterThanOrEqual(590);
    expect(client.inFlight).toBe(0);
    await client.stop();
    await server.stop();
  });

  it('stop() fails what is still in flight', async () => {
    const client = await DuplicateServerClient.start(mw.bus, {
      self: { cluster: 'tc', role: 'ns', id: 'n2' },
      server: 'esp.raw.fscmt.tc.dup.nobody',
      node: 'n2',
      timeoutMs: 60_000,
    });
    const pending = expect(client.add('c', 'http://a/x', new Uint8Array(16))).rejects.toBeInstanceOf(DuplicateServerTimeout);
    await client.stop();
    await pending;
  });

  it('operations on the same URI settle in the order sent, and the same URI in two collections is kept apart', async () => {
    // a server that answers every add, naming the order it saw them in as the owner
    let seen = 0;
    const server: CrawlEndpoint = await CrawlEndpoint.start(mw.bus, {
      self: { cluster: 'tc', role: 'dup', id: 'd3' },
      onBatch: (batch) => {
        for (const m of batch) {
          const msg = readFscmtDuplicateServerMessage(m.dict);
          if (msg.command !== 'PPDUP_ADD' || m.from === undefined) continue;
          server.send(m.from, buildFscmtNodeSchedulerMessage({ command: 'PPDUP_ADD_OK', dspecName: msg.dspecName, id: msg.id, uri: msg.uri, ownUri: `http://a/${msg.dspecName}-${++seen}` }));
        }
      },
    });
    const client = await DuplicateServerClient.start(mw.bus, { self: { cluster: 'tc', role: 'ns', id: 'n3' }, server: server.address, node: 'n3', timeoutMs: 5_000 });
    const csum = new Uint8Array(16);
    const answers = await Promise.all([client.add('c', 'http://a/same', csum), client.add('d', 'http://a/same', csum), client.add('c', 'http://a/same', csum)]);
    expect(answers.map((a) => a.ownUri)).toEqual(['http://a/c-1', 'http://a/d-2', 'http://a/c-3']);
    expect(client.inFlight).toBe(0);
    await client.stop();
    await server.stop();
  });

  it('3.1.5.22 - the vector clock counts every message on the link; only the ack of the most recent PPDUP_SET_CONFIG counts', async () => {
    // a server that records the vector clock of each PPDUP_SET_CONFIG and acknowledges when told to
    const configs: Array<{ vclock: number; from: string }> = [];
    const server: CrawlEndpoint = await CrawlEndpoint.start(mw.bus, {
      self: { cluster: 'tc', role: 'dup', id: 'dvc' },
      onBatch: (batch) => {
        for (const m of batch) {
          const msg = readFscmtDuplicateServerMessage(m.dict);
          if (msg.command === 'PPDUP_SET_CONFIG' && m.from !== undefined) configs.push({ vclock: msg.vclock, from: m.from });
        }
      },
    });
    const ack = (vclock: number) => server.send(configs[0]!.from, buildFscmtNodeSchedulerMessage({ command: 'PPDUP_CONFIG_ACK', vclock }), 1);
    const client = await DuplicateServerClient.start(mw.bus, { self: { cluster: 'tc', role: 'ns', id: 'nvc' }, server: server.address, node: 'nvc', timeoutMs: 2000 });
    const csum = new Uint8Array(16);
    void client.add('c', 'http://a/1', csum).catch(() => undefined);
    void client.add('c', 'http://a/2', csum).catch(() => undefined);
    let firstDone = false;
    const first = client.setConfig('c', new FswcuDict()).then(() => (firstDone = true));
    void client.add('c', 'http://a/3', csum).catch(() => undefined);
    const second = client.setConfig('c', new FswcuDict());
    await new Promise((r) => setTimeout(r, 200));
    // two adds went first: the first configuration is the link's third message, the second its fifth
    expect(configs.map((c) => c.vclock)).toEqual([3, 5]);
    expect(client.vectorClock).toBe(5);
    ack(3); // the answer to a configuration that is no longer the most recent: discarded
    await new Promise((r) => setTimeout(r, 200));
    expect(firstDone).toBe(false);
    ack(5); // the most recent: it and the one it superseded are done
    await Promise.all([first, second]);
    expect(firstDone).toBe(true);
    await client.stop();
    await server.stop();
  });
});
