import type { Aor } from '@esp/interfaces';
import { ChildService, NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallAbandoned, Middleware, ObjectNotExist, TransportError } from '../src';
import { echoImpl, echoInterface } from './fixtures/echo-interface';

describe('calls that end before their deadline: a NATS outage, a server gone, a caller giving up', () => {
  let ns: NatsServer;
  let server: Middleware;
  let client: Middleware;
  beforeAll(async () => {
    ns = await NatsServer.start({ jetstream: false });
    server = await Middleware.connect({ name: 'echo-server', servers: ns.url });
    client = await Middleware.connect({ name: 'echo-client', servers: ns.url });
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
    await ns?.cleanup();
  });

  it('a call in flight when the connection drops fails at once with transport_error (in_flight), not at its 30 s deadline; calls after the reconnect work', async () => {
    const obj = await server.activate(echoInterface, echoImpl, { object_id: 'echo-outage', port: 16392 });
    const echo = client.proxy(echoInterface, obj.aor, { timeoutMs: 30_000 });
    await echo.__ping();
    const downs: number[] = [];
    const ups: number[] = [];
    const off = client.connection.on({ down: () => downs.push(Date.now()), up: (ms) => ups.push(ms) });
    const t0 = Date.now();
    const calls = [echo.sleep(3_000), echo.sleep(3_000), echo.sleep(3_000)].map((p) => p.catch((e: unknown) => e));
    await waitFor(() => client.connection.inFlight === 3, { timeoutMs: 5_000, what: 'three calls in flight' });
    const restarted = ns.restart({ hard: true });
    const errors = await Promise.all(calls);
    const failedAfter = Date.now() - t0;
    for (const err of errors) {
      expect(err).toBeInstanceOf(TransportError);
      expect((err as TransportError).data['in_flight']).toBe(true);
    }
    // the drop is seen when the socket closes: well before the sleep would have answered, far before the deadline
    expect(failedAfter).toBeLessThan(2_500);
    expect(client.connection.inFlight).toBe(0);
    await restarted;
    await client.connection.whenUp();
    await waitFor(async () => (await echo.echo('again', 1).catch(() => '')) === 'again', { timeoutMs: 10_000, what: 'a call after the reconnect' });
    expect(downs.length).toBeGreaterThanOrEqual(1);
    expect(ups.length).toBeGreaterThanOrEqual(1);
    expect(client.connection.current).toBe('up');
    off();
  });

  it('a call sent while the connection is down waits in the client and is answered after the reconnect', async () => {
    const obj = await server.activate(echoInterface, echoImpl, { object_id: 'echo-buffered', port: 16393 });
    const echo = client.proxy(echoInterface, obj.aor, { timeoutMs: 20_000 });
    await echo.__ping();
    await ns.kill();
    await waitFor(() => client.connection.current === 'down', { timeoutMs: 10_000, what: 'the client to see the drop' });
    const call = echo.echo('buffered', 2);
    const restart = (async () => {
      await new Promise((r) => setTimeout(r, 500));
      await ns.restart();
    })();
    expect(await call).toBe('bufferedbuffered');
    await restart;
  });

  it('an abandoned call fails at once with call_abandoned and leaves others alone', async () => {
    const obj = await server.activate(echoInterface, echoImpl, { object_id: 'echo-abandon', port: 16394 });
    await client.connection.whenUp();
    const ac = new AbortController();
    const doomed = client.proxy(echoInterface, obj.aor, { timeoutMs: 30_000, signal: ac.signal });
    const other = client.proxy(echoInterface, obj.aor, { timeoutMs: 30_000 });
    const t0 = Date.now();
    const pending = doomed.sleep(5_000).catch((e: unknown) => e);
    const kept = other.sleep(300);
    setTimeout(() => ac.abort(new Error('its server was declared dead')), 100);
    const err = await pending;
    expect(err).toBeInstanceOf(CallAbandoned);
    expect((err as Error).message).toMatch(/declared dead/);
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(await kept).toBe('slept');
    // a proxy whose signal has aborted fails at once, nothing sent
    await expect(doomed.echo('x', 1)).rejects.toBeInstanceOf(CallAbandoned);
  });

  it('a call in flight to a server whose process is killed -9 fails with object_not_exist (in_flight) within seconds, not at its deadline', async () => {
    const proc = await ChildService.start({ entry: 'libs/middleware/test/fixtures/echo-server-main.ts', env: { NATS_URL: ns.url, PORT: '16395' } });
    const aor = proc.logs.find((l) => l['msg'] === 'ready')!['aor'] as Aor;
    const echo = client.proxy(echoInterface, aor, { timeoutMs: 30_000 });
    await echo.__ping();
    const call = echo.sleep(20_000).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 200));
    const t0 = Date.now();
    await proc.kill();
    const err = await call;
    expect(err).toBeInstanceOf(ObjectNotExist);
    expect((err as ObjectNotExist).data['in_flight']).toBe(true);
    // pinged every second, confirmed 200 ms later; nats-server must first see the socket close
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('a slow server that still answers its pings keeps the call: it ends with the answer', async () => {
    const obj = await server.activate(echoInterface, echoImpl, { object_id: 'echo-slow', port: 16396 });
    await client.connection.whenUp();
    const echo = client.proxy(echoInterface, obj.aor, { timeoutMs: 10_000 });
    expect(await echo.sleep(3_500)).toBe('slept');
  });

  it('a call in flight to a server killed and at once restarted at the same address (another incarnation) fails with object_not_exist (in_flight)', async () => {
    const env = { NATS_URL: ns.url, PORT: '16397' };
    const first = await ChildService.start({ entry: 'libs/middleware/test/fixtures/echo-server-main.ts', env });
    const aor = first.logs.find((l) => l['msg'] === 'ready')!['aor'] as Aor;
    // watched only after 8 s: by then the new process is up however loaded the machine (watched sooner, the address
    // could still have no responders, which ends the call too, as "went away")
    const echo = client.proxy(echoInterface, aor, { timeoutMs: 30_000, watchMs: 8_000 });
    expect(await echo.echo('seen', 1)).toBe('seen'); // its incarnation is known from this reply
    const call = echo.sleep(20_000).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    await first.kill();
    const second = await ChildService.start({ entry: 'libs/middleware/test/fixtures/echo-server-main.ts', env });
    try {
      expect((second.logs.find((l) => l['msg'] === 'ready')!['aor'] as Aor).object_id).toBe(aor.object_id);
      const err = await call;
      expect(err).toBeInstanceOf(ObjectNotExist);
      expect((err as ObjectNotExist).data['in_flight']).toBe(true);
      expect((err as Error).message).toMatch(/restarted process/);
      expect(Date.now() - t0).toBeLessThan(20_000);
      // the new process serves the address
      expect(await echo.echo('again', 1)).toBe('again');
    } finally {
      await second.stop();
    }
  });
});
