import { createServer, type Server, type Socket } from 'node:net';
import { buildFscmtDuplicateServerMessage, encodeFscmtFrame, FscmtFrameParser, FswcuDict, readFscmtDuplicateServerMessage } from '@esp/codecs';
import { crawlAddress, DuplicateServerClient } from '@esp/crawl-bus';
import { createLogger } from '@esp/logging';
import { Middleware } from '@esp/middleware';
import { NatsServer } from '@esp/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../src/gateway';

const CLUSTER = 'gwconnect';

/** An external duplicate server that speaks only TCP: every add is owned by the first URI, per connection seen. */
function externalDuplicateServer(): Promise<{ server: Server; port: number; sockets: Socket[] }> {
  const owners = new Map<string, string>();
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    const parser = new FscmtFrameParser((m) => {
      const msg = readFscmtDuplicateServerMessage(m.dict);
      if (msg.command === 'PPDUP_SET_CONFIG') socket.write(encodeFscmtFrame(buildFscmtDuplicateServerMessage({ command: 'PPDUP_CONFIG_ACK', vclock: msg.vclock }), 1));
      if (msg.command === 'PPDUP_ADD') {
        const key = Buffer.from(msg.csum).toString('hex');
        if (!owners.has(key)) owners.set(key, msg.uri);
        const reply = { command: 'PPDUP_ADD_OK' as const, dspecName: msg.dspecName, id: msg.id, uri: msg.uri, ownUri: owners.get(key) as string };
        socket.write(encodeFscmtFrame(buildFscmtDuplicateServerMessage(reply), m.priority));
      }
    });
    socket.on('data', (c) => parser.parse(c));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port, sockets })),
  );
}

let ns: NatsServer;
let mw: Middleware;
beforeAll(async () => {
  ns = await NatsServer.start({ jetstream: false });
  mw = await Middleware.connect({ name: 'gw-connect-test', servers: ns.url });
});
afterAll(async () => {
  await mw?.close();
  await ns?.cleanup();
});

describe('fscmt-gateway --connect', () => {
  it('an external TCP duplicate server serves native node schedulers, one TCP connection per node scheduler', async () => {
    const ext = await externalDuplicateServer();
    let gw: Gateway | undefined;
    const clients: DuplicateServerClient[] = [];
    try {
      gw = await startGateway(mw.bus, {
        cluster: CLUSTER,
        id: 'gw',
        connect: [{ host: '127.0.0.1', port: ext.port, as: { cluster: CLUSTER, role: 'dup', id: 'ext1' } }],
        log: createLogger('gw-connect-test'),
      });
      for (const node of ['n1', 'n2']) {
        clients.push(
          await DuplicateServerClient.start(mw.bus, {
            self: { cluster: CLUSTER, role: 'ns', id: node },
            server: crawlAddress({ cluster: CLUSTER, role: 'dup', id: 'ext1' }),
            node,
          }),
        );
      }
      const [a, b] = clients as [DuplicateServerClient, DuplicateServerClient];
      await a.setConfig('web', new FswcuDict());
      await b.setConfig('web', new FswcuDict());
      const sum = new Uint8Array(16).fill(7);
      expect(await a.add('web', 'http://127.0.0.1/a', sum)).toEqual({ ownUri: 'http://127.0.0.1/a' });
      expect(await b.add('web', 'http://127.0.0.1/b', sum)).toEqual({ ownUri: 'http://127.0.0.1/a' });
      await Promise.all(Array.from({ length: 100 }, (_, i) => a.add('web', `http://127.0.0.1/a/${i}`, new Uint8Array(16).fill(i + 10))));
      expect(ext.sockets.length).toBe(2);
      expect(gw.connections).toBe(2);
    } finally {
      for (const c of clients) await c.stop();
      await gw?.stop();
      ext.server.close();
      for (const s of ext.sockets) s.destroy();
    }
  });
});
