/**
 * A name server started with `clear` (npm start's, on the NATS server it has just started) drops what an earlier
 * run left in the bucket: every such binding is a dead process's, and a purge also rebuilds a damaged index.
 */
import { ResolveException, type Aor } from '@esp/interfaces';
import { NatsServer } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Middleware, serveNameServer } from '../src';

const aor = (id: string): Aor => ({ name: '', object_id: id, host: 'h', port: 1, interface_type: 'configservice::config', interface_version: '5.2' });

describe('name server with clear', () => {
  let ns: NatsServer;
  beforeAll(async () => {
    ns = await NatsServer.start();
  });
  afterAll(() => ns?.cleanup());

  it('drops the bindings an earlier run left; without clear they stay', async () => {
    const first = await Middleware.connect({ name: 'name-server-1', servers: ns.url });
    await serveNameServer(first);
    const client = await Middleware.connect({ name: 'client', servers: ns.url });
    try {
      await client.names.bind('fds/configservice', aor('old'));
      await first.close();

      const kept = await Middleware.connect({ name: 'name-server-2', servers: ns.url });
      await serveNameServer(kept);
      expect((await client.names.resolve('fds/configservice', 'configservice::config', '5.2')).aor.object_id).toBe('old');
      await kept.close();

      const cleared = await Middleware.connect({ name: 'name-server-3', servers: ns.url });
      await serveNameServer(cleared, { clear: true });
      await expect(client.names.resolve('fds/configservice', 'configservice::config', '5.2')).rejects.toBeInstanceOf(ResolveException);
      // the name is free: a plain bind takes it, no take-over needed
      await client.names.bind('fds/configservice', aor('new'));
      expect((await client.names.resolve('fds/configservice', 'configservice::config', '5.2')).aor.object_id).toBe('new');
      await cleared.close();
    } finally {
      await client.close();
    }
  });
});
