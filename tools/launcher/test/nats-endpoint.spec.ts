/**
 * The launcher's own nats-server: started means started by us. A server that cannot bind its port fails with
 * NatsPortInUse even though something answers on that port (a second stack that took it first), so the launcher
 * moves to a free port instead of handing its processes another stack's server.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireNatsServerBinary, reservePorts, waitFor } from '@esp/testing';
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
    const nats = await startNatsServer(requireNatsServerBinary(), [], port as number, join(dir, 'b'));
    try {
      expect(await reachable('127.0.0.1', port as number)).toBe(true);
    } finally {
      await nats.kill();
    }
  });

  it('the server stops when the process that started it dies, even by SIGKILL (no server left on the store for the next start)', async () => {
    const [port] = await reservePorts(1);
    // a stand-in launcher: starts the server, says its pid, then waits to be killed
    const script = `import { startNatsServer } from ${JSON.stringify(new URL('../src/nats-endpoint.ts', import.meta.url).pathname)};
const n = await startNatsServer(${JSON.stringify(requireNatsServerBinary())}, [], ${port}, ${JSON.stringify(join(dir, 'c'))});
process.stdout.write(n.pid + '\\n'); setInterval(() => undefined, 1000);`;
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = await new Promise<number>((r) => parent.stdout.once('data', (d: Buffer) => r(Number(d.toString().trim()))));
    expect(pid).toBeGreaterThan(0);
    expect(await reachable('127.0.0.1', port as number)).toBe(true);
    parent.kill('SIGKILL');
    await waitFor(() => !alive(pid), { timeoutMs: 10_000, what: 'the orphaned nats-server gone' });
    expect(await reachable('127.0.0.1', port as number)).toBe(false);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
