import type { Logger } from '@esp/logging';
import type { RawBus, RawMessage } from '@esp/middleware';
import { Packr } from 'msgpackr';
import { hashKey } from './artifact';
import { SsrBadRequest, SsrBusy, SsrError, SsrNotHome, SsrQuiescing, SsrUnavailable } from './errors';
import type { SsrNode } from './ssr-node';
import { ssrSubjects } from './subjects';

/**
 * The operations of an instance on the bus (esp.raw.ssr.<cluster>.op.<name>), for apps that keep their sessions in
 * SSR and for the chaos harness and bench:ssr. Request: msgpack [op, ...args]; reply [0, result] or
 * [1, code, message, data]: every request ends in exactly one of them.
 *
 *   ['put', id, body, { homeKey?, parentId?, nextFire? }] → { version }
 *   ['get', id, homeKey?]     → artifact | null
 *   ['remove', id, homeKey?]  → boolean
 *   ['census']                → [id, version, active 1|0, suspect 1|0, owner][]         ['stats'] → counters
 *
 * put / get / remove are served on the home instance only (SsrNotHome otherwise): creation and reactivation happen
 * on the home, which is what keeps the expat lists right (2.13).
 */
export const ssrCodec = new Packr({ useRecords: false, mapsAsObjects: true });

export interface NodeServiceOptions {
  /** Operations in progress beyond this answer busy (a bounded backlog). Default 2000. */
  maxInFlight?: number;
  log?: Logger;
}

export async function serveSsrNode(node: SsrNode, bus: RawBus, cluster: string, opts: NodeServiceOptions = {}): Promise<() => Promise<void>> {
  const max = opts.maxInFlight ?? 2000;
  let inFlight = 0;
  const answer = (m: RawMessage, v: unknown[]): void => {
    m.respond(ssrCodec.pack(v));
  };
  const fail = (m: RawMessage, err: unknown): void => {
    if (err instanceof SsrError) answer(m, [1, err.code, err.message, err instanceof SsrNotHome ? err.home : undefined]);
    else {
      opts.log?.error({ err }, 'ssr operation failed');
      answer(m, [1, 'internal', String(err)]);
    }
  };
  const homeCheck = (id: string, homeKey: unknown): void => {
    if (!node.ready) throw new SsrUnavailable(`${node.name} is not ready yet`);
    if (node.isQuiescing) throw new SsrQuiescing(`${node.name} is shutting down`);
    const home = node.homeOf(hashKey(typeof homeKey === 'string' ? homeKey : id));
    if (home !== node.name) throw new SsrNotHome(`${id} lives on ${home}`, home ?? '');
  };
  const run = async (req: unknown[]): Promise<unknown> => {
    const [op, id] = req;
    // compact rows: a census of 10,000 artifacts must stay far below the NATS payload limit
    if (op === 'census') return node.census().map((c) => [c.id, c.version, c.where === 'active' ? 1 : 0, c.suspect ? 1 : 0, c.owner]);
    if (op === 'stats') return node.stats();
    if (typeof id !== 'string' || id.length === 0 || id.length > 512) throw new SsrBadRequest('id must be a string of 1..512 characters');
    switch (op) {
      case 'put': {
        const body = req[2];
        const o = (req[3] ?? {}) as { homeKey?: string; parentId?: string; nextFire?: number | null };
        if (!(body instanceof Uint8Array)) throw new SsrBadRequest('put: body must be bytes');
        if (typeof o !== 'object') throw new SsrBadRequest('put: options must be a map');
        homeCheck(id, o.homeKey ?? o.parentId);
        const a = await node.put(id, body, o);
        return { version: a.version };
      }
      case 'get': {
        homeCheck(id, req[2]);
        return (await node.get(id)) ?? null;
      }
      case 'remove': {
        homeCheck(id, req[2]);
        return node.remove(id);
      }
      default:
        throw new SsrBadRequest(`unknown operation ${String(op)}`);
    }
  };
  return bus.subscribe(ssrSubjects(cluster).op(node.name), (m) => {
    let req: unknown;
    try {
      req = ssrCodec.unpack(m.data);
    } catch {
      return fail(m, new SsrBadRequest('undecodable request'));
    }
    if (!Array.isArray(req)) return fail(m, new SsrBadRequest('request must be an array'));
    if (inFlight >= max) return fail(m, new SsrBusy(`${node.name}: ${max} operations in progress`));
    inFlight++;
    run(req).then(
      (r) => answer(m, [0, r]),
      (err: unknown) => fail(m, err),
    ).finally(() => inFlight--);
  });
}
