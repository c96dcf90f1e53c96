import type { Aor } from '@esp/interfaces';
import { ChildService, NatsServer } from '@esp/testing';
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

  it('__ping fails with object_not_exist in under 100 ms after kill -9', async () => {
    const proc = await ChildService.start({ entry: 'libs/middleware/test/fixtures/echo-server-main.ts', env: { NATS_URL: ns.url, PORT: '16391' } });
    const aor = proc.logs.find((l) => l['msg'] === 'ready')!['aor'] as Aor;
    const echo = client.proxy(echoInterface, aor, { timeoutMs: 30_000 });
    await echo.__ping();
    await proc.kill();
    // the server notices the dead client's socket at once (the kernel closes it); give it a moment to unsubscribe
    await new Promise((r) => setTimeout(r, 50));
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
