import { UnknownCollection, UserException, type Aor } from '@esp/interfaces';
import { NatsServer } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineInterface, method } from '@esp/interfaces';
import { CallTimeout, InternalError, Middleware, ObjectNotExist, RawBus, ServerBusy, VersionMismatch, type SystemException } from '../src';
import { echoImpl, echoInterface } from './fixtures/echo-interface';

describe('middleware RPC over a real nats-server', () => {
  let ns: NatsServer;
  let server: Middleware;
  let client: Middleware;
  let aor: Aor;

  beforeAll(async () => {
    ns = await NatsServer.start();
    server = await Middleware.connect({ name: 'rpc-server', servers: ns.url, host: 'node-a' });
    client = await Middleware.connect({ name: 'rpc-client', servers: ns.url });
    aor = (await server.activate(echoInterface, echoImpl, { object_id: 'echo', port: 16390 })).aor;
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
    await ns?.cleanup();
  });

  it('call - returns the result, with defaults applied by the server', async () => {
    const echo = client.proxy(echoInterface, aor);
    expect(await echo.echo('ab', 3)).toBe('ababab');
    expect(await echo.add(2, 40)).toBe(42);
    expect(await echo.bytes(new Uint8Array(1000))).toBe(1000);
    await expect(echo.__ping()).resolves.toBeUndefined();
  });

  it('refuse - while the hook returns an exception, every call and __ping gets it; undefined serves again', async () => {
    let refusal: SystemException | undefined = new ObjectNotExist('not master');
    const gated = await server.activate(echoInterface, echoImpl, { object_id: 'gated', port: 16390, refuse: () => refusal });
    const p = client.proxy(echoInterface, gated.aor);
    await expect(p.__ping()).rejects.toBeInstanceOf(ObjectNotExist);
    await expect(p.add(1, 2)).rejects.toMatchObject({ code: 'object_not_exist', message: 'not master' });
    refusal = new ServerBusy('checking');
    await expect(p.__ping()).rejects.toBeInstanceOf(ServerBusy);
    refusal = undefined;
    await expect(p.__ping()).resolves.toBeUndefined();
    expect(await p.add(1, 2)).toBe(3);
    await server.deactivate(gated);
  });

  it('the AOR carries host, port, object id, interface type and version', () => {
    expect(aor).toEqual({ name: '', object_id: 'echo', host: 'node-a', port: 16390, interface_type: 'test::echo', interface_version: '2.3' });
  });

  it('user exception - arrives as an instance of the same class with its data', async () => {
    const err = await client.proxy(echoInterface, aor).collection('sports').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownCollection);
    expect(err).toBeInstanceOf(UserException);
    expect((err as UnknownCollection).data).toEqual({ collection: 'sports' });
    expect((err as Error).message).toMatch(/sports/);
  });

  it('internal error - an implementation that throws, or returns what its interface forbids, gives internal_error', async () => {
    const echo = client.proxy(echoInterface, aor);
    await expect(echo.crash()).rejects.toMatchObject({ code: 'internal_error', message: expect.stringMatching(/boom/) });
    await expect(echo.lie()).rejects.toBeInstanceOf(InternalError);
  });

  it('deadline - a call that outlives its deadline fails with timeout, and is retryable', async () => {
    const slow = client.proxy(echoInterface, aor, { timeoutMs: 100 });
    const t0 = Date.now();
    const err = await slow.sleep(1000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CallTimeout);
    expect((err as CallTimeout).retryable).toBe(true);
    expect(Date.now() - t0).toBeLessThan(600);
  });

  it('object does not exist - a call to an object nobody serves fails at once, not at the deadline', async () => {
    const ghost = client.proxy(echoInterface, { ...aor, object_id: 'ghost' }, { timeoutMs: 10_000 });
    const t0 = Date.now();
    await expect(ghost.__ping()).rejects.toBeInstanceOf(ObjectNotExist);
    expect(Date.now() - t0).toBeLessThan(100);
  });

  it('version mismatch - a proxy refuses an AOR of an incompatible version or another type', () => {
    const newer = defineInterface({ type: 'test::echo', version: '2.4', methods: echoInterface.methods });
    expect(() => client.proxy(newer, aor)).toThrow(VersionMismatch);
    const other = defineInterface({ type: 'test::other', version: '2.3', methods: {} });
    expect(() => client.proxy(other, aor)).toThrow(/serves test::echo/);
    const older = defineInterface({ type: 'test::echo', version: '2.1', methods: echoInterface.methods });
    expect(() => client.proxy(older, aor)).not.toThrow();
  });

  it('version mismatch - the server refuses a client of a newer minor or another major', async () => {
    const v3 = defineInterface({ type: 'test::echo', version: '3.0', methods: { add: method({ params: [['a', z.number()], ['b', z.number()]], returns: z.number() }) } });
    // a client that claims 3.0 against a 2.3 AOR it was told is 3.0
    const liar = client.proxy(v3, { ...aor, interface_version: '3.0' });
    await expect(liar.add(1, 2)).rejects.toMatchObject({ code: 'version_mismatch', message: expect.stringMatching(/2\.3 cannot serve a client of version 3\.0/) });
  });

  it('graceful drain - close() lets a call in flight finish and reply', async () => {
    const srv = await Middleware.connect({ name: 'drain-server', servers: ns.url, host: 'node-b' });
    const obj = await srv.activate(echoInterface, echoImpl, { object_id: 'echo', port: 1 });
    const pending = client.proxy(echoInterface, obj.aor).sleep(300);
    await new Promise((r) => setTimeout(r, 50));
    await srv.close();
    await expect(pending).resolves.toBe('slept');
    await expect(client.proxy(echoInterface, obj.aor).__ping()).rejects.toBeInstanceOf(ObjectNotExist);
  });

  it('many calls in flight - 500 concurrent calls all get their own answer', async () => {
    const echo = client.proxy(echoInterface, aor);
    const results = await Promise.all(Array.from({ length: 500 }, (_, i) => echo.add(i, i)));
    expect(results).toEqual(Array.from({ length: 500 }, (_, i) => 2 * i));
  });
});

describe('raw bus', () => {
  it('publishes, subscribes and answers requests with plain bytes under esp.raw.*', async () => {
    const ns = await NatsServer.start({ jetstream: false });
    const a = await Middleware.connect({ name: 'a', servers: ns.url });
    const b = await Middleware.connect({ name: 'b', servers: ns.url });
    try {
      const subject = RawBus.subject('ppp', 'queue.1');
      expect(subject).toBe('esp.raw.ppp.queue%2E1');
      const seen: number[] = [];
      const replies: Array<string | undefined> = [];
      const stop = await a.bus.subscribe(subject, (m) => {
        seen.push(m.data[0]!);
        replies.push(m.reply);
        if (m.data[0] === 41) m.respond(new Uint8Array([m.data[0]! + 1]));
      });
      expect([...(await b.bus.request(subject, new Uint8Array([41]), 1000))]).toEqual([42]);
      b.bus.publish(subject, new Uint8Array([7]));
      b.bus.publish(subject, new Uint8Array([8]), { reply: 'esp.raw.peer.b' });
      await b.bus.flush();
      await new Promise((r) => setTimeout(r, 50));
      expect(seen).toEqual([41, 7, 8]);
      // a plain publish has no reply subject; a publish with one carries it (peer protocols answer there)
      expect(replies[1]).toBeUndefined();
      expect(replies[2]).toBe('esp.raw.peer.b');
      await stop();
    } finally {
      await a.close();
      await b.close();
      await ns.cleanup();
    }
  });
});
