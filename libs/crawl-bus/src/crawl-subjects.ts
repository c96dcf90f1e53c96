/**
 * Every NATS subject of the crawl cluster (MS-FSCMT peers), built and parsed here and nowhere else:
 *
 *   esp.raw.fscmt.<cluster>.<role>.<id>
 *
 * A subject is a peer's address: what a TCP connection's far end is in the original protocol. Messages carry the
 * sender's address as their NATS reply subject, so a receiver answers "on the same connection" by publishing there.
 * <cluster> keeps several crawl clusters (tests, benchmarks) apart on one NATS server.
 */
import { RawBus } from '@esp/middleware';

/** The roles of MS-FSCMT, plus `tcp` for peers that reach the cluster through the fscmt-gateway. */
export const CRAWL_ROLES = ['mns', 'ns', 'dup', 'tcp'] as const;
export type CrawlRole = (typeof CRAWL_ROLES)[number];

export interface CrawlPeer {
  cluster: string;
  role: CrawlRole;
  id: string;
}

export function crawlAddress(peer: CrawlPeer): string {
  return RawBus.subject('fscmt', peer.cluster, peer.role, peer.id);
}

const PREFIX = RawBus.subject('fscmt') + '.';

/** The peer a subject addresses, or undefined when it is not a crawl-cluster address. */
export function parseCrawlAddress(subject: string): CrawlPeer | undefined {
  if (!subject.startsWith(PREFIX)) return undefined;
  const parts = subject.slice(PREFIX.length).split('.');
  if (parts.length !== 3) return undefined;
  const [cluster, role, id] = parts.map(unescapeToken);
  if (cluster === undefined || id === undefined || !(CRAWL_ROLES as readonly string[]).includes(role ?? '')) return undefined;
  return { cluster, role: role as CrawlRole, id };
}

function unescapeToken(token: string): string {
  if (token === '%') return '';
  try {
    return decodeURIComponent(token);
  } catch {
    return token;
  }
}

/** "dup/dup1" -> { role: 'dup', id: 'dup1' } (command-line notation of a peer). */
export function parsePeerSpec(spec: string, cluster: string): CrawlPeer | string {
  const [, role = '', id = ''] = /^([a-z]+)\/(.+)$/.exec(spec) ?? [];
  if (!id || !(CRAWL_ROLES as readonly string[]).includes(role)) {
    return `a peer is <role>/<id> with role one of ${CRAWL_ROLES.join(', ')}, got "${spec}"`;
  }
  return { cluster, role: role as CrawlRole, id };
}
