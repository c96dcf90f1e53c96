/**
 * The FSCMT gateway: TCP peers that speak the original wire format (MS-FSCMT 2.1, 2.2.1) join the crawl cluster on
 * NATS, in both directions, frames unchanged.
 *
 * - `listen`: a TCP port standing for one cluster peer (say the multinode scheduler `mns/main`). Each accepted
 *   connection becomes a peer of its own on the bus (`tcp/<gateway id>.<n>`): what it sends goes to the target with
 *   that address as sender, and whatever is sent to that address is written to the connection. So a node scheduler
 *   with a socket talks to a native multinode scheduler as if it were one more node scheduler. What a TCP connection
 *   tells by itself travels as control messages (crawl-control.ts): when the connection closes the target hears
 *   `peer-gone` (a multinode scheduler drops the node at once, so the node can register again on a new connection),
 *   and when the target refuses the peer (`refused`) the gateway closes the connection with the reason.
 * - `connect`: an external TCP server (say a duplicate server `dup/ext1`) becomes a cluster peer. For each cluster
 *   peer that sends to it, the gateway opens one TCP connection to the server (one connection per peer pair, as
 *   2.1 asks) and passes answers back to that peer.
 *
 *   const gw = await startGateway(mw.bus, { cluster: 'default', id: 'gw1', listen: [{ host: '127.0.0.1', port: 0, target }] });
 *   gw.listeners[0].port; // where the external node scheduler connects
 */
import { createServer, connect as tcpConnect, type Server } from 'node:net';
import { crawlAddress, CrawlEndpoint, type CrawlPeer } from '@esp/crawl-bus';
import type { FscmtPriority } from '@esp/codecs';
import type { Logger } from '@esp/logging';
import type { RawBus } from '@esp/middleware';
import { PeerConnection } from './peer-connection';

export interface ListenSpec {
  host: string;
  port: number;
  target: CrawlPeer;
}

export interface ConnectSpec {
  host: string;
  port: number;
  /** The cluster address the external server takes. */
  as: CrawlPeer;
}

export interface GatewayOptions {
  cluster: string;
  id: string;
  listen?: ListenSpec[];
  connect?: ConnectSpec[];
  maxFrameBytes?: number;
  maxQueueBytes?: number;
  stallMs?: number;
  maxConnections?: number;
  log?: Logger;
}

export interface Gateway {
  readonly listeners: Array<{ host: string; port: number; target: string }>;
  /** Open TCP connections (accepted and outgoing). */
  readonly connections: number;
  stop(): Promise<void>;
}

export async function startGateway(bus: RawBus, opts: GatewayOptions): Promise<Gateway> {
  const log = opts.log;
  const limits = { maxFrameBytes: opts.maxFrameBytes, maxQueueBytes: opts.maxQueueBytes, stallMs: opts.stallMs, log };
  const maxConnections = opts.maxConnections ?? 1024;
  const open = new Set<PeerConnection>();
  const endpoints = new Set<CrawlEndpoint>();
  const servers: Server[] = [];
  const listeners: Gateway['listeners'] = [];
  let seq = 0;

  for (const spec of opts.listen ?? []) {
    const target = crawlAddress(spec.target);
    const server = createServer((socket) => {
      if (open.size >= maxConnections) {
        log?.warn({ peer: `${socket.remoteAddress}:${socket.remotePort}`, maxConnections }, 'refused a connection: too many open');
        socket.destroy();
        return;
      }
      const self: CrawlPeer = { cluster: opts.cluster, role: 'tcp', id: `${opts.id}.${++seq}` };
      let endpoint: CrawlEndpoint | undefined;
      const early: Uint8Array[] = [];
      const conn = new PeerConnection(socket, {
        ...limits,
        onFrame: (frame) => (endpoint ? endpoint.sendFrame(target, frame) : early.push(frame)),
        onClose: (reason) => {
          open.delete(conn);
          if (!endpoint) return;
          endpoint.sendControl(target, { kind: 'peer-gone', peer: endpoint.address, reason });
          void stopEndpoint(endpoint);
        },
      });
      open.add(conn);
      log?.info({ peer: conn.peer, as: crawlAddress(self), target }, 'peer connected');
      void CrawlEndpoint.start(bus, {
        self,
        log,
        maxFrameBytes: opts.maxFrameBytes,
        onControl: (msg) => {
          if (msg.kind === 'refused') conn.close(`refused by ${target}: ${msg.reason}`, 'warn');
        },
        onBatch: (batch) => {
          for (const m of batch) conn.send(m.frame, m.priority);
        },
      }).then(
        (ep) => {
          endpoints.add(ep);
          if (conn.isClosed) return void stopEndpoint(ep);
          endpoint = ep;
          for (const f of early.splice(0)) ep.sendFrame(target, f);
        },
        (err: Error) => conn.close(`cannot subscribe on NATS: ${err.message}`),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(spec.port, spec.host, () => resolve());
    });
    server.on('error', (err) => log?.error({ err: err.message }, 'listener error'));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : spec.port;
    servers.push(server);
    listeners.push({ host: spec.host, port, target });
  }

  for (const spec of opts.connect ?? []) {
    // one TCP connection to the external server per cluster peer that talks to it
    const conns = new Map<string, PeerConnection>();
    const link: { endpoint?: CrawlEndpoint } = {};
    const connFor = (peer: string): PeerConnection | undefined => {
      const existing = conns.get(peer);
      if (existing && !existing.isClosed) return existing;
      if (open.size >= maxConnections) {
        log?.warn({ server: `${spec.host}:${spec.port}`, for: peer }, 'no connection opened to the external server: too many open');
        return undefined;
      }
      const socket = tcpConnect(spec.port, spec.host);
      const conn = new PeerConnection(socket, {
        ...limits,
        onFrame: (frame) => link.endpoint?.sendFrame(peer, frame),
        onClose: () => {
          open.delete(conn);
          if (conns.get(peer) === conn) conns.delete(peer);
        },
      });
      open.add(conn);
      conns.set(peer, conn);
      log?.info({ server: `${spec.host}:${spec.port}`, as: crawlAddress(spec.as), for: peer }, 'connecting to an external peer');
      return conn;
    };
    const endpoint = await CrawlEndpoint.start(bus, {
      self: spec.as,
      log,
      maxFrameBytes: opts.maxFrameBytes,
      onBatch: (batch) => {
        for (const m of batch) {
          if (m.from === undefined) continue;
          connFor(m.from)?.send(m.frame, m.priority as FscmtPriority);
        }
      },
    });
    link.endpoint = endpoint;
    endpoints.add(endpoint);
  }

  async function stopEndpoint(ep: CrawlEndpoint): Promise<void> {
    endpoints.delete(ep);
    await ep.stop().catch(() => undefined);
  }

  return {
    listeners,
    get connections() {
      return open.size;
    },
    async stop() {
      for (const s of servers) s.close();
      for (const c of [...open]) c.close('gateway stopping', 'info');
      for (const ep of [...endpoints]) await stopEndpoint(ep);
    },
  };
}
