/**
 * The bridge: a ZeroMQ ROUTER backend whose peers are PPP workers, a ZeroMQ ROUTER frontend whose peers are
 * REQ / Lazy Pirate clients, and a PPP queue on NATS between them. Frames pass through unchanged:
 *   backend  [zmq identity, msg...]   ⇄ NATS backend [zmq-<hex identity>, msg...] / worker subject [msg...]
 *   frontend [zmq identity, empty, content...] → NATS request [empty, content...] → [identity, empty, content...]
 * Malformed messages are dropped and logged. Sends never wait on one peer (ROUTER drops what a peer can't take),
 * and every frontend request is its own NATS request, so a slow or silent peer stalls no one else.
 */
import type { Logger } from '@esp/logging';
import type { RawBus } from '@esp/middleware';
import { decodeFrames, encodeFrames, parsePppMessage, parseReply, parseRequest, pppSubjects, PppError } from '@esp/ppp';
import { Router } from 'zeromq';
import type { CurveKeyPair } from './curve-keys';
import { startZapHandler } from './zap-handler';

export interface GatewayOptions {
  service: string;
  frontend: string;
  backend: string;
  heartbeatMs: number;
  liveness: number;
  requestTimeoutMs: number;
  maxInflight: number;
  /** CURVE on both sockets (RFC 26): the gateway's key pair, and the client public keys admitted (all if none). */
  curve?: { keys: CurveKeyPair; clients?: Set<string> };
  log: Logger;
}

interface Peer {
  identity: Uint8Array;
  lastSeen: number;
  unsubscribe: Promise<() => Promise<void>>;
}

export interface Gateway {
  /** The endpoints actually bound (a tcp://host:* endpoint shows its port). */
  readonly frontend: string;
  readonly backend: string;
  readonly stats: { workers: number; inflight: number; dropped: number };
  stop(): Promise<void>;
}

/** Sends on one socket one at a time (a zeromq.js socket allows one send in flight). */
function sender(sock: Router, log: Logger): (frames: Uint8Array[]) => void {
  let chain = Promise.resolve();
  return (frames) => {
    chain = chain.then(() => sock.send(frames)).catch((err: Error) => log.warn({ err: err.message }, 'zeromq send failed'));
  };
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

export async function startGateway(bus: RawBus, opts: GatewayOptions): Promise<Gateway> {
  const { log } = opts;
  const subjects = pppSubjects(opts.service);
  const zap = opts.curve ? await startZapHandler(opts.curve.clients, log) : undefined;
  const curve = opts.curve ? { curveServer: true, curveSecretKey: opts.curve.keys.secretKey, zapDomain: 'ppp' } : {};
  const frontend = new Router(curve);
  const backend = new Router(curve);
  await frontend.bind(opts.frontend);
  await backend.bind(opts.backend);
  const toClient = sender(frontend, log);
  const toWorker = sender(backend, log);
  const peers = new Map<string, Peer>();
  const stats = { workers: 0, inflight: 0, dropped: 0 };
  const drop = (side: string, peer: Uint8Array | undefined, reason: string): void => {
    stats.dropped++;
    log.warn({ side, peer: peer ? hex(peer) : undefined, reason }, 'malformed message dropped');
  };

  const backendLoop = (async () => {
    for await (const [identity, ...frames] of backend) {
      if (!identity || frames.length === 0) continue;
      const msg = parsePppMessage(frames);
      if (msg.kind === 'malformed') {
        drop('backend', identity, msg.reason);
        continue;
      }
      const name = `zmq-${hex(identity)}`;
      try {
        await forward(name, identity, frames);
      } catch (err) {
        log.warn({ worker: name, err: (err as Error).message }, 'cannot forward a worker message to NATS');
      }
    }
  })();

  async function forward(name: string, identity: Uint8Array, frames: Uint8Array[]): Promise<void> {
    let peer = peers.get(name);
    if (!peer) {
      const id = Uint8Array.from(identity);
      peer = {
        identity: id,
        lastSeen: Date.now(),
        unsubscribe: bus.subscribe(subjects.worker(name), (m) => {
          try {
            toWorker([id, ...decodeFrames(m.data)]);
          } catch (err) {
            drop('nats', id, (err as Error).message);
          }
        }),
      };
      peers.set(name, peer);
      stats.workers = peers.size;
      try {
        await peer.unsubscribe; // subscribed before READY reaches the queue, so its first heartbeat finds us
      } catch (err) {
        peers.delete(name);
        throw err;
      }
      log.info({ worker: name }, 'zeromq worker connected');
    }
    peer.lastSeen = Date.now();
    bus.publish(subjects.backend, encodeFrames([new TextEncoder().encode(name), ...frames]));
  }

  const frontendLoop = (async () => {
    for await (const [identity, ...frames] of frontend) {
      if (!identity) continue;
      try {
        parseRequest(frames); // [empty, content...] as a REQ socket sends it
      } catch (err) {
        drop('frontend', identity, (err as Error).message);
        continue;
      }
      if (stats.inflight >= opts.maxInflight) {
        drop('frontend', identity, `more than ${opts.maxInflight} requests in flight`);
        continue;
      }
      stats.inflight++;
      const id = Uint8Array.from(identity);
      void bus
        .request(subjects.frontend, encodeFrames(frames), opts.requestTimeoutMs)
        .then((data) => {
          const reply = decodeFrames(data);
          parseReply(reply); // throws the queue's failure
          toClient([id, ...reply]);
        })
        .catch((err: Error) => {
          // the Lazy Pirate client times out and retries; we only log
          log.warn({ client: hex(id), err: err.message, code: err instanceof PppError ? err.code : undefined }, 'frontend request failed');
        })
        .finally(() => stats.inflight--);
    }
  })();

  // forget ZeroMQ workers silent for twice their liveness (the queue declared them dead long before)
  const sweep = setInterval(() => {
    const limit = Date.now() - 2 * opts.liveness * opts.heartbeatMs;
    for (const [name, p] of peers) {
      if (p.lastSeen >= limit) continue;
      peers.delete(name);
      void p.unsubscribe.then((u) => u()).catch(() => undefined);
      log.info({ worker: name }, 'zeromq worker gone');
    }
    stats.workers = peers.size;
  }, opts.heartbeatMs);
  sweep.unref();

  return {
    frontend: frontend.lastEndpoint ?? opts.frontend,
    backend: backend.lastEndpoint ?? opts.backend,
    stats,
    async stop() {
      clearInterval(sweep);
      frontend.close();
      backend.close();
      zap?.stop();
      await Promise.allSettled([backendLoop, frontendLoop]);
      await Promise.allSettled([...peers.values()].map((p) => p.unsubscribe.then((u) => u())));
      peers.clear();
    },
  };
}
