import type { Clock } from '@esp/timers';
import type { SsrMessage } from './messages';
import type { SsrTransport } from './transport';

/**
 * An in-memory network for unit tests of the replication state machine: messages are delivered by the test's
 * ManualClock after `latencyMs`, in order per sender; an instance can be cut off (a crash as seen from outside).
 * Not a claim that the protocol works on NATS: the integration tests do that.
 */
export class MemoryNetwork {
  private readonly handlers = new Map<string, (m: SsrMessage) => void>();
  readonly down = new Set<string>();
  delivered = 0;
  /** A test's message filter: true drops the message (a stalled or slow link), as a slow consumer would. */
  drop: ((from: string, to: string, m: SsrMessage) => boolean) | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly latencyMs = 1,
  ) {}

  transport(): SsrTransport {
    let self = '';
    return {
      start: async (name, onMessage) => {
        self = name;
        this.down.delete(name);
        this.handlers.set(name, onMessage);
      },
      send: (to, m) => this.deliver(self, to, m),
      broadcast: (m) => {
        for (const to of this.handlers.keys()) if (to !== self) this.deliver(self, to, m);
      },
      // delivery is the clock's business: nothing is buffered here
      flush: () => Promise.resolve(),
      close: async () => {
        this.handlers.delete(self);
      },
    };
  }

  /** The instance stops sending and receiving (kill -9 as seen by the others). */
  cut(name: string): void {
    this.down.add(name);
    this.handlers.delete(name);
  }

  private deliver(from: string, to: string, m: SsrMessage): void {
    if (this.down.has(from) || this.drop?.(from, to, m)) return;
    // structured clone: no instance may share an object with another
    const copy = structuredClone(m);
    this.clock.setTimeout(() => {
      if (this.down.has(to) || this.down.has(from)) return;
      this.delivered++;
      this.handlers.get(to)?.(copy);
    }, this.latencyMs);
  }
}
