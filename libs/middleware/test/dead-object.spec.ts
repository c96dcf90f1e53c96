import type { Aor } from '@esp/interfaces';
import { ChildService, NatsServer, waitFor } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Middleware, ObjectNotExist } from '../src';
import { echoInterface } from './fixtures/echo-interface';

describe('an object whose process is gone', () => {
  let ns: NatsServer;
  let client: Middleware;
  beforeAll(async () => {
    ns = await NatsServer.start({ jetstream: false });
    client = await Middleware.connect({ name: 'watcher', servers: ns.url });
  });
  afterAll(async () => {
    await client?.close();
    await ns?.cleanup();
  });

  it('__ping fails with object_not_exist in under 100 ms once its process is killed -9 (no waiting for the deadline)', async () => {
    const proc = await ChildService.start({ entry: 'libs/middleware/test/fixtures/echo-server-main.ts', env: { NATS_URL: ns.url, PORT: '16391' } });
    const aor = proc.logs.find((l) => l['msg'] === 'ready')!['aor'] as Aor;
    const echo = client.proxy(echoInterface, aor, { timeoutMs: 30_000 });
    await echo.__ping();
    await proc.kill(); // resolves once the process has exited: the kernel has closed its socket
    // nats-server drops the subscription when it reads EOF on that socket, which on a loaded machine can take longer
    // than any fixed pause. Until then a ping goes to the stale subscription and waits for its deadline, so wait
    // (bounded) for the first object_not_exist, probing with a short deadline; from then on every ping must fail fast
    const probe = client.proxy(echoInterface, aor, { timeoutMs: 250 });
    await waitFor(async () => (await probe.__ping().catch((e: unknown) => e)) instanceof ObjectNotExist, {
      timeoutMs: 15_000,
      what: "nats-server to drop the killed process's subscription",
    });
    const timings: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      const err = await echo.__ping().catch((e: unknown) => e);
      timings.push(performance.now() - t0);
      expect(err).toBeInstanceOf(ObjectNotExist);
    }
    expect(Math.max(...timings)).toBeLessThan(100);
  });
});
