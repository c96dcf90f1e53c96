import { NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallAbandoned, Middleware, TransportError } from '../src';
import { echoImpl, echoInterface } from './fixtures/echo-interface';

describe('calls and a NATS outage', () => {
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
});
