import type { SsrMessage } from './messages';

/**
 * What an SSR instance needs from the network: a message to one instance (by name) and a message to all. The NATS
 * transport (nats-transport.ts) is the real one; unit tests use an in-memory network on a ManualClock.
 */
export interface SsrTransport {
  start(name: string, onMessage: (m: SsrMessage) => void): Promise<void>;
  send(toName: string, m: SsrMessage): void;
  broadcast(m: SsrMessage): void;
  /** Resolves when everything sent so far has left the process. */
  flush(): Promise<void>;
  close(): Promise<void>;
}
