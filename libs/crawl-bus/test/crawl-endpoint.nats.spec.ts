import { buildFscmtMultinodeSchedulerMessage, encodeFscmtFrame, readFscmtCommand } from '@esp/codecs';
import { Middleware } from '@esp/middleware';
import { NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrawlEndpoint, type CrawlInbound } from '../src';

let ns: NatsServer;
let mw: Middleware;
beforeAll(async () => {
  ns = await NatsServer.start({ jetstream: false });
  mw = await Middleware.connect({ name: 'crawl-bus-test', servers: ns.url });
});
afterAll(async () => {
  await mw?.close();
  await ns?.cleanup();
});

describe('CrawlEndpoint on a real nats-server', () => {
  it('frames arrive unchanged with the sender as reply address; one turn is one NATS message, priority 1 first', async () => {
    const got: CrawlInbound[][] = [];
    const a = await CrawlEndpoint.start(mw.bus, { self: { cluster: 't', role: 'ns', id: 'a' }, onBatch: () => undefined });
    const b = await CrawlEndpoint.start(mw.bus, { self: { cluster: 't', role: 'mns', id: 'b' }, onBatch: (batch) => got.push(batch) });
    const uri = (n: number) => encodeFscmtFrame(buildFscmtMultinodeSchedulerMessage({ command: 'CMD_UM_CONF_STATE', dspecName: `c${n}` }), 0);
    const keepalive = encodeFscmtFrame(buildFscmtMultinodeSchedulerMessage({ command: 'CMD_UM_KEEPALIVE' }), 1);
    const frames = [uri(1), uri(2), keepalive, uri(3)];
    for (const f of frames) a.sendFrame(b.address, f);
    await a.flush();
    await waitFor(() => got.flat().length === 4);
    expect(got).toHaveLength(1);
    const batch = got[0]!;
    expect(batch.map((m) => readFscmtCommand(m.dict).name)).toEqual(['CMD_UM_KEEPALIVE', 'CMD_UM_CONF_STATE', 'CMD_UM_CONF_STATE', 'CMD_UM_CONF_STATE']);
    expect(batch.map((m) => Buffer.from(m.frame).toString('hex'))).toEqual([keepalive, frames[0]!, frames[1]!, frames[3]!].map((f) => Buffer.from(f).toString('hex')));
    expect(batch.every((m) => m.from === a.address)).toBe(true);
    await a.stop();
    await b.stop();
  });

  it('with lingerMs, priority 0 frames of several turns travel in one NATS message; priority 1 takes them along at once', async () => {
    const conf = (n: number) => buildFscmtMultinodeSchedulerMessage({ command: 'CMD_UM_CONF_STATE', dspecName: `c${n}` });
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const messages: CrawlInbound[][] = [];
    const slow = await CrawlEndpoint.start(mw.bus, { self: { cluster: 't', role: 'ns', id: 'slow' }, lingerMs: 60_000 });
    const b = await CrawlEndpoint.start(mw.bus, { self: { cluster: 't', role: 'mns', id: 'linger' }, onBatch: (batch) => messages.push(batch) });
    slow.send(b.address, conf(1));
    await turn();
    slow.send(b.address, conf(2));
    await turn();
    await mw.bus.flush();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(messages).toHaveLength(0);
    slow.send(b.address, buildFscmtMultinodeSchedulerMessage({ command: 'CMD_UM_KEEPALIVE' }), 1);
    await waitFor(() => messages.length === 1);
    expect(messages[0]!.map((m) => readFscmtCommand(m.dict).name)).toEqual(['CMD_UM_KEEPALIVE', 'CMD_UM_CONF_STATE', 'CMD_UM_CONF_STATE']);

    const packed: number[] = [];
    const stopRaw = await mw.bus.subscribe(b.address, (m) => packed.push(m.data.length));
    const quick = await CrawlEndpoint.start(mw.bus, { self: { cluster: 't', role: 'ns', id: 'quick' }, lingerMs: 30 });
    quick.send(b.address, conf(3));
    await turn();
    quick.send(b.address, conf(4));
    await waitFor(() => messages.length === 2);
    expect(messages[1]!.map((m) => m.from)).toEqual([quick.address, quick.address]);
    expect(packed).toHaveLength(1);
    await stopRaw();
    await slow.stop();
    await quick.stop();
    await b.stop();
  });

  it('a message with a bad frame is dropped and counted; the endpoint keeps working', async () => {
    const got: CrawlInbound[] = [];
    const b = await CrawlEndpoint.start(mw.bus, { self: { cluster: 't', role: 'dup', id: 'x' }, onBatch: (batch) => got.push(...batch) });
    mw.bus.publish(b.address, new Uint8Array([0, 0, 0, 3, 1, 2, 3]), { reply: 'esp.raw.fscmt.t.ns.bad' });
    mw.bus.publish(b.address, encodeFscmtFrame(buildFscmtMultinodeSchedulerMessage({ command: 'CMD_UM_KEEPALIVE' }), 0), { reply: 'esp.raw.fscmt.t.ns.good' });
    await waitFor(() => got.length === 1 && b.dropped === 1);
    expect(got[0]!.from).toBe('esp.raw.fscmt.t.ns.good');
    await b.stop();
  });
  it('started without onBatch it sends and hears nothing; listen() starts delivery, once', async () => {
    const got: CrawlInbound[] = [];
    const a = await CrawlEndpoint.start(mw.bus, { self: { cluster: 't', role: 'ns', id: 'quiet' } });
    const b = await CrawlEndpoint.start(mw.bus, { self: { cluster: 't', role: 'mns', id: 'talker' }, onBatch: (batch) => got.push(...batch) });
    const keepalive = () => buildFscmtMultinodeSchedulerMessage({ command: 'CMD_UM_KEEPALIVE' });
    a.send(b.address, keepalive());
    await a.flush();
    await waitFor(() => got.length === 1);
    expect(got[0]!.from).toBe(a.address);

    const heard: CrawlInbound[] = [];
    b.send(a.address, keepalive());
    await b.flush();
    await mw.bus.flush();
    await a.listen((batch) => heard.push(...batch));
    await expect(a.listen(() => undefined)).rejects.toThrow(/already listening/);
    b.send(a.address, keepalive());
    await b.flush();
    await waitFor(() => heard.length === 1);
    expect(heard[0]!.from).toBe(b.address);
    await a.stop();
    await b.stop();
  });
});
