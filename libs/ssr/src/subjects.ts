/**
 * Every NATS subject of SSR, under esp.raw.ssr.<cluster>:
 *   .all          heartbeats and load-request broadcasts (every instance, and observing clients)
 *   .to.<name>    messages to one instance (replication, acks, load answers, expat lists, advisories, repair)
 *   .op.<name>    the operations an app serves on an instance (node-service.ts): request/reply
 *   .events       what instances report to observers (timer firings)
 */
import { RawBus } from '@esp/middleware';

export interface SsrSubjects {
  all: string;
  to: (name: string) => string;
  op: (name: string) => string;
  events: string;
}

export function ssrSubjects(cluster: string): SsrSubjects {
  return {
    all: RawBus.subject('ssr', cluster, 'all'),
    to: (name) => RawBus.subject('ssr', cluster, 'to', name),
    op: (name) => RawBus.subject('ssr', cluster, 'op', name),
    events: RawBus.subject('ssr', cluster, 'events'),
  };
}
