/**
 * The launcher's own nats-server: started means started by us. A server that cannot bind its port fails with
 * NatsPortInUse even though something answers on that port (a second stack that took it first), so the launcher
 * moves to a free port instead of handing its processes another stack's server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireNatsServerBinary, reservePorts } from '@esp/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { NatsPortInUse, reachable, startNatsServer } from '../src/nats-endpoint';

describe('startNatsServer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'esp-nats-endpoint-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a port held by another listener: NatsPortInUse, though the port answers', async () => {
    const other: Server = createServer();
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    const port = (other.address() as { port: number }).port;
    try {
      expect(await reachable('127.0.0.1', port)).toBe(true);
      await expect(startNatsServer(requireNatsServerBinary(), [], port, join(dir, 'a'))).rejects.toBeInstanceOf(NatsPortInUse);
    } finally {
      other.close();
    }
  });

  it('a free port: resolves once the server is ready, and it listens there', async () => {
    const [port] = await reservePorts(1);
    const child = await startNatsServer(requireNatsServerBinary(), [], port as number, join(dir, 'b'));
    try {
      expect(await reachable('127.0.0.1', port as number)).toBe(true);
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
  });
});
