import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FswcuDict, fswcuBytes } from '@esp/codecs';
import { crawlAddress, DuplicateServerClient } from '@esp/crawl-bus';
import { Middleware } from '@esp/middleware';
import { ChildService, NatsServer } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteChecksumStore } from '../src/sqlite-checksum-store';

const CLUSTER = 'e2e';
const ENTRY = 'apps/duplicate-server/src/main.ts';
const config = new FswcuDict([[fswcuBytes('start_uris'), [fswcuBytes('http://127.0.0.1/')]]]);
const csum = (i: number): Uint8Array => {
  const b = new Uint8Array(16);
  new DataView(b.buffer).setUint32(0, i);
  b[15] = 0xa5;
  return b;
};

let ns: NatsServer;
let mw: Middleware;
let dir: string;
const children: ChildService[] = [];

async function server(id: string, extra: string[] = []): Promise<ChildService> {
  const svc = await ChildService.start({
    entry: ENTRY,
    args: ['--nats', ns.url, '--cluster', CLUSTER, '--id', id, '--data', join(dir, id), '--keepalive-ms', '60000', ...extra],
  });
  children.push(svc);
  return svc;
}

beforeAll(async () => {
  ns = await NatsServer.start({ jetstream: false });
  mw = await Middleware.connect({ name: 'dup-e2e', servers: ns.url });
  dir = mkdtempSync(join(tmpdir(), 'dup-e2e-'));
});
afterAll(async () => {
  for (const c of children) await c.kill();
  await mw?.close();
  await ns?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('duplicate server with a replica (separate processes, real nats-server)', () => {
  it('killed with SIGKILL after acknowledging adds: its replica holds every acknowledged checksum', async () => {
    const replica = await server('r1');
    const primary = await server('p1', ['--replica', 'r1']);
    const dup = await DuplicateServerClient.start(mw.bus, {
      self: { cluster: CLUSTER, role: 'ns', id: 'node1' },
      server: crawlAddress({ cluster: CLUSTER, role: 'dup', id: 'p1' }),
      node: 'node1',
      timeoutMs: 15_000,
    });
    await dup.setConfig('web', config);

    // while the replica is paused (SIGSTOP) nothing is acknowledged: answers wait for the replica
    replica.signal('SIGSTOP');
    let early = 0;
    const held = Promise.all(Array.from({ length: 50 }, (_, i) => dup.add('web', `http://127.0.0.1/held/${i}`, csum(100_000 + i)).then(() => early++)));
    await new Promise((r) => setTimeout(r, 700));
    expect(early).toBe(0);
    replica.signal('SIGCONT');
    await held;
    expect(early).toBe(50);

    // 64 adds in flight; the primary is killed once 1500 have been acknowledged, with more still in flight
    const acked: number[] = [];
    let next = 0;
    let killed = false;
    const TOTAL = 3000;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (!killed && next < TOTAL) {
          const i = next++;
          try {
            const { ownUri } = await dup.add('web', `http://127.0.0.1/p/${i}`, csum(i));
            expect(ownUri).toBe(`http://127.0.0.1/p/${i}`);
            acked.push(i);
            if (acked.length === 1500 && !killed) {
              killed = true;
              await primary.kill();
            }
          } catch {
            // in flight when the primary died: never acknowledged, so nothing is promised about it
          }
        }
      }),
    );
    await dup.stop();
    expect(acked.length).toBeGreaterThanOrEqual(1500);

    // the replica now serves as the duplicate server: every acknowledged checksum is owned by its first URI
    const failover = await DuplicateServerClient.start(mw.bus, {
      self: { cluster: CLUSTER, role: 'ns', id: 'node2' },
      server: crawlAddress({ cluster: CLUSTER, role: 'dup', id: 'r1' }),
      node: 'node2',
      timeoutMs: 30_000,
    });
    const owners = await Promise.all(acked.map((i) => failover.add('web', `http://127.0.0.1/other/${i}`, csum(i))));
    expect(owners.map((o) => o.ownUri)).toEqual(acked.map((i) => `http://127.0.0.1/p/${i}`));
    await failover.stop();

    // and on disk, after the replica stops: at least every acknowledged checksum (adds in flight may be there too)
    await replica.stop();
    const store = new SqliteChecksumStore(join(dir, 'r1'));
    try {
      for (const i of acked) expect(store.get('web', csum(i))).toEqual({ uri: `http://127.0.0.1/p/${i}`, node: 'node1' });
      expect(store.count('web')).toBeGreaterThanOrEqual(acked.length);
    } finally {
      store.close();
    }
  }, 90_000);

  it('the checksum store survives a SIGKILL and restart of a server without a replica', async () => {
    const solo = await server('s1');
    const client = await DuplicateServerClient.start(mw.bus, {
      self: { cluster: CLUSTER, role: 'ns', id: 'node3' },
      server: crawlAddress({ cluster: CLUSTER, role: 'dup', id: 's1' }),
      node: 'node3',
      timeoutMs: 30_000,
    });
    await client.setConfig('news', config);
    await Promise.all(Array.from({ length: 200 }, (_, i) => client.add('news', `http://127.0.0.1/n/${i}`, csum(i))));
    await solo.restart();
    // same checksums, other URIs: the owners from before the kill answer
    const owners = await Promise.all(Array.from({ length: 200 }, (_, i) => client.add('news', `http://127.0.0.1/x/${i}`, csum(i))));
    expect(owners.every((o, i) => o.ownUri === `http://127.0.0.1/n/${i}`)).toBe(true);
    expect(solo.logs.find((l) => l['msg'] === 'ready' && Array.isArray(l['collections']) && (l['collections'] as string[]).includes('news'))).toBeTruthy();
    await client.stop();
  }, 60_000);
});
