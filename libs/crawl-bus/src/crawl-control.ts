/**
 * Transport events of the crawl cluster that a TCP connection tells by itself and NATS does not: a peer reached
 * through the fscmt-gateway disconnected (its target must forget it), or a peer refused a connection (the gateway
 * must close it). They travel beside the FSCMT frames on `<address>.ctl` as small JSON objects, so no FSCMT
 * message is invented for them.
 *
 *   ep.sendControl(target, { kind: 'peer-gone', peer: ep.address, reason: 'peer closed the connection' });
 *   ep.sendControl(tcpPeer, { kind: 'refused', reason: 'node id n1 is already registered' });
 */
export type CrawlControl = { kind: 'peer-gone'; peer: string; reason: string } | { kind: 'refused'; reason: string };

export function crawlControlSubject(address: string): string {
  return `${address}.ctl`;
}

export function encodeCrawlControl(msg: CrawlControl): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(msg));
}

/** The control message, or undefined for anything else (a bad one is dropped: it cannot be answered). */
export function decodeCrawlControl(data: Uint8Array): CrawlControl | undefined {
  let v: unknown;
  try {
    v = JSON.parse(new TextDecoder().decode(data));
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const reason = typeof o['reason'] === 'string' ? o['reason'] : '';
  if (o['kind'] === 'peer-gone' && typeof o['peer'] === 'string') return { kind: 'peer-gone', peer: o['peer'], reason };
  if (o['kind'] === 'refused') return { kind: 'refused', reason };
  return undefined;
}
