/**
 * Every NATS subject of PPP, under esp.raw.ppp.<service>:
 *   .backend         workers → queue: [worker id, PPP message frames...]
 *   .worker.<id>     queue → one worker: [PPP message frames...]
 *   .frontend        client requests (NATS request/reply): [empty, content...] → [empty, content...] | FAIL
 *   .client.<id>.<n> the answer to attempt n of client <id> (the request's reply subject)
 */
import { RawBus } from '@esp/middleware';

export function pppSubjects(service: string): { backend: string; frontend: string; worker: (id: string) => string } {
  return {
    backend: RawBus.subject('ppp', service, 'backend'),
    frontend: RawBus.subject('ppp', service, 'frontend'),
    worker: (id: string) => RawBus.subject('ppp', service, 'worker', id),
  };
}

/**
 * One client's reply subjects: `all` (subscribed once, `.*`) and `reply(n)` for its attempt n; `attempt(subject)` reads
 * n back (NaN for anything else).
 */
export function pppClientInbox(
  service: string,
  client: string,
): { all: string; reply: (n: number) => string; attempt: (subject: string) => number } {
  const prefix = `${RawBus.subject('ppp', service, 'client', client)}.`;
  return {
    all: `${prefix}*`,
    reply: (n: number) => prefix + n,
    attempt: (subject: string) => (subject.startsWith(prefix) ? Number(subject.slice(prefix.length)) : NaN),
  };
}

/**
 * Item processors → their content distributor: [processor name, READY | HEARTBEAT], one subject per distributor node
 * (esp.raw.ppp.procserver-liveness.<nodeId>).
 */
export function livenessSubject(nodeId: number): string {
  return RawBus.subject('ppp', 'procserver-liveness', String(nodeId));
}
