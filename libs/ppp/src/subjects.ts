/**
 * Every NATS subject of PPP, under esp.raw.ppp.<service>:
 *   .backend         workers → queue: [worker id, PPP message frames...]
 *   .worker.<id>     queue → one worker: [PPP message frames...]
 *   .frontend        client requests (NATS request/reply): [empty, content...] → [empty, content...] | FAIL
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
 * Item processors → their content distributor: [processor name, READY | HEARTBEAT], one subject per distributor node
 * (esp.raw.ppp.procserver-liveness.<nodeId>).
 */
export function livenessSubject(nodeId: number): string {
  return RawBus.subject('ppp', 'procserver-liveness', String(nodeId));
}
