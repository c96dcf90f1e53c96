import type { Logger } from '@esp/logging';
import type { RawBus } from '@esp/middleware';
import { Packr } from 'msgpackr';
import { isSsrMessage, type SsrMessage } from './messages';
import { ssrSubjects, type SsrSubjects } from './subjects';
import type { SsrTransport } from './transport';

const packr = new Packr({ useRecords: false, mapsAsObjects: true });
/** Below the NATS default max_payload (1 MiB), with room for headers. */
const MAX_BYTES = 900_000;
const MAX_BATCH = 512;

/**
 * SSR messages on NATS core subjects (subjects.ts). Messages to the same subject within one turn of the event loop
 * travel as one NATS message (an array): replication of many small updates costs one publish, not one per update.
 * NATS keeps the order of one publisher's messages to one subscriber, which the acknowledgement counting needs.
 */
export class NatsSsrTransport implements SsrTransport {
  readonly subjects: SsrSubjects;
  private readonly queues = new Map<string, SsrMessage[]>();
  private scheduled = false;
  private unsubs: (() => Promise<void>)[] = [];
  dropped = 0;

  constructor(
    private readonly bus: RawBus,
    cluster: string,
    private readonly log?: Logger,
  ) {
    this.subjects = ssrSubjects(cluster);
  }

  async start(name: string, onMessage: (m: SsrMessage) => void): Promise<void> {
    const handler = (data: Uint8Array): void => {
      let v: unknown;
      try {
        v = packr.unpack(data);
      } catch (err) {
        this.dropped++;
        this.log?.warn({ err }, 'undecodable SSR message dropped');
        return;
      }
      if (!Array.isArray(v)) {
        this.dropped++;
        return;
      }
      for (const m of v) {
        if (isSsrMessage(m)) onMessage(m);
        else this.dropped++;
      }
    };
    this.unsubs.push(await this.bus.subscribe(this.subjects.to(name), (m) => handler(m.data)));
    this.unsubs.push(await this.bus.subscribe(this.subjects.all, (m) => handler(m.data)));
  }

  send(toName: string, m: SsrMessage): void {
    this.enqueue(this.subjects.to(toName), m);
  }

  broadcast(m: SsrMessage): void {
    this.enqueue(this.subjects.all, m);
  }

  async flush(): Promise<void> {
    this.drain();
    await this.bus.flush();
  }

  async close(): Promise<void> {
    try {
      await this.flush();
    } catch {
      /* connection already gone */
    }
    await Promise.all(this.unsubs.map((u) => u().catch(() => undefined)));
    this.unsubs = [];
  }

  private enqueue(subject: string, m: SsrMessage): void {
    let q = this.queues.get(subject);
    if (!q) this.queues.set(subject, (q = []));
    q.push(m);
    if (q.length >= MAX_BATCH) this.publish(subject, q.splice(0));
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }

  private drain(): void {
    this.scheduled = false;
    for (const [subject, q] of this.queues) if (q.length) this.publish(subject, q.splice(0));
  }

  private publish(subject: string, batch: SsrMessage[]): void {
    const bytes = packr.pack(batch);
    if (bytes.length > MAX_BYTES && batch.length > 1) {
      const half = batch.length >> 1;
      this.publish(subject, batch.slice(0, half));
      this.publish(subject, batch.slice(half));
      return;
    }
    if (bytes.length > MAX_BYTES) {
      this.log?.error({ subject, bytes: bytes.length }, 'SSR message above the NATS payload limit dropped');
      return;
    }
    try {
      this.bus.publish(subject, bytes);
    } catch (err) {
      this.log?.warn({ err, subject }, 'SSR publish failed');
    }
  }
}
